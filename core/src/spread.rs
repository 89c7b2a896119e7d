//! Read spreading for hot keys: the pieces every surface shares, so that a Python web server and
//! a Node one reading the same hot key pick copies the same way.
//!
//! Two ways to spread the reads of one hot key over `r` nodes:
//!
//! - **Replicas** ([`Router::spread`](crate::Router::spread)): the cache keeps each key on its
//!   first `r` replicas; a read goes to one of them, writes go to the owner and must invalidate
//!   (or update) all `r` copies, or a reader may see a stale copy until it expires.
//! - **Split keys** ([`split_key`]): a cache with no replication stores the value under `r`
//!   derived keys `key#1 … key#r`, each routed on its own, so they land on different nodes
//!   (usually: two may share one). A writer writes all `r`; a reader reads one.
//!
//! Either way a reader picks a copy with a *selector*: [`client_selector`] of a client id gives
//! each client a stable copy (so its reads are repeatable and its own writes visible in
//! order), and a random 64-bit number spreads a single client's reads too.

use alloc::vec::Vec;

use crate::budget::try_with_capacity;
use crate::error::{Error, Result};
use crate::hash;

/// The stable selector of a client id: XXH3-64 of its bytes, the same in every language.
///
/// ```
/// let a = keyroute::spread::client_selector(b"web-1");
/// assert_eq!(a, keyroute::spread::client_selector(b"web-1"));
/// ```
#[must_use]
pub fn client_selector(client: &[u8]) -> u64 {
    hash::xxh3_64(client)
}

/// The `index`-th (1-based, `1..=r`) derived key of a hot key split into copies: `key#index`
/// (the index in decimal ASCII).
///
/// ```
/// assert_eq!(keyroute::spread::split_key(b"hot", 2)?, b"hot#2");
/// # Ok::<(), keyroute::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] when `index` is 0; [`Error::OutOfMemory`].
pub fn split_key(key: &[u8], index: usize) -> Result<Vec<u8>> {
    if index == 0 {
        return Err(Error::InvalidParameter("split-key copies are numbered from 1"));
    }
    let mut digits = [0u8; 20];
    let mut n = index;
    let mut start = digits.len();
    while n > 0 {
        start -= 1;
        if let Some(d) = digits.get_mut(start) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
    }
    let suffix = digits.get(start..).unwrap_or_default();
    let mut out = try_with_capacity(key.len().saturating_add(1 + suffix.len()))?;
    out.extend_from_slice(key);
    out.push(b'#');
    out.extend_from_slice(suffix);
    Ok(out)
}

/// Which of a split key's `r` copies a reader with `selector` reads: `selector mod r + 1`, the
/// index to give [`split_key`].
///
/// # Errors
/// [`Error::InvalidParameter`] when `r` is 0.
pub fn split_index(r: usize, selector: u64) -> Result<usize> {
    if r == 0 {
        return Err(Error::InvalidParameter("split a key into at least one copy"));
    }
    // `r` fits in u64 on every target; the remainder is below `r`, so it fits back in usize.
    Ok((selector % r as u64) as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keys_are_numbered_in_decimal() {
        assert_eq!(split_key(b"k", 1).unwrap(), b"k#1");
        assert_eq!(split_key(b"", 10).unwrap(), b"#10");
        assert_eq!(split_key(b"a#b", usize::MAX).unwrap(), alloc::format!("a#b#{}", usize::MAX).as_bytes());
        assert_eq!(split_key(b"k", 0), Err(Error::InvalidParameter("split-key copies are numbered from 1")));
    }

    #[test]
    fn split_index_covers_every_copy() {
        assert!(split_index(0, 7).is_err());
        let mut seen = [false; 5];
        for s in 0..50u64 {
            let i = split_index(5, s).unwrap();
            assert!((1..=5).contains(&i));
            seen[i - 1] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(split_index(3, u64::MAX).unwrap(), (u64::MAX % 3) as usize + 1);
    }

    #[test]
    fn the_selector_is_xxh3() {
        assert_eq!(client_selector(b""), 0x2d06_8005_38d3_94c2);
    }
}
