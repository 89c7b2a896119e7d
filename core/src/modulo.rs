//! `hash(key) mod n`: the baseline every comparison shows. Nearly every key moves when `n`
//! changes (about `n/(n+1)` of them), which is the failure consistent hashing exists to avoid.

use crate::{Error, Result, Topology, hash};

/// Modulo routing over XXH3 of the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modulo {
    topology: Topology,
}

impl Modulo {
    /// Builds the baseline router.
    ///
    /// # Errors
    /// [`Error::WeightsUnsupported`] when the nodes' weights differ.
    pub fn new(topology: Topology) -> Result<Self> {
        if !topology.is_uniform() {
            return Err(Error::WeightsUnsupported);
        }
        Ok(Self { topology })
    }

    /// The owner of `key`: `xxh3_64(key) % n`.
    #[inline]
    #[must_use]
    pub fn route(&self, key: &[u8]) -> u32 {
        self.route_hash(hash::xxh3_64(key))
    }

    /// The owner of a hashed key.
    #[inline]
    #[must_use]
    pub fn route_hash(&self, h: u64) -> u32 {
        (h % self.topology.len() as u64) as u32
    }

    /// The topology.
    #[must_use]
    pub fn topology(&self) -> &Topology {
        &self.topology
    }
}
