//! Ownership and diff: `keyroute_bindings::analysis` (results keyed by node id, method names
//! from the core), returned as plain tuples that `keyroute/_analysis.py` turns into typed
//! results.

use keyroute_bindings::analysis;
use pyo3::prelude::*;

use crate::errors;
use crate::router::PyRouter;

/// `(shares per node, method, sample keys, (cv, max/mean, min/mean))`.
type OwnershipTuple = (Vec<f64>, &'static str, Option<u32>, (f64, f64, f64));

/// The share of keys each node owns, and their balance.
#[pyfunction]
#[pyo3(signature = (router, /))]
pub(crate) fn ownership(py: Python<'_>, router: &Bound<'_, PyRouter>) -> OwnershipTuple {
    let router = &router.get().inner;
    py.detach(|| {
        let own = analysis::ownership(router);
        let b = own.balance;
        let shares = own.shares.iter().map(|s| s.share).collect();
        (shares, own.method.name(), own.method.sample_keys(), (b.cv, b.max_over_mean, b.min_over_mean))
    })
}

/// `(moved share, ideal moved share, flows (from, to, share), moved arcs (start, end, from, to),
/// method, sample keys)`, nodes as positions in each router.
type DiffTuple = (f64, f64, Vec<(u32, u32, f64)>, Vec<(u64, u64, u32, u32)>, &'static str, Option<u32>);

/// What changing from router `a` to router `b` moves.
#[pyfunction]
#[pyo3(signature = (a, b, /))]
pub(crate) fn diff(py: Python<'_>, a: &Bound<'_, PyRouter>, b: &Bound<'_, PyRouter>) -> PyResult<DiffTuple> {
    let (a, b) = (&a.get().inner, &b.get().inner);
    py.detach(|| {
        let d = analysis::diff(a, b)?;
        let flows = d.flows.iter().map(|f| (f.from_index, f.to_index, f.share)).collect();
        let arcs = d.moved_arcs.iter().map(|m| (m.start, m.end, m.from_index, m.to_index)).collect();
        Ok((d.moved, d.ideal_moved, flows, arcs, d.method.name(), d.method.sample_keys()))
    })
    .map_err(|e: keyroute_bindings::Error| errors::to_py(py, &e))
}
