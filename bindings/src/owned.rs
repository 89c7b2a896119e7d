//! Results as owned vectors, for surfaces that hand back lists (Python, Node, WebAssembly)
//! rather than fill a caller's buffer as the C ABI does, and batches of keys packed into one
//! buffer (how those surfaces hand many keys over without a slice per key).

use crate::{Error, ErrorCode, Result, Router};

impl Router {
    /// [`Router::replicas`] into a new vector of `n` node indices. A count above the number of
    /// nodes is refused before anything is allocated, so a huge `n` from a caller costs nothing.
    ///
    /// # Errors
    /// As [`Router::replicas`].
    pub fn replica_list(&self, key: &[u8], n: usize) -> Result<Vec<u32>> {
        if n > self.len() {
            return Err(Error::new(
                ErrorCode::ReplicasExceedNodes,
                format!("{n} replicas requested but the topology has only {} nodes", self.len()),
            ));
        }
        let mut out = vec![0u32; n];
        self.replicas(key, &mut out)?;
        Ok(out)
    }
}

/// Keys are routed through the core's batch path in chunks of this many: the table of slices
/// stays small and hot instead of growing with the batch.
const PACKED_CHUNK: usize = 1024;

impl Router {
    /// Routes keys packed into one buffer: key `i` is `data[offsets[i]..offsets[i + 1]]`, so
    /// `offsets` holds one more entry than there are keys (a first 0 and a last `data.len()`
    /// are not required). Owners go to `out[..offsets.len() - 1]`. Allocates nothing.
    ///
    /// # Errors
    /// `buffer_too_small` when `out` is shorter than the keys; `invalid_parameter` for offsets
    /// that decrease or pass the end of `data`, with the key's position; a refused key's error
    /// with its position ([`Error::key_index`]).
    pub fn route_packed<O: Copy + TryInto<usize>>(&self, data: &[u8], offsets: &[O], out: &mut [u32]) -> Result<()> {
        let count = offsets.len().saturating_sub(1);
        let out = out
            .get_mut(..count)
            .ok_or_else(|| Error::new(ErrorCode::BufferTooSmall, "the output is shorter than the keys"))?;
        let bound = |i: usize| offsets.get(i).and_then(|&o| o.try_into().ok()).unwrap_or(usize::MAX);
        let mut slices: [&[u8]; PACKED_CHUNK] = [&[]; PACKED_CHUNK];
        for (c, chunk) in out.chunks_mut(PACKED_CHUNK).enumerate() {
            let first = c * PACKED_CHUNK;
            for (j, slot) in slices.iter_mut().take(chunk.len()).enumerate() {
                let i = first + j;
                *slot = data.get(bound(i)..bound(i + 1)).ok_or_else(|| {
                    Error::new(ErrorCode::InvalidParameter, "key offsets decrease or pass the end of the data")
                        .at_key(i)
                })?;
            }
            let keys = slices.get(..chunk.len()).unwrap_or_default();
            let routed: Result<()> = self.core().route_slices(keys, chunk).map_err(Error::from);
            routed.map_err(|e| match e.key_index() {
                Some(k) => Error::new(e.code(), e.message()).at_key(first + k),
                None => e,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_lists_match_the_buffer_form_and_refuse_huge_counts() {
        let r = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).unwrap();
        let mut out = [0u32; 3];
        r.replicas(b"k", &mut out).unwrap();
        assert_eq!(r.replica_list(b"k", 3).unwrap(), out);
        assert_eq!(r.replica_list(b"k", 0).unwrap(), Vec::<u32>::new());
        for n in [4, usize::MAX] {
            assert_eq!(r.replica_list(b"k", n).unwrap_err().code(), ErrorCode::ReplicasExceedNodes);
        }
    }

    #[test]
    fn packed_keys_route_like_single_keys_and_errors_name_the_key() {
        let r = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).unwrap();
        let keys: Vec<String> = (0..2500).map(|i| format!("key-{i}")).collect();
        let mut data = Vec::new();
        let mut offsets = vec![0u32];
        for k in &keys {
            data.extend_from_slice(k.as_bytes());
            offsets.push(data.len() as u32);
        }
        let mut out = vec![0u32; keys.len()];
        r.route_packed(&data, &offsets, &mut out).unwrap();
        for (k, &o) in keys.iter().zip(&out) {
            assert_eq!(r.route(k.as_bytes()).unwrap(), o);
        }
        let mut bad = offsets.clone();
        bad[1500] = u32::MAX;
        let e = r.route_packed(&data, &bad, &mut out).unwrap_err();
        assert_eq!((e.code(), e.key_index()), (ErrorCode::InvalidParameter, Some(1499)));
        assert_eq!(r.route_packed(&data, &offsets, &mut out[..10]).unwrap_err().code(), ErrorCode::BufferTooSmall);
        r.route_packed::<u32>(&[], &[], &mut []).unwrap();
        let u64be =
            Router::from_json(r#"{"algorithm":"jump","params":{"key_hash":"u64be"},"nodes":[{"id":"a"}]}"#).unwrap();
        let e = u64be
            .route_packed(
                &[0u8; 8 * 1100 + 3],
                &(0..=1101).map(|i| (i * 8).min(8803)).collect::<Vec<usize>>(),
                &mut vec![0; 1101],
            )
            .unwrap_err();
        assert_eq!((e.code(), e.key_index()), (ErrorCode::InvalidKey, Some(1100)));
    }
}
