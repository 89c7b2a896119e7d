//! How much work building a router may take.
//!
//! A topology carries a [`Budget`]; every constructor checks what it is about to build against
//! it before allocating anything, so a small spec cannot ask for gigabytes or minutes (a peer
//! preset with 33 million virtual nodes, a Maglev table of 67 million entries). The core's own
//! default is its hard ceiling ([`Budget::MAX`]); `keyroute-bindings`, which parses specs that
//! arrive from config systems, sets a much smaller one by default.

use alloc::vec::Vec;

use crate::{Error, MAX_POINTS, MAX_TABLE_SIZE, Result};

/// Limits on the work of building a router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Most ring points, over all nodes and weights (every ring-based algorithm and preset).
    pub points: u64,
    /// Most bytes hashed to place those points (points × the length of each point's name), so a
    /// long node id cannot multiply the work of an allowed number of points.
    pub hashed_bytes: u64,
    /// Most entries of a lookup table (Maglev's table, a slot table).
    pub table_entries: u64,
}

impl Budget {
    /// The core's hard ceiling: [`MAX_POINTS`] points, [`MAX_TABLE_SIZE`] table entries, and
    /// point names of up to 4 KiB each.
    pub const MAX: Budget = Budget {
        points: MAX_POINTS as u64,
        hashed_bytes: MAX_POINTS as u64 * 4200,
        table_entries: MAX_TABLE_SIZE as u64,
    };

    /// Checks a table of `entries` against the budget.
    ///
    /// # Errors
    /// [`Error::TableSizeOutOfRange`] past [`Budget::table_entries`].
    pub fn check_table(&self, entries: u64) -> Result<()> {
        if entries > self.table_entries { Err(Error::TableSizeOutOfRange) } else { Ok(()) }
    }

    /// Checks a ring of `points` points whose names total `hashed_bytes` bytes.
    ///
    /// # Errors
    /// [`Error::TooManyPoints`] past either limit.
    pub fn check_points(&self, points: u64, hashed_bytes: u64) -> Result<()> {
        if points > self.points || hashed_bytes > self.hashed_bytes { Err(Error::TooManyPoints) } else { Ok(()) }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Self::MAX
    }
}

/// A vector of `n` copies of `value`, or [`Error::OutOfMemory`] when it cannot be allocated
/// (for allocations sized by a spec: a process under a memory limit gets an error, not an
/// abort).
pub(crate) fn try_vec<T: Clone>(n: usize, value: T) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
    v.resize(n, value);
    Ok(v)
}

/// An empty vector with room for `n` items, or [`Error::OutOfMemory`].
pub(crate) fn try_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
    Ok(v)
}
