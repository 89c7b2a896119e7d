//! Routing by a precomputed 64-bit key hash, for callers that already hold one number per key
//! (a column of `u64` hashes, a numpy array) or route 64-bit integers directly (jump over
//! `u64be` keys). Which algorithms define it, and on which hash, is the core's decision
//! ([`keyroute::Router::key_hasher`]); this forwards with the bindings' errors. For every key,
//! `route(key) == route_hash(key_hash(key))`.

use crate::{Error, Result, Router};

impl Router {
    /// The 64-bit number this router routes `key` on (see [`keyroute::Router::key_hash`]).
    ///
    /// # Errors
    /// `route_hash_unsupported` for algorithms that do not route on one 64-bit hash
    /// (rendezvous, multi-probe, slots, and presets that check or rewrite keys first);
    /// `invalid_key` for a key the algorithm cannot take.
    pub fn key_hash(&self, key: &[u8]) -> Result<u64> {
        self.key_hasher()?.hash(key)
    }

    /// [`Router::key_hash`] resolved once, for hashing many keys without dispatching on the
    /// algorithm for each.
    ///
    /// # Errors
    /// `route_hash_unsupported` as [`Router::key_hash`].
    pub fn key_hasher(&self) -> Result<KeyHasher<'_>> {
        Ok(KeyHasher(self.core().key_hasher()?))
    }

    /// The owner of any key whose [`Router::key_hash`] is `hash` (a node index).
    ///
    /// # Errors
    /// `route_hash_unsupported` as [`Router::key_hash`].
    pub fn route_hash(&self, hash: u64) -> Result<u32> {
        Ok(self.core().route_hash(hash)?)
    }

    /// Routes every hash of `hashes` into `out[..hashes.len()]`, allocating nothing.
    ///
    /// # Errors
    /// `route_hash_unsupported` as [`Router::key_hash`]; `buffer_too_small` when `out` is
    /// shorter than `hashes` (nothing is written then).
    pub fn route_hash_batch(&self, hashes: &[u64], out: &mut [u32]) -> Result<()> {
        Ok(self.core().route_hash_batch(hashes, out)?)
    }
}

/// A router's key hash ([`Router::key_hasher`]): `hash(key) == router.key_hash(key)`.
#[derive(Debug, Clone, Copy)]
pub struct KeyHasher<'a>(keyroute::KeyHasher<'a>);

impl KeyHasher<'_> {
    /// The 64-bit number the router routes `key` on.
    ///
    /// # Errors
    /// `invalid_key` for a key the algorithm cannot take (a `u64be` jump key that is not 8
    /// bytes).
    #[inline]
    pub fn hash(&self, key: &[u8]) -> Result<u64> {
        self.0.hash(key).map_err(Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn router(algorithm: &str, params: &str) -> Router {
        let nodes = r#"[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"}]"#;
        Router::from_json(&format!(r#"{{"algorithm":"{algorithm}","params":{params},"nodes":{nodes}}}"#)).unwrap()
    }

    #[test]
    fn routing_the_key_hash_routes_the_key() {
        for (algorithm, params) in [
            ("ring", "{}"),
            ("ring", r#"{"points_per_weight":7}"#),
            ("jump", "{}"),
            ("maglev", r#"{"table_size":251}"#),
            ("modulo", "{}"),
            // A peer ring: 32-bit points and the strict (`>`) lookup rule.
            ("python-hash-ring", "{}"),
        ] {
            let r = router(algorithm, params);
            let keys: Vec<Vec<u8>> = (0..2000u32).map(|i| format!("key-{i}").into_bytes()).collect();
            let hashes: Vec<u64> = keys.iter().map(|k| r.key_hash(k).unwrap()).collect();
            let mut batch = vec![0u32; hashes.len()];
            r.route_hash_batch(&hashes, &mut batch).unwrap();
            for ((k, &h), &b) in keys.iter().zip(&hashes).zip(&batch) {
                let want = r.route(k).unwrap();
                assert_eq!(r.route_hash(h).unwrap(), want, "{algorithm} {params}");
                assert_eq!(b, want, "{algorithm} {params} batch");
            }
        }
    }

    #[test]
    fn jump_over_u64be_keys_routes_the_integer() {
        let r = router("jump", r#"{"key_hash":"u64be"}"#);
        for x in [0u64, 1, 42, u64::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(r.key_hash(&x.to_be_bytes()).unwrap(), x);
            assert_eq!(r.route_hash(x).unwrap(), r.route(&x.to_be_bytes()).unwrap());
        }
        assert_eq!(r.key_hash(b"short").unwrap_err().code(), ErrorCode::InvalidKey);
    }

    #[test]
    fn algorithms_without_one_key_hash_refuse() {
        for (algorithm, params) in [("rendezvous", "{}"), ("multi-probe", "{}"), ("slots", "{}")] {
            let r = router(algorithm, params);
            assert_eq!(r.route_hash(1).unwrap_err().code(), ErrorCode::RouteHashUnsupported, "{algorithm}");
            assert_eq!(r.key_hash(b"k").unwrap_err().code(), ErrorCode::RouteHashUnsupported, "{algorithm}");
            let mut out = [0u32; 1];
            assert_eq!(r.route_hash_batch(&[1], &mut out).unwrap_err().code(), ErrorCode::RouteHashUnsupported);
        }
        let r = router("ring", "{}");
        assert_eq!(r.route_hash_batch(&[1, 2], &mut [0u32; 1]).unwrap_err().code(), ErrorCode::BufferTooSmall);
    }
}
