//! The readers of the `keyroute` command that take untrusted bytes, as a library for its fuzz
//! targets (`fuzz/fuzz_targets/cli_*.rs`) and its own binary: the key-stream line reader and the
//! decoders of `route --input hex|ndjson` ([`lines`]), and the reader of a `conformance --exec`
//! adapter's stdout ([`adapter`]). Not a stable API: the product is the command.

#![doc(hidden)]
// These readers index buffers they sized themselves (see `main.rs`); unwrap and friends stay
// denied.
#![allow(clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[path = "conformance/lines.rs"]
pub mod adapter;
pub mod error;
pub mod lines;
