//! Guava `Hashing.consistentHash`.

use crate::{Jump, JumpKey, JumpVariant, KeyHash, Result, Router, Topology};

/// What Guava's `consistentHash` is given for a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum GuavaKey {
    /// `consistentHash(long input, buckets)`: the key is exactly 8 bytes, the big-endian bit
    /// pattern of the `long`.
    #[cfg_attr(feature = "serde", serde(rename = "u64be"))]
    U64Be,
    /// `consistentHash(Hashing.murmur3_128().hashBytes(key), buckets)`, i.e. `padToLong()` =
    /// the first 8 bytes of MurmurHash3_x64_128 (seed 0) read little-endian. For text this is
    /// `hashString(key, UTF_8)`: murmur3_128 has no surrogate-pair bug (unlike the deprecated
    /// `murmur3_32`), so the two agree on every string.
    #[default]
    Murmur3_128,
}

/// Guava `Hashing.consistentHash` over the topology's nodes as buckets `0..n`, in order.
///
/// Reproduces Guava's own arithmetic (one double division per step, Java's saturating `(int)`
/// cast), not the paper's; the two were not seen to differ, but Guava's is what is pinned.
/// Nodes cannot be weighted, and buckets can only be added or removed at the end.
///
/// # Errors
/// [`crate::Error::WeightsUnsupported`] when the weights differ. Routing a [`GuavaKey::U64Be`]
/// key that is not 8 bytes gives [`crate::Error::InvalidKey`]; replicas are unsupported.
pub fn guava(topology: Topology, key: GuavaKey) -> Result<Router> {
    let key = match key {
        GuavaKey::U64Be => JumpKey::U64Be,
        GuavaKey::Murmur3_128 => JumpKey::Hash(KeyHash::Murmur3_128),
    };
    Ok(Router::Jump(Jump::with(topology, key, JumpVariant::Guava)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_values() {
        let r = guava(Topology::uniform("b", 100).unwrap(), GuavaKey::U64Be).unwrap();
        let want = [0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83];
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(r.route(&(i as u64).to_be_bytes()).unwrap(), w);
        }
        assert!(r.route(b"short").is_err());
    }
}
