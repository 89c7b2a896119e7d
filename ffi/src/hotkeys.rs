//! `kr_hotkeys`: the streaming hot-key detector (`keyroute_bindings::hotkeys::SharedHotKeys`),
//! for any number of threads at once.

use std::ffi::c_void;

use keyroute_bindings::Error;
use keyroute_bindings::hotkeys::SharedHotKeys;

use crate::boundary::{bytes, call, get, get_mut};
use crate::{KrHotKeys, KrStatus};

/// The detector behind a handle.
///
/// # Safety
/// A non-null `hotkeys` must be a live hot-key handle.
unsafe fn handle<'a>(hotkeys: *const KrHotKeys) -> Result<&'a SharedHotKeys, Error> {
    // SAFETY: a hot-key handle is `Box::into_raw` of a `Box<SharedHotKeys>`.
    unsafe { get(hotkeys.cast::<SharedHotKeys>(), "hotkeys") }
}

/// Called by `kr_hotkeys_top` once per key, most counted first: `key` (`key_len` bytes, valid
/// only during the call), its estimated count, and the caller's `context`.
pub type KrHotKeyFn = Option<unsafe extern "C" fn(context: *mut c_void, key: *const u8, key_len: usize, count: u32)>;

/// A hot-key detector of bounded memory: a count sketch of rows of `width` counters (16384 is
/// the usual choice: about 128 KB) and room for `capacity` candidate keys (1024), split over
/// `shards` locks (8) so threads observing at once rarely wait. Its estimates are never below
/// the true counts; `kr_hotkeys_decay` halves them, so "hot" can mean hot recently.
///
/// Errors: `KR_INVALID_PARAMETER` (width above 2^24, capacity 0 or above 2^20, shards 0 or
/// above 256), `KR_OUT_OF_MEMORY`, `KR_NULL_POINTER`.
///
/// # Safety
/// `hotkeys` must be NULL or point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_new(
    width: usize,
    capacity: usize,
    shards: usize,
    hotkeys: *mut *mut KrHotKeys,
) -> KrStatus {
    call(|| {
        // SAFETY: `hotkeys` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(hotkeys, "hotkeys") }?;
        let detector = SharedHotKeys::new(width, capacity, shards)?;
        *out = Box::into_raw(Box::new(detector)).cast::<KrHotKeys>();
        Ok(())
    })
}

/// Counts one request for `key`; `*estimate` (may be NULL) receives its estimated count after it.
///
/// Errors: `KR_OUT_OF_MEMORY` (a new candidate's key could not be stored; the count is kept),
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `hotkeys` must be NULL or a live hot-key handle; `key` must point to `key_len` readable
/// bytes (NULL only when `key_len` is 0); `estimate` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_observe(
    hotkeys: *const KrHotKeys,
    key: *const u8,
    key_len: usize,
    estimate: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `hotkeys` is NULL or a live hot-key handle, as this function's `# Safety` requires.
        let h = unsafe { handle(hotkeys) }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let count = h.observe(key)?;
        // SAFETY: `estimate` is NULL or writable and not aliased, as this function's `# Safety` requires.
        if let Some(out) = unsafe { estimate.as_mut() } {
            *out = count;
        }
        Ok(())
    })
}

/// `*heat` receives `key`'s estimated (decayed) count and `*total` (may be NULL) the
/// observations counted: a key is hot by rate when `*heat` reaches a count, by share when
/// `*heat >= share * *total`.
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// `hotkeys` must be NULL or a live hot-key handle; `key` must point to `key_len` readable
/// bytes (NULL only when `key_len` is 0); `heat` must be NULL or writable; `total` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_heat(
    hotkeys: *const KrHotKeys,
    key: *const u8,
    key_len: usize,
    heat: *mut u32,
    total: *mut u64,
) -> KrStatus {
    call(|| {
        // SAFETY: `hotkeys` is NULL or a live hot-key handle, as this function's `# Safety` requires.
        let h = unsafe { handle(hotkeys) }?;
        // SAFETY: `heat` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(heat, "heat") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = h.heat(key);
        // SAFETY: `total` is NULL or writable and not aliased, as this function's `# Safety` requires.
        if let Some(total) = unsafe { total.as_mut() } {
            *total = h.total();
        }
        Ok(())
    })
}

/// Calls `each` for the `k` most counted keys, most counted first (ties by key bytes), with
/// `context`; `*count` (may be NULL) receives how many it called `each` for. The keys are
/// copied out under the detector's locks first, so `each` may call the detector. A key longer
/// than 1 KiB is given as its first 1,024 bytes (a candidate stores no more of it).
///
/// Errors: `KR_NULL_POINTER` (`hotkeys` or `each`); `KR_OUT_OF_MEMORY` when the copies cannot
/// be allocated.
///
/// # Safety
/// `hotkeys` must be NULL or a live hot-key handle; `each` must be safe to call with
/// `context`; `count` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_top(
    hotkeys: *const KrHotKeys,
    k: usize,
    each: KrHotKeyFn,
    context: *mut c_void,
    count: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `hotkeys` is NULL or a live hot-key handle, as this function's `# Safety` requires.
        let h = unsafe { handle(hotkeys) }?;
        let each = each.ok_or_else(|| crate::boundary::null("each"))?;
        let top = h.top(k)?;
        for (key, estimate) in &top {
            // SAFETY: `each` is callable with `context`, as this function's `# Safety` requires;
            // `key` lives until the call returns.
            unsafe { each(context, key.as_ptr(), key.len(), *estimate) };
        }
        // SAFETY: `count` is NULL or writable and not aliased, as this function's `# Safety` requires.
        if let Some(out) = unsafe { count.as_mut() } {
            *out = top.len();
        }
        Ok(())
    })
}

/// Halves every count (call it on a timer, e.g. every 10 s, so that "hot" means hot recently).
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// `hotkeys` must be NULL or a live hot-key handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_decay(hotkeys: *const KrHotKeys) -> KrStatus {
    call(|| {
        // SAFETY: `hotkeys` is NULL or a live hot-key handle, as this function's `# Safety` requires.
        unsafe { handle(hotkeys) }?.decay();
        Ok(())
    })
}

/// Releases a hot-key handle. NULL is ignored.
///
/// # Safety
/// `hotkeys` must be NULL or a hot-key handle not released yet, which no other thread is using;
/// it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_hotkeys_free(hotkeys: *mut KrHotKeys) {
    if !hotkeys.is_null() {
        // SAFETY: a live hot-key handle is `Box::into_raw` of a `Box<SharedHotKeys>`.
        drop(unsafe { Box::from_raw(hotkeys.cast::<SharedHotKeys>()) });
    }
}
