//! Bounded loads over a shared router: the core's [`keyroute::BoundedLoad`] holding an
//! `Arc<Router>`, so a surface wraps a router it already shares without copying its table.

use std::borrow::Borrow;
use std::sync::Arc;

use crate::{Result, Router};

/// A shared router, lent to the core as its router.
#[derive(Debug, Clone)]
pub struct SharedCore(pub Arc<Router>);

impl Borrow<keyroute::Router> for SharedCore {
    fn borrow(&self) -> &keyroute::Router {
        self.0.core()
    }
}

/// Bounded loads over a shared router (see [`keyroute::bounded`]).
pub type BoundedLoad = keyroute::BoundedLoad<SharedCore>;

/// Bounded loads over `router` with balance factor `c`.
///
/// # Errors
/// `invalid_parameter` for `c` outside 1..=1000; `replicas_unsupported` for a router with no
/// preference order past the owner; `out_of_memory`.
pub fn bounded(router: Arc<Router>, c: f64) -> Result<BoundedLoad> {
    Ok(keyroute::BoundedLoad::new(SharedCore(router), c)?)
}
