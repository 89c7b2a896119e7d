//! Ownership and diff: the core's analysis (`keyroute::analysis`, reached through
//! `keyroute_bindings::core` as every surface reaches it), returned as plain tuples that
//! `keyroute/_analysis.py` turns into typed results with node ids.

use keyroute_bindings::core::analysis::{self, Method};
use pyo3::prelude::*;

use crate::errors;
use crate::router::PyRouter;

/// `(name, sample keys)` of how a figure was obtained.
fn method(m: Method) -> (&'static str, Option<u32>) {
    match m {
        Method::Exact => ("exact", None),
        Method::SlotShare => ("slot_share", None),
        Method::Expected => ("expected", None),
        Method::Sampled { keys } => ("sampled", Some(keys)),
        _ => ("other", None),
    }
}

/// `(shares per node, method, sample keys, (cv, max/mean, min/mean))`.
type OwnershipTuple = (Vec<f64>, &'static str, Option<u32>, (f64, f64, f64));

/// The share of keys each node owns, and their balance.
#[pyfunction]
#[pyo3(signature = (router, /))]
pub(crate) fn ownership(py: Python<'_>, router: &Bound<'_, PyRouter>) -> OwnershipTuple {
    let router = &router.get().inner;
    py.detach(|| {
        let core = router.core();
        let own = analysis::ownership(core);
        let balance = own.balance(core.topology());
        let (name, keys) = method(own.method);
        (own.shares, name, keys, (balance.cv, balance.max_over_mean, balance.min_over_mean))
    })
}

/// `(moved share, flows (from, to, share), moved arcs (start, end, from, to), method, sample keys)`.
type DiffTuple = (f64, Vec<(u32, u32, f64)>, Vec<(u64, u64, u32, u32)>, &'static str, Option<u32>);

/// What changing from router `a` to router `b` moves (node positions in each router).
#[pyfunction]
#[pyo3(signature = (a, b, /))]
pub(crate) fn diff(py: Python<'_>, a: &Bound<'_, PyRouter>, b: &Bound<'_, PyRouter>) -> PyResult<DiffTuple> {
    let (a, b) = (&a.get().inner, &b.get().inner);
    let d = py
        .detach(|| analysis::diff(a.core(), b.core()))
        .map_err(|e| errors::to_py(py, &keyroute_bindings::Error::from(e)))?;
    let (name, keys) = method(d.method);
    let flows = d.flows.iter().map(|f| (f.from, f.to, f.share)).collect();
    let arcs = d.moved_arcs.iter().map(|m| (m.start, m.end, m.from, m.to)).collect();
    Ok((d.moved, flows, arcs, name, keys))
}
