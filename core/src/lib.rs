//! # keyroute
//!
//! Which node owns this key? Consistent-hashing routing for caches, shards and stateful
//! services, with one promise: **the same key and the same topology give the same node in
//! every language and on every platform.** This crate is the `no_std` core that every surface
//! (C, Python, Node, WebAssembly, the `keyroute` command) calls.
//!
//! ```
//! use keyroute::{Node, Ring, Topology};
//!
//! let topology = Topology::new(vec![
//!     Node::new("cache-a"),
//!     Node::new("cache-b").with_weight(2),
//!     Node::new("cache-c"),
//! ])?;
//! let ring = Ring::new(topology, 160)?;
//! let owner = ring.route(b"user:42");
//! println!("user:42 lives on {}", String::from_utf8_lossy(ring.topology().nodes()[owner as usize].id()));
//! # Ok::<(), keyroute::Error>(())
//! ```
//!
//! Keys are bytes; answers are indices into the topology's node list. Algorithms:
//! [`Ring`] (weighted virtual points, native ring-v1 or a peer's [`PointScheme`]), [`Jump`],
//! [`Rendezvous`], [`Maglev`], [`Slots`], [`MultiProbe`] and the [`Modulo`] baseline; [`Router`]
//! holds any of them. Nothing here panics on any input: every fallible call returns [`Error`].

#![no_std]
// The workspace denies every panicking construct (`[workspace.lints.clippy]`); unit tests may.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

extern crate alloc;

pub mod analysis;
#[cfg(target_has_atomic = "32")]
pub mod bounded;
mod budget;
mod capabilities;
mod error;
pub mod hash;
pub mod hotkeys;
mod jump;
mod keyhash;
mod maglev;
mod modulo;
mod multiprobe;
pub mod presets;
mod rendezvous;
mod replicas;
pub mod ring;
mod router;
mod slots;
pub mod spread;
mod topology;
mod transition;

#[cfg(target_has_atomic = "32")]
pub use bounded::{BoundedLoad, DEFAULT_BALANCE_FACTOR, Lease, MAX_BALANCE_FACTOR, Pick};
pub use budget::Budget;
pub use capabilities::{Capabilities, KeyHasher, Weights};
pub use error::{BatchError, Error, Result};
pub use hotkeys::HotKeys;

/// The README's Rust snippets, compiled and run as doctests so the docs cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
pub use jump::{Jump, JumpKey, JumpVariant, jump_hash, jump_hash_guava};
pub use keyhash::KeyHash;
pub use maglev::{DEFAULT_TABLE_SIZE, MAX_TABLE_SIZE, Maglev, is_prime};
pub use modulo::Modulo;
pub use multiprobe::{DEFAULT_PROBES, MAX_PROBES, MultiProbe};
pub use rendezvous::Rendezvous;
pub use ring::{DEFAULT_POINTS_PER_WEIGHT, MAX_POINTS, PointScheme, Ring};
pub use router::Router;
pub use slots::{MAX_SLOTS, REDIS_SLOTS, SlotFn, Slots, redis_hash_tag, redis_slot};
pub use topology::{MAX_ID_LEN, MAX_NODES, Node, Topology};
pub use transition::{CUTOVER_SEED, NodeState, Placement, Transition};
