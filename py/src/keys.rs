//! Keys from Python: `str` (its UTF-8 bytes), `bytes` or `bytearray`.

use std::borrow::Cow;

use keyroute_bindings::ErrorCode;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};

use crate::errors;

/// The UTF-8 bytes of `s`, borrowed from the string (valid while it lives).
///
/// # Errors
/// `keyroute.InvalidUtf8Error` (caused by Python's `UnicodeEncodeError`) for a string that
/// holds a lone surrogate and so has no UTF-8 form.
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the GIL is held, as the `Bound` proves); CPython returns a
    // pointer to `size` bytes owned by the string, or NULL with an exception set.
    let data = unsafe { ffi::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        let py = s.py();
        let cause = PyErr::fetch(py);
        let err = errors::by_code(
            py,
            ErrorCode::InvalidUtf8,
            &format!("the str has no UTF-8 form (it holds a lone surrogate): {}", cause.value(py)),
        );
        err.set_cause(py, Some(cause));
        return Err(err);
    }
    // SAFETY: as above; the bytes stay valid and unchanged while `s` lives (str is immutable).
    Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) })
}

/// The bytes of one key.
///
/// # Errors
/// `keyroute.InvalidTypeError` for other types, `keyroute.InvalidUtf8Error` as [`utf8`].
pub(crate) fn key_bytes<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    // SAFETY: a live object; comparing its type with CPython's `str` type object (the common
    // case, checked without the function call `PyUnicode_Check` costs under the stable ABI).
    if unsafe { ffi::Py_TYPE(key.as_ptr()) } == &raw mut ffi::PyUnicode_Type {
        // SAFETY: just checked to be exactly `str`.
        return utf8(unsafe { key.cast_unchecked::<PyString>() }).map(Cow::Borrowed);
    }
    if let Ok(s) = key.cast::<PyString>() {
        return utf8(s).map(Cow::Borrowed);
    }
    if let Ok(b) = key.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(b) = key.cast::<PyByteArray>() {
        // Mutable: copy, so nothing can change under the router.
        return Ok(Cow::Owned(b.to_vec()));
    }
    Err(errors::wrong_type(key.py(), &format!("a key must be str, bytes or bytearray, not {}", type_name(key))))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// Calls `f` with the position and bytes of every key of `keys` (a list, a tuple or any
/// iterable of keys), in order, while holding the GIL.
///
/// # Errors
/// As [`key_bytes`], with the key's position in the message; `InvalidTypeError` when `keys` is
/// itself a single key (a `str` would otherwise be routed character by character) or not
/// iterable; `f`'s errors as they are.
#[inline]
fn for_each_key(keys: &Bound<'_, PyAny>, mut f: impl FnMut(usize, &[u8]) -> PyResult<()>) -> PyResult<()> {
    let py = keys.py();
    let not_a_batch = |what: &str| {
        errors::wrong_type(py, &format!("route_many takes a sequence of keys, not {what}{}", type_name(keys)))
    };
    if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() || keys.is_instance_of::<PyByteArray>() {
        return Err(not_a_batch("a single "));
    }
    if !(keys.is_instance_of::<PyList>() || keys.is_instance_of::<PyTuple>()) {
        // Any other iterable is read one key at a time, so a huge or endless one fails at its
        // first bad key, and never costs memory for keys not yet read.
        let iter = keys.try_iter().map_err(|_| not_a_batch(""))?;
        for (i, item) in iter.enumerate() {
            let item = item?;
            f(i, &key_bytes(&item).map_err(|e| with_index(py, e, i))?)?;
        }
        return Ok(());
    }
    // Nothing below runs Python code (except to build an error, after which reading stops), so
    // the list or tuple cannot change while it is read.
    let seq = keys;
    let is_list = seq.is_instance_of::<PyList>();
    // The items it really holds: a subclass's `__len__` may claim any length (and is Python
    // code), but the items are read from the list or tuple itself.
    // SAFETY: `seq` is a live list or tuple (checked above), and the GIL is held.
    let len = unsafe { if is_list { ffi::PyList_Size(seq.as_ptr()) } else { ffi::PyTuple_Size(seq.as_ptr()) } };
    if len < 0 {
        return Err(PyErr::fetch(py));
    }
    for i in 0..len as usize {
        // SAFETY: `seq` is a list or tuple with more than `i` items (nothing runs that could
        // shrink it); the item is borrowed from it, and the GIL is held.
        let item = unsafe {
            if is_list {
                ffi::PyList_GetItem(seq.as_ptr(), i as ffi::Py_ssize_t)
            } else {
                ffi::PyTuple_GetItem(seq.as_ptr(), i as ffi::Py_ssize_t)
            }
        };
        if item.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: a valid object pointer; the type object is CPython's.
        if unsafe { ffi::Py_TYPE(item) } == &raw mut ffi::PyUnicode_Type {
            let mut size: ffi::Py_ssize_t = 0;
            // SAFETY: `item` is a live `str`; see `utf8`.
            let data = unsafe { ffi::PyUnicode_AsUTF8AndSize(item, &mut size) };
            if !data.is_null() {
                // SAFETY: as in `utf8`.
                f(i, unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) })?;
                continue;
            }
            // Clear Python's error and let `key_bytes` build ours (with that error as cause).
            drop(PyErr::fetch(py));
        }
        // SAFETY: `item` is a live object borrowed from `seq`.
        let key = unsafe { Bound::from_borrowed_ptr(py, item) };
        f(i, &key_bytes(&key).map_err(|e| with_index(py, e, i))?)?;
    }
    Ok(())
}

/// The routing hash of every key of `keys` (see [`keyroute_bindings::Router::key_hasher`]):
/// each key is hashed where it lies, with
/// the GIL held, so no key is copied and only the hashes (8 bytes a key) are kept.
///
/// # Errors
/// As [`for_each_key`]; a key the router cannot take (a `u64be` jump key that is not 8
/// bytes) with its position in the message.
pub(crate) fn hashes(keys: &Bound<'_, PyAny>, hasher: keyroute_bindings::KeyHasher<'_>) -> PyResult<Vec<u64>> {
    let py = keys.py();
    let mut out = Vec::with_capacity(capacity_hint(keys));
    for_each_key(keys, |i, key| {
        out.push(hasher.hash(key).map_err(|e| with_index(py, errors::to_py(py, &e), i))?);
        Ok(())
    })?;
    Ok(out)
}

/// Room to reserve for a batch's results: its length when it has one, but at most 64 Ki keys
/// (a `range(10**12)` claims a length it never delivers; past the hint, vectors grow).
fn capacity_hint(keys: &Bound<'_, PyAny>) -> usize {
    keys.len().unwrap_or(0).min(1 << 16)
}

/// Many keys copied into one buffer, so they can be routed with the GIL released while other
/// threads run (and even mutate the list the keys came from).
pub(crate) struct KeyBatch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyBatch {
    /// Copies every key of `keys`.
    ///
    /// # Errors
    /// As [`for_each_key`].
    pub(crate) fn collect(keys: &Bound<'_, PyAny>) -> PyResult<Self> {
        let hint = capacity_hint(keys);
        let mut batch = Self { bytes: Vec::with_capacity(hint * 16), ends: Vec::with_capacity(hint) };
        for_each_key(keys, |_, key| {
            batch.bytes.extend_from_slice(key);
            batch.ends.push(batch.bytes.len());
            Ok(())
        })?;
        Ok(batch)
    }

    /// Number of keys.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Appends the bytes of keys `range` to `into`, in order.
    pub(crate) fn keys_into<'a>(&'a self, range: std::ops::Range<usize>, into: &mut Vec<&'a [u8]>) {
        let mut start = range.start.checked_sub(1).and_then(|i| self.ends.get(i)).copied().unwrap_or(0);
        for &end in self.ends.get(range).unwrap_or_default() {
            into.push(self.bytes.get(start..end).unwrap_or_default());
            start = end;
        }
    }
}

/// The same exception with "key {index}: " in front of its message (same class, same cause).
pub(crate) fn with_index(py: Python<'_>, err: PyErr, index: usize) -> PyErr {
    let value = err.value(py);
    let message = format!("key {index}: {value}");
    match value.get_type().call1((message,)) {
        Ok(exc) => {
            let new = PyErr::from_value(exc);
            new.set_cause(py, err.cause(py));
            new
        }
        Err(_) => err,
    }
}
