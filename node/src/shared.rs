//! Routers shared between worker threads without copying their tables.
//!
//! Every worker has its own JavaScript objects, and a native object cannot be posted to
//! another worker; the `.node` library, and so this registry, is loaded once per process.
//! `share` puts a weak reference here under a token (a plain number that posts anywhere);
//! `fromShared` in any worker turns the token back into a strong reference to the same
//! immutable router. A token is valid while some router holding it is alive.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use keyroute_bindings::Router;

struct Registry {
    next: u64,
    routers: BTreeMap<u64, Weak<Router>>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { next: 1, routers: BTreeMap::new() });

/// The token for `router` (the same router always gets the same token while it lives).
pub(crate) fn share(router: &Arc<Router>) -> f64 {
    let mut reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    reg.routers.retain(|_, w| w.strong_count() > 0);
    if let Some((&token, _)) = reg.routers.iter().find(|(_, w)| w.as_ptr() == Arc::as_ptr(router)) {
        return token as f64;
    }
    let token = reg.next;
    reg.next += 1;
    reg.routers.insert(token, Arc::downgrade(router));
    token as f64
}

/// The router a token names, if it is still alive.
pub(crate) fn lookup(token: f64) -> Option<Arc<Router>> {
    if !(token >= 1.0 && token.fract() == 0.0 && token < 9_007_199_254_740_992.0) {
        return None;
    }
    let reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    reg.routers.get(&(token as u64)).and_then(Weak::upgrade)
}
