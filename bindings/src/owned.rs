//! Results as owned vectors, for surfaces that hand back lists (Python, Node, WebAssembly)
//! rather than fill a caller's buffer as the C ABI does.

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
}
