//! The one error table: every error any surface can report, with a stable numeric code and a
//! short name. C gets the codes as `kr_status`, Python as `keyroute.Error.code`, JS as
//! `error.code`; vector files assert names and codes, never messages.

use core::fmt;

macro_rules! error_table {
    ($( $(#[doc = $doc:literal])* $variant:ident = $code:literal, $name:literal; )*) => {
        /// A stable error kind. The numeric value never changes once released; new kinds get
        /// new numbers.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* $variant = $code, )*
        }

        impl ErrorCode {
            /// Every code, in numeric order (for generated headers, stubs and docs).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The stable numeric code (0 is success and is not an error kind).
            #[must_use]
            pub fn code(self) -> u32 {
                self as u32
            }

            /// The stable snake_case name, as vector files write it.
            #[must_use]
            pub fn name(self) -> &'static str {
                match self { $( ErrorCode::$variant => $name, )* }
            }

            /// One sentence that says what the kind means (its doc comment in this table), for
            /// generated docs, stubs and headers.
            #[must_use]
            pub fn description(self) -> &'static str {
                match self { $( ErrorCode::$variant => concat!($($doc),*).trim_ascii(), )* }
            }

            /// The kind with this numeric code.
            #[must_use]
            pub fn from_code(code: u32) -> Option<Self> {
                match code { $( $code => Some(ErrorCode::$variant), )* _ => None }
            }

            /// The kind with this name.
            #[must_use]
            pub fn from_name(name: &str) -> Option<Self> {
                match name { $( $name => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

error_table! {
    /// The spec is not valid JSON.
    InvalidJson = 1, "invalid_json";
    /// The JSON does not have the shape of a topology spec (missing or unknown field, wrong type).
    InvalidSpec = 2, "invalid_spec";
    /// The `algorithm` names no algorithm or preset.
    UnknownAlgorithm = 3, "unknown_algorithm";
    /// The topology has no nodes.
    EmptyTopology = 4, "empty_topology";
    /// Two nodes share an id.
    DuplicateNodeId = 5, "duplicate_node_id";
    /// Every node has weight 0.
    ZeroTotalWeight = 6, "zero_total_weight";
    /// More nodes than the core allows.
    TooManyNodes = 7, "too_many_nodes";
    /// The ring would need more points than the core allows.
    TooManyPoints = 8, "too_many_points";
    /// A node id is empty or too long.
    InvalidNodeId = 9, "invalid_node_id";
    /// The algorithm cannot honour unequal weights.
    WeightsUnsupported = 10, "weights_unsupported";
    /// More replicas requested than nodes that can hold one.
    ReplicasExceedNodes = 11, "replicas_exceed_nodes";
    /// The algorithm defines no replica order.
    ReplicasUnsupported = 12, "replicas_unsupported";
    /// A Maglev table size that is not prime.
    TableSizeNotPrime = 13, "table_size_not_prime";
    /// A table size out of range for the topology.
    TableSizeOutOfRange = 14, "table_size_out_of_range";
    /// A parameter outside its documented range.
    InvalidParameter = 15, "invalid_parameter";
    /// A key the algorithm cannot take.
    InvalidKey = 16, "invalid_key";
    /// An output buffer shorter than the results.
    BufferTooSmall = 17, "buffer_too_small";
    /// A required pointer was null (C ABI).
    NullPointer = 18, "null_pointer";
    /// Text that must be UTF-8 is not.
    InvalidUtf8 = 19, "invalid_utf8";
    /// A node index out of range.
    NodeOutOfRange = 20, "node_out_of_range";
    /// The algorithm does not route on one 64-bit key hash, so routing by hash is undefined.
    RouteHashUnsupported = 21, "route_hash_unsupported";
    /// A bug in keyroute caught at a language boundary (a panic); please report it.
    Internal = 99, "internal";
}

/// An error: its stable kind and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// An error of `code` with a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// The stable kind.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message (for people; may change between releases).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {} {})", self.message, self.code.code(), self.code.name())
    }
}

impl std::error::Error for Error {}

impl From<keyroute::Error> for Error {
    fn from(e: keyroute::Error) -> Self {
        use keyroute::Error as E;
        let code = match e {
            E::EmptyTopology => ErrorCode::EmptyTopology,
            E::DuplicateNodeId { .. } => ErrorCode::DuplicateNodeId,
            E::ZeroTotalWeight => ErrorCode::ZeroTotalWeight,
            E::TooManyNodes => ErrorCode::TooManyNodes,
            E::TooManyPoints => ErrorCode::TooManyPoints,
            E::InvalidNodeId { .. } => ErrorCode::InvalidNodeId,
            E::WeightsUnsupported => ErrorCode::WeightsUnsupported,
            E::ReplicasExceedNodes { .. } => ErrorCode::ReplicasExceedNodes,
            E::ReplicasUnsupported => ErrorCode::ReplicasUnsupported,
            E::TableSizeNotPrime => ErrorCode::TableSizeNotPrime,
            E::TableSizeOutOfRange => ErrorCode::TableSizeOutOfRange,
            E::InvalidParameter(_) => ErrorCode::InvalidParameter,
            E::InvalidKey(_) => ErrorCode::InvalidKey,
            E::BufferTooSmall => ErrorCode::BufferTooSmall,
            _ => ErrorCode::Internal,
        };
        Self::new(code, e.to_string())
    }
}

/// Result with the bindings' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_round_trip() {
        let mut codes: Vec<u32> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), ErrorCode::ALL.len(), "codes sorted and unique");
        for &c in ErrorCode::ALL {
            assert_ne!(c.code(), 0, "0 is success");
            assert_eq!(ErrorCode::from_code(c.code()), Some(c));
            assert_eq!(ErrorCode::from_name(c.name()), Some(c));
            assert!(c.description().ends_with('.') && !c.description().starts_with(' '), "{c:?}");
        }
    }
}
