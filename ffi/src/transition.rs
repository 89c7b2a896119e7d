//! `kr_transition`: a gradual change from router A to router B (`keyroute_bindings::Transition`)
//! behind a handle. The progress can be moved while other threads route: the handle holds the
//! current transition behind an atomically swappable pointer, as `kr_shared_router` does.

use std::ffi::c_char;
use std::sync::Arc;

use arc_swap::ArcSwap;
use keyroute_bindings::{Error, ErrorCode, Transition};

use crate::boundary::{bytes, call, error, get, get_mut, router};
use crate::{KrPlacement, KrRouter, KrStatus, KrTransition};

/// What a transition handle points to: the current transition, and its node ids, which no
/// progress changes (kept apart so that the ids a caller borrows outlive a progress change).
struct Handle {
    current: ArcSwap<Transition>,
    ids: Vec<String>,
}

/// The transition behind a handle.
///
/// # Safety
/// A non-null `transition` must be a live transition handle.
unsafe fn handle<'a>(transition: *const KrTransition) -> Result<&'a Handle, Error> {
    // SAFETY: a transition handle is `Box::into_raw` of a `Box<Handle>`.
    unsafe { get(transition.cast::<Handle>(), "transition") }
}

/// Creates a transition from `from` (view A) to `to` (view B) at `progress` in [0, 1]: at 0
/// every key routes as in A, at 1 as in B, and in between the keys that move cut over in a
/// fixed order (a key that has cut over stays so as progress grows). The transition copies
/// what it needs of both routers: the caller keeps (and must still release) its handles.
///
/// Node indices of a transition are its own: A's nodes in A's order, then B's nodes that A
/// lacks (by id); `kr_transition_node_id` gives their ids.
///
/// Errors: `KR_INVALID_PARAMETER` for a progress outside [0, 1] or not a number;
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `from` and `to` must each be NULL or a live router handle; `transition` must be NULL or
/// point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_new(
    from: *const KrRouter,
    to: *const KrRouter,
    progress: f64,
    transition: *mut *mut KrTransition,
) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(transition, "transition") }?;
        // SAFETY: `from` and `to` are NULL or live router handles, as this function's `# Safety` requires.
        let (a, b) = unsafe { (router(from)?, router(to)?) };
        let t = Transition::new(a.clone(), b.clone(), progress)?;
        let ids = (0..).map_while(|i| t.node_id(i).map(str::to_owned)).collect();
        *out = Box::into_raw(Box::new(Handle { current: ArcSwap::from_pointee(t), ids })).cast::<KrTransition>();
        Ok(())
    })
}

/// Releases a transition. NULL is ignored.
///
/// # Safety
/// `transition` must be NULL or a transition handle not released yet, which no other thread is
/// using; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_free(transition: *mut KrTransition) {
    if !transition.is_null() {
        // SAFETY: a live transition handle is `Box::into_raw` of a `Box<Handle>`.
        drop(unsafe { Box::from_raw(transition.cast::<Handle>()) });
    }
}

/// The progress, in [0, 1].
///
/// # Safety
/// `transition` must be NULL or a live transition handle; `progress` must be NULL or point to
/// a writable `double`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_progress(transition: *const KrTransition, progress: *mut f64) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `progress` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(progress, "progress") }? = t.current.load().progress();
        Ok(())
    })
}

/// Moves the transition to `progress` in [0, 1], atomically: routes that follow see the new
/// progress, routes under way finish with the one they started with. Any number of threads may
/// route meanwhile (no lock is taken on either side). Copies the transition (allocates).
///
/// Errors: `KR_INVALID_PARAMETER` for a progress outside [0, 1] or not a number (the
/// transition keeps its progress); `KR_NULL_POINTER`.
///
/// # Safety
/// `transition` must be NULL or a live transition handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_set_progress(transition: *const KrTransition, progress: f64) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        let next = t.current.load().with_progress(progress)?;
        t.current.store(Arc::new(next));
        Ok(())
    })
}

/// Routes one key at the current progress: `*node` receives its owner (a transition node
/// index). Allocates nothing.
///
/// Errors: `KR_INVALID_KEY` for a key either router refuses, `KR_NULL_POINTER`.
///
/// # Safety
/// `transition` must be NULL or a live transition handle; `key` must point to `key_len`
/// readable bytes (NULL only when `key_len` is 0); `node` must be NULL or point to a writable
/// `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_route(
    transition: *const KrTransition,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = t.current.load().route(key)?;
        Ok(())
    })
}

/// Routes one key with its fallback: `placement->owner` receives the owner now and, when the
/// key has cut over to a different node, `placement->has_previous` is true and
/// `placement->previous` the node that owned it before (read there on a miss); otherwise
/// `has_previous` is false and `previous` equals `owner`. Allocates nothing.
///
/// Errors: as `kr_transition_route`.
///
/// # Safety
/// As `kr_transition_route`; `placement` must be NULL or point to a writable `kr_placement`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_route_with_fallback(
    transition: *const KrTransition,
    key: *const u8,
    key_len: usize,
    placement: *mut KrPlacement,
) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `placement` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(placement, "placement") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let placed = t.current.load().route_with_fallback(key)?;
        *out = KrPlacement {
            owner: placed.owner,
            has_previous: placed.previous.is_some(),
            previous: placed.previous.unwrap_or(placed.owner),
        };
        Ok(())
    })
}

/// Whether `key` has cut over to its owner in view B at the current progress: `*cut_over`
/// receives it. Allocates nothing.
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// As `kr_transition_route`; `cut_over` must be NULL or point to a writable `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_has_cut_over(
    transition: *const KrTransition,
    key: *const u8,
    key_len: usize,
    cut_over: *mut bool,
) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `cut_over` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(cut_over, "cut_over") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = t.current.load().has_cut_over(key);
        Ok(())
    })
}

/// The number of the transition's nodes (A's, then B's that A lacks).
///
/// # Safety
/// `transition` must be NULL or a live transition handle; `count` must be NULL or point to a
/// writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_node_count(transition: *const KrTransition, count: *mut u32) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `count` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(count, "count") }?;
        *out = u32::try_from(t.ids.len()).map_err(|_| error(ErrorCode::TooManyNodes, "node count above u32".into()))?;
        Ok(())
    })
}

/// The id of transition node `index`: `*id` receives its UTF-8 bytes (not NUL-terminated) and
/// `*id_len` their length, borrowed from the transition (valid while this handle is alive,
/// whatever its progress becomes).
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when `index` is not below the node count, `KR_NULL_POINTER`.
///
/// # Safety
/// `transition` must be NULL or a live transition handle; `id` and `id_len` must each be NULL
/// or point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_transition_node_id(
    transition: *const KrTransition,
    index: u32,
    id: *mut *const c_char,
    id_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `transition` is NULL or a live transition handle, as this function's `# Safety` requires.
        let t = unsafe { handle(transition) }?;
        // SAFETY: `id` is NULL or writable and not aliased; `id_len` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let (id, id_len) = unsafe { (get_mut(id, "id")?, get_mut(id_len, "id_len")?) };
        let node = t.ids.get(index as usize).ok_or_else(|| {
            error(
                ErrorCode::NodeOutOfRange,
                format!("node index {index} out of range (the transition has {})", t.ids.len()),
            )
        })?;
        *id = node.as_ptr().cast::<c_char>();
        *id_len = node.len();
        Ok(())
    })
}
