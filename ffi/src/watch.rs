//! View sources in C, through `keyroute-fleet`: `kr_watch_start` feeds a `kr_live_view` from a
//! file or etcd on a thread of its own (registered in the source's census when asked, calling
//! back on every event when given a callback), `kr_publish_view` is the compare-and-swap of
//! `keyroute view publish`, and `kr_fleet_status_json` the census read against the source's
//! view (`keyroute fleet status --json`).

use std::cell::Cell;
use std::ffi::{CString, c_char, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use keyroute_bindings::{Error, ErrorCode, LiveView, ViewDocument};
use keyroute_fleet::census::{self, Instance, Member};
use keyroute_fleet::source::{self, Event, Source, WatchOptions};

use crate::boundary::{bytes, call, error, get, get_mut, optional_text, text};
use crate::view::{give_string, limits, live};
use crate::{KrLiveView, KrStatus, KrView, KrWatch};

/// What a watch's event is (`kr_view_event.kind`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KrViewEventKind {
    /// A newer view was applied to the live view.
    Applied = 0,
    /// A document was refused (or the source could not be read): the live view keeps its view.
    Refused = 1,
}

/// One event of a watch, handed to its callback. Every pointer in it borrows for the duration
/// of the call only.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KrViewEvent {
    /// Applied or refused.
    pub kind: KrViewEventKind,
    /// The applied view's version; for a refusal, the refused document's version, or 0 when it
    /// could not be read.
    pub version: u64,
    /// The applied view's fingerprint; 0 for a refusal.
    pub fingerprint: u64,
    /// `KR_OK` for an applied view; the refusal's code (`KR_STALE_VERSION`, `KR_IO`, …).
    pub code: KrStatus,
    /// The refusal's message, NUL-terminated UTF-8; `""` for an applied view.
    pub message: *const c_char,
    /// The applied view (`kr_view_clone` it to keep it past the call); NULL for a refusal.
    pub view: *const KrView,
}

/// A watch's callback: called on the watch's thread with `user` (as given in
/// `kr_watch_options`) for every view applied and every refusal.
pub type KrViewEventFn = Option<unsafe extern "C" fn(user: *mut c_void, event: *const KrViewEvent)>;

/// Whether a watch registers in its source's census (`kr_watch_options.census`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KrCensus {
    /// On for an etcd source, off for a file source.
    Default = 0,
    /// Registers (the file source keeps its census beside the document).
    On = 1,
    /// Does not register.
    Off = 2,
}

/// How a watch runs (`kr_watch_start`). A zeroed struct, or NULL, asks for every default.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KrWatchOptions {
    /// How often the source is read again with no notification, in seconds (0: 1 second; at
    /// least 0.01). Change notifications, where the source has them, are seen at once.
    pub poll_interval_seconds: f64,
    /// Poll only, without change notifications.
    pub poll_only: bool,
    /// Whether to register in the source's census: a `kr_census` value (0, the zeroed default,
    /// is `KR_CENSUS_DEFAULT`; any other number is `KR_INVALID_PARAMETER`).
    pub census: u32,
    /// The census instance id (1 to 128 of `A-Z a-z 0-9 . _ -`), UTF-8, not NUL-terminated;
    /// NULL for `HOST-PID`.
    pub instance: *const c_char,
    /// Its length in bytes.
    pub instance_len: usize,
    /// How long the census entry outlives the instance's last heartbeat, in seconds (0: 10
    /// seconds; at least 2).
    pub census_ttl_seconds: f64,
    /// Called for every event, on the watch's thread; NULL for none (poll the live view).
    pub callback: KrViewEventFn,
    /// Handed to `callback` as is.
    pub user: *mut c_void,
    /// The surface the census entry names: a binding over this library names itself (`go`,
    /// `java`, …; 1 to 32 of `a-z 0-9 _ -`), UTF-8, not NUL-terminated; NULL for `c`.
    pub surface: *const c_char,
    /// Its length in bytes.
    pub surface_len: usize,
}

/// Another counted reference to the live view behind a handle (a watch keeps its own).
///
/// # Safety
/// `live` must be a live `kr_live_view` handle (checked non-null by the caller).
unsafe fn retain_live(live: *const KrLiveView) -> Arc<LiveView> {
    let raw = live.cast::<LiveView>();
    // SAFETY: a live handle is one `Arc<LiveView>` reference; the count goes up for the new one.
    unsafe {
        Arc::increment_strong_count(raw);
        Arc::from_raw(raw)
    }
}

/// What a watch handle points to.
struct Handle {
    watch: Mutex<Option<keyroute_fleet::Watch>>,
    instance: Option<String>,
    id: u64,
}

/// Numbers watches, so a callback can tell whether it was called by the watch it would stop.
static WATCH_IDS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The watch whose callback runs on this thread now (0: none).
    static IN_CALLBACK: Cell<u64> = const { Cell::new(0) };
}

/// The user's pointer, moved to the watch's thread: what it points to is the caller's to keep
/// safe across threads (the header says the callback runs on the watch's thread).
struct User(*mut c_void);
// SAFETY: the pointer is only handed back to the caller's callback; its thread safety is the
// caller's contract, stated in `kr_watch_start`'s documentation.
unsafe impl Send for User {}

impl User {
    /// The pointer (a method, so a closure captures the whole `User`, not its field).
    fn get(&self) -> *mut c_void {
        self.0
    }
}

/// The sink that calls the C callback for each event.
fn callback_sink(callback: unsafe extern "C" fn(*mut c_void, *const KrViewEvent), user: User, id: u64) -> source::Sink {
    Box::new(move |event: &Event| {
        let message;
        let c_event = match event {
            Event::Applied(state) => KrViewEvent {
                kind: KrViewEventKind::Applied,
                version: state.version(),
                fingerprint: state.fingerprint(),
                code: 0,
                message: c"".as_ptr(),
                view: Arc::as_ptr(state).cast::<KrView>(),
            },
            Event::Refused(r) => {
                message = CString::new(r.message.replace('\0', "\\0")).unwrap_or_default();
                KrViewEvent {
                    kind: KrViewEventKind::Refused,
                    version: r.version.unwrap_or(0),
                    fingerprint: 0,
                    code: r.code.code(),
                    message: message.as_ptr(),
                    view: std::ptr::null(),
                }
            }
        };
        let _ = IN_CALLBACK.try_with(|c| c.set(id));
        // SAFETY: the caller's callback, with its own pointer and an event that lives for the call.
        unsafe { callback(user.get(), &raw const c_event) };
        let _ = IN_CALLBACK.try_with(|c| c.set(0));
    })
}

/// Seconds as a duration: `zero` for 0 (the default), else as `source::seconds` reads them.
fn seconds(name: &str, value: f64, zero: Duration, min: f64) -> Result<Duration, Error> {
    if value == 0.0 { Ok(zero) } else { source::seconds(name, value, min) }
}

/// The source a URL names.
///
/// # Safety
/// `url` must be NULL or point to `url_len` readable bytes.
unsafe fn open(url: *const c_char, url_len: usize) -> Result<(String, Arc<dyn Source>), Error> {
    // SAFETY: the caller's contract.
    let url = unsafe { text(url, url_len, "url") }?;
    if url.is_empty() {
        return Err(error(ErrorCode::UnknownSource, "the source URL is empty".into()));
    }
    Ok((url.to_owned(), Arc::from(source::open(url)?)))
}

/// Starts a watch of the source `url` (`file:///abs/path` or a plain path: a file, or a
/// directory holding `view.json`; `etcd://HOST:PORT/KEY`) feeding `live_view`: on its own
/// thread it reads the current document, then every change (seen at once where the source
/// notifies, and at the latest every poll interval), and publishes each to the live view.
/// A document that does not apply is refused and recorded, and the live view keeps routing
/// with its view. `*watch` receives the handle (stop it with `kr_watch_stop`, release it with
/// `kr_watch_free`); the watch holds its own reference to the live view.
///
/// Polling works without a callback: read `kr_live_view_version` (or load a `kr_view`) when you
/// need to. With `options->callback`, the watch calls it on the watch's thread for every view it
/// applies and every refusal, in order: it must return quickly (the watch reads nothing while
/// it runs), must be safe to call from another thread than the one that started the watch, and
/// must not call `kr_watch_stop` or `kr_watch_free` on its own watch (`kr_watch_stop` refuses
/// with `KR_INVALID_PARAMETER`; a free would wait for itself).
///
/// With the census on (`options->census`; by default for etcd), the watch registers as
/// `options->instance` on `options->surface` (`c` by default) and its entry says which view it routes with, until the
/// watch stops. The first read happens on the watch's thread, after this returns.
///
/// Errors: `KR_UNKNOWN_SOURCE` for a URL of no source; `KR_INVALID_PARAMETER` for an option out
/// of range or a bad instance id; `KR_IO` when the watch cannot start; `KR_NULL_POINTER`;
/// `KR_INVALID_UTF8`.
///
/// # Safety
/// `url` must point to `url_len` readable bytes; `live_view` must be NULL or a live-view handle;
/// `options` must be NULL or point to a `kr_watch_options` whose `instance` is NULL or points to
/// `instance_len` readable bytes, and whose `surface` is NULL or points to `surface_len` readable
/// bytes; `watch` must be NULL or point to writable storage for one
/// pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_watch_start(
    url: *const c_char,
    url_len: usize,
    live_view: *const KrLiveView,
    options: *const KrWatchOptions,
    watch: *mut *mut KrWatch,
) -> KrStatus {
    call(|| {
        // SAFETY: `watch` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(watch, "watch") }?;
        // SAFETY: `live_view` is NULL or a live-view handle, as this function's `# Safety` requires.
        unsafe { live(live_view) }?;
        // SAFETY: `options` is NULL or a readable `kr_watch_options`, as this function's `# Safety` requires.
        let options = unsafe { options.as_ref() }.copied();
        let poll = seconds(
            "poll_interval_seconds",
            options.map_or(0.0, |o| o.poll_interval_seconds),
            Duration::from_secs(1),
            0.01,
        )?;
        let ttl = seconds(
            "census_ttl_seconds",
            options.map_or(0.0, |o| o.census_ttl_seconds),
            census::DEFAULT_TTL,
            census::MIN_TTL.as_secs_f64(),
        )?;
        // SAFETY: `url` points to `url_len` readable bytes, as this function's `# Safety` requires.
        let (url, source) = unsafe { open(url, url_len) }?;
        let register = match options.map_or(KrCensus::Default as u32, |o| o.census) {
            c if c == KrCensus::Default as u32 => url.starts_with("etcd://"),
            c if c == KrCensus::On as u32 => true,
            c if c == KrCensus::Off as u32 => false,
            other => {
                return Err(error(ErrorCode::InvalidParameter, format!("census {other} is not a kr_census value")));
            }
        };
        let id = match options {
            // SAFETY: `instance` is NULL or points to `instance_len` readable bytes, as this function's `# Safety` requires.
            Some(o) => unsafe { optional_text(o.instance, o.instance_len, "instance") }?,
            None => None,
        };
        let surface = match options {
            // SAFETY: `surface` is NULL or points to `surface_len` readable bytes, as this function's `# Safety` requires.
            Some(o) => unsafe { optional_text(o.surface, o.surface_len, "surface") }?,
            None => None,
        };
        let surface = surface.unwrap_or("c");
        census::check_surface(surface)?;
        let instance = match (register, id) {
            (false, _) => None,
            (true, Some(id)) => Some(Instance::new(id, surface)?),
            (true, None) => Some(Instance::this_process(surface)),
        };
        let watch_id = WATCH_IDS.fetch_add(1, Ordering::Relaxed);
        let mut sink: source::Sink = match options.and_then(|o| o.callback.map(|f| (f, o.user))) {
            Some((f, user)) => callback_sink(f, User(user), watch_id),
            None => Box::new(|_| {}),
        };
        // SAFETY: `live_view` was checked to be a live-view handle above.
        let lv = unsafe { retain_live(live_view) };
        if let Some(instance) = &instance {
            let member = Member::join(Arc::clone(&source), instance, ttl)?;
            sink = census::recording(Arc::new(member), Arc::clone(&lv), sink);
        }
        let watch_options = WatchOptions {
            poll_interval: poll,
            poll_only: options.is_some_and(|o| o.poll_only),
            ..WatchOptions::default()
        };
        let running = source.watch(lv, watch_options, sink)?;
        let handle = Handle { watch: Mutex::new(Some(running)), instance: instance.map(|i| i.id), id: watch_id };
        *out = Box::into_raw(Box::new(handle)).cast::<KrWatch>();
        Ok(())
    })
}

/// The watch behind a handle.
///
/// # Safety
/// A non-null `watch` must be a live watch handle.
unsafe fn handle<'a>(watch: *const KrWatch) -> Result<&'a Handle, Error> {
    // SAFETY: a watch handle is `Box::into_raw` of a `Box<Handle>`.
    unsafe { get(watch.cast::<Handle>(), "watch") }
}

/// Stops a watch and waits for its thread to end; it leaves the census (its entry is removed).
/// The live view keeps the view it has. Stopping a stopped watch does nothing.
///
/// Errors: `KR_INVALID_PARAMETER` when called from the watch's own callback; `KR_NULL_POINTER`.
///
/// # Safety
/// `watch` must be NULL or a live watch handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_watch_stop(watch: *const KrWatch) -> KrStatus {
    call(|| {
        // SAFETY: `watch` is NULL or a live watch handle, as this function's `# Safety` requires.
        let h = unsafe { handle(watch) }?;
        if IN_CALLBACK.try_with(Cell::get).unwrap_or(0) == h.id {
            return Err(error(
                ErrorCode::InvalidParameter,
                "kr_watch_stop was called from its own watch's callback (it would wait for itself)".into(),
            ));
        }
        let running = h.watch.lock().map_or(None, |mut w| w.take());
        if let Some(running) = running {
            running.stop();
        }
        Ok(())
    })
}

/// Whether the watch runs (it has not been stopped).
///
/// # Safety
/// `watch` must be NULL or a live watch handle; `running` must be NULL or point to a writable
/// `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_watch_running(watch: *const KrWatch, running: *mut bool) -> KrStatus {
    call(|| {
        // SAFETY: `watch` is NULL or a live watch handle, as this function's `# Safety` requires.
        let h = unsafe { handle(watch) }?;
        // SAFETY: `running` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(running, "running") }? = h.watch.lock().is_ok_and(|w| w.is_some());
        Ok(())
    })
}

/// The id the watch registered in the census as: `*id` receives its UTF-8 bytes (not
/// NUL-terminated, borrowed from the watch handle) and `*id_len` their length, or NULL and 0
/// when the watch is not in the census.
///
/// # Safety
/// `watch` must be NULL or a live watch handle; `id` and `id_len` must each be NULL or point to
/// writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_watch_instance(
    watch: *const KrWatch,
    id: *mut *const c_char,
    id_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `watch` is NULL or a live watch handle, as this function's `# Safety` requires.
        let h = unsafe { handle(watch) }?;
        // SAFETY: `id` and `id_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (id, id_len) = unsafe { (get_mut(id, "id")?, get_mut(id_len, "id_len")?) };
        (*id, *id_len) =
            h.instance.as_deref().map_or((std::ptr::null(), 0), |i| (i.as_ptr().cast::<c_char>(), i.len()));
        Ok(())
    })
}

/// Stops the watch if it runs (as `kr_watch_stop`) and releases the handle. NULL is ignored.
/// Never call it from the watch's own callback.
///
/// # Safety
/// `watch` must be NULL or a watch handle not released yet, which no other thread is using; it
/// must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_watch_free(watch: *mut KrWatch) {
    if !watch.is_null() {
        // SAFETY: a live watch handle is `Box::into_raw` of a `Box<Handle>`; dropping it stops the watch.
        drop(unsafe { Box::from_raw(watch.cast::<Handle>()) });
    }
}

/// Publishes a view document (JSON bytes) to the source `url` if the source holds version
/// `expect_version` (0 for a source that holds none): a compare-and-swap, as `keyroute view
/// publish --expect-version` does, so of two publishers expecting the same version exactly one
/// wins. The document is built first (nothing is written when it does not build). `*version`
/// receives the version published. Blocks while it talks to the source.
///
/// Errors: `KR_VERSION_CONFLICT` when the source holds another version; `KR_STALE_VERSION` when
/// the document is not newer than `expect_version`; any code of reading or building a view
/// document; `KR_UNKNOWN_SOURCE`, `KR_IO`; `KR_INVALID_JSON` or `KR_INVALID_PARAMETER` for bad
/// limits; `KR_NULL_POINTER`.
///
/// # Safety
/// `url` must point to `url_len` readable bytes, `document` to `document_len` (each NULL only
/// when its length is 0); `limits_json` must be NULL or point to `limits_len` readable bytes;
/// `version` must be NULL or point to a writable `uint64_t`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn kr_publish_view(
    url: *const c_char,
    url_len: usize,
    document: *const u8,
    document_len: usize,
    expect_version: u64,
    limits_json: *const c_char,
    limits_len: usize,
    version: *mut u64,
) -> KrStatus {
    call(|| {
        // SAFETY: `version` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(version, "version") }?;
        // SAFETY: `document` is NULL or points to `document_len` readable bytes, as this function's `# Safety` requires.
        let doc = unsafe { bytes(document, document_len, "document") }?;
        // SAFETY: `limits_json` is NULL or points to `limits_len` readable bytes, as this function's `# Safety` requires.
        let limits = unsafe { limits(limits_json, limits_len) }?;
        // SAFETY: `url` points to `url_len` readable bytes, as this function's `# Safety` requires.
        let (_, source) = unsafe { open(url, url_len) }?;
        let document = ViewDocument::from_bytes(doc, &limits)?;
        *out = source::publish(source.as_ref(), &document, expect_version, &limits)?.version();
        Ok(())
    })
}

/// The census of the source `url` read against the view it holds, as JSON (what `keyroute
/// fleet status --json` prints): each instance's standing (`in_sync`, `behind`, `stale`,
/// `refused`, `diverged`), an instance behind for longer than `deadline_seconds` being stale.
/// `*json` receives an allocated NUL-terminated string (release it with `kr_string_free`) and
/// `*json_len` its length. Blocks while it reads the source.
///
/// Errors: `KR_UNKNOWN_SOURCE`, `KR_IO`; `KR_INVALID_PARAMETER` for a negative or non-finite
/// deadline; `KR_INVALID_JSON` or `KR_INVALID_PARAMETER` for bad limits; `KR_NULL_POINTER`.
///
/// # Safety
/// `url` must point to `url_len` readable bytes; `limits_json` must be NULL or point to
/// `limits_len` readable bytes; `json` and `json_len` must each be NULL or point to writable
/// storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_fleet_status_json(
    url: *const c_char,
    url_len: usize,
    deadline_seconds: f64,
    limits_json: *const c_char,
    limits_len: usize,
    json: *mut *mut c_char,
    json_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `json` and `json_len` are NULL or writable and not aliased, as this function's `# Safety` requires.
        let (json, json_len) = unsafe { (get_mut(json, "json")?, get_mut(json_len, "json_len")?) };
        let deadline = source::seconds("deadline_seconds", deadline_seconds, 0.0)?;
        // SAFETY: `limits_json` is NULL or points to `limits_len` readable bytes, as this function's `# Safety` requires.
        let limits = unsafe { limits(limits_json, limits_len) }?;
        // SAFETY: `url` points to `url_len` readable bytes, as this function's `# Safety` requires.
        let (_, source) = unsafe { open(url, url_len) }?;
        let status = census::status(source.as_ref(), &limits, deadline, SystemTime::now())?;
        let text = serde_json::to_string(&status).map_err(|e| error(ErrorCode::Internal, e.to_string()))?;
        give_string(text, json, json_len)
    })
}
