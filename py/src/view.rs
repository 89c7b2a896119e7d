//! `keyroute._native.LiveView`, `Watch`, `watch` and `fleet_status`: views in Python
//! (docs/views.md). A live view is `keyroute_bindings::LiveView` (lookups never wait, a newer
//! version applies atomically, a document that does not build is refused and recorded); a watch
//! is a `keyroute-fleet` source feeding it from its own thread, registered in the source's census
//! when asked; `fleet_status` is the census read against the source's view.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use keyroute_bindings::view::{fingerprint_text, unix_ms};
use keyroute_bindings::{Error, ErrorCode, Limits, LiveView};
use keyroute_fleet::census::{self, Instance, Member};
use keyroute_fleet::source::{self, Source, WatchOptions};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::{errors, keys};

/// A view's node ids as Python strings, in the view's order (`ViewState::derived`).
struct Ids(Vec<Py<PyString>>);

impl Ids {
    fn of(py: Python<'_>, view: &keyroute_bindings::ViewState) -> Self {
        let count = u32::try_from(view.node_count()).unwrap_or(u32::MAX);
        Self((0..count).map(|i| PyString::new(py, view.node_id(i).unwrap_or_default()).unbind()).collect())
    }
}

/// The live handle; the public class is `keyroute.LiveView`, a subclass.
#[pyclass(name = "LiveView", module = "keyroute._native", frozen, subclass)]
pub(crate) struct PyLiveView {
    inner: Arc<LiveView>,
}

#[pymethods]
impl PyLiveView {
    /// A handle with no view yet; documents are read under `limits` (JSON of the limits to
    /// change).
    #[new]
    #[pyo3(signature = (limits=None))]
    fn new(py: Python<'_>, limits: Option<&str>) -> PyResult<Self> {
        let limits = limits.map_or(Ok(Limits::DEFAULT), Limits::from_json).map_err(|e| errors::to_py(py, &e))?;
        Ok(Self { inner: Arc::new(LiveView::new(limits)) })
    }

    /// Applies a view document (JSON text or bytes) if its version is newer and it builds;
    /// returns the version applied. Otherwise the view in effect stays, the refusal is
    /// recorded, and its error is raised.
    #[pyo3(signature = (document, /))]
    fn publish(&self, py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<u64> {
        let bytes = keys::key_bytes(document)?.into_owned();
        let inner = Arc::clone(&self.inner);
        let applied = py.detach(move || inner.publish_bytes(&bytes));
        applied.map(|v| v.version()).map_err(|e| errors::to_py(py, &e))
    }

    /// The id of the node that owns `key` in the view in effect.
    #[pyo3(signature = (key, /))]
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let key = keys::key_bytes(key)?;
        let id = self.inner.with(|v| {
            let index = v.route(&key)?;
            // The view's ids as Python strings, made once per view: a route hands out a
            // reference, as `Router.route` does, instead of a new string each call.
            match v.derived(|v| Ids::of(py, v)).and_then(|ids| ids.0.get(index as usize)) {
                Some(id) => Ok(id.clone_ref(py)),
                None => v.route_id(&key).map(|id| PyString::new(py, id).unbind()),
            }
        });
        id.map_err(|e| errors::to_py(py, &e))
    }

    /// The position of the owner of `key` in the view in effect's nodes (during a rollout:
    /// the target's nodes in order, then the source's nodes it lacks).
    #[pyo3(signature = (key, /))]
    fn route_index(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let key = keys::key_bytes(key)?;
        self.inner.with(|v| v.route(&key)).map_err(|e| errors::to_py(py, &e))
    }

    /// `(owner, previous)` ids of `key` in the view in effect: during a rollout, `previous` is
    /// the node that owned a key which has cut over (read there on a miss), else `None`.
    #[pyo3(signature = (key, /))]
    fn route_with_fallback(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
    ) -> PyResult<(Py<PyString>, Option<Py<PyString>>)> {
        let key = keys::key_bytes(key)?;
        let placed = self.inner.with(|v| {
            let p = v.route_with_fallback(&key)?;
            let id = |i: u32| {
                v.node_id(i)
                    .map(|id| PyString::new(py, id).unbind())
                    .ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
            };
            Ok((id(p.owner)?, p.previous.map(id).transpose()?))
        });
        placed.map_err(|e| errors::to_py(py, &e))
    }

    /// `(from, to)` ids of the owners of `key` at the two ends of the rollout in effect (the
    /// view's spec, and the spec it rolls out to), or `(owner, None)` for a plain view: the
    /// copies a write or a delete during a rollout must reach.
    #[pyo3(signature = (key, /))]
    fn _ends(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<(Py<PyString>, Option<Py<PyString>>)> {
        let key = keys::key_bytes(key)?;
        let owner = |r: &keyroute_bindings::Router| -> keyroute_bindings::Result<Py<PyString>> {
            let i = r.route(&key)?;
            r.node_id(i)
                .map(|id| PyString::new(py, id).unbind())
                .ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
        };
        let ends = self.inner.with(|v| Ok((owner(v.router())?, v.rollout_target().map(owner).transpose()?)));
        ends.map_err(|e| errors::to_py(py, &e))
    }

    /// The version in effect (`None` before the first).
    #[getter]
    fn version(&self) -> Option<u64> {
        self.inner.version()
    }

    /// The view in effect's fingerprint as text (16 lowercase hex digits).
    #[getter]
    fn fingerprint(&self) -> Option<String> {
        self.inner.load().map(|v| fingerprint_text(v.fingerprint()))
    }

    /// The rollout's progress, when the view in effect is a rollout.
    #[getter]
    fn progress(&self) -> Option<f64> {
        self.inner.load().and_then(|v| v.progress())
    }

    /// When the view in effect was applied, in milliseconds since the Unix epoch.
    #[getter]
    fn applied_unix_ms(&self) -> Option<u64> {
        self.inner.load().map(|v| unix_ms(v.applied_at()))
    }

    /// The last refusal as JSON (`{"at_unix_ms", "code", "error", "message", "version"}`).
    fn _last_refusal(&self) -> Option<String> {
        self.inner.last_refusal().map(|r| r.to_json())
    }

    /// How many documents this handle has refused.
    #[getter]
    fn refusals(&self) -> u64 {
        self.inner.refusals()
    }

    /// The view in effect as a canonical view document (JSON).
    fn document_json(&self) -> Option<String> {
        self.inner.load().map(|v| v.document_json())
    }
}

/// A running watch of a source (`keyroute.Watch`); a context manager that stops it on exit.
#[pyclass(name = "Watch", module = "keyroute._native", frozen)]
pub(crate) struct PyWatch {
    watch: Mutex<Option<keyroute_fleet::Watch>>,
    url: String,
    instance: Option<String>,
}

#[pymethods]
impl PyWatch {
    /// Stops the watch (and leaves the census); the live view keeps the view it has.
    fn stop(&self, py: Python<'_>) {
        let watch = self.watch.lock().ok().and_then(|mut w| w.take());
        if let Some(watch) = watch {
            py.detach(move || watch.stop());
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.stop(py);
        false
    }

    /// Whether the watch runs.
    #[getter]
    fn running(&self) -> bool {
        self.watch.lock().is_ok_and(|w| w.is_some())
    }

    /// The source's URL.
    #[getter]
    fn url(&self) -> &str {
        &self.url
    }

    /// The id the watch registered in the census as, if it did.
    #[getter]
    fn instance(&self) -> Option<&str> {
        self.instance.as_deref()
    }
}

fn seconds(py: Python<'_>, name: &str, value: f64, min: f64) -> PyResult<Duration> {
    source::seconds(name, value, min).map_err(|e| errors::to_py(py, &e))
}

fn open(py: Python<'_>, url: &str) -> PyResult<Arc<dyn Source>> {
    source::open(url).map(Arc::from).map_err(|e| errors::to_py(py, &e))
}

/// Starts a watch of the source `url` feeding `view`: the current document now, then each
/// change. With `census` (the default for an etcd source), it registers in the source's
/// census as `instance` (default `HOST-PID`), its entry outliving it by `census_ttl` seconds.
#[pyfunction]
#[pyo3(signature = (url, view, /, poll_interval=1.0, poll_only=false, census=None, instance=None, census_ttl=10.0))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn watch(
    py: Python<'_>,
    url: &str,
    view: &Bound<'_, PyLiveView>,
    poll_interval: f64,
    poll_only: bool,
    census: Option<bool>,
    instance: Option<&str>,
    census_ttl: f64,
) -> PyResult<PyWatch> {
    let poll_interval = seconds(py, "poll_interval", poll_interval, 0.01)?;
    let ttl = seconds(py, "census_ttl", census_ttl, census::MIN_TTL.as_secs_f64())?;
    let source = open(py, url)?;
    let live = Arc::clone(&view.get().inner);
    let register = census.unwrap_or_else(|| url.starts_with("etcd://"));
    let instance = match (register, instance) {
        (false, _) => None,
        (true, Some(id)) => Some(Instance::new(id, "python").map_err(|e| errors::to_py(py, &e))?),
        (true, None) => Some(Instance::this_process("python")),
    };
    let options = WatchOptions { poll_interval, poll_only, ..WatchOptions::default() };
    let id = instance.as_ref().map(|i| i.id.clone());
    let url_text = source.url();
    let started = py.detach(move || {
        let mut sink: source::Sink = Box::new(|_| {});
        if let Some(instance) = &instance {
            let member = Member::join(Arc::clone(&source), instance, ttl)?;
            sink = census::recording(Arc::new(member), Arc::clone(&live), sink);
        }
        source.watch(live, options, sink)
    });
    let watch = started.map_err(|e| errors::to_py(py, &e))?;
    Ok(PyWatch { watch: Mutex::new(Some(watch)), url: url_text, instance: id })
}

/// The census of the source `url` against its view, as JSON (`keyroute fleet status --json`):
/// an instance behind for longer than `deadline` seconds is stale.
#[pyfunction]
#[pyo3(signature = (url, /, deadline=30.0, limits=None))]
pub(crate) fn fleet_status(py: Python<'_>, url: &str, deadline: f64, limits: Option<&str>) -> PyResult<String> {
    let deadline = seconds(py, "deadline", deadline, 0.0)?;
    let limits = limits.map_or(Ok(Limits::DEFAULT), Limits::from_json).map_err(|e| errors::to_py(py, &e))?;
    let source = open(py, url)?;
    let status = py.detach(move || census::status(source.as_ref(), &limits, deadline, SystemTime::now()));
    let status = status.map_err(|e| errors::to_py(py, &e))?;
    serde_json::to_string(&status).map_err(|e| errors::to_py(py, &Error::new(ErrorCode::Internal, e.to_string())))
}

/// Publishes a view document (JSON text or bytes) to the source `url` if it holds
/// `expect_version` (0 for none): a compare-and-swap, as `keyroute view publish` does. The
/// document is built first (nothing is written when it does not build); returns the version.
#[pyfunction]
#[pyo3(signature = (url, document, /, expect_version, limits=None))]
pub(crate) fn publish_view(
    py: Python<'_>,
    url: &str,
    document: &Bound<'_, PyAny>,
    expect_version: u64,
    limits: Option<&str>,
) -> PyResult<u64> {
    let bytes = keys::key_bytes(document)?.into_owned();
    let limits = limits.map_or(Ok(Limits::DEFAULT), Limits::from_json).map_err(|e| errors::to_py(py, &e))?;
    let source = open(py, url)?;
    let published = py.detach(move || {
        let document = keyroute_bindings::ViewDocument::from_bytes(&bytes, &limits)?;
        source::publish(source.as_ref(), &document, expect_version, &limits)
    });
    published.map(|v| v.version()).map_err(|e| errors::to_py(py, &e))
}
