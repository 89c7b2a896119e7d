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
//!   which are written only on success.
//! - A NULL pointer where one is required gives `KR_NULL_POINTER`; text that is not UTF-8 gives
//!   `KR_INVALID_UTF8`; a panic is caught at the boundary and gives `KR_INTERNAL`. Nothing
//!   crashes on bad input that the types can express.
//! - Keys are byte spans `(const uint8_t *key, size_t key_len)`; `(NULL, 0)` is the empty key.
//!   Text (spec JSON, node ids) is `(const char *text, size_t text_len)`, UTF-8, not
//!   NUL-terminated. Text handed back (node ids, canonical JSON) is a span that borrows from the
//!   router and stays valid as long as the router handle it came from.
//! - After a failure, `kr_last_error_message()` describes it (thread-local).
//! - Lookups (`kr_route`, `kr_route_id`, `kr_route_batch`, `kr_slot`, the accessors) allocate
//!   nothing and take no lock; `kr_replicas` takes no lock and allocates only scratch for the
//!   algorithms that rank every node, or for more than 32 replicas (its doc says when). A
//!   failing call allocates its message.
//! - A `kr_router` is immutable and may be used by many threads at once; a `kr_shared_router`
//!   swaps in a new router atomically while other threads keep routing.

// The exports, in the header's order: errors, routers, builders, shared routers, bounded loads,
// hot keys.
mod boundary;
mod router;

mod builder;

mod shared;

mod bounded;

mod hotkeys;

use std::marker::{PhantomData, PhantomPinned};

pub use boundary::KrStatus;
pub use hotkeys::KrHotKeyFn;

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
