//! `kr_builder`: a topology spec assembled in code instead of JSON. It fills the bindings'
//! `Spec` (whose public fields are the builder) and builds through `Router::from_spec`, so a
//! built router and one parsed from the equivalent JSON are the same router (same fingerprint).

use std::ffi::c_char;
use std::sync::Arc;

use keyroute_bindings::{Error, ErrorCode, NodeSpec, Router, Spec};

use crate::boundary::{call, error, get, get_mut, optional_text, router_handle, text};
use crate::{KrBuilder, KrRouter, KrStatus};

/// The spec behind a builder handle.
///
/// # Safety
/// A non-null `builder` must be a live builder handle used by no other thread meanwhile.
unsafe fn spec<'a>(builder: *mut KrBuilder) -> Result<&'a mut Spec, Error> {
    // SAFETY: a builder handle is `Box::into_raw` of a `Box<Spec>`.
    unsafe { get_mut(builder.cast::<Spec>(), "builder") }
}

/// The node the `kr_builder_set_node_*` calls apply to: the last one added.
fn last_node(spec: &mut Spec) -> Result<&mut NodeSpec, Error> {
    spec.nodes.last_mut().ok_or_else(|| error(ErrorCode::NodeOutOfRange, "no node has been added yet".into()))
}

/// Starts a spec for `algorithm`: a native algorithm (`ring`, `jump`, `rendezvous`, `maglev`,
/// `slots`, `multi-probe`, `modulo`) or a peer preset (`libmemcached`, `spymemcached`, `guava`,
/// …). Parameters take their defaults until `kr_builder_set_params_json`; the version is 0.
/// The name is checked when a router is built (`KR_UNKNOWN_ALGORITHM`).
///
/// # Safety
/// `algorithm` must point to `algorithm_len` readable bytes; `builder` must be NULL or point to
/// writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_new(
    algorithm: *const c_char,
    algorithm_len: usize,
    builder: *mut *mut KrBuilder,
) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(builder, "builder") }?;
        // SAFETY: `algorithm` is NULL or points to `algorithm_len` readable bytes, as this function's `# Safety` requires.
        let algorithm = unsafe { text(algorithm, algorithm_len, "algorithm") }?;
        *out = Box::into_raw(Box::new(Spec::new(algorithm))).cast::<KrBuilder>();
        Ok(())
    })
}

/// Releases a builder. NULL is ignored. Routers it built stay valid.
///
/// # Safety
/// `builder` must be NULL or a builder handle not released yet; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_free(builder: *mut KrBuilder) {
    if !builder.is_null() {
        // SAFETY: a live builder handle is `Box::into_raw` of a `Box<Spec>`; this gives it back.
        drop(unsafe { Box::from_raw(builder.cast::<Spec>()) });
    }
}

/// Replaces the algorithm's parameters with the JSON object `json`, e.g.
/// `{"points_per_weight":40}` or `{"format":"spymemcached","hash":"ketama","weighted":false}`.
///
/// Errors: `KR_INVALID_JSON`, `KR_INVALID_SPEC` (not an object); unknown or out-of-range
/// parameters are reported by `kr_builder_build`. Nothing changes on error.
///
/// # Safety
/// `builder` must be NULL or a live builder handle; `json` must point to `json_len` readable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_set_params_json(
    builder: *mut KrBuilder,
    json: *const c_char,
    json_len: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        let spec = unsafe { spec(builder) }?;
        // SAFETY: `json` is NULL or points to `json_len` readable bytes, as this function's `# Safety` requires.
        let json = unsafe { text(json, json_len, "json") }?;
        spec.set_params_json(json)
    })
}

/// Sets the view's version (monotone per topology; at most 2^53 − 1, checked when building).
///
/// # Safety
/// `builder` must be NULL or a live builder handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_set_version(builder: *mut KrBuilder, version: u64) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        unsafe { spec(builder) }?.version = version;
        Ok(())
    })
}

/// Appends a node: its id (what routes report), integer weight, and optional zone (NULL for
/// none; replica lists spread over distinct zones first). Routes are indices in the order
/// nodes are added. Ids, weights and zones are checked when a router is built.
///
/// # Safety
/// `builder` must be NULL or a live builder handle; `id` must point to `id_len` readable bytes;
/// `zone` must be NULL or point to `zone_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_add_node(
    builder: *mut KrBuilder,
    id: *const c_char,
    id_len: usize,
    weight: u32,
    zone: *const c_char,
    zone_len: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        let spec = unsafe { spec(builder) }?;
        // SAFETY: `id` is NULL or points to `id_len` readable bytes, as this function's `# Safety` requires.
        let id = unsafe { text(id, id_len, "id") }?;
        // SAFETY: `zone` is NULL or points to `zone_len` readable bytes, as this function's `# Safety` requires.
        let zone = unsafe { optional_text(zone, zone_len, "zone") }?;
        spec.nodes.push(NodeSpec { weight, zone: zone.map(str::to_owned), ..NodeSpec::new(id) });
        Ok(())
    })
}

/// Sets the last added node's `host` and `port`, for presets that build point names from them
/// (`libmemcached`, `spymemcached`, `twemproxy`).
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when no node has been added yet.
///
/// # Safety
/// `builder` must be NULL or a live builder handle; `host` must point to `host_len` readable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_set_node_address(
    builder: *mut KrBuilder,
    host: *const c_char,
    host_len: usize,
    port: u16,
) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        let spec = unsafe { spec(builder) }?;
        // SAFETY: `host` is NULL or points to `host_len` readable bytes, as this function's `# Safety` requires.
        let host = unsafe { text(host, host_len, "host") }?;
        let node = last_node(spec)?;
        node.host = Some(host.to_owned());
        node.port = Some(port);
        Ok(())
    })
}

/// Sets the last added node's `name`: the peer's own name for it where a preset uses one
/// (spymemcached's node-key string such as `host/10.0.0.1:11211`, twemproxy's server name).
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when no node has been added yet.
///
/// # Safety
/// `builder` must be NULL or a live builder handle; `name` must point to `name_len` readable
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_set_node_name(
    builder: *mut KrBuilder,
    name: *const c_char,
    name_len: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        let spec = unsafe { spec(builder) }?;
        // SAFETY: `name` is NULL or points to `name_len` readable bytes, as this function's `# Safety` requires.
        let name = unsafe { text(name, name_len, "name") }?;
        last_node(spec)?.name = Some(name.to_owned());
        Ok(())
    })
}

/// Gives the last added node the slots `first..=last` (for `slots` and `redis-cluster` specs
/// whose slot table is explicit; either every node lists its slots or none does). Ranges are
/// checked when a router is built.
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when no node has been added yet.
///
/// # Safety
/// `builder` must be NULL or a live builder handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_add_node_slots(builder: *mut KrBuilder, first: u32, last: u32) -> KrStatus {
    call(|| {
        // SAFETY: `builder` is NULL or a live builder, as this function's `# Safety` requires.
        let node = last_node(unsafe { spec(builder) }?)?;
        node.slots.get_or_insert_with(Vec::new).push([first, last]);
        Ok(())
    })
}

/// Validates the spec assembled so far and builds a router from it, exactly as
/// `kr_router_from_json` would from the equivalent JSON. The builder is unchanged and can be
/// extended and built again.
///
/// Errors: any code a spec can produce (`KR_EMPTY_TOPOLOGY`, `KR_DUPLICATE_NODE_ID`,
/// `KR_UNKNOWN_ALGORITHM`, `KR_INVALID_SPEC`, …), `KR_NULL_POINTER`.
///
/// # Safety
/// `builder` must be NULL or a live builder handle not being changed by another thread;
/// `router` must be NULL or point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_builder_build(builder: *const KrBuilder, router: *mut *mut KrRouter) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(router, "router") }?;
        // SAFETY: a builder handle is `Box::into_raw` of a `Box<Spec>`.
        let spec = unsafe { get(builder.cast::<Spec>(), "builder") }?;
        *out = router_handle(Arc::new(Router::from_spec(spec)?));
        Ok(())
    })
}
