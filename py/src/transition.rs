//! `keyroute._native.Transition`: a gradual change between two routers
//! (`keyroute_bindings::Transition`), immutable; `with_progress` makes a new one.

use std::sync::Arc;

use keyroute_bindings::{Router, Transition};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::errors;
use crate::keys::{self, KeyBatch};
use crate::router::{self, PyRouter};

/// A transition from router A to router B at some progress. The public class is
/// `keyroute.Transition`, a subclass.
#[pyclass(name = "Transition", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PyTransition {
    inner: Arc<Transition>,
    ids: Box<[Py<PyString>]>,
    ends: (Py<PyRouter>, Py<PyRouter>),
}

impl PyTransition {
    fn id(&self, py: Python<'_>, index: u32) -> PyResult<Py<PyString>> {
        self.ids
            .get(index as usize)
            .map(|s| s.clone_ref(py))
            .ok_or_else(|| errors::by_code(py, keyroute_bindings::ErrorCode::Internal, "a route outside the node list"))
    }

    fn route_index_of(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = keys::key_bytes(key)?;
        self.inner.route(&key).map_err(|e| errors::to_py(py, &e))
    }
}

fn owned(router: &Bound<'_, PyRouter>) -> Router {
    Router::clone(&router.get().inner)
}

#[pymethods]
impl PyTransition {
    /// A transition from `source` (view A) to `target` (view B) at `progress` in [0, 1].
    #[new]
    #[pyo3(signature = (source, target, progress, /))]
    fn new(
        py: Python<'_>,
        source: &Bound<'_, PyRouter>,
        target: &Bound<'_, PyRouter>,
        progress: f64,
    ) -> PyResult<Self> {
        let (a, b) = (owned(source), owned(target));
        let inner = py.detach(|| Transition::new(a, b, progress)).map_err(|e| errors::to_py(py, &e))?;
        let ids = (0..inner.len() as u32)
            .map(|i| PyString::intern(py, inner.node_id(i).unwrap_or_default()).unbind())
            .collect();
        Ok(Self { inner: Arc::new(inner), ids, ends: (source.clone().unbind(), target.clone().unbind()) })
    }

    /// The id of the node that owns `key` now.
    #[pyo3(signature = (key, /))]
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let index = self.route_index_of(py, key)?;
        self.id(py, index)
    }

    /// The position (in `nodes`) of the node that owns `key` now.
    #[pyo3(signature = (key, /))]
    fn route_index(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        self.route_index_of(py, key)
    }

    /// `(owner, previous)`: the owner now and, when the key has cut over to another node, the
    /// node that held it before (read there on a miss while data migrates), else `None`.
    #[pyo3(signature = (key, /))]
    fn route_with_fallback(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<(Py<PyString>, Option<Py<PyString>>)> {
        let key = keys::key_bytes(key)?;
        let placed = self.inner.route_with_fallback(&key).map_err(|e| errors::to_py(py, &e))?;
        let previous = placed.previous.map(|p| self.id(py, p)).transpose()?;
        Ok((self.id(py, placed.owner)?, previous))
    }

    /// True when `key` has cut over to its owner in view B at this progress.
    #[pyo3(signature = (key, /))]
    fn has_cut_over(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let key = keys::key_bytes(key)?;
        Ok(self.inner.has_cut_over(&key))
    }

    /// The owner of each key now, routed with the GIL released.
    #[pyo3(signature = (keys, /))]
    fn _route_many<'py>(&self, py: Python<'py>, keys: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let batch = KeyBatch::collect(keys)?;
        let inner = &*self.inner;
        let routed = py.detach(|| {
            let mut slices = Vec::with_capacity(batch.len());
            batch.keys_into(0..batch.len(), &mut slices);
            slices.iter().enumerate().map(|(i, k)| inner.route(k).map_err(|e| (i, e))).collect::<Result<Vec<_>, _>>()
        });
        match routed {
            Ok(indices) => router::id_list(py, &self.ids, &indices),
            Err((at, e)) => Err(keys::with_index(py, errors::to_py(py, &e), at)),
        }
    }

    /// Progress in [0, 1].
    #[getter]
    fn progress(&self) -> f64 {
        self.inner.progress()
    }

    /// The router before the change (view A).
    #[getter]
    fn source(&self, py: Python<'_>) -> Py<PyRouter> {
        self.ends.0.clone_ref(py)
    }

    /// The router after the change (view B).
    #[getter]
    fn target(&self, py: Python<'_>) -> Py<PyRouter> {
        self.ends.1.clone_ref(py)
    }

    /// Every node of either view: B's in order, then A's nodes that B does not have.
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        pyo3::types::PyTuple::new(py, self.ids.iter().map(|s| s.clone_ref(py)))
    }

    /// The transition as processes exchange it (views' versions and fingerprints, progress),
    /// as canonical JSON.
    fn describe_json(&self) -> String {
        self.inner.describe_json()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}
