//! The one error type of the core.

use core::fmt;

/// Why a router could not be built or a request could not be answered.
///
/// Every fallible function of the core returns this; nothing panics. The variants are stable:
/// `keyroute-bindings` maps each one to a numeric code that every language surface shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The topology has no nodes.
    EmptyTopology,
    /// Two nodes share an id; `index` is the position of the second one.
    DuplicateNodeId {
        /// Position of the later duplicate in the node list.
        index: u32,
    },
    /// Every node has weight 0, so no node can own a key.
    ZeroTotalWeight,
    /// More nodes than [`crate::MAX_NODES`].
    TooManyNodes,
    /// The ring would need more points than [`crate::MAX_POINTS`].
    TooManyPoints,
    /// A node id is empty or longer than [`crate::MAX_ID_LEN`] bytes.
    InvalidNodeId {
        /// Position of the offending node.
        index: u32,
    },
    /// The algorithm gives every node the same share and cannot honour unequal weights.
    WeightsUnsupported,
    /// More replicas were asked for than the topology has (eligible) nodes.
    ReplicasExceedNodes {
        /// Replicas asked for.
        requested: u32,
        /// Nodes that can hold a replica.
        available: u32,
    },
    /// The algorithm has no sound order beyond the first node (jump, modulo).
    ReplicasUnsupported,
    /// A Maglev table size is not prime.
    TableSizeNotPrime,
    /// A table (Maglev or slots) has fewer entries than nodes that need one, or is too large.
    TableSizeOutOfRange,
    /// A parameter is outside its documented range; the text names it.
    InvalidParameter(&'static str),
    /// The key cannot be hashed the way the algorithm's parameters require
    /// (for example a `u64be` key hash given a key that is not 8 bytes).
    InvalidKey(&'static str),
    /// A caller's output buffer is shorter than the number of results.
    BufferTooSmall,
    /// Memory for what a spec asks for could not be allocated.
    OutOfMemory,
    /// The algorithm does not route on one 64-bit key hash ([`crate::Router::route_hash`]).
    RouteHashUnsupported,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyTopology => f.write_str("the topology has no nodes"),
            Self::DuplicateNodeId { index } => write!(f, "node {index} repeats an earlier node id"),
            Self::ZeroTotalWeight => f.write_str("the total weight of the nodes is zero"),
            Self::TooManyNodes => write!(f, "more than {} nodes", crate::MAX_NODES),
            Self::TooManyPoints => {
                f.write_str("the ring would need more points, or hash more bytes to place them, than its limits allow")
            }
            Self::InvalidNodeId { index } => {
                write!(f, "node {index} has an empty id or one longer than {} bytes", crate::MAX_ID_LEN)
            }
            Self::WeightsUnsupported => f.write_str("this algorithm cannot honour unequal weights"),
            Self::ReplicasExceedNodes { requested, available } => {
                write!(f, "{requested} replicas requested but only {available} nodes can hold one")
            }
            Self::ReplicasUnsupported => f.write_str("this algorithm defines no replica order"),
            Self::TableSizeNotPrime => f.write_str("the table size must be prime"),
            Self::TableSizeOutOfRange => f.write_str("the table size is out of range for this topology"),
            Self::InvalidParameter(what) => write!(f, "invalid parameter: {what}"),
            Self::InvalidKey(what) => write!(f, "invalid key: {what}"),
            Self::BufferTooSmall => f.write_str("the output buffer is too small"),
            Self::OutOfMemory => f.write_str("out of memory for what the spec asks"),
            Self::RouteHashUnsupported => f.write_str(
                "routing by hash needs an algorithm that routes on one 64-bit key hash \
                 (ring, jump, maglev, modulo, and the presets built on a ring or on jump)",
            ),
        }
    }
}

impl core::error::Error for Error {}

/// Why a batch call stopped: the error, and the position of the key that caused it (none when
/// the batch as a whole was refused, e.g. [`Error::BufferTooSmall`]). Outputs before that key
/// may have been written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchError {
    /// Position in the batch of the key that failed.
    pub index: Option<usize>,
    /// What went wrong.
    pub error: Error,
}

impl BatchError {
    /// `error` for the key at `index`.
    #[must_use]
    pub fn at(index: usize, error: Error) -> Self {
        Self { index: Some(index), error }
    }
}

impl From<Error> for BatchError {
    fn from(error: Error) -> Self {
        Self { index: None, error }
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "key {i}: {}", self.error),
            None => self.error.fmt(f),
        }
    }
}

impl core::error::Error for BatchError {}

/// Result with the core's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
