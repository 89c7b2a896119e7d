//! `keyroute._native.HotKeys`: the bindings' sharded hot-key detector.

use keyroute_bindings::ErrorCode;
use keyroute_bindings::hotkeys::SharedHotKeys;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};

use crate::errors;
use crate::keys;

/// A bounded-memory hot-key detector. The public class is `keyroute.HotKeys`, a subclass.
#[pyclass(name = "HotKeys", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PyHotKeys {
    inner: SharedHotKeys,
}

#[pymethods]
impl PyHotKeys {
    /// A detector of `shards` shards with `width` sketch counters a row and `capacity`
    /// candidate keys in all.
    #[new]
    #[pyo3(signature = (width, capacity, shards, /))]
    fn new(
        py: Python<'_>,
        width: &Bound<'_, PyAny>,
        capacity: &Bound<'_, PyAny>,
        shards: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let (width, capacity, shards) = (size(width, "width")?, size(capacity, "capacity")?, size(shards, "shards")?);
        let inner = SharedHotKeys::new(width, capacity, shards).map_err(|e| errors::to_py(py, &e))?;
        Ok(Self { inner })
    }

    /// Counts one observation of `key`; returns its estimate after it.
    #[pyo3(signature = (key, /))]
    fn observe(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = keys::key_bytes(key)?;
        self.inner.observe(&key).map_err(|e| errors::to_py(py, &e))
    }

    /// The estimate of `key`'s decayed count (never below the true count).
    #[pyo3(signature = (key, /))]
    fn heat(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.inner.heat(&keys::key_bytes(key)?))
    }

    /// Whether `key` was seen at least `count` times (decayed).
    #[pyo3(signature = (key, count, /))]
    fn _is_hot(&self, key: &Bound<'_, PyAny>, count: u32) -> PyResult<bool> {
        Ok(self.inner.is_hot(&keys::key_bytes(key)?, count))
    }

    /// Whether `key` makes at least `share` of the observations (decayed).
    #[pyo3(signature = (key, share, /))]
    fn _is_hot_share(&self, key: &Bound<'_, PyAny>, share: f64) -> PyResult<bool> {
        Ok(self.inner.is_hot_share(&keys::key_bytes(key)?, share))
    }

    /// The `k` most counted keys, most counted first, as `(key bytes, estimate)`; a key longer
    /// than 1 KiB is given as its first 1,024 bytes (`MemoryError` when the list cannot be
    /// allocated).
    #[pyo3(signature = (k, /))]
    fn top<'py>(&self, py: Python<'py>, k: &Bound<'_, PyAny>) -> PyResult<Vec<(Bound<'py, PyBytes>, u32)>> {
        let top = self.inner.top(size(k, "k")?).map_err(|e| errors::to_py(py, &e))?;
        Ok(top.into_iter().map(|(key, count)| (PyBytes::new(py, &key), count)).collect())
    }

    /// Halves every count.
    fn decay(&self) {
        self.inner.decay();
    }

    /// Observations counted (decayed with the counts).
    #[getter]
    fn total(&self) -> u64 {
        self.inner.total()
    }

    /// Bytes held by the detector.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
}

/// A size argument: an `int` from 0 to the platform's largest size.
/// `keyroute.InvalidTypeError` for another type, `keyroute.InvalidParameterError` for a negative
/// or too large one (the detector then checks it against its own limits).
fn size(value: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    let py = value.py();
    if !value.is_instance_of::<PyInt>() {
        let kind = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(errors::wrong_type(py, &format!("{what} must be an int, not {kind}")));
    }
    value.extract::<usize>().map_err(|_| {
        let shown = value.str().map(|s| s.to_string()).unwrap_or_default();
        errors::by_code(
            py,
            ErrorCode::InvalidParameter,
            &format!("{what} must be a size from 0 to {}, not {shown}", usize::MAX),
        )
    })
}
