//! `NativeTransition`: a gradual change between two routers (`keyroute_bindings::Transition`).

use keyroute_bindings::Transition;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::throw;
use crate::keys::with_key;
use crate::router::NativeRouter;

/// A change from router A to router B at some progress.
#[napi]
pub struct NativeTransition {
    inner: Transition,
}

#[napi]
impl NativeTransition {
    /// A transition from `from` to `to` at `progress` in [0, 1].
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, from: &NativeRouter, to: &NativeRouter, progress: f64) -> Result<Self> {
        let inner =
            Transition::new((*from.inner).clone(), (*to.inner).clone(), progress).map_err(|e| throw(&env, &e))?;
        Ok(Self { inner })
    }

    /// The same change at another progress.
    #[napi(catch_unwind)]
    pub fn with_progress(&self, env: Env, progress: f64) -> Result<NativeTransition> {
        Ok(Self { inner: self.inner.with_progress(progress).map_err(|e| throw(&env, &e))? })
    }

    /// The position (in `nodeIds`) of the node that owns `key` now.
    #[napi(catch_unwind)]
    pub fn route_index(&self, env: Env, key: Unknown<'_>) -> Result<u32> {
        with_key(&env, &key, |k| self.inner.route(k))?.map_err(|e| throw(&env, &e))
    }

    /// `[owner]`, or `[owner, previous]` when the key has cut over to a different node.
    #[napi(catch_unwind)]
    pub fn route_with_fallback(&self, env: Env, key: Unknown<'_>) -> Result<Vec<u32>> {
        let placed = with_key(&env, &key, |k| self.inner.route_with_fallback(k))?.map_err(|e| throw(&env, &e))?;
        Ok(std::iter::once(placed.owner).chain(placed.previous).collect())
    }

    /// Whether `key` has cut over to its owner in B.
    #[napi(catch_unwind)]
    pub fn has_cut_over(&self, env: Env, key: Unknown<'_>) -> Result<bool> {
        with_key(&env, &key, |k| self.inner.has_cut_over(k))
    }

    /// Both sides' node ids: B's in order, then A's that B lacks.
    #[napi(getter, catch_unwind)]
    pub fn node_ids(&self) -> Vec<String> {
        (0..self.inner.len() as u32).map(|i| self.inner.node_id(i).unwrap_or_default().to_owned()).collect()
    }

    /// Progress in [0, 1].
    #[napi(getter, catch_unwind)]
    pub fn progress(&self) -> f64 {
        self.inner.progress()
    }

    /// Both views and the progress, as processes exchange them (JSON).
    #[napi(catch_unwind)]
    pub fn describe_json(&self) -> String {
        self.inner.describe_json()
    }
}
