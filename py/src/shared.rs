//! `keyroute._native.SharedRouter`: one router that many threads route through while another
//! publishes new topologies (`keyroute_bindings::SharedRouter`: lock-free loads, atomic swaps).

use std::sync::Arc;

use keyroute_bindings::SharedRouter;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString};

use crate::router::{self, PyRouter, RouterHandle};

/// A swappable router; the public class is `keyroute.SharedRouter`, a subclass.
#[pyclass(name = "SharedRouter", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PySharedRouter {
    shared: SharedRouter,
}

#[pymethods]
impl PySharedRouter {
    /// Starts with `router`.
    #[new]
    #[pyo3(signature = (router, /))]
    fn new(router: &Bound<'_, PyRouter>) -> Self {
        Self { shared: SharedRouter::from_arc(Arc::clone(&router.get().inner)) }
    }

    /// The current router.
    fn _load(&self) -> RouterHandle {
        RouterHandle(self.shared.load())
    }

    /// Publishes `router`; returns the one it replaced.
    #[pyo3(signature = (router, /))]
    fn _store(&self, router: &Bound<'_, PyRouter>) -> RouterHandle {
        RouterHandle(self.shared.store_arc(Arc::clone(&router.get().inner)))
    }

    /// The id of the node that owns `key` in the current router.
    #[pyo3(signature = (key, /))]
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let current = self.shared.load();
        let index = router::route_one(py, &current, key)?;
        router::node_id(py, &current, index)
    }

    /// The position of the owner of `key` in the current router's nodes.
    #[pyo3(signature = (key, /))]
    fn route_index(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        router::route_one(py, &self.shared.load(), key)
    }

    /// `n` distinct node ids for `key` in the current router, in preference order.
    #[pyo3(signature = (key, n, /))]
    fn replicas<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
        n: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let current = self.shared.load();
        let indices = router::replicas(py, &current, key, n)?;
        ids_of(py, &current, &indices)
    }

    /// The owner of each key, all routed by one router (the current one when called).
    #[pyo3(signature = (keys, /))]
    fn _route_many<'py>(&self, py: Python<'py>, keys: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let current = self.shared.load();
        let indices = router::route_many(py, &current, keys)?;
        ids_of(py, &current, &indices)
    }

    /// As `Router._route_hashes`, through the current router.
    #[pyo3(signature = (hashes, /))]
    fn _route_hashes<'py>(&self, py: Python<'py>, hashes: &Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyByteArray>> {
        router::route_hashes(py, &self.shared.load(), hashes)
    }
}

/// Ids for many routes: each node's string made once per call.
fn ids_of<'py>(py: Python<'py>, current: &keyroute_bindings::Router, indices: &[u32]) -> PyResult<Bound<'py, PyList>> {
    router::id_list(py, &router::node_ids(py, current), indices)
}
