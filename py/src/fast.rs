//! `route`, `route_index`, `route_hash`, `key_hash` and `slot` as `METH_O` methods.
//!
//! Under the stable ABI of Python 3.9 (abi3-py39), PyO3 can only use the `METH_VARARGS`
//! calling convention (`METH_FASTCALL` joined the stable ABI in 3.10): every call builds an
//! argument tuple and parses it, about half the cost of routing one key. These one-argument
//! calls are the hot path, so they are defined here with `METH_O` (stable ABI since 3.2, no
//! tuple) on `RouteCalls`, a mixin type without instance data. `keyroute.Router` lists it
//! before `_native.Router`, whose instances the methods require.

use std::any::Any;
use std::cell::UnsafeCell;
use std::ffi::{CStr, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use pyo3::ffi;
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::router::PyRouter;

/// Runs `f` on the router `slf` and its argument as CPython's `METH_O` contract requires:
/// a new reference, or NULL with an exception set, and never a panic across the boundary.
///
/// # Safety
/// The GIL is held; `slf` and `arg` are live objects (CPython calls `METH_O` methods so).
unsafe fn call<F>(slf: *mut ffi::PyObject, arg: *mut ffi::PyObject, f: F) -> *mut ffi::PyObject
where
    F: for<'py> FnOnce(&PyRouter, Python<'py>, &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>,
{
    // SAFETY: CPython holds the GIL while it runs a method.
    let py = unsafe { Python::assume_attached() };
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: live objects, borrowed for the call (see the contract above).
        let (slf, arg) = unsafe { (Bound::from_borrowed_ptr(py, slf), Bound::from_borrowed_ptr(py, arg)) };
        let router = slf.cast::<PyRouter>().map_err(PyErr::from)?;
        f(router.get(), py, &arg)
    }));
    let err = match result {
        Ok(Ok(value)) => return value.into_ptr(),
        Ok(Err(err)) => err,
        Err(payload) => panic_error(payload.as_ref()),
    };
    err.restore(py);
    ptr::null_mut()
}

#[cold]
fn panic_error(payload: &(dyn Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("panic in keyroute");
    PanicException::new_err(message.to_owned())
}

macro_rules! meth_o {
    ($name:ident, |$router:ident, $py:ident, $arg:ident| $body:expr) => {
        unsafe extern "C" fn $name(slf: *mut ffi::PyObject, arg: *mut ffi::PyObject) -> *mut ffi::PyObject {
            // SAFETY: CPython calls METH_O methods with the GIL held and two live objects.
            unsafe { call(slf, arg, |$router, $py, $arg| $body) }
        }
    };
}

meth_o!(route, |r, py, key| r.route(py, key).map(|id| id.into_bound(py).into_any()));
meth_o!(route_index, |r, py, key| r.route_index(py, key)?.into_pyobject(py).map(Bound::into_any).map_err(Into::into));
meth_o!(route_hash, |r, py, hash| r.route_hash(py, hash).map(|id| id.into_bound(py).into_any()));
meth_o!(key_hash, |r, py, key| r.key_hash(py, key)?.into_pyobject(py).map(Bound::into_any).map_err(Into::into));
meth_o!(slot, |r, py, key| r.slot(key)?.into_pyobject(py).map(Bound::into_any).map_err(Into::into));

/// A static CPython keeps pointers into (method table, type name).
struct Static<T>(UnsafeCell<T>);
// SAFETY: written only by CPython's type machinery, under the GIL, as its contract requires.
unsafe impl<T> Sync for Static<T> {}

const fn method(name: &'static CStr, meth: ffi::PyCFunction, doc: &'static CStr) -> ffi::PyMethodDef {
    ffi::PyMethodDef {
        ml_name: name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer { PyCFunction: meth },
        ml_flags: ffi::METH_O,
        ml_doc: doc.as_ptr(),
    }
}

// The docs start with the text signature CPython (and `inspect`, and stubtest) read.
static METHODS: Static<[ffi::PyMethodDef; 6]> = Static(UnsafeCell::new([
    method(
        c"route",
        route,
        c"route($self, key, /)\n--\n\nThe id of the node that owns `key` (str, bytes or bytearray).",
    ),
    method(
        c"route_index",
        route_index,
        c"route_index($self, key, /)\n--\n\nThe position (in `nodes`) of the node that owns `key`.",
    ),
    method(
        c"route_hash",
        route_hash,
        c"route_hash($self, hash, /)\n--\n\nThe id of the node that owns every key whose `key_hash` is `hash`.",
    ),
    method(c"key_hash", key_hash, c"key_hash($self, key, /)\n--\n\nThe 64-bit number this router routes `key` on."),
    method(
        c"slot",
        slot,
        c"slot($self, key, /)\n--\n\nThe slot `key` falls in, for slot-table routers; `None` for the others.",
    ),
    ffi::PyMethodDef::zeroed(),
]));

/// Creates the `RouteCalls` mixin type.
pub(crate) fn route_calls(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    let mut slots = [
        ffi::PyType_Slot { slot: ffi::Py_tp_methods, pfunc: METHODS.0.get().cast::<c_void>() },
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: c"One-argument calls of keyroute.Router, mixed in before keyroute._native.Router."
                .as_ptr()
                .cast_mut()
                .cast(),
        },
        ffi::PyType_Slot { slot: 0, pfunc: ptr::null_mut() },
    ];
    let mut spec = ffi::PyType_Spec {
        name: c"keyroute._native.RouteCalls".as_ptr(),
        basicsize: 0, // no instance data: it mixes into any layout
        itemsize: 0,
        flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE) as _,
        slots: slots.as_mut_ptr(),
    };
    // SAFETY: a well-formed spec; CPython copies the slots and keeps the static name and
    // method table. Returns a new reference or NULL with an exception set.
    let ty = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpec(&mut spec))? };
    Ok(ty.cast_into::<PyType>()?)
}
