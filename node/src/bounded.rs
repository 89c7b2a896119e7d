//! `NativeBoundedLoad` and `NativeLease`: consistent hashing with bounded loads
//! (`keyroute_bindings::bounded`) over a router the JavaScript side already holds, sharing its
//! table; and `NativeHotKeys`, the bindings' sharded hot-key detector.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use keyroute_bindings::bounded::{self, BoundedLoad};
use keyroute_bindings::hotkeys::SharedHotKeys;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::throw;
use crate::keys::with_key;
use crate::router::{NativeRouter, count};

fn core_error(env: &Env, e: keyroute_bindings::core::Error) -> napi::Error {
    throw(env, &keyroute_bindings::Error::from(e))
}

/// A router whose keys go to the first node of their preference order with room.
#[napi]
pub struct NativeBoundedLoad {
    inner: Arc<BoundedLoad>,
}

#[napi]
impl NativeBoundedLoad {
    /// Bounded loads over `router` with balance factor `c` (1 to 1000).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, router: &NativeRouter, c: f64) -> Result<Self> {
        let inner = bounded::bounded(Arc::clone(&router.inner), c).map_err(|e| throw(&env, &e))?;
        Ok(Self { inner: Arc::new(inner) })
    }

    /// `[node, rank]` where `key` would go now, without taking a slot (rank 0: its owner).
    #[napi(catch_unwind)]
    pub fn pick(&self, env: Env, key: Unknown<'_>) -> Result<Vec<u32>> {
        let pick = with_key(&env, &key, |k| self.inner.pick(k))?.map_err(|e| core_error(&env, e))?;
        Ok(vec![pick.node, pick.rank])
    }

    /// Places `key` and takes a slot on its node until the lease is released (or collected).
    #[napi(catch_unwind)]
    pub fn acquire(&self, env: Env, key: Unknown<'_>) -> Result<NativeLease> {
        let pick = with_key(&env, &key, |k| self.inner.acquire_raw(k))?.map_err(|e| core_error(&env, e))?;
        Ok(NativeLease {
            bounded: Arc::clone(&self.inner),
            node: pick.node,
            rank: pick.rank,
            held: AtomicBool::new(true),
        })
    }

    /// Requests in flight on the node at `node` (a position in the router's nodes).
    #[napi(catch_unwind)]
    pub fn load(&self, node: u32) -> u32 {
        self.inner.load(node)
    }

    /// The most requests the node at `node` may serve once one more arrives.
    #[napi(catch_unwind)]
    pub fn capacity(&self, node: u32) -> u32 {
        self.inner.capacity(node, self.inner.total().saturating_add(1))
    }

    /// Requests in flight over all nodes.
    #[napi(getter, catch_unwind)]
    pub fn total(&self) -> u32 {
        self.inner.total()
    }

    /// The balance factor `c`, as kept (three decimals).
    #[napi(getter, catch_unwind)]
    pub fn factor(&self) -> f64 {
        self.inner.factor()
    }
}

/// A slot on a node, given back exactly once: by `release()`, or when the lease is collected.
#[napi]
pub struct NativeLease {
    bounded: Arc<BoundedLoad>,
    node: u32,
    rank: u32,
    held: AtomicBool,
}

impl NativeLease {
    fn give_back(&self) -> bool {
        self.held.swap(false, Ordering::AcqRel) && self.bounded.release(self.node).is_ok()
    }
}

#[napi]
impl NativeLease {
    /// The node serving the request (its position in the router's nodes).
    #[napi(getter, catch_unwind)]
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Its position in the key's preference order (0: the key's owner).
    #[napi(getter, catch_unwind)]
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// Whether the slot is still held.
    #[napi(getter, catch_unwind)]
    pub fn held(&self) -> bool {
        self.held.load(Ordering::Acquire)
    }

    /// Gives the slot back: true the first time, false after.
    #[napi(catch_unwind)]
    pub fn release(&self) -> bool {
        self.give_back()
    }
}

impl Drop for NativeLease {
    fn drop(&mut self) {
        self.give_back();
    }
}

/// A bounded-memory hot-key detector.
#[napi]
pub struct NativeHotKeys {
    inner: SharedHotKeys,
}

#[napi]
impl NativeHotKeys {
    /// `shards` shards with `width` sketch counters a row and `capacity` candidate keys in all.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, width: Unknown<'_>, capacity: Unknown<'_>, shards: Unknown<'_>) -> Result<Self> {
        let width = count(&env, &width, "the sketch width")?;
        let capacity = count(&env, &capacity, "the candidate capacity")?;
        let shards = count(&env, &shards, "the shard count")?;
        let inner = SharedHotKeys::new(width, capacity, shards).map_err(|e| throw(&env, &e))?;
        Ok(Self { inner })
    }

    /// Counts one observation of `key`; returns its estimate after it.
    #[napi(catch_unwind)]
    pub fn observe(&self, env: Env, key: Unknown<'_>) -> Result<u32> {
        with_key(&env, &key, |k| self.inner.observe(k))?.map_err(|e| throw(&env, &e))
    }

    /// The estimate of `key`'s decayed count (never below the true count).
    #[napi(catch_unwind)]
    pub fn heat(&self, env: Env, key: Unknown<'_>) -> Result<u32> {
        with_key(&env, &key, |k| self.inner.heat(k))
    }

    /// Whether `key`'s estimate is at least `count`.
    #[napi(catch_unwind)]
    pub fn is_hot(&self, env: Env, key: Unknown<'_>, count: u32) -> Result<bool> {
        with_key(&env, &key, |k| self.inner.is_hot(k, count))
    }

    /// Whether `key`'s estimate is at least `share` of all observations.
    #[napi(catch_unwind)]
    pub fn is_hot_share(&self, env: Env, key: Unknown<'_>, share: f64) -> Result<bool> {
        with_key(&env, &key, |k| self.inner.is_hot_share(k, share))
    }

    /// The `k` most counted keys, most counted first: `[keys, counts]`; a key longer than 1 KiB
    /// is given as its first 1,024 bytes.
    #[napi(catch_unwind)]
    pub fn top(&self, env: Env, k: Unknown<'_>) -> Result<(Vec<Uint8Array>, Vec<u32>)> {
        let k = count(&env, &k, "k")?;
        let (keys, counts) = self
            .inner
            .top(k)
            .map_err(|e| throw(&env, &e))?
            .into_iter()
            .map(|(key, n)| (Uint8Array::new(key), n))
            .unzip();
        Ok((keys, counts))
    }

    /// Halves every count.
    #[napi(catch_unwind)]
    pub fn decay(&self) {
        self.inner.decay();
    }

    /// Observations counted (decayed with the counts).
    #[napi(getter, catch_unwind)]
    pub fn total(&self) -> f64 {
        self.inner.total() as f64
    }

    /// Bytes held by the detector.
    #[napi(getter, catch_unwind)]
    pub fn memory_bytes(&self) -> f64 {
        self.inner.memory_bytes() as f64
    }
}
