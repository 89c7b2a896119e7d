//! `keyroute._native`: the Python extension module of keyroute. It wraps `keyroute-bindings`
//! and nothing else: every spec is parsed and validated there, every key routed by the core.
//! The public, typed API is the `keyroute` package (`py/python/keyroute`), which subclasses
//! these classes; this module is private.

mod analysis;
mod bounded;
mod errors;
mod fleet;
mod hotkeys;
mod keys;
mod router;
mod shared;
mod transition;
mod view;

use keyroute_bindings::registry::NodeForm;
use keyroute_bindings::{Limits, NodeSpec, core, spread};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// `(code, name, category, description)` of every error kind, in numeric order (the one error
/// table).
#[pyfunction]
fn error_table() -> Vec<(u32, &'static str, &'static str, &'static str)> {
    errors::table()
}

/// `(host, port)` of a server address written `host:port`, `host` or `[v6]:port`
/// (port 11211 when absent).
#[pyfunction]
#[pyo3(signature = (address, /))]
fn parse_server(py: Python<'_>, address: &Bound<'_, PyString>) -> PyResult<(String, u16)> {
    let address = std::str::from_utf8(keys::utf8(address)?).unwrap_or_default();
    let node = NodeSpec::from_server(address, 1).map_err(|e| errors::to_py(py, &e))?;
    Ok((node.host.unwrap_or_default(), node.port.unwrap_or_default()))
}

/// The node form (`nodes`, `buckets`, `servers` or `slot_ranges`) the algorithm or preset
/// `algorithm` is built from (the registry's), or `None` for a name the registry lacks (the
/// router then reports it). `servers` means its nodes carry a host and a port.
#[pyfunction]
#[pyo3(signature = (algorithm, /))]
fn node_form(algorithm: &str) -> Option<&'static str> {
    keyroute_bindings::registry::find(algorithm).map(|a| a.nodes.name())
}

/// A constructor's node argument (JSON text) as a spec's `nodes` list (JSON text), read in
/// `form` (`nodes`, `buckets`, `servers` or `slot_ranges`) under the limits a router will be
/// built with (`keyroute_bindings::nodes::spec_nodes`). Limits that do not parse bound the
/// count by the ceiling; the router then reports them.
#[pyfunction]
#[pyo3(signature = (form, nodes, limits=None, /))]
fn spec_nodes(py: Python<'_>, form: &str, nodes: &str, limits: Option<&str>) -> PyResult<String> {
    let form = NodeForm::from_name(form).ok_or_else(|| {
        errors::to_py(py, &keyroute_bindings::Error::new(keyroute_bindings::ErrorCode::Internal, "unknown node form"))
    })?;
    let limits = limits.map_or(Ok(Limits::DEFAULT), Limits::from_json).unwrap_or(Limits::CEILING);
    keyroute_bindings::nodes::spec_nodes(form, nodes.as_bytes(), &limits).map_err(|e| errors::to_py(py, &e))
}

/// The stable read-spreading selector of a client id (`keyroute_bindings::spread`).
#[pyfunction]
#[pyo3(signature = (client, /))]
fn client_selector(client: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(spread::client_selector(&keys::key_bytes(client)?))
}

/// The `r` derived keys of a split hot key, `key#1` … `key#r`.
#[pyfunction]
#[pyo3(signature = (key, r, /))]
fn split_keys<'py>(py: Python<'py>, key: &Bound<'_, PyAny>, r: usize) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let keys = spread::split_keys(&keys::key_bytes(key)?, r).map_err(|e| errors::to_py(py, &e))?;
    Ok(keys.iter().map(|k| PyBytes::new(py, k)).collect())
}

/// The derived key a reader with `selector` reads a key split into `r` from.
#[pyfunction]
#[pyo3(signature = (key, r, selector, /))]
fn split_key<'py>(py: Python<'py>, key: &Bound<'_, PyAny>, r: usize, selector: u64) -> PyResult<Bound<'py, PyBytes>> {
    let split = spread::split_key(&keys::key_bytes(key)?, r, selector).map_err(|e| errors::to_py(py, &e))?;
    Ok(PyBytes::new(py, &split))
}

/// `limits` as a dict of its fields.
fn limits_dict<'py>(py: Python<'py>, limits: &Limits) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, value) in limits.fields() {
        dict.set_item(name, value)?;
    }
    Ok(dict)
}

/// The native layer of the `keyroute` package.
#[pymodule]
#[pyo3(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<router::PyRouter>()?;
    m.add_class::<router::RouterHandle>()?;
    m.add_class::<shared::PySharedRouter>()?;
    m.add_class::<transition::PyTransition>()?;
    m.add_class::<bounded::PyBoundedLoad>()?;
    m.add_class::<bounded::PyLease>()?;
    m.add_class::<hotkeys::PyHotKeys>()?;
    m.add_class::<view::PyLiveView>()?;
    m.add_class::<view::PyWatch>()?;
    m.add_function(wrap_pyfunction!(view::watch, m)?)?;
    m.add_function(wrap_pyfunction!(view::fleet_status, m)?)?;
    m.add_function(wrap_pyfunction!(view::publish_view, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::audit, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::migrate, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::ownership, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::diff, m)?)?;
    m.add_function(wrap_pyfunction!(error_table, m)?)?;
    m.add_function(wrap_pyfunction!(parse_server, m)?)?;
    m.add_function(wrap_pyfunction!(spec_nodes, m)?)?;
    m.add_function(wrap_pyfunction!(node_form, m)?)?;
    m.add_function(wrap_pyfunction!(router::router_from_file, m)?)?;
    m.add_function(wrap_pyfunction!(client_selector, m)?)?;
    m.add_function(wrap_pyfunction!(split_keys, m)?)?;
    m.add_function(wrap_pyfunction!(split_key, m)?)?;
    m.add("LIMITS", limits_dict(m.py(), &Limits::DEFAULT)?)?;
    m.add("LIMITS_CEILING", limits_dict(m.py(), &Limits::CEILING)?)?;
    // The defaults and bounds every surface shares, from the core and the bindings (the package
    // reads them here; JS has them generated from the same constants).
    m.add("DEFAULT_BALANCE_FACTOR", core::DEFAULT_BALANCE_FACTOR)?;
    m.add("HOT_KEYS_DEFAULT_WIDTH", keyroute_bindings::hotkeys::DEFAULT_WIDTH)?;
    m.add("HOT_KEYS_DEFAULT_CAPACITY", keyroute_bindings::hotkeys::DEFAULT_CAPACITY)?;
    m.add("HOT_KEYS_DEFAULT_SHARDS", keyroute_bindings::hotkeys::DEFAULT_SHARDS)?;
    m.add("HOT_KEYS_MAX_WIDTH", core::hotkeys::MAX_WIDTH)?;
    m.add("HOT_KEYS_MAX_CAPACITY", core::hotkeys::MAX_CANDIDATES)?;
    m.add("HOT_KEYS_MAX_SHARDS", keyroute_bindings::hotkeys::MAX_SHARDS)?;
    Ok(())
}
