//! Read spreading for hot keys, the parts every surface shares: the selector a client id
//! stands for, and the derived keys a hot key is split into when the cache keeps no replicas.
//!
//! [`Router::spread`](crate::Router::spread) reads one of a key's first `r` replicas, the
//! `selector mod r`-th; a client that passes [`client_selector`] of its own id reads the same
//! copy every time. Caches without replicas spread a hot key over `r` derived keys instead,
//! [`split_keys`] (`key#1` … `key#r`), each routed on its own; a reader takes
//! [`split_key`] of its selector. Writes must reach every copy either way.

use crate::{Error, ErrorCode, Result};

/// Most derived keys a hot key is split into (every write goes to each of them).
pub const MAX_SPLIT: usize = 1024;

/// The selector a client id stands for: the core's [`keyroute::spread::client_selector`]
/// (XXH3-64 of its bytes), so the same client reads the same copy in every language.
#[must_use]
pub fn client_selector(client: &[u8]) -> u64 {
    keyroute::spread::client_selector(client)
}

/// The `r` derived keys a hot key is written under: `key#1` … `key#r` (the key's bytes, `#`,
/// the copy's number in decimal; [`keyroute::spread::split_key`]).
///
/// # Errors
/// `invalid_parameter` for `r` outside 1..=[`MAX_SPLIT`]; `out_of_memory`.
pub fn split_keys(key: &[u8], r: usize) -> Result<Vec<Vec<u8>>> {
    check_split(r)?;
    let mut keys = Vec::new();
    keys.try_reserve_exact(r).map_err(|_| Error::from(keyroute::Error::OutOfMemory))?;
    for i in 1..=r {
        keys.push(keyroute::spread::split_key(key, i)?);
    }
    Ok(keys)
}

/// The derived key a reader with `selector` reads a split hot key from: the
/// `selector mod r`-th of [`split_keys`]`(key, r)` ([`keyroute::spread::split_index`]).
///
/// # Errors
/// As [`split_keys`].
pub fn split_key(key: &[u8], r: usize, selector: u64) -> Result<Vec<u8>> {
    check_split(r)?;
    Ok(keyroute::spread::split_key(key, keyroute::spread::split_index(r, selector)?)?)
}

fn check_split(r: usize) -> Result<()> {
    if r == 0 || r > MAX_SPLIT {
        return Err(Error::new(
            ErrorCode::InvalidParameter,
            format!("split a key into 1 to {MAX_SPLIT} copies, not {r}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_keys_and_selectors() {
        assert_eq!(split_keys(b"hot", 3).unwrap(), [b"hot#1".to_vec(), b"hot#2".to_vec(), b"hot#3".to_vec()]);
        assert_eq!(split_keys("ключ".as_bytes(), 1).unwrap(), ["ключ#1".as_bytes().to_vec()]);
        assert_eq!(split_keys(b"k", 12).unwrap()[11], b"k#12");
        // XXH3-64 of b"web-1" and the reader it picks among three copies.
        assert_eq!(client_selector(b"web-1"), 0xCE3F_0550_DC4E_B434);
        assert_eq!(
            split_key(b"hot", 3, client_selector(b"web-1")).unwrap(),
            format!("hot#{}", 0xCE3F_0550_DC4E_B434u64 % 3 + 1).into_bytes()
        );
        for (selector, want) in [(0, b"hot#1"), (1, b"hot#2"), (5, b"hot#3"), (u64::MAX, b"hot#1")] {
            assert_eq!(split_key(b"hot", 3, selector).unwrap(), want, "selector {selector}");
        }
        for bad in [0, MAX_SPLIT + 1] {
            assert_eq!(split_keys(b"hot", bad).unwrap_err().code(), ErrorCode::InvalidParameter);
            assert_eq!(split_key(b"hot", bad, 0).unwrap_err().code(), ErrorCode::InvalidParameter);
        }
    }
}
