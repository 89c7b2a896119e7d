//! `keyroute._native.Router`: an immutable router (a `keyroute_bindings::Router` behind an
//! `Arc`) with its node ids cached as interned Python strings, so a route allocates nothing.

use std::sync::Arc;

use keyroute_bindings::{ErrorCode, Limits, Router};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyInt, PyList, PyString, PyTuple};

use crate::errors;
use crate::keys::{self, KeyBatch};

/// An opaque, shared reference to a built router: how a `SharedRouter` hands routers to the
/// Python layer, which wraps them in `keyroute.Router` again.
#[pyclass(name = "RouterHandle", module = "keyroute._native", frozen)]
pub(crate) struct RouterHandle(pub(crate) Arc<Router>);

/// The router a spec file describes (JSON, or TOML when its name ends in `.toml`), under
/// `limits` (JSON of the limits to change), as a handle for `keyroute.Router.from_file`.
#[pyfunction]
#[pyo3(signature = (path, /, limits=None))]
pub(crate) fn router_from_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    limits: Option<&str>,
) -> PyResult<RouterHandle> {
    let limits = limits.map_or(Ok(Limits::DEFAULT), Limits::from_json).map_err(|e| errors::to_py(py, &e))?;
    match py.detach(|| Router::from_file(&path, &limits)) {
        Ok(router) => Ok(RouterHandle(Arc::new(router))),
        Err(e) => Err(errors::to_py(py, &e)),
    }
}

/// A router built from a topology spec (JSON text), immutable and safe to share between
/// threads. The public class is `keyroute.Router`, a subclass.
#[pyclass(name = "Router", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PyRouter {
    pub(crate) inner: Arc<Router>,
    ids: Box<[Py<PyString>]>,
}

impl PyRouter {
    fn wrap(py: Python<'_>, inner: Arc<Router>) -> Self {
        let ids = node_ids(py, &inner);
        Self { inner, ids }
    }

    fn id(&self, py: Python<'_>, index: u32) -> PyResult<Py<PyString>> {
        self.ids.get(index as usize).map(|s| s.clone_ref(py)).ok_or_else(|| outside(py))
    }

    fn ids_of<'py>(&self, py: Python<'py>, indices: &[u32]) -> PyResult<Bound<'py, PyList>> {
        id_list(py, &self.ids, indices)
    }
}

#[pymethods]
impl PyRouter {
    /// The id of the node that owns `key` (str, bytes or bytearray).
    #[pyo3(signature = (key, /))]
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let index = route_one(py, &self.inner, key)?;
        self.id(py, index)
    }

    /// The position (in `nodes`) of the node that owns `key`.
    #[pyo3(signature = (key, /))]
    fn route_index(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        route_one(py, &self.inner, key)
    }

    /// The id of the node that owns every key whose `key_hash` is `hash`.
    #[pyo3(signature = (hash, /))]
    fn route_hash(&self, py: Python<'_>, hash: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let hash = key_hash_arg(hash)?;
        let index = self.inner.route_hash(hash).map_err(|e| errors::to_py(py, &e))?;
        self.id(py, index)
    }

    /// The 64-bit number this router routes `key` on.
    #[pyo3(signature = (key, /))]
    fn key_hash(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        let key = keys::key_bytes(key)?;
        self.inner.key_hash(&key).map_err(|e| errors::to_py(py, &e))
    }

    /// The slot `key` falls in, for slot-table routers; `None` for the others.
    #[pyo3(signature = (key, /))]
    fn slot(&self, key: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let key = keys::key_bytes(key)?;
        Ok(self.inner.slot(&key))
    }

    /// Builds a router from spec JSON text (under `limits`, JSON of the limits to change), or
    /// wraps a router handle. `serialized` says the text was written by the package from the
    /// caller's mapping: errors then name the field but no line and column.
    #[new]
    #[pyo3(signature = (spec, /, limits=None, serialized=false))]
    fn new(
        py: Python<'_>,
        spec: &Bound<'_, PyAny>,
        limits: Option<&Bound<'_, PyString>>,
        serialized: bool,
    ) -> PyResult<Self> {
        if let Ok(handle) = spec.cast::<RouterHandle>() {
            return Ok(Self::wrap(py, Arc::clone(&handle.get().0)));
        }
        let Ok(text) = spec.cast::<PyString>() else {
            let kind = spec.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            let message = format!("a spec must be a mapping or JSON text, not {kind}");
            return Err(errors::wrong_type(py, &message));
        };
        let limits = match limits {
            Some(text) => {
                let text = std::str::from_utf8(keys::utf8(text)?).unwrap_or_default();
                Limits::from_json(text).map_err(|e| errors::to_py(py, &e))?
            }
            None => Limits::DEFAULT,
        };
        // Size first, as everywhere: a str longer in characters than the limit is longer still
        // in UTF-8 bytes, and need not be encoded to be refused. (The str's own length: a
        // subclass's `__len__` is Python code and may claim anything.)
        // SAFETY: `text` is a live str, and the GIL is held.
        let chars = unsafe { ffi::PyUnicode_GetLength(text.as_ptr()) };
        let chars = usize::try_from(chars).map_err(|_| PyErr::fetch(py))?;
        if let Err(e) = limits.check_spec_bytes(chars, "the spec") {
            return Err(errors::to_py(py, &e));
        }
        // The spec's UTF-8 (a lone surrogate has none: invalid_utf8), then the shared order.
        let text = keys::utf8(text)?;
        // Building a large ring takes milliseconds: let other threads run meanwhile.
        let build = if serialized { Router::from_serialized } else { Router::from_bytes };
        match py.detach(|| build(text, &limits)) {
            Ok(router) => Ok(Self::wrap(py, Arc::new(router))),
            Err(e) => Err(errors::to_py(py, &e)),
        }
    }

    /// The id of the `selector mod r`-th of `key`'s first `r` replicas (read spreading).
    #[pyo3(signature = (key, r, selector, /))]
    fn _spread(&self, py: Python<'_>, key: &Bound<'_, PyAny>, r: usize, selector: u64) -> PyResult<Py<PyString>> {
        let key = keys::key_bytes(key)?;
        let node = self.inner.spread(&key, r, selector).map_err(|e| errors::to_py(py, &e))?;
        self.id(py, node)
    }

    /// `n` distinct node ids for `key`, in preference order.
    #[pyo3(signature = (key, n, /))]
    fn replicas<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'_, PyAny>,
        n: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let indices = replicas(py, &self.inner, key, n)?;
        self.ids_of(py, &indices)
    }

    /// The owner of each key of a sequence of keys, routed with the GIL released.
    #[pyo3(signature = (keys, /))]
    fn _route_many<'py>(&self, py: Python<'py>, keys: &Bound<'_, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let indices = route_many(py, &self.inner, keys)?;
        self.ids_of(py, &indices)
    }

    /// Node positions (little-endian u32) for key hashes (little-endian u64), GIL released.
    #[pyo3(signature = (hashes, /))]
    fn _route_hashes<'py>(&self, py: Python<'py>, hashes: &Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyByteArray>> {
        route_hashes(py, &self.inner, hashes)
    }

    /// The node ids, in spec order (routes answer positions in this tuple).
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.ids.iter().map(|s| s.clone_ref(py)))
    }

    /// XXH3-64 of `canonical_json`: equal for two processes holding the same view.
    #[getter]
    fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    /// The view's version from the spec (0 when unversioned).
    #[getter]
    fn version(&self) -> u64 {
        self.inner.version()
    }

    /// The spec in canonical form: every default filled in, keys sorted, no whitespace.
    #[getter]
    fn canonical_json(&self) -> &str {
        self.inner.canonical_json()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        match other.cast::<PyRouter>() {
            Ok(o) => {
                let same = o.get().inner.canonical_json() == self.inner.canonical_json();
                PyBool::new(py, same).to_owned().into_any().unbind()
            }
            Err(_) => py.NotImplemented(),
        }
    }

    fn __hash__(&self) -> isize {
        // Python reserves -1 for errors.
        match self.inner.fingerprint() as isize {
            -1 => -2,
            h => h,
        }
    }
}

/// Every node id of `router` as an interned Python string.
pub(crate) fn node_ids(py: Python<'_>, router: &Router) -> Box<[Py<PyString>]> {
    (0..router.len() as u32).map(|i| PyString::intern(py, router.node_id(i).unwrap_or_default()).unbind()).collect()
}

/// A list of `ids[i]` for each `i` of `indices` (one pass, no intermediate vector).
pub(crate) fn id_list<'py>(py: Python<'py>, ids: &[Py<PyString>], indices: &[u32]) -> PyResult<Bound<'py, PyList>> {
    // SAFETY: PyList_New returns a new list of `len` NULL items, or NULL with an exception.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(indices.len() as ffi::Py_ssize_t))? };
    for (i, &index) in indices.iter().enumerate() {
        let id = ids.get(index as usize).ok_or_else(|| outside(py))?;
        // SAFETY: `i` is in range of the new list, which nobody else has seen yet;
        // PyList_SetItem steals the new reference (a list with NULL items left is freed fine).
        unsafe { ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, id.clone_ref(py).into_ptr()) };
    }
    // SAFETY: made by PyList_New above.
    Ok(unsafe { list.cast_into_unchecked::<PyList>() })
}

fn outside(py: Python<'_>) -> PyErr {
    errors::by_code(py, ErrorCode::Internal, "a route outside the node list")
}

/// The node id at `index` of `router`, as a new Python string.
pub(crate) fn node_id(py: Python<'_>, router: &Router, index: u32) -> PyResult<Py<PyString>> {
    router.node_id(index).map(|id| PyString::new(py, id).unbind()).ok_or_else(|| outside(py))
}

pub(crate) fn route_one(py: Python<'_>, router: &Router, key: &Bound<'_, PyAny>) -> PyResult<u32> {
    let key = keys::key_bytes(key)?;
    router.route(&key).map_err(|e| errors::to_py(py, &e))
}

pub(crate) fn replicas(
    py: Python<'_>,
    router: &Router,
    key: &Bound<'_, PyAny>,
    n: &Bound<'_, PyAny>,
) -> PyResult<Vec<u32>> {
    let key = keys::key_bytes(key)?;
    if !n.is_instance_of::<PyInt>() || n.is_instance_of::<PyBool>() {
        let kind = n.get_type().name().map(|t| t.to_string()).unwrap_or_default();
        return Err(errors::wrong_type(py, &format!("the replica count must be an int, not {kind}")));
    }
    let n =
        n.extract::<usize>().map_err(|_| errors::by_code(py, ErrorCode::InvalidParameter, "n must be an int ≥ 0"))?;
    router.replica_list(&key, n).map_err(|e| errors::to_py(py, &e))
}

pub(crate) fn route_many(py: Python<'_>, router: &Router, keys: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if let Ok(hasher) = router.key_hasher() {
        // Hash each key in place (no copy), then route the hashes without the GIL.
        let hashes = keys::hashes(keys, hasher)?;
        let mut out = vec![0u32; hashes.len()];
        py.detach(|| router.route_hash_batch(&hashes, &mut out)).map_err(|e| errors::to_py(py, &e))?;
        return Ok(out);
    }
    let batch = KeyBatch::collect(keys)?;
    let mut out = vec![0u32; batch.len()];
    let routed = py.detach(|| {
        // Chunks keep the slice table small and hot, instead of one the size of the batch.
        const CHUNK: usize = 1024;
        let mut slices = Vec::with_capacity(CHUNK);
        for (c, chunk) in out.chunks_mut(CHUNK).enumerate() {
            let first = c * CHUNK;
            slices.clear();
            batch.keys_into(first..first + chunk.len(), &mut slices);
            router.route_batch(&slices, chunk).map_err(|e| (first + e.key_index().unwrap_or(0), e))?;
        }
        Ok(())
    });
    match routed {
        Ok(()) => Ok(out),
        Err((at, e)) => Err(keys::with_index(py, errors::to_py(py, &e), at)),
    }
}

pub(crate) fn route_hashes<'py>(
    py: Python<'py>,
    router: &Router,
    hashes: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyByteArray>> {
    let data = hashes.as_bytes();
    if data.len() % 8 != 0 {
        return Err(errors::by_code(py, ErrorCode::InvalidKey, "key hashes must be whole little-endian u64s"));
    }
    let mut out = vec![0u32; data.len() / 8];
    py.detach(|| {
        // Chunks: the u64s are read from the (unaligned) bytes into a small buffer.
        const CHUNK: usize = 1024;
        let mut buf = [0u64; CHUNK];
        for (bytes, out) in data.chunks(8 * CHUNK).zip(out.chunks_mut(CHUNK)) {
            for (h, b) in buf.iter_mut().zip(bytes.chunks_exact(8)) {
                *h = u64::from_le_bytes(b.try_into().unwrap_or_default());
            }
            router.route_hash_batch(buf.get(..out.len()).unwrap_or_default(), out)?;
        }
        Ok(())
    })
    .map_err(|e| errors::to_py(py, &e))?;
    PyByteArray::new_with(py, out.len() * 4, |buf| {
        for (chunk, index) in buf.chunks_exact_mut(4).zip(&out) {
            chunk.copy_from_slice(&index.to_le_bytes());
        }
        Ok(())
    })
}

fn key_hash_arg(hash: &Bound<'_, PyAny>) -> PyResult<u64> {
    let py = hash.py();
    if !hash.is_instance_of::<PyInt>() {
        let kind = hash.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(errors::wrong_type(py, &format!("a key hash must be an int, not {kind}")));
    }
    hash.extract::<u64>().map_err(|_| errors::by_code(py, ErrorCode::InvalidKey, "a key hash must be in 0..2**64"))
}
