//! `keyroute._native.BoundedLoad` and `Lease`: consistent hashing with bounded loads
//! (`keyroute_bindings::bounded`) over a router the Python side already holds, sharing its table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use keyroute_bindings::ErrorCode;
use keyroute_bindings::bounded::{self, BoundedLoad};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors;
use crate::keys;
use crate::router::PyRouter;

type Inner = BoundedLoad;

fn core_error(py: Python<'_>, e: keyroute_bindings::core::Error) -> PyErr {
    errors::to_py(py, &keyroute_bindings::Error::from(e))
}

/// A router whose keys go to the first node of their preference order with room. The public
/// class is `keyroute.BoundedLoad`, a subclass.
#[pyclass(name = "BoundedLoad", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PyBoundedLoad {
    inner: Arc<Inner>,
    router: Py<PyRouter>,
    ids: Box<[Py<PyString>]>,
}

impl PyBoundedLoad {
    fn index(&self, py: Python<'_>, node: &str) -> PyResult<u32> {
        self.inner
            .router()
            .topology()
            .position(node.as_bytes())
            .ok_or_else(|| errors::by_code(py, ErrorCode::NodeOutOfRange, &format!("no node {node:?} in this router")))
    }

    fn id(&self, py: Python<'_>, index: u32) -> PyResult<Py<PyString>> {
        self.ids
            .get(index as usize)
            .map(|s| s.clone_ref(py))
            .ok_or_else(|| errors::by_code(py, ErrorCode::Internal, "a placement outside the node list"))
    }
}

#[pymethods]
impl PyBoundedLoad {
    /// Bounded loads over `router` with balance factor `c`.
    #[new]
    #[pyo3(signature = (router, c, /))]
    fn new(py: Python<'_>, router: &Bound<'_, PyRouter>, c: f64) -> PyResult<Self> {
        let shared = Arc::clone(&router.get().inner);
        let ids = crate::router::node_ids(py, &shared);
        let inner = bounded::bounded(shared, c).map_err(|e| errors::to_py(py, &e))?;
        Ok(Self { inner: Arc::new(inner), router: router.clone().unbind(), ids })
    }

    /// `(node, rank)` where `key` would go now, without taking a slot (rank 0: its owner).
    #[pyo3(signature = (key, /))]
    fn pick(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<(Py<PyString>, u32)> {
        let key = keys::key_bytes(key)?;
        let pick = self.inner.pick(&key).map_err(|e| core_error(py, e))?;
        Ok((self.id(py, pick.node)?, pick.rank))
    }

    /// Places `key` and takes a slot on its node until the lease is released.
    #[pyo3(signature = (key, /))]
    fn acquire(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyLease> {
        let key = keys::key_bytes(key)?;
        let pick = self.inner.acquire_raw(&key).map_err(|e| core_error(py, e))?;
        Ok(PyLease {
            bounded: Arc::clone(&self.inner),
            node: pick.node,
            rank: pick.rank,
            id: self.id(py, pick.node)?,
            held: AtomicBool::new(true),
        })
    }

    /// Requests in flight on `node`.
    #[pyo3(signature = (node, /))]
    fn load(&self, py: Python<'_>, node: &str) -> PyResult<u32> {
        Ok(self.inner.load(self.index(py, node)?))
    }

    /// The most requests `node` may serve once one more arrives: ⌈c · (total + 1) · w / W⌉.
    #[pyo3(signature = (node, /))]
    fn capacity(&self, py: Python<'_>, node: &str) -> PyResult<u32> {
        Ok(self.inner.capacity(self.index(py, node)?, self.inner.total().saturating_add(1)))
    }

    /// Requests in flight over all nodes.
    #[getter]
    fn total(&self) -> u32 {
        self.inner.total()
    }

    /// The balance factor `c` (three decimals).
    #[getter]
    fn c(&self) -> f64 {
        self.inner.factor()
    }

    /// The router it wraps.
    #[getter]
    fn router(&self, py: Python<'_>) -> Py<PyRouter> {
        self.router.clone_ref(py)
    }
}

/// A slot on a node, from `BoundedLoad.acquire`: released by `release()`, by leaving its
/// `with` block, or when it is garbage-collected.
#[pyclass(name = "Lease", module = "keyroute._native", frozen)]
pub(crate) struct PyLease {
    bounded: Arc<Inner>,
    node: u32,
    rank: u32,
    id: Py<PyString>,
    held: AtomicBool,
}

impl PyLease {
    fn give_back(&self) -> bool {
        // Exactly once, whichever of release(), __exit__ and the destructor comes first.
        self.held.swap(false, Ordering::AcqRel) && self.bounded.release(self.node).is_ok()
    }
}

#[pymethods]
impl PyLease {
    /// The node serving the request.
    #[getter]
    fn node(&self, py: Python<'_>) -> Py<PyString> {
        self.id.clone_ref(py)
    }

    /// Its position in the key's preference order (0: the key's owner).
    #[getter]
    fn rank(&self) -> u32 {
        self.rank
    }

    /// Whether the key is served by its owner.
    #[getter]
    fn is_home(&self) -> bool {
        self.rank == 0
    }

    /// Whether the slot is still held.
    #[getter]
    fn held(&self) -> bool {
        self.held.load(Ordering::Acquire)
    }

    /// Gives the slot back; `True` the first time, `False` after.
    fn release(&self) -> bool {
        self.give_back()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.give_back();
        false
    }

    fn __repr__(&self) -> String {
        let state = if self.held() { "held" } else { "released" };
        format!("<keyroute.Lease {:?} rank {} {state}>", self.id.to_string(), self.rank)
    }
}

impl Drop for PyLease {
    fn drop(&mut self) {
        self.give_back();
    }
}
