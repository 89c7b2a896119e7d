//! Errors cross into JavaScript as `Error` objects with `code` (`"KR_DUPLICATE_NODE_ID"`),
//! `errno` (the table's number) and, for a batch, `keyIndex`; `node/lib/errors.js` (generated
//! from the same table) turns them into `KeyrouteError` subclasses.

use std::ptr;

use keyroute_bindings::{Error, ErrorCode};
use napi::{Env, Status, sys};

/// Throws `e` as a JavaScript error and returns the napi error that says one is pending.
pub(crate) fn throw(env: &Env, e: &Error) -> napi::Error {
    let Ok(error) = value(env, e) else {
        return fallback(e);
    };
    // SAFETY: `error` was just made in this live env. A failing throw leaves the error unthrown,
    // and napi-rs then throws the returned error's own message instead (`PendingException` with
    // nothing pending).
    if unsafe { sys::napi_throw(env.raw(), error) } != sys::Status::napi_ok {
        return fallback(e);
    }
    napi::Error::new(Status::PendingException, e.message().to_owned())
}

/// `e` as a JavaScript `Error` object (not thrown), as [`throw`] throws it: what a promise of
/// the addon resolves to when its work failed (`view.rs`).
pub(crate) fn value(env: &Env, e: &Error) -> napi::Result<sys::napi_value> {
    let env = env.raw();
    let code = format!("KR_{}", e.code().name().to_ascii_uppercase());
    // SAFETY: `env` is the live env of the current call; every value is created in it and used
    // before the call returns.
    unsafe {
        let (Some(js_code), Some(message)) = (string(env, &code), string(env, e.message())) else {
            return Err(fallback(e));
        };
        let mut error = ptr::null_mut();
        if sys::napi_create_error(env, js_code, message, &mut error) != sys::Status::napi_ok {
            return Err(fallback(e));
        }
        set_number(env, error, c"errno", f64::from(e.code().code()));
        if let Some(i) = e.key_index() {
            set_number(env, error, c"keyIndex", i as f64);
        }
        Ok(error)
    }
}

/// An error of `code` with `message`, thrown.
pub(crate) fn throw_code(env: &Env, code: ErrorCode, message: impl Into<String>) -> napi::Error {
    throw(env, &Error::new(code, message))
}

fn fallback(e: &Error) -> napi::Error {
    napi::Error::new(Status::GenericFailure, e.to_string())
}

/// # Safety
/// `env` is a live env.
unsafe fn string(env: sys::napi_env, s: &str) -> Option<sys::napi_value> {
    let mut value = ptr::null_mut();
    // SAFETY: `s` is valid UTF-8 of `s.len()` bytes.
    let status = unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut value) };
    (status == sys::Status::napi_ok).then_some(value)
}

/// # Safety
/// `env` is a live env and `object` a live object of it.
unsafe fn set_number(env: sys::napi_env, object: sys::napi_value, name: &std::ffi::CStr, n: f64) {
    let mut value = ptr::null_mut();
    // SAFETY: as the caller promises; a failure only leaves the property unset.
    unsafe {
        if sys::napi_create_double(env, n, &mut value) == sys::Status::napi_ok {
            sys::napi_set_named_property(env, object, name.as_ptr(), value);
        }
    }
}
