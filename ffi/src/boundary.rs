//! The boundary every export goes through: statuses, the thread's last error message, panics
//! caught before they reach C, and the checks that turn raw pointers into references.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use keyroute_bindings::{Error, ErrorCode, Router};

use crate::KrRouter;

/// A status: `KR_OK` (0) or a code from the error table (`enum kr_status_code`).
pub type KrStatus = u32;

/// Success (`KR_OK` in the header's `enum kr_status_code`, which `cargo xtask codegen` writes
/// from the error table).
pub(crate) const KR_OK: KrStatus = 0;

thread_local! {
    /// The message of the last call that failed on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Runs an export's body: its error becomes a status and the thread's last message, and a
/// panic becomes `KR_INTERNAL` instead of unwinding into C.
#[inline(always)]
pub(crate) fn call(body: impl FnOnce() -> Result<(), Error>) -> KrStatus {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => KR_OK,
        Ok(Err(e)) => fail(&e),
        Err(payload) => fail_panic(payload.as_ref()),
    }
}

/// Records `e` as the thread's last error and returns its code.
#[cold]
#[inline(never)]
pub(crate) fn fail(e: &Error) -> KrStatus {
    set_last_error(&e.to_string());
    e.code().code()
}

#[cold]
#[inline(never)]
fn fail_panic(payload: &(dyn std::any::Any + Send)) -> KrStatus {
    let what = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("unknown panic");
    set_last_error(&format!("internal error (a bug in keyroute, please report it): {what}"));
    ErrorCode::Internal.code()
}

fn set_last_error(message: &str) {
    let message = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    // During thread teardown the slot may be gone; the status still tells what happened.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = message);
}

/// An error of `code` (cold: only failures build messages).
#[cold]
#[inline(never)]
pub(crate) fn error(code: ErrorCode, message: String) -> Error {
    Error::new(code, message)
}

#[cold]
#[inline(never)]
pub(crate) fn null(what: &str) -> Error {
    error(ErrorCode::NullPointer, format!("{what} is NULL"))
}

/// `ptr` as a reference, or `null_pointer` naming `what`.
///
/// # Safety
/// A non-null `ptr` must point to a live, aligned `T` not mutated during `'a`.
#[inline(always)]
pub(crate) unsafe fn get<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Error> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| null(what))
}

/// `ptr` as a mutable reference, or `null_pointer` naming `what`.
///
/// # Safety
/// A non-null `ptr` must point to a live, aligned `T` that nothing else uses during `'a`.
#[inline(always)]
pub(crate) unsafe fn get_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Error> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| null(what))
}

/// The router behind a handle.
///
/// # Safety
/// A non-null `router` must be a live handle from this library.
#[inline(always)]
pub(crate) unsafe fn router<'a>(router: *const KrRouter) -> Result<&'a Router, Error> {
    // SAFETY: a handle is `Arc::into_raw` of an `Arc<Router>`, alive while the handle is.
    unsafe { get(router.cast::<Router>(), "router") }
}

/// Another counted reference to the router behind a live handle.
///
/// # Safety
/// `router` must be a live router handle (checked non-null by the caller).
pub(crate) unsafe fn retain(router: *const KrRouter) -> Arc<Router> {
    let raw = router.cast::<Router>();
    // SAFETY: a live handle is one `Arc<Router>` reference; the count goes up for the new `Arc`.
    unsafe {
        Arc::increment_strong_count(raw);
        Arc::from_raw(raw)
    }
}

/// A new handle owning one reference to `router`.
pub(crate) fn router_handle(router: Arc<Router>) -> *mut KrRouter {
    Arc::into_raw(router).cast_mut().cast::<KrRouter>()
}

/// A byte span; `(NULL, 0)` is the empty span.
///
/// # Safety
/// A non-null `ptr` must point to `len` readable bytes that stay unchanged during `'a`.
#[inline(always)]
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(what)) };
    }
    if len > isize::MAX as usize {
        return Err(too_long(what));
    }
    // SAFETY: non-null, at most isize::MAX bytes, readable per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A span of UTF-16 code units; `(NULL, 0)` is the empty span.
///
/// # Safety
/// A non-null `ptr` must point to `len` readable `u16`s that stay unchanged during `'a`.
#[inline(always)]
pub(crate) unsafe fn utf16<'a>(ptr: *const u16, len: usize, what: &str) -> Result<&'a [u16], Error> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(what)) };
    }
    if len > isize::MAX as usize / 2 {
        return Err(too_long(what));
    }
    if !ptr.is_aligned() {
        return Err(error(ErrorCode::InvalidParameter, format!("{what}: not aligned to 2 bytes")));
    }
    // SAFETY: non-null, aligned, at most isize::MAX bytes, readable per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

#[cold]
#[inline(never)]
pub(crate) fn too_long(what: &str) -> Error {
    error(ErrorCode::InvalidParameter, format!("{what}: length above isize::MAX"))
}

/// A UTF-8 text span; `(NULL, 0)` is the empty text.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Error> {
    // SAFETY: the caller's contract.
    let raw = unsafe { bytes(ptr.cast::<u8>(), len, what) }?;
    std::str::from_utf8(raw)
        .map_err(|e| error(ErrorCode::InvalidUtf8, format!("{what} is not UTF-8 (byte {})", e.valid_up_to())))
}

/// An optional UTF-8 text span: NULL (with any length) is `None`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn optional_text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<Option<&'a str>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract.
    unsafe { text(ptr, len, what) }.map(Some)
}

/// The message of the last call that failed on the calling thread, NUL-terminated UTF-8;
/// `""` if none has failed.
///
/// The text is for people (codes are the contract). It stays valid and unchanged until the
/// next `kr_` call that fails on the same thread, or until the thread exits. Successful calls
/// leave it as it was. Never NULL.
///
/// # Safety
/// Always safe to call; do not free or write through the result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_last_error_message() -> *const c_char {
    LAST_ERROR.try_with(|slot| slot.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

/// The stable snake_case name of a status (`"ok"`, `"invalid_json"`, …, as vector files write
/// error names), or NULL for a number that is not a status. Static storage.
///
/// # Safety
/// Always safe to call; do not free or write through the result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_status_name(status: u32) -> *const c_char {
    if status == KR_OK {
        return c"ok".as_ptr();
    }
    ErrorCode::from_code(status).map_or(std::ptr::null(), |c| c.c_name().as_ptr())
}

/// The library's version, e.g. `"0.1.0"` (NUL-terminated, static storage).
///
/// # Safety
/// Always safe to call; do not free or write through the result.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_version() -> *const c_char {
    const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    VERSION.as_ptr()
}

/// A decimal number of the version's components (`env!` gives text; this is its value), or
/// `u32::MAX` when it is not one (never, for a version Cargo accepted).
const fn parse_u32(text: &str) -> u32 {
    let mut bytes = text.as_bytes();
    if bytes.is_empty() {
        return u32::MAX;
    }
    let mut value: u32 = 0;
    while let [b, rest @ ..] = bytes {
        if !b.is_ascii_digit() {
            return u32::MAX;
        }
        value = match value.checked_mul(10) {
            Some(v) => match v.checked_add((*b - b'0') as u32) {
                Some(v) => v,
                None => return u32::MAX,
            },
            None => return u32::MAX,
        };
        bytes = rest;
    }
    value
}

/// The library's version as numbers: (major, minor, patch).
pub(crate) const LIBRARY_VERSION: (u32, u32, u32) = (
    parse_u32(env!("CARGO_PKG_VERSION_MAJOR")),
    parse_u32(env!("CARGO_PKG_VERSION_MINOR")),
    parse_u32(env!("CARGO_PKG_VERSION_PATCH")),
);

/// Whether this library can serve a program compiled against the header of version
/// `major.minor.patch`, true when both are on the same ABI line (the same `0.MINOR` under 0.x,
/// the same `MAJOR` from 1.0 on: the rule the SONAME follows) and the library is not older than
/// the header (an older one may lack what the header declares).
///
/// The header's own numbers are `KEYROUTE_VERSION_MAJOR`, `_MINOR` and `_PATCH`;
/// `KEYROUTE_VERSION_COMPATIBLE()` passes them. Call it once at start-up and refuse to run
/// (printing `kr_version()` and `KEYROUTE_VERSION_STRING`) when it returns false: the loader
/// already refuses another ABI line by its SONAME, this also catches a library older than the
/// header and a static link against the wrong archive.
#[unsafe(no_mangle)]
pub extern "C" fn kr_version_compatible(major: u32, minor: u32, patch: u32) -> bool {
    let (lib_major, lib_minor, lib_patch) = LIBRARY_VERSION;
    let same_line = if lib_major == 0 { major == 0 && minor == lib_minor } else { major == lib_major };
    same_line && (lib_minor, lib_patch) >= (minor, patch)
}
