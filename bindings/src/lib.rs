//! # keyroute-bindings
//!
//! The `std` layer that every keyroute surface (C ABI, Python, Node, WebAssembly, the CLI)
//! wraps, so none of them re-implements parsing, validation or routing:
//!
//! - the topology spec ([`Spec`]) as JSON ↔ [`Router`];
//! - one error table ([`ErrorCode`]: stable numeric codes and names);
//! - the canonical form of a spec and its fingerprint (XXH3-64 of the canonical bytes), so two
//!   processes can check that they hold the same view;
//! - batch routing into a caller's buffer;
//! - [`SharedRouter`], for lock-free topology swaps while other threads keep routing.

mod error;
mod native;
mod router;
mod shared;
mod spec;

pub use error::{Error, ErrorCode, Result};
pub use router::Router;
pub use shared::SharedRouter;
pub use spec::{MAX_SPEC_BYTES, MAX_VERSION, NodeSpec, Spec};

/// The core crate, for callers that need its types.
pub use keyroute as core;
