//! # keyroute-bindings
//!
//! The `std` layer that every keyroute surface (C ABI, Python, Node, WebAssembly, the CLI)
//! wraps, so none of them re-implements parsing, validation or routing:
//!
//! - the topology spec ([`Spec`]) as JSON ↔ [`Router`];
//! - one error table ([`ErrorCode`]: stable numeric codes and names);
//! - the canonical form of a spec and its fingerprint (XXH3-64 of the canonical bytes), so two
//!   processes can check that they hold the same view;
//! - batch routing into a caller's buffer, and routing by a precomputed 64-bit key hash
//!   ([`Router::route_hash`]) where the algorithm routes on one;
//! - `host:port` server addresses as memcached-family clients write them
//!   ([`NodeSpec::from_server`]);
//! - [`SharedRouter`], for lock-free topology swaps while other threads keep routing;
//! - [`Transition`], a gradual change between two views that carries both ends' versions and
//!   fingerprints.

mod error;
mod hashed;
mod native;
mod owned;
mod presets;
mod router;
mod server;
mod shared;
mod spec;
mod transition;

pub use error::{Error, ErrorCode, Result};
pub use hashed::KeyHasher;
pub use router::Router;
pub use shared::SharedRouter;
pub use spec::{MAX_SPEC_BYTES, MAX_VERSION, NodeSpec, Spec};
pub use transition::{Placement, Transition, View};

/// The core crate, for callers that need its types.
pub use keyroute as core;
