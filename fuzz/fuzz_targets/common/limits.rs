//! The limits the targets that build arbitrary spec text build under.
//!
//! Far below the defaults, so that no input spends the fuzzer's time on a legitimately large
//! table (a 1M-entry Maglev table takes tens of milliseconds: a thousand small inputs), while
//! every limit check is still reached from both sides. Every value is at most the default, so
//! a router built under these also builds under the defaults (the canonical re-parse relies on
//! it).

use keyroute_bindings::Limits;

/// 256 nodes, 8,192 points hashing at most 4 MiB, tables of 8,191 entries (a prime).
///
/// The points and table sizes were 65,536 and 65,537 until the second hostile-input round: an
/// input's cost is the router it builds, and at those sizes spec and c_abi ran at 2,000-5,000
/// executions a second. 8,192 points still hold 256 nodes at 32 points each, and a table of
/// 8,191 entries is still far above 256 nodes.
pub const FUZZ: Limits = Limits {
    max_spec_bytes: Limits::DEFAULT.max_spec_bytes,
    max_nodes: 256,
    max_points: 1 << 13,
    max_hashed_bytes: 1 << 22,
    max_table_entries: 8_191,
};

/// [`FUZZ`] as the JSON the C ABI takes (only the `c_abi` target uses it).
#[allow(dead_code)]
pub const FUZZ_JSON: &str = r#"{"max_nodes":256,"max_points":8192,"max_hashed_bytes":4194304,"max_table_entries":8191}"#;
