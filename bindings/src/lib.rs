//! # keyroute-bindings
//!
//! The `std` layer that every keyroute surface (C ABI, Python, Node, WebAssembly, the CLI)
//! wraps, so none of them re-implements parsing, validation or routing:
//!
//! - the topology spec ([`Spec`]) as JSON ↔ [`Router`];
//! - the [`registry`] of every algorithm and peer preset, with their parameters, the node
//!   fields they read and what they support: the one definition every surface is generated
//!   from;
//! - one error table ([`ErrorCode`]: stable numeric codes, names, categories, descriptions);
//! - [`analysis`]: ownership, balance and diffs keyed by node id;
//! - the key text policy ([`keys`]): text keys are UTF-8, and UTF-16 text with a lone
//!   surrogate is refused, never replaced;
//! - the canonical form of a spec and its fingerprint (XXH3-64 of the canonical bytes), so two
//!   processes can check that they hold the same view;
//! - batch routing into a caller's buffer, and routing by a precomputed 64-bit key hash
//!   ([`Router::route_hash`]) where the algorithm routes on one;
//! - `host:port` server addresses as memcached-family clients write them
//!   ([`NodeSpec::from_server`]);
//! - [`SharedRouter`], for lock-free topology swaps while other threads keep routing;
//! - [`Transition`], a gradual change between two views that carries both ends' versions and
//!   fingerprints;
//! - [`view`]: versioned views and the live handle ([`LiveView`]) that applies newer ones
//!   atomically and refuses (NACKs) the rest, keeping the last good view;
//! - [`conformance`]: the one reading of the conformance corpus's vector files that every Rust
//!   runner shares.
//! - [`bounded`] loads over a shared router, [`hotkeys`] for many threads, and the client
//!   selectors and split keys of [`spread`] (read spreading for hot keys).

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

pub mod analysis;
pub mod bounded;
pub mod conformance;
mod error;
#[cfg(feature = "files")]
mod file;
mod hashed;
pub mod hotkeys;
pub mod keys;
mod limits;
mod native;
pub mod nodes;
mod owned;
mod presets;
pub mod registry;
mod router;
mod server;
mod shared;
mod spec;
pub mod spread;
mod transition;
pub mod view;

pub use error::{Error, ErrorCategory, ErrorCode, Result};
#[cfg(feature = "files")]
pub use file::is_toml;
pub use hashed::KeyHasher;
pub use limits::Limits;
pub use router::Router;
pub use shared::SharedRouter;
pub use spec::{MAX_VERSION, NodeSpec, Spec};
pub use transition::{Placement, Transition, View};
pub use view::{LiveView, Refusal, ViewDocument, ViewState};

/// The core crate, for callers that need its types.
pub use keyroute as core;
