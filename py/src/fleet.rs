//! `keyroute._native.audit` and `migrate`: `keyroute audit` and `keyroute migrate` for Python
//! scripts, over the same `keyroute-fleet` code (its memcached and Redis clients, its planner
//! and copier), with JSON reports as the CLI's `--json` prints them.

use keyroute_bindings::{Error, ErrorCode, Limits, Router, Spec};
use keyroute_fleet::Backend;
use keyroute_fleet::addr::{self, NodeAddr};
use keyroute_fleet::audit::Inventory;
use keyroute_fleet::migrate::Options;
use pyo3::prelude::*;

use crate::errors;

fn backend(py: Python<'_>, name: &str) -> PyResult<Backend> {
    Backend::from_name(name).ok_or_else(|| {
        let message = format!("backend {name:?}: the backends are \"memcached\" and \"redis\"");
        errors::to_py(py, &Error::new(ErrorCode::InvalidParameter, message))
    })
}

/// A spec and its router, from JSON text.
fn spec(py: Python<'_>, json: &str) -> PyResult<(Spec, Router)> {
    let spec = Spec::from_bytes(json.as_bytes(), &Limits::DEFAULT).map_err(|e| errors::to_py(py, &e))?;
    let router = Router::from_spec_with(&spec, &Limits::DEFAULT).map_err(|e| errors::to_py(py, &e))?;
    Ok((spec, router))
}

/// The address of every node of `specs`, with the `ID=HOST:PORT` overrides.
fn addresses(py: Python<'_>, specs: &[&Spec], overrides: &[String], backend: Backend) -> PyResult<Vec<NodeAddr>> {
    let overrides: Vec<NodeAddr> = overrides
        .iter()
        .map(|o| addr::parse_override(o))
        .collect::<Result<_, _>>()
        .map_err(|e| errors::to_py(py, &e))?;
    addr::union(specs, &overrides, backend.default_port()).map_err(|e| errors::to_py(py, &e))
}

fn to_json(py: Python<'_>, value: &serde_json::Value) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| errors::to_py(py, &Error::new(ErrorCode::Internal, e.to_string())))
}

/// Lists every node of the spec (JSON text) on `backend` and checks each key against the
/// spec; the audit as JSON.
#[pyfunction]
#[pyo3(signature = (spec_json, /, backend="memcached", addrs=Vec::new(), samples=5))]
pub(crate) fn audit(
    py: Python<'_>,
    spec_json: &str,
    backend: &str,
    addrs: Vec<String>,
    samples: usize,
) -> PyResult<String> {
    let backend = self::backend(py, backend)?;
    let (spec, router) = self::spec(py, spec_json)?;
    let addrs = addresses(py, &[&spec], &addrs, backend)?;
    let audited = py.detach(move || {
        let inventory = Inventory::list(backend, &addrs, false)?;
        Ok::<_, Error>(keyroute_fleet::audit::audit(&inventory, &router, samples).to_json())
    });
    to_json(py, &audited.map_err(|e| errors::to_py(py, &e))?)
}

/// Migrates from spec A to spec B (JSON texts), or one step `(p1, p2)` of the gradual change;
/// the report as JSON.
#[pyfunction]
#[pyo3(signature = (from_json, to_json, /, step=None, backend="memcached", addrs=Vec::new(), dry_run=false,
                    delete_old=false, batch=256, concurrency=4, ops_per_sec=None, bytes_per_sec=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn migrate(
    py: Python<'_>,
    from_json: &str,
    to_json: &str,
    step: Option<(f64, f64)>,
    backend: &str,
    addrs: Vec<String>,
    dry_run: bool,
    delete_old: bool,
    batch: usize,
    concurrency: usize,
    ops_per_sec: Option<f64>,
    bytes_per_sec: Option<f64>,
) -> PyResult<String> {
    let backend = self::backend(py, backend)?;
    let ((spec_a, a), (spec_b, b)) = (spec(py, from_json)?, spec(py, to_json)?);
    let addrs = addresses(py, &[&spec_a, &spec_b], &addrs, backend)?;
    let bad = |what: &str| errors::to_py(py, &Error::new(ErrorCode::InvalidParameter, what.to_owned()));
    if batch == 0 || concurrency == 0 || concurrency > 256 {
        return Err(bad("batch must be at least 1, and concurrency from 1 to 256"));
    }
    if [ops_per_sec, bytes_per_sec].iter().flatten().any(|r| !(r.is_finite() && *r > 0.0)) {
        return Err(bad("a rate must be a number above 0"));
    }
    let options = Options { dry_run, delete_old, batch, concurrency, ops_per_sec, bytes_per_sec };
    let migrated =
        py.detach(move || keyroute_fleet::migrate::migrate(&a, &b, step, backend, &addrs, &options, &|_| {}));
    self::to_json(py, &migrated.map_err(|e| errors::to_py(py, &e))?.to_json())
}
