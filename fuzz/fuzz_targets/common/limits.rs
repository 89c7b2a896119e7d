//! The limits the targets that build arbitrary spec text build under.
//!
//! Far below the defaults, so that no input spends the fuzzer's time on a legitimately large
//! table (a 1M-entry Maglev table takes tens of milliseconds: a thousand small inputs), while
//! every limit check is still reached from both sides. Every value is at most the default, so
//! a router built under these also builds under the defaults (the canonical re-parse relies on
//! it).

use keyroute_bindings::Limits;

/// 256 nodes, 65,536 points hashing at most 4 MiB, tables of 65,537 entries (a prime).
pub const FUZZ: Limits = Limits {
    max_spec_bytes: Limits::DEFAULT.max_spec_bytes,
    max_nodes: 256,
    max_points: 1 << 16,
    max_hashed_bytes: 1 << 22,
    max_table_entries: 65_537,
};

/// [`FUZZ`] as the JSON the C ABI takes (only the `c_abi` target uses it).
#[allow(dead_code)]
pub const FUZZ_JSON: &str = r#"{"max_nodes":256,"max_points":65536,"max_hashed_bytes":4194304,"max_table_entries":65537}"#;
