//! `kr_router_capabilities`: what a built router supports (`keyroute::Router::capabilities`,
//! decided once in the core), so a C caller asks instead of matching algorithm names.

use keyroute_bindings::core::Weights;

use crate::analysis::method;
use crate::boundary::{call, get_mut, router};
use crate::{KrCapabilities, KrRouter, KrStatus, KrWeights};

/// What `router` supports: `*capabilities` receives what it does with weights, whether it has a
/// replica order (`kr_replicas`, `kr_spread`), whether it routes on one 64-bit key hash
/// (`kr_key_hash`, `kr_route_hash`), its slot count when it is built on a slot table (`kr_slot`),
/// how `kr_ownership` obtains its shares, its points per unit of weight when it is a native
/// ring, and whether it can rebalance a slot table with the fewest moves. Allocates nothing.
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `capabilities` must be NULL or point to a writable
/// `kr_capabilities`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_capabilities(
    router: *const KrRouter,
    capabilities: *mut KrCapabilities,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `capabilities` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(capabilities, "capabilities") }?;
        let c = r.capabilities();
        let (analysis, sample_keys) = method(c.analysis)?;
        *out = KrCapabilities {
            weights: match c.weights {
                Weights::Honoured => KrWeights::Honoured,
                Weights::Refused => KrWeights::Refused,
                Weights::Ignored => KrWeights::Ignored,
            },
            analysis,
            sample_keys,
            slots: c.slots.unwrap_or(0),
            points_per_weight: c.points_per_weight.unwrap_or(0),
            replicas: c.replicas,
            route_hash: c.route_hash,
            rebalance: c.rebalance,
        };
        Ok(())
    })
}
