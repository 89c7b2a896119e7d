//! # keyroute-ffi: the C ABI
//!
//! `libkeyroute.so` / `libkeyroute.a` and the header `include/keyroute.h`, which
//! `cargo xtask codegen` generates with cbindgen from these sources (CI fails when the committed
//! header is stale). `build.rs` gives the shared library its SONAME (`libkeyroute.so.0.MINOR`
//! under 0.x) and `ffi/install.sh` installs it.
//! Every function wraps `keyroute-bindings`; none routes, hashes, parses or validates by itself.
//!
//! Conventions, for every `kr_` function:
//!
//! - It returns a `kr_status`: `KR_OK` (0) or a code of the one error table (`enum
//!   kr_status_code`, generated from the bindings' `ErrorCode`). Results go to out-parameters,
//!   which are written only on success; the one exception is the count of a variable-length
//!   copy into a caller's buffer (`kr_diff_flows`, …), written also with `KR_BUFFER_TOO_SMALL`
//!   so that the caller can size the buffer.
//! - A NULL pointer where one is required gives `KR_NULL_POINTER`; text that is not UTF-8 gives
//!   `KR_INVALID_UTF8`; a panic is caught at the boundary and gives `KR_INTERNAL`. Nothing
//!   crashes on bad input that the types can express.
//! - Keys are byte spans `(const uint8_t *key, size_t key_len)`; `(NULL, 0)` is the empty key.
//!   Text (spec JSON, node ids) is `(const char *text, size_t text_len)`, UTF-8, not
//!   NUL-terminated. Text handed back (node ids, canonical JSON) is a span that borrows from the
//!   router and stays valid as long as the router handle it came from.
//! - After a failure, `kr_last_error_message()` describes it (thread-local).
//! - Lookups (`kr_route`, `kr_route_id`, `kr_route_batch`, `kr_slot`, `kr_key_hash`,
//!   `kr_route_hash`, `kr_route_hash_batch`, `kr_transition_route` and its kin, the accessors)
//!   allocate nothing and take no lock; `kr_replicas` takes no lock and allocates only scratch for the
//!   algorithms that rank every node, or for more than 32 replicas (its doc says when). A
//!   failing call allocates its message.
//! - A `kr_router` is immutable and may be used by many threads at once; a `kr_shared_router`
//!   swaps in a new router atomically while other threads keep routing, and a `kr_transition`
//!   its progress.

// The exports, in the header's order: errors, routers, routing by hash, capabilities,
// builders, shared routers, transitions, ownership and diffs, bounded loads, hot keys, live
// views and their snapshots, view sources (watches, publish, the census).
mod boundary;
mod router;

mod hashed;

mod capabilities;

mod builder;

mod shared;

mod transition;

mod analysis;

mod bounded;

mod hotkeys;

mod view;

#[cfg(feature = "fleet")]
mod watch;

use std::marker::{PhantomData, PhantomPinned};

pub use boundary::KrStatus;
pub use hotkeys::KrHotKeyFn;
pub use view::{KR_FINGERPRINT_TEXT_LEN, KrEnds};
#[cfg(feature = "fleet")]
pub use watch::{KrCensus, KrViewEvent, KrViewEventFn, KrViewEventKind, KrWatchOptions};

/// An immutable router built from a topology spec (opaque).
///
/// Created by `kr_router_from_json`, `kr_builder_build`, `kr_router_clone` or
/// `kr_shared_router_load`; released with `kr_router_free`. Any number of threads may use one
/// handle at the same time. Each handle is a counted reference: the router lives until its last
/// handle (or the shared router holding it) is released.
pub struct KrRouter {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A topology spec being assembled in code (opaque): algorithm, parameters, nodes, version.
///
/// Created by `kr_builder_new`, released with `kr_builder_free`. Not for concurrent use: one
/// thread at a time may change it. It can build any number of routers, and keeps its nodes, so
/// adding a node and building again gives the next topology.
pub struct KrBuilder {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A router behind an atomically swappable pointer (opaque): threads load the current router
/// and route with it while another thread stores a new one. No lock is taken on either side.
///
/// Created by `kr_shared_router_new`, released with `kr_shared_router_free`.
pub struct KrSharedRouter {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Consistent hashing with bounded loads over a router (opaque): live per-node request counts,
/// a key placed on the first node of its replica order with room.
///
/// Created by `kr_bounded_new`, released with `kr_bounded_free`. Any number of threads may use
/// one handle at the same time.
pub struct KrBounded {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A hot-key detector (opaque): a count sketch and a bounded table of candidate keys, sharded
/// by key so that many threads observe at once.
///
/// Created by `kr_hotkeys_new`, released with `kr_hotkeys_free`. Any number of threads may use
/// one handle at the same time.
pub struct KrHotKeys {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A gradual change from one router to another at some progress (opaque): keys cut over from
/// their owner in view A to their owner in view B in a fixed order as progress grows.
///
/// Created by `kr_transition_new`, released with `kr_transition_free`. Any number of threads may
/// use one handle at the same time, also while one of them moves its progress with
/// `kr_transition_set_progress`.
pub struct KrTransition {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// The live handle of a fleet's view (opaque): the view in effect behind an atomically swapped
/// pointer, replaced by `kr_live_view_publish` (or a watch, `kr_watch_start`) only with a newer
/// version that builds; a refused document is recorded and the last good view stays.
///
/// Created by `kr_live_view_new`, released with `kr_live_view_free`. Any number of threads may
/// route through one handle while others publish to it.
pub struct KrLiveView {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// One applied view, as a snapshot (opaque, immutable): a counted reference, so its node ids,
/// version and fingerprint stay valid and consistent while it is held, whatever is published
/// to the live view meanwhile.
///
/// Created by `kr_live_view_load` or `kr_view_clone`, released with `kr_view_free`. Any number
/// of threads may use one handle at the same time.
pub struct KrView {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// A running watch of a view source feeding a live view (opaque).
///
/// Created by `kr_watch_start`, stopped by `kr_watch_stop`, released with `kr_watch_free`.
pub struct KrWatch {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// What changing from one router to another moves (opaque, immutable): the figures of
/// `keyroute plan`.
///
/// Created by `kr_diff_new`, released with `kr_diff_free`. Any number of threads may read one
/// handle at the same time.
pub struct KrDiff {
    _opaque: [u8; 0],
    _not_send_sync_unpin: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Where a key routes during a transition (`kr_transition_route_with_fallback`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KrPlacement {
    /// The node that owns the key now (a transition node index).
    pub owner: u32,
    /// The node that owned it before when `has_previous`; otherwise `owner`.
    pub previous: u32,
    /// Whether the key has cut over to a different node: read from `previous` on a miss.
    pub has_previous: bool,
}

/// How analysis figures were obtained (`keyroute::analysis::Method`; the names every surface
/// reports are `exact`, `slot_share`, `expected` and `sampled`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KrAnalysisMethod {
    /// Measured on the key-hash space itself: exact for uniformly hashed keys.
    #[default]
    Exact = 0,
    /// Exact per slot: each slot counts equally (keys spread evenly over slots).
    SlotShare = 1,
    /// The algorithm's expected figure for uniformly hashed keys, in closed form.
    Expected = 2,
    /// Estimated from sample keys (how many: the summary's `sample_keys`).
    Sampled = 3,
}

/// The balance of one router's ownership and how it was obtained (`kr_ownership`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KrOwnershipSummary {
    /// How the shares were obtained.
    pub method: KrAnalysisMethod,
    /// The sample keys routed when `method` is `KR_ANALYSIS_METHOD_SAMPLED`; else 0.
    pub sample_keys: u32,
    /// Coefficient of variation of `share / fair share` over nodes with weight.
    pub cv: f64,
    /// Largest `share / fair share`.
    pub max_over_mean: f64,
    /// Smallest `share / fair share`.
    pub min_over_mean: f64,
}

/// The figures of a diff (`kr_diff_summary`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KrDiffFigures {
    /// Share of keys whose owner (by id) changes.
    pub moved: f64,
    /// The least any router could move for this change of nodes and weights.
    pub ideal_moved: f64,
    /// How the figures were obtained.
    pub method: KrAnalysisMethod,
    /// The sample keys routed when `method` is `KR_ANALYSIS_METHOD_SAMPLED`; else 0.
    pub sample_keys: u32,
    /// How many flows `kr_diff_flows` gives.
    pub flow_count: usize,
    /// How many nodes `kr_diff_nodes` gives (both sides' nodes, by id).
    pub node_count: usize,
    /// How many moved pieces of the hash space `kr_diff_moved_arcs` gives.
    pub moved_arc_count: usize,
}

/// A share of all keys that goes from a node of A to a node of B (`kr_diff_flows`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KrFlow {
    /// Share of all keys.
    pub share: f64,
    /// The node's index in A.
    pub from_index: u32,
    /// The node's index in B.
    pub to_index: u32,
    /// Whether the two are different nodes (by id): false for the keys that stay.
    pub moved: bool,
}

/// One node's change in a diff (`kr_diff_nodes`), as the table of `keyroute plan`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct KrNodeChange {
    /// The node's index in A, or `KR_NO_NODE` when A lacks it.
    pub from_index: u32,
    /// The node's index in B, or `KR_NO_NODE` when B lacks it.
    pub to_index: u32,
    /// Its share of keys in A.
    pub before: f64,
    /// Its share of keys in B.
    pub after: f64,
    /// The share of keys it takes over from other nodes.
    pub gained: f64,
    /// The share of keys other nodes take over from it.
    pub lost: f64,
}

/// A moved piece of the key-hash space (`kr_diff_moved_arcs`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KrMovedArc {
    /// First hash of the piece.
    pub start: u64,
    /// Last hash of the piece (inclusive).
    pub end: u64,
    /// Its owner's index in A.
    pub from_index: u32,
    /// Its owner's index in B.
    pub to_index: u32,
}

/// What a router does with node weights (`kr_capabilities`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KrWeights {
    /// Keys spread in proportion to the weights.
    #[default]
    Honoured = 0,
    /// Unequal weights are refused when the router is built (`KR_WEIGHTS_UNSUPPORTED`).
    Refused = 1,
    /// Weights play no part (an explicit slot table); any value is accepted.
    Ignored = 2,
}

/// What one built router supports (`kr_router_capabilities`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KrCapabilities {
    /// What it does with weights.
    pub weights: KrWeights,
    /// How `kr_ownership` obtains its shares (a diff between two routers of this kind is at best
    /// this exact).
    pub analysis: KrAnalysisMethod,
    /// The sample keys `kr_ownership` routes when `analysis` is `KR_ANALYSIS_METHOD_SAMPLED`;
    /// else 0.
    pub sample_keys: u32,
    /// The slot count of a router built on a slot table (`kr_slot`); 0 for the others.
    pub slots: u32,
    /// Points per unit of weight of a native ring; 0 for the others.
    pub points_per_weight: u32,
    /// Whether it defines a replica order (`kr_replicas`, `kr_spread`).
    pub replicas: bool,
    /// Whether it routes on one 64-bit key hash (`kr_key_hash`, `kr_route_hash`).
    pub route_hash: bool,
    /// Whether it can move a slot table to a new topology with the fewest moves.
    pub rebalance: bool,
}

/// The index of a node a side lacks, in a `kr_node_change` (`UINT32_MAX`).
pub const KR_NO_NODE: u32 = 0xFFFF_FFFF;

/// One key of a batch: a byte span. `ptr` may be NULL only when `len` is 0 (the empty key).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KrKey {
    /// The key's first byte.
    pub ptr: *const u8,
    /// The key's length in bytes.
    pub len: usize,
}

#[cfg(test)]
mod miri_tests;
#[cfg(test)]
mod tests;
