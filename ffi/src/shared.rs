//! `kr_shared_router`: the bindings' `SharedRouter` (arc-swap) behind a handle, so C threads
//! keep routing while another thread publishes a new topology.

use keyroute_bindings::SharedRouter;

use crate::boundary::{call, get, get_mut, retain, router, router_handle};
use crate::{KrRouter, KrSharedRouter, KrStatus};

/// The shared router behind a handle.
///
/// # Safety
/// A non-null `shared` must be a live shared-router handle.
unsafe fn shared<'a>(shared: *const KrSharedRouter) -> Result<&'a SharedRouter, keyroute_bindings::Error> {
    // SAFETY: a shared handle is `Box::into_raw` of a `Box<SharedRouter>`.
    unsafe { get(shared.cast::<SharedRouter>(), "shared") }
}

/// Creates a shared router that starts with `initial`. The shared router takes its own
/// reference: the caller keeps (and must still release) its `initial` handle.
///
/// # Safety
/// `initial` must be NULL or a live router handle; `shared` must be NULL or point to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_shared_router_new(initial: *const KrRouter, shared: *mut *mut KrSharedRouter) -> KrStatus {
    call(|| {
        // SAFETY: `shared` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(shared, "shared") }?;
        // SAFETY: `initial` is NULL or a live router handle, as this function's `# Safety` requires.
        unsafe { router(initial) }?;
        // SAFETY: `initial` was just checked to be a live router handle.
        let current = unsafe { retain(initial) };
        *out = Box::into_raw(Box::new(SharedRouter::from_arc(current))).cast::<KrSharedRouter>();
        Ok(())
    })
}

/// The current router: `*router` receives a new handle to it (release it with
/// `kr_router_free`). Route, read ids and fingerprints through that one handle, so every answer
/// comes from the same topology even if another thread stores a new one meanwhile. Takes no
/// lock and allocates nothing (a reference count goes up).
///
/// # Safety
/// `shared` must be NULL or a live shared-router handle; `router` must be NULL or point to
/// writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_shared_router_load(shared: *const KrSharedRouter, router: *mut *mut KrRouter) -> KrStatus {
    call(|| {
        // SAFETY: `shared` is NULL or a live shared-router handle, as this function's `# Safety` requires.
        let s = unsafe { self::shared(shared) }?;
        // SAFETY: `router` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(router, "router") }?;
        *out = router_handle(s.load());
        Ok(())
    })
}

/// Publishes `router` as the current router, atomically: loads that follow get it, loads
/// already made keep the router they got. The shared router takes its own reference (the
/// caller keeps and must still release its handle); the router it replaces is released when
/// its last handle is.
///
/// # Safety
/// `shared` must be NULL or a live shared-router handle; `router` must be NULL or a live
/// router handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_shared_router_store(shared: *const KrSharedRouter, router: *const KrRouter) -> KrStatus {
    call(|| {
        // SAFETY: `shared` is NULL or a live shared-router handle, as this function's `# Safety` requires.
        let s = unsafe { self::shared(shared) }?;
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        unsafe { self::router(router) }?;
        // SAFETY: `router` was just checked to be a live router handle.
        drop(s.store_arc(unsafe { retain(router) }));
        Ok(())
    })
}

/// Releases a shared router. NULL is ignored. Router handles loaded from it stay valid.
///
/// # Safety
/// `shared` must be NULL or a shared-router handle not released yet, which no other thread is
/// using; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_shared_router_free(shared: *mut KrSharedRouter) {
    if !shared.is_null() {
        // SAFETY: a live shared handle is `Box::into_raw` of a `Box<SharedRouter>`.
        drop(unsafe { Box::from_raw(shared.cast::<SharedRouter>()) });
    }
}
