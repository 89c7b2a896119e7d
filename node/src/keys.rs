//! Keys and text from JavaScript values, by keyroute's key text policy
//! (`keyroute_bindings::keys`): a string is its UTF-8, a lone surrogate is refused with
//! `invalid_utf8` (V8's own UTF-8 conversion would replace it with U+FFFD, silently routing
//! another key); a `Buffer` or `Uint8Array` is its bytes, read in place; anything else is
//! `invalid_type`.

use std::ptr;

use keyroute_bindings::{ErrorCode, keys};
use napi::bindgen_prelude::*;
use napi::{JsValue, sys};

use crate::error::{throw, throw_code};

/// Keys up to this many UTF-8 bytes are read into a buffer on the stack.
const STACK: usize = 256;

/// Calls `f` with the bytes of the key `value`.
///
/// # Errors
/// `invalid_type` for a value that is neither a string nor a `Uint8Array`; `invalid_utf8` for a
/// string holding a lone surrogate (thrown).
#[inline]
pub(crate) fn with_key<R>(env: &Env, value: &Unknown<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    let raw = value.value().value;
    match value.get_type()? {
        ValueType::String => with_string(env, raw, f),
        ValueType::Object => match typed_bytes(env, raw)? {
            Some(bytes) => Ok(f(bytes)),
            None => Err(wrong_type(env, "a key", "an object that is not a Uint8Array")),
        },
        other => Err(wrong_type(env, "a key", type_name(other))),
    }
}

/// A string argument (spec JSON, an address) as Rust text, by the same policy.
///
/// # Errors
/// `invalid_type` for a value that is not a string; `invalid_utf8` as [`with_key`].
pub(crate) fn text(env: &Env, value: &Unknown<'_>, what: &str) -> Result<String> {
    match value.get_type()? {
        ValueType::String => with_string(env, value.value().value, |bytes| String::from_utf8_lossy(bytes).into_owned()),
        other => Err(wrong_type(env, what, type_name(other))),
    }
}

/// The bytes of a `Uint8Array` (a `Buffer` is one), borrowed in place, or `None` when `value`
/// is another kind of object. A detached buffer reads as empty, as JavaScript itself sees it.
pub(crate) fn typed_bytes<'a>(env: &Env, value: sys::napi_value) -> Result<Option<&'a [u8]>> {
    let env_raw = env.raw();
    let mut is_typed = false;
    // SAFETY: a live value of the current call's env.
    check(unsafe { sys::napi_is_typedarray(env_raw, value, &mut is_typed) })?;
    if !is_typed {
        return Ok(None);
    }
    let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
    // SAFETY: `value` is a typed array (checked above).
    check(unsafe {
        sys::napi_get_typedarray_info(env_raw, value, &mut kind, &mut len, &mut data, ptr::null_mut(), ptr::null_mut())
    })?;
    if kind != sys::TypedarrayType::uint8_array {
        return Ok(None);
    }
    if data.is_null() || len == 0 {
        return Ok(Some(&[]));
    }
    // SAFETY: V8 gives the element data of a live Uint8Array of `len` bytes; no JavaScript runs
    // while the borrow is used (within this native call).
    Ok(Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }))
}

/// The length in bytes of a string's UTF-8 as V8 writes it (a lone surrogate counts as the
/// three bytes of the U+FFFD it becomes), without writing it.
pub(crate) fn utf8_len(env: &Env, value: sys::napi_value) -> Result<usize> {
    let mut len = 0usize;
    // SAFETY: `value` is a string of the current env; with a NULL buffer, napi reports the length.
    check(unsafe { sys::napi_get_value_string_utf8(env.raw(), value, ptr::null_mut(), 0, &mut len) })?;
    Ok(len)
}

/// Calls `f` with a string's UTF-8: read by V8 into a stack buffer (or the heap, when long),
/// and checked against its UTF-16 only when it holds a U+FFFD, which is where V8 hides a lone
/// surrogate.
///
/// # Errors
/// `invalid_utf8` for a lone surrogate (thrown). `value` must be a string.
#[inline]
pub(crate) fn with_string<R>(env: &Env, value: sys::napi_value, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    let env_raw = env.raw();
    let mut buf = [0u8; STACK];
    let mut len = 0usize;
    // SAFETY: `value` is a string of the current env; V8 writes at most STACK - 1 bytes and a NUL.
    check(unsafe { sys::napi_get_value_string_utf8(env_raw, value, buf.as_mut_ptr().cast(), STACK, &mut len) })?;
    // V8 writes whole characters only (at most 4 bytes each) and keeps room for the NUL: with 4
    // bytes to spare, the next character would have fitted, so the string ended.
    let heap;
    let utf8: &[u8] = if len + 5 <= STACK {
        buf.get(..len).unwrap_or_default()
    } else {
        heap = long_utf8(env_raw, value)?;
        &heap
    };
    if !keys::lossy_utf8_needs_check(utf8) {
        return Ok(f(utf8));
    }
    let units = utf16(env_raw, value)?;
    keys::with_utf16_key(&units, f).map_err(|e| throw(env, &e))
}

/// A string's whole UTF-8, on the heap.
fn long_utf8(env: sys::napi_env, value: sys::napi_value) -> Result<Vec<u8>> {
    let mut len = 0usize;
    // SAFETY: with a NULL buffer, napi reports the length in bytes without the NUL.
    check(unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) })?;
    let mut out = vec![0u8; len + 1];
    let mut written = 0usize;
    // SAFETY: `out` has room for `len` bytes and the NUL.
    check(unsafe { sys::napi_get_value_string_utf8(env, value, out.as_mut_ptr().cast(), len + 1, &mut written) })?;
    out.truncate(written);
    Ok(out)
}

/// A string's UTF-16 code units.
fn utf16(env: sys::napi_env, value: sys::napi_value) -> Result<Vec<u16>> {
    let mut len = 0usize;
    // SAFETY: with a NULL buffer, napi reports the length in code units.
    check(unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut len) })?;
    let mut out = vec![0u16; len + 1];
    let mut written = 0usize;
    // SAFETY: `out` has room for `len` units and the terminating 0.
    check(unsafe { sys::napi_get_value_string_utf16(env, value, out.as_mut_ptr(), len + 1, &mut written) })?;
    out.truncate(written);
    Ok(out)
}

/// The UTF-16 code units of a string value (for batches that split one joined string).
pub(crate) fn string_units(env: &Env, value: &Unknown<'_>, what: &str) -> Result<Vec<u16>> {
    match value.get_type()? {
        ValueType::String => utf16(env.raw(), value.value().value),
        other => Err(wrong_type(env, what, type_name(other))),
    }
}

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::GenericFailure, format!("napi call failed with status {status}")))
    }
}

/// `invalid_type`, thrown: `what` must be a string or bytes, not `got`.
pub(crate) fn wrong_type(env: &Env, what: &str, got: &str) -> Error {
    let expected = match what {
        "a key" => "a string, Buffer or Uint8Array",
        "a spec" => "JSON text, a Buffer or a Uint8Array",
        _ => "a string",
    };
    throw_code(env, ErrorCode::InvalidType, format!("{what} must be {expected}, not {got}"))
}

pub(crate) fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "a boolean",
        ValueType::Number => "a number",
        ValueType::String => "a string",
        ValueType::Symbol => "a symbol",
        ValueType::Object => "an object",
        ValueType::Function => "a function",
        ValueType::External => "an external",
        ValueType::BigInt => "a bigint",
        _ => "an unknown value",
    }
}
