//! `kr_live_view` and `kr_view`: the bindings' `LiveView` (the view in effect behind an
//! atomically swapped pointer; `docs/views.md`) and snapshots of it.
//!
//! A `kr_view` is one counted reference to an applied view (`Arc<ViewState>`), so what a
//! caller reads through it (node ids, the version, the fingerprint) stays valid and agrees with
//! itself while the caller holds it, whatever another thread publishes meanwhile. Routing on the
//! live view directly (`kr_live_view_route`) is the one-call path: it gives the node index with
//! the version it belongs to, so a caller caching ids per version can tell when to refresh.

use std::cell::{Cell, RefCell};
use std::ffi::{CString, c_char};
use std::sync::Arc;

use keyroute_bindings::view::{OwnedViewReader, fingerprint_text, unix_ms};
use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Router, ViewState};
use serde_json::{Map, Value};

use crate::boundary::{bytes, call, error, get, get_mut, optional_text};
use crate::{KrLiveView, KrPlacement, KrStatus, KrView};

/// The room `kr_view_fingerprint_text` writes to: 16 lowercase hex digits and a NUL.
pub const KR_FINGERPRINT_TEXT_LEN: usize = 17;

/// The live view behind a handle.
///
/// # Safety
/// A non-null `live` must be a live `kr_live_view` handle.
pub(crate) unsafe fn live<'a>(live: *const KrLiveView) -> Result<&'a LiveView, Error> {
    // SAFETY: a live-view handle is `Arc::into_raw` of an `Arc<LiveView>`.
    unsafe { get(live.cast::<LiveView>(), "live_view") }
}

/// The view behind a snapshot handle.
///
/// # Safety
/// A non-null `view` must be a live `kr_view` handle.
unsafe fn view<'a>(view: *const KrView) -> Result<&'a ViewState, Error> {
    // SAFETY: a view handle is `Arc::into_raw` of an `Arc<ViewState>`.
    unsafe { get(view.cast::<ViewState>(), "view") }
}

/// A new snapshot handle owning one reference to `state`.
pub(crate) fn view_handle(state: Arc<ViewState>) -> *mut KrView {
    Arc::into_raw(state).cast_mut().cast::<KrView>()
}

/// Limits from an optional JSON span (NULL: the defaults).
///
/// # Safety
/// `json` must be NULL or point to `len` readable bytes.
pub(crate) unsafe fn limits(json: *const c_char, len: usize) -> Result<Limits, Error> {
    // SAFETY: the caller's contract.
    match unsafe { optional_text(json, len, "limits_json") }? {
        Some(text) => Limits::from_json(text),
        None => Ok(Limits::DEFAULT),
    }
}

/// Hands `text` to C as an allocated NUL-terminated string (released with `kr_string_free`).
pub(crate) fn give_string(text: String, out: &mut *mut c_char, out_len: &mut usize) -> Result<(), Error> {
    let len = text.len();
    let owned = CString::new(text).map_err(|_| error(ErrorCode::Internal, "text with a NUL byte".into()))?;
    *out = owned.into_raw();
    *out_len = len;
    Ok(())
}

/// Creates a live view with no view yet: documents are read and built under `limits_json` (a
/// JSON object of the limits to change, as `kr_router_from_json_with_limits` takes), or the
/// default limits when it is NULL. `*live_view` receives the handle (release it with
/// `kr_live_view_free`).
///
/// Any number of threads may route through one live view while others publish to it (or a
/// watch, `kr_watch_start`, feeds it): a lookup takes no lock and sees one whole view, old or
/// new, never a mix.
///
/// Errors: `KR_INVALID_JSON` or `KR_INVALID_PARAMETER` for bad limits, `KR_NULL_POINTER`.
///
/// # Safety
/// `limits_json` must be NULL or point to `limits_len` readable bytes; `live_view` must be NULL
/// or point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_new(
    limits_json: *const c_char,
    limits_len: usize,
    live_view: *mut *mut KrLiveView,
) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(live_view, "live_view") }?;
        // SAFETY: `limits_json` is NULL or points to `limits_len` readable bytes, as this function's `# Safety` requires.
        let limits = unsafe { limits(limits_json, limits_len) }?;
        *out = Arc::into_raw(Arc::new(LiveView::new(limits))).cast_mut().cast::<KrLiveView>();
        Ok(())
    })
}

/// Releases a live view handle. NULL is ignored. Snapshots loaded from it stay valid, and a
/// watch feeding it keeps its own reference (stop the watch to let the view go), as does each
/// thread that routed through it lately (`kr_live_view_route` keeps a reader of the last four).
///
/// # Safety
/// `live_view` must be NULL or a live-view handle not released yet, which no other thread is
/// using; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_free(live_view: *mut KrLiveView) {
    if !live_view.is_null() {
        // SAFETY: a live handle is one `Arc::into_raw` reference; this gives it back.
        drop(unsafe { Arc::from_raw(live_view.cast_const().cast::<LiveView>()) });
    }
}

/// Applies a view document (JSON bytes, `docs/views.md`) if its version is newer than the one
/// in effect and it builds: the new view is built completely, then swapped in atomically, and
/// `*version` receives its version. Otherwise the view in effect stays, the refusal is
/// recorded (`kr_live_view_last_refusal_json`, `kr_live_view_refusals`) and its code returned.
///
/// Errors: `KR_STALE_VERSION` for a version not above the one in effect; `KR_INVALID_VIEW`,
/// `KR_INVALID_JSON`, `KR_INVALID_UTF8`, `KR_SPEC_TOO_LARGE`, `KR_FINGERPRINT_MISMATCH` or any
/// code a spec can produce; `KR_NULL_POINTER` (not recorded).
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `document` must point to `document_len`
/// readable bytes (NULL only when `document_len` is 0); `version` must be NULL or point to a
/// writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_publish(
    live_view: *const KrLiveView,
    document: *const u8,
    document_len: usize,
    version: *mut u64,
) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `version` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(version, "version") }?;
        // SAFETY: `document` is NULL or points to `document_len` readable bytes, as this function's `# Safety` requires.
        let doc = unsafe { bytes(document, document_len, "document") }?;
        *out = lv.publish_bytes(doc)?.version();
        Ok(())
    })
}

/// How many live views a thread keeps a reader of: a thread that routes through a few live
/// views in turn (a cache pool and a shard map, say) finds each one's reader in place.
const READERS: usize = 4;

/// A thread's readers of the live views it last routed through, and the one it used last
/// (looked at first; a new reader takes the slot after it).
struct Readers {
    slots: [Option<OwnedViewReader>; READERS],
    last: usize,
}

impl Drop for Readers {
    /// The views the readers hold go with them, so the thread's shortcut to one must too.
    fn drop(&mut self) {
        let _ = LAST.try_with(|last| last.set(Last::NONE));
    }
}

/// The live view this thread routed through last, the generation its reader loaded the view
/// in effect at, and that view: while the live view's generation still reads the same, that
/// view is the one in effect, and the reader (in `READER`) holds it.
#[derive(Clone, Copy)]
struct Last {
    live: *const LiveView,
    generation: u64,
    view: *const ViewState,
}

impl Last {
    const NONE: Self = Self { live: std::ptr::null(), generation: 0, view: std::ptr::null() };
}

thread_local! {
    /// This thread's readers of the live views it last routed through with
    /// `kr_live_view_route`. Each holds one reference to its live view (so no other one can
    /// take its address while it is cached) and to the view it last saw.
    static READER: RefCell<Readers> = const { RefCell::new(Readers { slots: [const { None }; READERS], last: 0 }) };

    /// The route's shortcut: a copy of what the reader of the live view used last holds, read
    /// without a borrow or a destructor's registration (the type has no drop), so a route on
    /// an unchanged view costs a thread-local read and one atomic load more than `kr_route`.
    /// Set only beside the reader it copies, and cleared when the readers go.
    static LAST: Cell<Last> = const { Cell::new(Last::NONE) };
}

/// The slot of this thread's reader of `lv`, made in the slot after the last used one when
/// there is none (and `*last` set to it).
///
/// # Safety
/// `ptr` must be the live-view handle `lv` was read from, alive for this call.
unsafe fn find_or_add(
    slots: &mut [Option<OwnedViewReader>; READERS],
    last: &mut usize,
    ptr: *const LiveView,
    lv: &LiveView,
) -> usize {
    let at = slots.iter().position(|r| r.as_ref().is_some_and(|r| r.reads(lv))).unwrap_or_else(|| {
        let at = (*last + 1) % READERS;
        // SAFETY: `ptr` is a live `Arc::into_raw` reference for this call (the caller's contract);
        // the reader takes one more, which it gives back when it is dropped.
        let view = unsafe {
            Arc::increment_strong_count(ptr);
            Arc::from_raw(ptr)
        };
        if let Some(slot) = slots.get_mut(at) {
            *slot = Some(OwnedViewReader::new(view));
        }
        at
    });
    *last = at;
    at
}

/// Calls `f` with the view in effect of `lv` (the handle `ptr`): through the thread's shortcut
/// when it is to `lv` and still current, otherwise through the thread's reader of `lv`.
///
/// # Safety
/// `ptr` must be the live-view handle `lv` was read from, alive for this call.
#[inline(always)]
unsafe fn with_reader<R>(
    ptr: *const LiveView,
    lv: &LiveView,
    f: impl FnOnce(&ViewState) -> Result<R, Error>,
) -> Result<R, Error> {
    if let Ok(last) = LAST.try_with(Cell::get)
        && std::ptr::eq(last.live, ptr)
        && lv.generation() == last.generation
    {
        // SAFETY: `LAST` is set only with the view its live view's reader holds at that
        // generation, and cleared when the readers go; a reader is replaced, or lets its view
        // go, only in `with_slot_reader`, which resets `LAST` first. The generation has not
        // moved, so the view is held, and it is the one in effect.
        return f(unsafe { &*last.view });
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { with_slot_reader(ptr, lv, f) }
}

/// [`with_reader`] through the thread's reader of `lv` (made if needed), which then becomes
/// the thread's shortcut; or without a reader before a first view (the live view reports it)
/// and while the thread's storage is being torn down (a call from a destructor at thread
/// exit).
///
/// # Safety
/// As [`with_reader`].
#[cold]
#[inline(never)]
unsafe fn with_slot_reader<R>(
    ptr: *const LiveView,
    lv: &LiveView,
    f: impl FnOnce(&ViewState) -> Result<R, Error>,
) -> Result<R, Error> {
    let mut f = Some(f);
    let cached = READER.try_with(|readers| {
        let mut readers = readers.try_borrow_mut().ok()?;
        let Readers { slots, last } = &mut *readers;
        // A reader may now be replaced, or let its old view go: the shortcut must not point
        // at either meanwhile.
        let _ = LAST.try_with(|last| last.set(Last::NONE));
        // SAFETY: the caller's contract, passed on.
        let at = unsafe { find_or_add(slots, last, ptr, lv) };
        let reader = slots.get_mut(at)?.as_mut()?;
        let (generation, view) = reader.current();
        // No view yet: `None`, and the live view itself answers below (`no_view`).
        let view = view?;
        let _ = LAST.try_with(|last| last.set(Last { live: ptr, generation, view: Arc::as_ptr(view) }));
        Some(f.take()?(view))
    });
    match (cached, f) {
        (Ok(Some(routed)), _) => routed,
        (_, Some(f)) => lv.with(f),
        (_, None) => Err(error(ErrorCode::Internal, "the thread's view reader failed".into())),
    }
}

/// Routes one key with the view in effect: `*node` receives the owner's index into that view's
/// node list and `*version` the version of that view, so that a caller caching node ids per
/// version knows which list the index belongs to (load a `kr_view` to read its ids). Takes no
/// lock, and allocates nothing after a thread's first call.
///
/// Each thread keeps a reader of the last four live views it routed through, which makes the
/// call about as fast as `kr_route`. A reader holds a reference to its live view and to the
/// view it last saw, given back once four other live views have taken its place in turn, or
/// when the thread exits: so memory of a freed live view can outlive `kr_live_view_free` until
/// then.
///
/// Errors: `KR_NO_VIEW` before a first view is applied, `KR_INVALID_KEY`, `KR_NULL_POINTER`.
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `key` must point to `key_len` readable bytes
/// (NULL only when `key_len` is 0); `node` and `version` must each be NULL or point to writable
/// storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_route(
    live_view: *const KrLiveView,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
    version: *mut u64,
) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `node` and `version` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (node, version) = unsafe { (get_mut(node, "node")?, get_mut(version, "version")?) };
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        // SAFETY: `live_view` is the handle `lv` was read from, alive for this call.
        let (n, v) = unsafe { with_reader(live_view.cast(), lv, |view| Ok((view.route(key)?, view.version()))) }?;
        (*node, *version) = (n, v);
        Ok(())
    })
}

/// The version in effect.
///
/// Errors: `KR_NO_VIEW` before a first view is applied, `KR_NULL_POINTER`.
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `version` must be NULL or point to a
/// writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_version(live_view: *const KrLiveView, version: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `version` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(version, "version") }?;
        *out = lv.with(|v| Ok(v.version()))?;
        Ok(())
    })
}

/// The view in effect, as a snapshot: `*view` receives a new `kr_view` handle (release it with
/// `kr_view_free`). Everything read through it (routes, node ids, version, fingerprint) comes
/// from that one view and stays valid until it is released, even after a newer view is
/// published. Takes no lock and allocates nothing (a reference count goes up).
///
/// Errors: `KR_NO_VIEW` before a first view is applied, `KR_NULL_POINTER`.
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `view` must be NULL or point to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_load(live_view: *const KrLiveView, view: *mut *mut KrView) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `view` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(view, "view") }?;
        let state = lv.load().ok_or_else(|| error(ErrorCode::NoView, "no view applied yet".into()))?;
        *out = view_handle(state);
        Ok(())
    })
}

/// How many documents this live view has refused (published, or read by a watch).
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `count` must be NULL or point to a writable
/// `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_refusals(live_view: *const KrLiveView, count: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `count` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(count, "count") }? = lv.refusals();
        Ok(())
    })
}

/// The last refusal as JSON, `{"at_unix_ms":…,"code":28,"error":"stale_version","message":…,
/// "version":…}` (`version` null when the document's could not be read): `*json` receives an
/// allocated NUL-terminated string (release it with `kr_string_free`) and `*json_len` its
/// length, or NULL and 0 when nothing was refused.
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `json` and `json_len` must each be NULL or
/// point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_last_refusal_json(
    live_view: *const KrLiveView,
    json: *mut *mut c_char,
    json_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `json` and `json_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (json, json_len) = unsafe { (get_mut(json, "json")?, get_mut(json_len, "json_len")?) };
        match lv.last_refusal() {
            Some(r) => give_string(r.to_json(), json, json_len),
            None => {
                (*json, *json_len) = (std::ptr::null_mut(), 0);
                Ok(())
            }
        }
    })
}

/// What the live view routes with, as JSON: `{"applied_unix_ms":…,"fingerprint":"<16 hex>",
/// "last_refusal":{…}|null,"progress":…|null,"refusals":N,"version":…}` (version, fingerprint
/// and applied time null before a first view; progress null for a plain view). `*json`
/// receives an allocated NUL-terminated string (release it with `kr_string_free`) and
/// `*json_len` its length.
///
/// # Safety
/// `live_view` must be NULL or a live-view handle; `json` and `json_len` must each be NULL or
/// point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_live_view_status_json(
    live_view: *const KrLiveView,
    json: *mut *mut c_char,
    json_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        let lv = unsafe { live(live_view) }?;
        // SAFETY: `json` and `json_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (json, json_len) = unsafe { (get_mut(json, "json")?, get_mut(json_len, "json_len")?) };
        let current = lv.load();
        let mut m = Map::new();
        let field = |f: &dyn Fn(&ViewState) -> Value| current.as_deref().map_or(Value::Null, f);
        m.insert("applied_unix_ms".into(), field(&|v| Value::from(unix_ms(v.applied_at()))));
        m.insert("fingerprint".into(), field(&|v| Value::from(fingerprint_text(v.fingerprint()))));
        let refusal = lv.last_refusal().map(|r| serde_json::from_str(&r.to_json()).unwrap_or(Value::Null));
        m.insert("last_refusal".into(), refusal.unwrap_or(Value::Null));
        m.insert("progress".into(), field(&|v| v.progress().map_or(Value::Null, Value::from)));
        m.insert("refusals".into(), Value::from(lv.refusals()));
        m.insert("version".into(), field(&|v| Value::from(v.version())));
        give_string(Value::Object(m).to_string(), json, json_len)
    })
}

/// Releases a string this library allocated (`kr_live_view_status_json`, `kr_view_document_json`,
/// `kr_fleet_status_json`, …). NULL is ignored.
///
/// # Safety
/// `text` must be NULL or a string from one of those functions, not released yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: such a string is `CString::into_raw`; this gives it back.
        drop(unsafe { CString::from_raw(text) });
    }
}

/// Another handle to the same snapshot (a counted reference; no copy), e.g. to keep the view a
/// watch's callback was handed. Release each handle with `kr_view_free`.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `clone` must be NULL or point to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_clone(view: *const KrView, clone: *mut *mut KrView) -> KrStatus {
    call(|| {
        // SAFETY: `clone` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(clone, "clone") }?;
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        unsafe { self::view(view) }?;
        // SAFETY: a live handle is an `Arc<ViewState>` reference; the count goes up for `out`.
        *out = view_handle(unsafe {
            Arc::increment_strong_count(view.cast::<ViewState>());
            Arc::from_raw(view.cast::<ViewState>())
        });
        Ok(())
    })
}

/// Releases a snapshot handle. NULL is ignored. The view is freed with its last handle (the
/// live view holds one while the view is in effect).
///
/// # Safety
/// `view` must be NULL or a `kr_view` handle not released yet; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_free(view: *mut KrView) {
    if !view.is_null() {
        // SAFETY: a live handle is one `Arc::into_raw` reference; this gives it back.
        drop(unsafe { Arc::from_raw(view.cast_const().cast::<ViewState>()) });
    }
}

/// Routes one key with this view: `*node` receives the owner's index into its node list (a
/// plain view's nodes; during a rollout, the target's nodes in order, then the nodes only the
/// start has), whose ids `kr_view_node_id` gives. Allocates nothing (a scheduled rollout builds
/// its next step once, when the clock passes it).
///
/// Errors: `KR_INVALID_KEY`, `KR_NULL_POINTER`.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `key` must point to `key_len` readable bytes
/// (NULL only when `key_len` is 0); `node` must be NULL or point to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_route(
    view: *const KrView,
    key: *const u8,
    key_len: usize,
    node: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = v.route(key)?;
        Ok(())
    })
}

/// Routes one key with its fallback: `placement->owner` receives the owner and, during a
/// rollout for a key that has cut over to a different node, `placement->has_previous` is true
/// and `placement->previous` the node that owned it before (read there on a miss); otherwise
/// `has_previous` is false and `previous` equals `owner`. Indices as `kr_view_route`.
///
/// Errors: as `kr_view_route`.
///
/// # Safety
/// As `kr_view_route`; `placement` must be NULL or point to a writable `kr_placement`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_route_with_fallback(
    view: *const KrView,
    key: *const u8,
    key_len: usize,
    placement: *mut KrPlacement,
) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `placement` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(placement, "placement") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let placed = v.route_with_fallback(key)?;
        *out = KrPlacement {
            owner: placed.owner,
            has_previous: placed.previous.is_some(),
            previous: placed.previous.unwrap_or(placed.owner),
        };
        Ok(())
    })
}

/// The owners of one key at the two ends of a rollout (`kr_view_ends`), by id: the copies a
/// write or a delete must reach while instances sit at different progress values
/// (`docs/views.md`, the write rules). The ids borrow from the `kr_view` (valid while it is).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KrEnds {
    /// The owner's id under the view's spec (the rollout's start), UTF-8, not NUL-terminated.
    pub from_id: *const c_char,
    /// Its length in bytes.
    pub from_id_len: usize,
    /// The owner's id under the rollout's target when `has_to`; otherwise the same as `from_id`.
    pub to_id: *const c_char,
    /// Its length in bytes.
    pub to_id_len: usize,
    /// Whether the view is a rollout (a plain view has one end).
    pub has_to: bool,
}

/// The owners of `key` at both ends of the view's rollout (the start's spec and the target's),
/// or its one owner for a plain view (`has_to` false): write and delete at both ends during a
/// rollout. Allocates nothing.
///
/// Errors: as `kr_view_route`.
///
/// # Safety
/// As `kr_view_route`; `ends` must be NULL or point to a writable `kr_view_ends`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_ends(
    view: *const KrView,
    key: *const u8,
    key_len: usize,
    ends: *mut KrEnds,
) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `ends` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(ends, "ends") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let owner = |r: &Router| -> Result<(*const c_char, usize), Error> {
            let id = r
                .node_id(r.route(key)?)
                .ok_or_else(|| error(ErrorCode::Internal, "route outside the node list".into()))?;
            Ok((id.as_ptr().cast::<c_char>(), id.len()))
        };
        let from = owner(v.router())?;
        let to = v.rollout_target().map(owner).transpose()?;
        let (to_id, to_id_len) = to.unwrap_or(from);
        *out = KrEnds { from_id: from.0, from_id_len: from.1, to_id, to_id_len, has_to: to.is_some() };
        Ok(())
    })
}

/// How many nodes `kr_view_node_id` names.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `count` must be NULL or point to a writable
/// `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_node_count(view: *const KrView, count: *mut u32) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `count` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(count, "count") }?;
        *out =
            u32::try_from(v.node_count()).map_err(|_| error(ErrorCode::TooManyNodes, "node count above u32".into()))?;
        Ok(())
    })
}

/// The id of the view's node `index`: `*id` receives its UTF-8 bytes (not NUL-terminated) and
/// `*id_len` their length, borrowed from the view (valid while this `kr_view` handle is alive,
/// whatever is published meanwhile).
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when `index` is not below the node count, `KR_NULL_POINTER`.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `id` and `id_len` must each be NULL or point
/// to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_node_id(
    view: *const KrView,
    index: u32,
    id: *mut *const c_char,
    id_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `id` and `id_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (id, id_len) = unsafe { (get_mut(id, "id")?, get_mut(id_len, "id_len")?) };
        let node = v.node_id(index).ok_or_else(|| {
            error(
                ErrorCode::NodeOutOfRange,
                format!("node index {index} out of range (the view has {})", v.node_count()),
            )
        })?;
        *id = node.as_ptr().cast::<c_char>();
        *id_len = node.len();
        Ok(())
    })
}

/// The view's version.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `version` must be NULL or point to a
/// writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_version(view: *const KrView, version: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `version` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(version, "version") }? = v.version();
        Ok(())
    })
}

/// The view's fingerprint as a number (`docs/views.md`: a plain view's is its spec's, a
/// rollout's covers both ends and the progress). Send its text form (`kr_view_fingerprint_text`)
/// anywhere else: it is the same on every surface.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `fingerprint` must be NULL or point to a
/// writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_fingerprint(view: *const KrView, fingerprint: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `fingerprint` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(fingerprint, "fingerprint") }? = v.fingerprint();
        Ok(())
    })
}

/// The view's fingerprint as text, the form every surface, document and census entry carries:
/// 16 lowercase hex digits and a NUL written to `text`, which must have room for
/// `KR_FINGERPRINT_TEXT_LEN` (17) bytes.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `text` must be NULL or point to 17 writable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_fingerprint_text(view: *const KrView, text: *mut c_char) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `text` is NULL or 17 writable bytes, as this function's `# Safety` requires.
        let out = unsafe { get_mut(text.cast::<[u8; KR_FINGERPRINT_TEXT_LEN]>(), "text") }?;
        // The digits of `fingerprint_text`, written in place (a lookup allocates nothing).
        let fp = v.fingerprint();
        for (i, slot) in out.iter_mut().enumerate() {
            let shift = 60u32.saturating_sub(4 * i as u32);
            *slot = match (fp >> shift) & 0xf {
                _ if i == 16 => 0,
                d @ 0..=9 => b'0' + d as u8,
                d => b'a' + (d as u8 - 10),
            };
        }
        Ok(())
    })
}

/// The view's rollout progress now: `*rollout` receives whether the view is a rollout and
/// `*progress` its progress in [0, 1] (for a schedule, where the clock has it now), or 0 for a
/// plain view.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `progress` and `rollout` must each be NULL or
/// point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_progress(view: *const KrView, progress: *mut f64, rollout: *mut bool) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `progress` and `rollout` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (progress, rollout) = unsafe { (get_mut(progress, "progress")?, get_mut(rollout, "rollout")?) };
        let p = v.progress();
        (*progress, *rollout) = (p.unwrap_or(0.0), p.is_some());
        Ok(())
    })
}

/// When this process applied the view, in milliseconds since the Unix epoch.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `unix_ms` must be NULL or point to a
/// writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_applied_unix_ms(view: *const KrView, unix_ms: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `unix_ms` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(unix_ms, "unix_ms") }? = self::unix_ms(v.applied_at());
        Ok(())
    })
}

/// The view as a canonical view document (keys sorted, no whitespace, with its fingerprint
/// text), which `kr_live_view_publish` and every other surface read back to the same view:
/// `*json` receives an allocated NUL-terminated string (release it with `kr_string_free`) and
/// `*json_len` its length.
///
/// # Safety
/// `view` must be NULL or a live `kr_view` handle; `json` and `json_len` must each be NULL or
/// point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_view_document_json(
    view: *const KrView,
    json: *mut *mut c_char,
    json_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `view` is NULL or a live view handle, as this function's `# Safety` requires.
        let v = unsafe { self::view(view) }?;
        // SAFETY: `json` and `json_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (json, json_len) = unsafe { (get_mut(json, "json")?, get_mut(json_len, "json_len")?) };
        give_string(v.document_json(), json, json_len)
    })
}
