//! [`keyroute_js::Host`] for Node-API: the argument types the shared surface names
//! (`keyroute_js::surface!`), read through `keys.rs` and thrown through `error.rs`, and results
//! made into JavaScript values.

use std::ptr;
use std::sync::Arc;

use keyroute_bindings::{ErrorCode, Limits, Router};
use keyroute_js::{Host, Js};
use napi::bindgen_prelude::*;
use napi::{JsValue, sys};

use crate::error::{throw, throw_code};
use crate::keys::{self, string_units, text, with_key};
use crate::shared;

/// Any JavaScript argument.
pub type Value<'a> = Unknown<'a>;
/// A `Uint32Array` read in place.
pub type U32s<'a> = Uint32ArraySlice<'a>;
/// A `Uint32Array` written in place.
pub type U32sOut<'a> = Uint32ArraySlice<'a>;
/// A result made by [`Napi::out`].
pub type Out = JsOut;

/// The host of one call: its env.
pub(crate) struct Napi<'e>(pub(crate) &'e Env);

impl Host for Napi<'_> {
    type Value<'v> = Unknown<'v>;
    type Error = napi::Error;
    type U32sOut<'v> = Uint32ArraySlice<'v>;
    type Out = JsOut;

    fn error(&self, e: &keyroute_bindings::Error) -> napi::Error {
        throw(self.0, e)
    }

    #[inline]
    fn with_key<R>(&self, value: &Unknown<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        with_key(self.0, value, f)
    }

    fn with_bytes<R>(&self, value: &Unknown<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        if value.get_type()? != ValueType::Object {
            return Ok(None);
        }
        Ok(keys::typed_bytes(self.0, value.value().value)?.map(f))
    }

    fn text(&self, value: &Unknown<'_>, what: &str) -> Result<String> {
        text(self.0, value, what)
    }

    fn number(&self, value: &Unknown<'_>) -> Result<Option<f64>> {
        if value.get_type()? != ValueType::Number {
            return Ok(None);
        }
        // SAFETY: checked to be a number.
        Ok(Some(unsafe { value.cast::<f64>()? }))
    }

    fn bigint(&self, value: &Unknown<'_>) -> Result<Option<Option<u64>>> {
        if value.get_type()? != ValueType::BigInt {
            return Ok(None);
        }
        // SAFETY: checked to be a bigint.
        let big: BigInt = unsafe { value.cast()? };
        let (negative, value, lossless) = big.get_u64();
        Ok(Some((!negative && lossless).then_some(value)))
    }

    fn is_absent(&self, value: &Unknown<'_>) -> Result<bool> {
        Ok(matches!(value.get_type()?, ValueType::Undefined | ValueType::Null))
    }

    fn type_name(&self, value: &Unknown<'_>) -> Result<String> {
        Ok(keys::type_name(value.get_type()?).to_owned())
    }

    fn build(&self, spec: &Unknown<'_>, limits: &Limits, serialized: bool) -> Result<Router> {
        let env = self.0;
        let parse = if serialized { Router::from_serialized } else { Router::from_bytes };
        let raw = spec.value().value;
        let built = match spec.get_type()? {
            ValueType::String => {
                limits.check_spec_bytes(keys::utf8_len(env, raw)?, "the spec").map_err(|e| throw(env, &e))?;
                keys::with_string(env, raw, |bytes| parse(bytes, limits))?
            }
            ValueType::Object => match keys::typed_bytes(env, raw)? {
                Some(bytes) => parse(bytes, limits),
                None => return Err(keys::wrong_type(env, "a spec", "an object that is not a Uint8Array")),
            },
            other => return Err(keys::wrong_type(env, "a spec", keys::type_name(other))),
        };
        built.map_err(|e| throw(env, &e))
    }

    fn joined_keys(&self, joined: &Unknown<'_>, lengths: &[u32]) -> Result<(Vec<u8>, Vec<usize>)> {
        joined_keys(self.0, joined, lengths)
    }

    fn share(&self, router: &Arc<Router>) -> Result<f64> {
        Ok(shared::share(router))
    }

    fn shared(&self, token: f64) -> Result<Option<Arc<Router>>> {
        Ok(shared::lookup(token))
    }

    fn out(&self, value: Js) -> Result<JsOut> {
        Ok(JsOut(value))
    }

    fn fill<R>(&self, mut out: Uint32ArraySlice<'_>, f: impl FnOnce(&mut [u32]) -> R) -> R {
        // SAFETY: the slice is the caller's Uint32Array, written before this call returns (no
        // JavaScript runs meanwhile).
        f(unsafe { out.as_mut() })
    }
}

/// The keys of a joined string as packed UTF-8 and offsets. ASCII text (the common case) is
/// taken from V8's UTF-8 in one copy; other text goes key by key through the key text policy,
/// so a lone surrogate is refused in the key that holds it.
fn joined_keys(env: &Env, joined: &Unknown<'_>, lengths: &[u32]) -> Result<(Vec<u8>, Vec<usize>)> {
    let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    let bad_lengths = || throw_code(env, ErrorCode::InvalidParameter, "the key lengths do not add up to the text");
    if joined.get_type()? != ValueType::String {
        return Err(keys::wrong_type(env, "joined keys", keys::type_name(joined.get_type()?)));
    }
    let value = joined.value().value;
    let mut units = 0usize;
    let mut bytes = 0usize;
    // SAFETY: a string of the current env; NULL buffers ask for lengths only.
    unsafe {
        sys::napi_get_value_string_utf16(env.raw(), value, ptr::null_mut(), 0, &mut units);
        sys::napi_get_value_string_utf8(env.raw(), value, ptr::null_mut(), 0, &mut bytes);
    }
    if total != units as u64 {
        return Err(bad_lengths());
    }
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0usize);
    if bytes == units {
        // One byte per code unit: all ASCII, so the UTF-8 is the text and lengths are bytes.
        let mut data = vec![0u8; bytes + 1];
        let mut written = 0usize;
        // SAFETY: `data` has room for the text and the NUL.
        unsafe {
            sys::napi_get_value_string_utf8(env.raw(), value, data.as_mut_ptr().cast(), bytes + 1, &mut written);
        }
        data.truncate(written);
        let mut end = 0usize;
        for &l in lengths {
            end += l as usize;
            offsets.push(end);
        }
        return Ok((data, offsets));
    }
    let all = string_units(env, joined, "joined keys")?;
    let mut data = Vec::with_capacity(bytes);
    let mut start = 0usize;
    for (i, &l) in lengths.iter().enumerate() {
        let end = start + l as usize;
        let key = all.get(start..end).ok_or_else(bad_lengths)?;
        keyroute_bindings::keys::utf16_to_utf8(key, &mut data).map_err(|e| throw(env, &e.at_key(i)))?;
        offsets.push(data.len());
        start = end;
    }
    Ok((data, offsets))
}

/// A [`Js`] result, made a JavaScript value when napi-rs returns it.
pub struct JsOut(Js);

impl ToNapiValue for JsOut {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        // SAFETY: napi-rs passes the live env of the returning call.
        unsafe { to_js(env, val.0) }
    }
}

/// # Safety
/// `env` is a live env.
unsafe fn to_js(env: sys::napi_env, value: Js) -> Result<sys::napi_value> {
    // SAFETY: as the caller promises; every value is created in `env` and used at once.
    unsafe {
        match value {
            Js::Null => Null::to_napi_value(env, Null),
            Js::Num(n) => f64::to_napi_value(env, n),
            Js::Str(s) => String::to_napi_value(env, s),
            Js::Big(b) => BigInt::to_napi_value(env, BigInt::from(b)),
            Js::U32s(v) => Uint32Array::to_napi_value(env, Uint32Array::new(v)),
            Js::U64s(v) => BigUint64Array::to_napi_value(env, BigUint64Array::new(v)),
            Js::Bytes(v) => Uint8Array::to_napi_value(env, Uint8Array::new(v)),
            Js::List(items) => {
                let mut array = ptr::null_mut();
                check(sys::napi_create_array_with_length(env, items.len(), &mut array))?;
                for (i, item) in items.into_iter().enumerate() {
                    let element = to_js(env, item)?;
                    check(sys::napi_set_element(env, array, i as u32, element))?;
                }
                Ok(array)
            }
            Js::Obj(fields) => {
                let mut object = ptr::null_mut();
                check(sys::napi_create_object(env, &mut object))?;
                for (name, field) in fields {
                    let key = String::to_napi_value(env, name.to_owned())?;
                    let field = to_js(env, field)?;
                    check(sys::napi_set_property(env, object, key, field))?;
                }
                Ok(object)
            }
        }
    }
}

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::GenericFailure, format!("napi call failed with status {status}")))
    }
}
