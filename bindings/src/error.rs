//! The one error table: every error any surface can report, with a stable numeric code, a
//! short name, a category and a one-line description. C gets the codes as `kr_status`, Python
//! as `keyroute.Error.code`, JS as `error.code`; vector files assert names and codes, never
//! messages. Every surface's error classes are generated from this table (`cargo xtask
//! codegen`).

use core::fmt;

/// The kind of mistake an error is, so that every surface raises the same kind of native
/// error for a code: Python's `TypeError` / `ValueError` / `LookupError` / `OSError` /
/// `RuntimeError`, JavaScript's `TypeError` / `RangeError` / `Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// An argument of the wrong type.
    Type,
    /// A value that is not acceptable (malformed or inconsistent input).
    Value,
    /// A number outside its allowed range (sizes, counts, limits).
    Range,
    /// A lookup of something that is not there.
    Lookup,
    /// Reading or writing failed.
    Io,
    /// Memory could not be allocated.
    Memory,
    /// A bug in keyroute.
    Internal,
}

impl ErrorCategory {
    /// Every category.
    pub const ALL: &'static [ErrorCategory] =
        &[Self::Type, Self::Value, Self::Range, Self::Lookup, Self::Io, Self::Memory, Self::Internal];

    /// The stable lowercase name (`"type"`, `"value"`, …).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Type => "type",
            Self::Value => "value",
            Self::Range => "range",
            Self::Lookup => "lookup",
            Self::Io => "io",
            Self::Memory => "memory",
            Self::Internal => "internal",
        }
    }
}

macro_rules! error_table {
    ($( $(#[doc = $doc:literal])* $variant:ident = $code:literal, $name:literal, $category:ident; )*) => {
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

            /// The name NUL-terminated, for the C ABI.
            #[must_use]
            pub fn c_name(self) -> &'static std::ffi::CStr {
                match self { $( ErrorCode::$variant => match std::ffi::CStr::from_bytes_with_nul(concat!($name, "\0").as_bytes()) {
                    Ok(c) => c,
                    Err(_) => c"internal",
                }, )* }
            }

            /// The kind of mistake, which picks each surface's native error class.
            #[must_use]
            pub fn category(self) -> ErrorCategory {
                match self { $( ErrorCode::$variant => ErrorCategory::$category, )* }
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
    /// The spec is not valid JSON (or TOML).
    InvalidJson = 1, "invalid_json", Value;
    /// The spec does not have the shape of a topology spec (missing or unknown field, wrong type).
    InvalidSpec = 2, "invalid_spec", Value;
    /// The `algorithm` names no algorithm or preset.
    UnknownAlgorithm = 3, "unknown_algorithm", Value;
    /// The topology has no nodes.
    EmptyTopology = 4, "empty_topology", Value;
    /// Two nodes share an id.
    DuplicateNodeId = 5, "duplicate_node_id", Value;
    /// Every node has weight 0.
    ZeroTotalWeight = 6, "zero_total_weight", Value;
    /// More nodes than the limits allow (`max_nodes`).
    TooManyNodes = 7, "too_many_nodes", Range;
    /// The ring would need more points, or hash more bytes placing them, than the limits allow (`max_points`, `max_hashed_bytes`).
    TooManyPoints = 8, "too_many_points", Range;
    /// A node id is empty or too long.
    InvalidNodeId = 9, "invalid_node_id", Value;
    /// The algorithm cannot honour unequal weights.
    WeightsUnsupported = 10, "weights_unsupported", Value;
    /// More replicas requested than nodes that can hold one.
    ReplicasExceedNodes = 11, "replicas_exceed_nodes", Range;
    /// The algorithm defines no replica order.
    ReplicasUnsupported = 12, "replicas_unsupported", Value;
    /// A Maglev table size that is not prime.
    TableSizeNotPrime = 13, "table_size_not_prime", Value;
    /// A table size out of range for the topology, or past the limit (`max_table_entries`).
    TableSizeOutOfRange = 14, "table_size_out_of_range", Range;
    /// A parameter outside its documented range, or inconsistent with the rest of the spec.
    InvalidParameter = 15, "invalid_parameter", Value;
    /// A key the algorithm cannot take (a peer's text-only ring given bytes that are not UTF-8).
    InvalidKey = 16, "invalid_key", Value;
    /// An output buffer shorter than the results.
    BufferTooSmall = 17, "buffer_too_small", Range;
    /// A required pointer was null (C ABI).
    NullPointer = 18, "null_pointer", Value;
    /// Text that must be UTF-8 is not (or, from UTF-16, holds a lone surrogate).
    InvalidUtf8 = 19, "invalid_utf8", Value;
    /// A node index out of range.
    NodeOutOfRange = 20, "node_out_of_range", Lookup;
    /// The algorithm does not route on one 64-bit key hash, so routing by hash is undefined.
    RouteHashUnsupported = 21, "route_hash_unsupported", Value;
    /// An argument of the wrong type (a key that is neither text nor bytes, a count that is not an integer).
    InvalidType = 22, "invalid_type", Type;
    /// Reading or writing a file or stream failed.
    Io = 23, "io", Io;
    /// The spec document is larger than the limit (`max_spec_bytes`).
    SpecTooLarge = 24, "spec_too_large", Range;
    /// Memory for what the spec asks for could not be allocated.
    OutOfMemory = 25, "out_of_memory", Memory;
    /// A command-line argument the `keyroute` command cannot use (an unknown option, a missing value).
    InvalidArgument = 26, "invalid_argument", Value;
    /// A spec file ending in `.toml` that is not valid TOML.
    InvalidToml = 27, "invalid_toml", Value;
    /// A view whose version is not newer than the view in effect (a live view only moves forward).
    StaleVersion = 28, "stale_version", Value;
    /// A publish whose expected version is not the source's current one: another publisher got there first.
    VersionConflict = 29, "version_conflict", Value;
    /// A document whose fingerprint is not the fingerprint of the view it describes.
    FingerprintMismatch = 30, "fingerprint_mismatch", Value;
    /// A live view asked to route before any view was applied to it.
    NoView = 31, "no_view", Lookup;
    /// A view document that does not have the shape of one (missing or unknown field, a version out of range, a rollout without a progress or a schedule).
    InvalidView = 32, "invalid_view", Value;
    /// A source URL with a scheme keyroute has no source for.
    UnknownSource = 33, "unknown_source", Value;
    /// A bug in keyroute caught at a language boundary (a panic); please report it.
    Internal = 99, "internal", Internal;
}

/// An error: its stable kind, a human-readable message and, for a batch, which key failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
    key_index: Option<usize>,
}

impl Error {
    /// An error of `code` with a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), key_index: None }
    }

    /// The same error, raised by the key at `index` of a batch.
    #[must_use]
    pub fn at_key(mut self, index: usize) -> Self {
        self.key_index = Some(index);
        self
    }

    /// The stable kind.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message (for people; may change between releases), without the key's position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For an error from a batch call, the position of the key that caused it.
    #[must_use]
    pub fn key_index(&self) -> Option<usize> {
        self.key_index
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = self.key_index {
            write!(f, "key {i}: ")?;
        }
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
            E::OutOfMemory => ErrorCode::OutOfMemory,
            E::RouteHashUnsupported => ErrorCode::RouteHashUnsupported,
            _ => ErrorCode::Internal,
        };
        Self::new(code, e.to_string())
    }
}

impl From<keyroute::BatchError> for Error {
    fn from(e: keyroute::BatchError) -> Self {
        let err = Self::from(e.error);
        match e.index {
            Some(i) => err.at_key(i),
            None => err,
        }
    }
}

/// Result with the bindings' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_round_trip() {
        let codes: Vec<u32> = ErrorCode::ALL.iter().map(|c| c.code()).collect();
        assert!(codes.windows(2).all(|w| w[0] < w[1]), "codes sorted and unique: {codes:?}");
        let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorCode::ALL.len(), "names unique");
        for &c in ErrorCode::ALL {
            assert_ne!(c.code(), 0, "0 is success");
            assert_eq!(ErrorCode::from_code(c.code()), Some(c));
            assert_eq!(ErrorCode::from_name(c.name()), Some(c));
            assert!(c.description().ends_with('.') && !c.description().starts_with(' '), "{c:?}");
            assert_eq!(c.c_name().to_str().unwrap(), c.name());
            assert!(ErrorCategory::ALL.contains(&c.category()));
        }
    }
}
