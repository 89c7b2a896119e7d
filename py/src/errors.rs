//! Errors cross into Python as the `keyroute.Error` hierarchy (the base class in
//! `keyroute/_error.py`, a class per kind in `keyroute/_errors.py`, generated from
//! [`ErrorCode::ALL`] and checked against it by the tests). The classes live in Python so
//! they can also inherit `ValueError` or `LookupError`; this side only picks one by code.

use keyroute_bindings::{Error, ErrorCode};
use pyo3::call::PyCallArgs;
use pyo3::prelude::*;

/// The Python exception for a bindings error: the `keyroute.Error` subclass of its code.
pub(crate) fn to_py(py: Python<'_>, e: &Error) -> PyErr {
    by_code(py, e.code(), e.message())
}

/// The Python exception of `code` with `message`.
pub(crate) fn by_code(py: Python<'_>, code: ErrorCode, message: &str) -> PyErr {
    from_factory(py, "_from_code", (code.code(), message))
}

/// `keyroute.InvalidTypeError` (also a `TypeError`): an argument of the wrong type.
pub(crate) fn wrong_type(py: Python<'_>, message: &str) -> PyErr {
    by_code(py, ErrorCode::InvalidType, message)
}

/// Builds the exception through `keyroute._error` (imported once, then cached by Python).
/// Should the package be broken, the import error itself is raised: never a crash.
fn from_factory<'py, A: PyCallArgs<'py>>(py: Python<'py>, factory: &str, args: A) -> PyErr {
    match py.import("keyroute._error").and_then(|m| m.call_method1(factory, args)) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// `(code, name, category, description)` for every error kind, in numeric order: the table
/// `keyroute._errors` is generated from, for the tests that check the two agree.
pub(crate) fn table() -> Vec<(u32, &'static str, &'static str, &'static str)> {
    ErrorCode::ALL.iter().map(|c| (c.code(), c.name(), c.category().name(), c.description())).collect()
}
