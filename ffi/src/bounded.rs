//! `kr_bounded`: consistent hashing with bounded loads over a router handle
//! (`keyroute_bindings::bounded`). C releases explicitly: every successful
//! `kr_bounded_acquire` is matched by one `kr_bounded_release` of the node it gave.

use keyroute_bindings::bounded::{self, BoundedLoad};
use keyroute_bindings::core::Pick;
use keyroute_bindings::{Error, ErrorCode};

use crate::boundary::{bytes, call, get, get_mut, retain, router};
use crate::{KrBounded, KrRouter, KrStatus};

/// The bounded-load router behind a handle.
///
/// # Safety
/// A non-null `bounded` must be a live bounded-load handle.
unsafe fn handle<'a>(bounded: *const KrBounded) -> Result<&'a BoundedLoad, Error> {
    // SAFETY: a bounded-load handle is `Box::into_raw` of a `Box<BoundedLoad>`.
    unsafe { get(bounded.cast::<BoundedLoad>(), "bounded") }
}

fn node_in(b: &BoundedLoad, node: u32) -> Result<u32, Error> {
    if (node as usize) < b.router().topology().len() {
        Ok(node)
    } else {
        Err(Error::new(ErrorCode::NodeOutOfRange, format!("node {node} is outside the router's nodes")))
    }
}

/// Places `key` with `how` (taking a slot or not) and writes the node and its rank.
///
/// # Safety
/// `bounded` must be NULL or a live bounded-load handle; `key` must point to `key_len` readable
/// bytes (NULL only when `key_len` is 0); `node` and `rank` must be NULL or writable.
unsafe fn place(
    bounded: *const KrBounded,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
    rank: *mut u32,
    how: fn(&BoundedLoad, &[u8]) -> keyroute_bindings::core::Result<Pick>,
) -> KrStatus {
    call(|| {
        // SAFETY: `bounded` is NULL or a live bounded-load handle, as this function's `# Safety` requires.
        let b = unsafe { handle(bounded) }?;
        // SAFETY: `node` and `rank` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (node, rank) = unsafe { (get_mut(node, "node")?, get_mut(rank, "rank")?) };
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let pick = how(b, key)?;
        (*node, *rank) = (pick.node, pick.rank);
        Ok(())
    })
}

/// Bounded loads over `router` with balance factor `c` (1 to 1000; 1.25 is the usual choice):
/// a key goes to the first node of its replica order serving fewer than
/// ⌈c · (total + 1) · weight / total weight⌉ requests. Takes its own reference to the router
/// (the caller keeps, and must still release, its handle). Thread-safe: the loads are atomic.
///
/// Errors: `KR_INVALID_PARAMETER` (c), `KR_REPLICAS_UNSUPPORTED` (jump, modulo and the presets
/// with no order past the owner), `KR_OUT_OF_MEMORY`, `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live router handle; `bounded` must be NULL or point to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_new(router: *const KrRouter, c: f64, bounded: *mut *mut KrBounded) -> KrStatus {
    call(|| {
        // SAFETY: `bounded` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(bounded, "bounded") }?;
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        unsafe { self::router(router) }?;
        // SAFETY: `router` was just checked to be a live router handle.
        let b = bounded::bounded(unsafe { retain(router) }, c)?;
        *out = Box::into_raw(Box::new(b)).cast::<KrBounded>();
        Ok(())
    })
}

/// Places `key` and takes a slot on its node: `*node` receives the node's index, `*rank` its
/// position in the key's preference order (0: the key's owner). Give the slot back with
/// `kr_bounded_release(bounded, *node)` when the request is done. Allocates only when the key's
/// first four candidates are all full (its whole order, once).
///
/// Errors: `KR_INVALID_KEY` (as `kr_route`), `KR_INVALID_PARAMETER` (every node stayed full
/// while other threads acquired, or 2^32 − 1 requests in flight), `KR_NULL_POINTER`.
///
/// # Safety
/// `bounded` must be NULL or a live bounded-load handle; `key` must point to `key_len` readable
/// bytes (NULL only when `key_len` is 0); `node` and `rank` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_acquire(
    bounded: *const KrBounded,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
    rank: *mut u32,
) -> KrStatus {
    // SAFETY: the arguments are as this function's `# Safety` requires, which is `place`'s.
    unsafe { place(bounded, key, key_len, node, rank, BoundedLoad::acquire_raw) }
}

/// Where `key` would be placed now, without taking a slot (as `kr_bounded_acquire`).
///
/// # Safety
/// As `kr_bounded_acquire`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_pick(
    bounded: *const KrBounded,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
    rank: *mut u32,
) -> KrStatus {
    // SAFETY: the arguments are as this function's `# Safety` requires, which is `place`'s.
    unsafe { place(bounded, key, key_len, node, rank, BoundedLoad::pick) }
}

/// Gives back a slot taken by `kr_bounded_acquire` on `node`.
///
/// Errors: `KR_NODE_OUT_OF_RANGE`, `KR_INVALID_PARAMETER` (the node holds no slot; nothing
/// changes), `KR_NULL_POINTER`.
///
/// # Safety
/// `bounded` must be NULL or a live bounded-load handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_release(bounded: *const KrBounded, node: u32) -> KrStatus {
    call(|| {
        // SAFETY: `bounded` is NULL or a live bounded-load handle, as this function's `# Safety` requires.
        let b = unsafe { handle(bounded) }?;
        Ok(b.release(node_in(b, node)?)?)
    })
}

/// `*load` receives the requests in flight on `node`, and `*total` those on every node (either
/// may be NULL when not wanted).
///
/// Errors: `KR_NODE_OUT_OF_RANGE`, `KR_NULL_POINTER` (`bounded`).
///
/// # Safety
/// `bounded` must be NULL or a live bounded-load handle; `load` and `total` must be NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_load(
    bounded: *const KrBounded,
    node: u32,
    load: *mut u32,
    total: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `bounded` is NULL or a live bounded-load handle, as this function's `# Safety` requires.
        let b = unsafe { handle(bounded) }?;
        let node = node_in(b, node)?;
        // SAFETY: `load` and `total` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (load, total) = unsafe { (load.as_mut(), total.as_mut()) };
        if let Some(load) = load {
            *load = b.load(node);
        }
        if let Some(total) = total {
            *total = b.total();
        }
        Ok(())
    })
}

/// Releases a bounded-load handle (and its reference to the router). NULL is ignored. Slots
/// still held are forgotten with it.
///
/// # Safety
/// `bounded` must be NULL or a bounded-load handle not released yet, which no other thread is
/// using; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_bounded_free(bounded: *mut KrBounded) {
    if !bounded.is_null() {
        // SAFETY: a live bounded-load handle is `Box::into_raw` of a `Box<BoundedLoad>`.
        drop(unsafe { Box::from_raw(bounded.cast::<BoundedLoad>()) });
    }
}
