//! The WebAssembly backend of the npm package `keyroute`: keyroute-bindings through
//! wasm-bindgen, with the same low-level surface as the Node addon (`node/src`), because both
//! expand the one list of methods `keyroute_js::surface!`: here through `emit_wasm`, which
//! writes them as `#[wasm_bindgen]` methods, with the conversions of [`Wasm`], this backend's
//! `keyroute_js::Host`. So one JavaScript layer (`node/lib/api.js`) serves both. There are no
//! threads here: the bounded loads' atomics and the hot-key detector's shard locks are never
//! contended, and a router cannot be shared between workers (no shared memory). Every decision
//! (parsing, validation, the key text policy, hashing, lookup, analysis) is made in
//! keyroute-bindings.
//!
//! Errors leave as JavaScript `Error` objects with `code` (`"KR_…"`), `errno` and, for batches,
//! `keyIndex`, exactly as the addon's. Nothing panics: the workspace denies every panicking
//! construct (a panic would trap the instance), and arguments of any type are checked here.

use std::sync::Arc;

use js_sys::{Array, JsString, Object, Reflect, Uint8Array};
use keyroute_bindings::{Error, ErrorCode, Limits, Router, keys};
use keyroute_js::{Host, Js};
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// `e` as a JavaScript error with `code`, `errno` and `keyIndex`.
fn js_error(e: &Error) -> JsValue {
    let error = js_sys::Error::new(e.message());
    let code = format!("KR_{}", e.code().name().to_ascii_uppercase());
    let set = |name: &str, value: JsValue| {
        // Setting a property on a fresh Error cannot fail; if it did, the error still throws.
        let _ = Reflect::set(&error, &JsValue::from_str(name), &value);
    };
    set("code", JsValue::from_str(&code));
    set("errno", JsValue::from(e.code().code()));
    if let Some(i) = e.key_index() {
        set("keyIndex", JsValue::from(i as f64));
    }
    error.into()
}

fn js_code(code: ErrorCode, message: impl Into<String>) -> JsValue {
    js_error(&Error::new(code, message))
}

fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        return "null".into();
    }
    match value.js_typeof().as_string().as_deref() {
        Some("object") => "an object".into(),
        Some("undefined") => "undefined".into(),
        Some(t) => format!("a {t}"),
        None => "an unknown value".into(),
    }
}

/// Calls `f` with the bytes of the key `value`, by the key text policy: a string is its UTF-8
/// (a lone surrogate refused, never replaced), a `Uint8Array` its bytes, anything else
/// `invalid_type`.
fn with_key<R>(value: &JsValue, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    if let Some(text) = value.as_string() {
        return with_text(value, &text, f);
    }
    if let Some(bytes) = as_uint8(value) {
        return Ok(f(&uint8_bytes(bytes)));
    }
    Err(js_code(
        ErrorCode::InvalidType,
        format!("a key must be a string, Buffer or Uint8Array, not {}", type_name(value)),
    ))
}

/// `value` as a `Uint8Array` (a `Buffer` is one), or `None`. `ArrayBuffer.isView` comes first:
/// it reads an internal slot, so a Proxy (which it refuses) never runs one of its traps here,
/// where `instanceof` would run `getPrototypeOf` and pass the trap's exception through.
fn as_uint8(value: &JsValue) -> Option<&Uint8Array> {
    if !js_sys::ArrayBuffer::is_view(value) {
        return None;
    }
    value.dyn_ref::<Uint8Array>()
}

/// Calls `f` with the UTF-8 of the string `value`, given as `text`, its conversion by
/// wasm-bindgen: `TextEncoder` replaces a lone surrogate by U+FFFD, so text holding one is read
/// again as UTF-16 and refused (`invalid_utf8`).
fn with_text<R>(value: &JsValue, text: &str, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    if !keys::lossy_utf8_needs_check(text.as_bytes()) {
        return Ok(f(text.as_bytes()));
    }
    let units: Vec<u16> = JsString::from(value.clone()).iter().collect();
    keys::with_utf16_key(&units, f).map_err(|e| js_error(&e))
}

/// Builds a router from a spec (JSON text, or its bytes as a `Uint8Array`) under `limits`, in
/// the shared order: the size first, before anything is copied into the module's memory.
fn build(spec: &JsValue, limits: &Limits, serialized: bool) -> JsResult<Router> {
    let parse = if serialized { Router::from_serialized } else { Router::from_bytes };
    if let Some(bytes) = as_uint8(spec) {
        limits.check_spec_bytes(bytes.length() as usize, "the spec").map_err(|e| js_error(&e))?;
        return parse(&uint8_bytes(bytes), limits).map_err(|e| js_error(&e));
    }
    if !spec.is_string() {
        return Err(js_code(
            ErrorCode::InvalidType,
            format!("a spec must be JSON text, a Buffer or a Uint8Array, not {}", type_name(spec)),
        ));
    }
    // Text has at least one UTF-8 byte per UTF-16 code unit: a string with more units than the
    // limit has bytes is refused without converting it.
    let units = spec.unchecked_ref::<JsString>().length();
    if u64::from(units) > limits.max_spec_bytes {
        return Err(js_code(
            ErrorCode::SpecTooLarge,
            format!("the spec of at least {units} bytes is larger than the limit of {} bytes", limits.max_spec_bytes),
        ));
    }
    let text = spec.as_string().unwrap_or_default();
    // Its UTF-8 length as V8 and the addon count it (a lone surrogate is the 3 bytes of U+FFFD).
    limits.check_spec_bytes(text.len(), "the spec").map_err(|e| js_error(&e))?;
    with_text(spec, &text, |bytes| parse(bytes, limits))?.map_err(|e| js_error(&e))
}

/// The bytes of a `Uint8Array`, copied into the module's memory. A detached buffer reads as
/// empty, as JavaScript itself sees it (copying from one would throw).
fn uint8_bytes(bytes: &Uint8Array) -> Vec<u8> {
    if bytes.length() == 0 { Vec::new() } else { bytes.to_vec() }
}

/// A string argument (spec JSON, an address) as Rust text, by the same policy.
fn text(value: &JsValue, what: &str) -> JsResult<String> {
    if value.as_string().is_none() {
        return Err(js_code(ErrorCode::InvalidType, format!("{what} must be a string, not {}", type_name(value))));
    }
    with_key(value, |bytes| String::from_utf8_lossy(bytes).into_owned())
}

/// The keys of a joined string as packed UTF-8 and offsets. The text crosses once, as UTF-8
/// (wasm-bindgen's `TextEncoder`); ASCII text (the common case) is split by the lengths as they
/// are, other text by counting each character's UTF-16 units. Only text holding a U+FFFD (where
/// the encoder hides a lone surrogate) or a character split between two keys (a surrogate pair
/// across a boundary: a lone surrogate in each) is read again as UTF-16 and converted key by
/// key through the key text policy, so the error names the key that holds it.
fn joined_keys(joined: &JsValue, lengths: &[u32]) -> JsResult<(Vec<u8>, Vec<usize>)> {
    let Some(text) = joined.as_string() else {
        return Err(js_code(
            ErrorCode::InvalidType,
            format!("joined keys must be a string, not {}", type_name(joined)),
        ));
    };
    let units = joined.unchecked_ref::<JsString>().length() as usize;
    let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    if total != units as u64 {
        return Err(js_code(ErrorCode::InvalidParameter, "the key lengths do not add up to the text"));
    }
    let data = text.into_bytes();
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0usize);
    if data.len() == units {
        // One byte per code unit: all ASCII, so the lengths are byte lengths.
        let mut end = 0usize;
        for &l in lengths {
            end += l as usize;
            offsets.push(end);
        }
        return Ok((data, offsets));
    }
    if !keys::lossy_utf8_needs_check(&data) && split_utf8(&data, lengths, &mut offsets) {
        return Ok((data, offsets));
    }
    let all: Vec<u16> = JsString::from(joined.clone()).iter().collect();
    let mut data = Vec::with_capacity(all.len());
    offsets.clear();
    offsets.push(0);
    let mut start = 0usize;
    for (i, &l) in lengths.iter().enumerate() {
        let end = start + l as usize;
        let key = all.get(start..end).unwrap_or_default();
        keys::utf16_to_utf8(key, &mut data).map_err(|e| js_error(&e.at_key(i)))?;
        offsets.push(data.len());
        start = end;
    }
    Ok((data, offsets))
}

/// Pushes the UTF-8 end of each key of `lengths` UTF-16 units onto `offsets`; false when a
/// character does not end where a key does (the caller then converts key by key).
fn split_utf8(utf8: &[u8], lengths: &[u32], offsets: &mut Vec<usize>) -> bool {
    let mut at = 0usize;
    for &l in lengths {
        let mut need = l as usize;
        while need > 0 {
            let Some(&lead) = utf8.get(at) else { return false };
            let (bytes, units) = match lead {
                0x00..=0x7f => (1, 1),
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                _ => (4, 2),
            };
            if units > need {
                return false;
            }
            need -= units;
            at += bytes;
        }
        offsets.push(at);
    }
    true
}

fn unshared() -> JsValue {
    js_code(
        ErrorCode::InvalidParameter,
        "the WebAssembly build cannot share a router between workers (no shared memory); \
         post router.canonicalJson and build a Router from it there",
    )
}

/// Any JavaScript argument.
pub type Value = JsValue;
/// A `Uint32Array` read (copied into the module's memory).
pub type U32s = Vec<u32>;
/// A `Uint32Array` written (through a copy in the module's memory).
pub type U32sOut = js_sys::Uint32Array;
/// A result made by [`Wasm::out`].
pub type Out = JsValue;

/// This backend's `keyroute_js::Host`.
pub struct Wasm;

impl Host for Wasm {
    type Value<'v> = JsValue;
    type Error = JsValue;
    type U32sOut<'v> = js_sys::Uint32Array;
    type Out = JsValue;

    fn error(&self, e: &Error) -> JsValue {
        js_error(e)
    }

    #[inline]
    fn with_key<R>(&self, value: &JsValue, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
        with_key(value, f)
    }

    fn with_bytes<R>(&self, value: &JsValue, f: impl FnOnce(&[u8]) -> R) -> JsResult<Option<R>> {
        Ok(as_uint8(value).map(|bytes| f(&uint8_bytes(bytes))))
    }

    fn text(&self, value: &JsValue, what: &str) -> JsResult<String> {
        text(value, what)
    }

    fn number(&self, value: &JsValue) -> JsResult<Option<f64>> {
        Ok(value.as_f64())
    }

    fn bigint(&self, value: &JsValue) -> JsResult<Option<Option<u64>>> {
        if !value.is_bigint() {
            return Ok(None);
        }
        Ok(Some(u64::try_from(value.clone()).ok()))
    }

    fn is_absent(&self, value: &JsValue) -> JsResult<bool> {
        Ok(value.is_undefined() || value.is_null())
    }

    fn type_name(&self, value: &JsValue) -> JsResult<String> {
        Ok(type_name(value))
    }

    fn build(&self, spec: &JsValue, limits: &Limits, serialized: bool) -> JsResult<Router> {
        build(spec, limits, serialized)
    }

    fn joined_keys(&self, joined: &JsValue, lengths: &[u32]) -> JsResult<(Vec<u8>, Vec<usize>)> {
        joined_keys(joined, lengths)
    }

    fn share(&self, _router: &Arc<Router>) -> JsResult<f64> {
        Err(unshared())
    }

    fn shared(&self, _token: f64) -> JsResult<Option<Arc<Router>>> {
        Err(unshared())
    }

    fn out(&self, value: Js) -> JsResult<JsValue> {
        Ok(to_js(value))
    }

    fn fill<R>(&self, out: js_sys::Uint32Array, f: impl FnOnce(&mut [u32]) -> R) -> R {
        let mut elements = out.to_vec();
        let result = f(&mut elements);
        out.copy_from(&elements);
        result
    }
}

fn to_js(value: Js) -> JsValue {
    match value {
        Js::Null => JsValue::NULL,
        Js::Num(n) => JsValue::from(n),
        Js::Str(s) => JsValue::from_str(&s),
        Js::Big(b) => JsValue::from(b),
        Js::U32s(v) => js_sys::Uint32Array::from(v.as_slice()).into(),
        Js::U64s(v) => js_sys::BigUint64Array::from(v.as_slice()).into(),
        Js::Bytes(v) => Uint8Array::from(v.as_slice()).into(),
        Js::List(items) => items.into_iter().map(to_js).collect::<Array>().into(),
        Js::Obj(fields) => {
            let o = Object::new();
            for (name, field) in fields {
                // Setting a property on a fresh object cannot fail.
                let _ = Reflect::set(&o, &JsValue::from_str(name), &to_js(field));
            }
            o.into()
        }
    }
}

/// Writes `keyroute_js::surface!`'s classes and functions as wasm-bindgen ones, with the host
/// `Wasm`.
macro_rules! emit_wasm {
    (
        classes { $(
            $(#[doc = $cdoc:literal])*
            class $class:ident { $field:ident : $fty:ty }
            $(
                $(#[doc = $newdoc:literal])*
                new($nh:ident $(, $narg:ident : $naty:ty)*) -> Self $nbody:block
            )?
            { $(
                $(#[doc = $mdoc:literal])*
                [$($flag:ident)?] $js:literal fn $name:ident ($($recv:ident)? ; $h:ident $(, $arg:ident : $aty:ty)*) -> $ret:ty $body:block
            )* }
        )* }
        functions { $(
            $(#[doc = $fdoc:literal])*
            $fjs:literal fn $fname:ident ($fh:ident $(, $farg:ident : $faty:ty)*) -> $fret:ty $fbody:block
        )* }
    ) => {
        $(
            $(#[doc = $cdoc])*
            #[wasm_bindgen]
            pub struct $class {
                $field: $fty,
            }

            #[wasm_bindgen]
            impl $class {
                $(
                    $(#[doc = $newdoc])*
                    #[wasm_bindgen(constructor)]
                    pub fn new($($narg: $naty),*) -> Result<$class, JsValue> {
                        let $nh = &Wasm;
                        $nbody
                    }
                )?
                $(
                    $(#[doc = $mdoc])*
                    #[wasm_bindgen($($flag,)? js_name = $js)]
                    pub fn $name($(&$recv,)? $($arg: $aty),*) -> Result<$ret, JsValue> {
                        let $h = &Wasm;
                        let _ = $h;
                        $body
                    }
                )*
            }
        )*
        $(
            $(#[doc = $fdoc])*
            #[wasm_bindgen(js_name = $fjs)]
            pub fn $fname($($farg: $faty),*) -> Result<$fret, JsValue> {
                let $fh = &Wasm;
                $fbody
            }
        )*
    };
}

keyroute_js::surface!(emit_wasm);
