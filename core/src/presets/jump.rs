//! Jump consistent hash on a caller-given 64-bit key (PyPI `jump-consistent-hash`).

use crate::{Jump, JumpKey, JumpVariant, Result, Router, Topology};

/// The paper's jump hash (Lamping & Veach, the C++ of arXiv:1406.2294) over the topology's
/// nodes as buckets `0..n`: each key is exactly 8 bytes, the big-endian `u64` the peer is given
/// (`jump.hash(key, buckets)` of PyPI `jump-consistent-hash` 3.x, whose C extension runs the
/// paper's code; Python integers are taken mod 2^64 there, so -1 is `0xffff…ff`).
///
/// # Errors
/// [`crate::Error::WeightsUnsupported`] when the weights differ. Routing a key that is not 8
/// bytes gives [`crate::Error::InvalidKey`]; replicas are unsupported.
pub fn jump(topology: Topology) -> Result<Router> {
    Ok(Router::Jump(Jump::with(topology, JumpKey::U64Be, JumpVariant::Paper)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_values() {
        let r = jump(Topology::uniform("b", 11).unwrap()).unwrap();
        for (key, want) in
            [(10_863_919_174_838_991u64, 6), (2_016_238_256_797_177_309, 3), (1_673_758_223_894_951_030, 5)]
        {
            assert_eq!(r.route(&key.to_be_bytes()).unwrap(), want);
        }
    }
}
