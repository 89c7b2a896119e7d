//! [`SharedRouter`]: one router that many threads route through while another swaps in a new
//! topology, without locks on the routing path.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::Router;

/// A router behind an atomically swappable pointer.
///
/// Routing threads call [`SharedRouter::load`] (a few atomic operations, no lock) and use the
/// router they got for as long as they like; [`SharedRouter::store`] publishes a new one. A
/// reader never sees a half-built router: the swap is a single pointer store, and a router is
/// built completely (and validated) before it can be stored.
#[derive(Debug)]
pub struct SharedRouter {
    current: ArcSwap<Router>,
}

impl SharedRouter {
    /// Starts with `router`.
    #[must_use]
    pub fn new(router: Router) -> Self {
        Self { current: ArcSwap::from_pointee(router) }
    }

    /// Starts with a router that is already shared, without copying it (the C ABI hands out
    /// routers as `Arc`s).
    #[must_use]
    pub fn from_arc(router: Arc<Router>) -> Self {
        Self { current: ArcSwap::new(router) }
    }

    /// The current router.
    #[must_use]
    pub fn load(&self) -> Arc<Router> {
        self.current.load_full()
    }

    /// Publishes `router`; returns the one it replaced.
    pub fn store(&self, router: Router) -> Arc<Router> {
        self.current.swap(Arc::new(router))
    }

    /// Publishes a router that is already shared, without copying it; returns the one it
    /// replaced.
    pub fn store_arc(&self, router: Arc<Router>) -> Arc<Router> {
        self.current.swap(router)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_see_whole_routers_while_a_writer_swaps() {
        let a = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"}],"version":1}"#).unwrap();
        let b = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"version":2}"#)
            .unwrap();
        let (fa, fb) = (a.fingerprint(), b.fingerprint());
        let shared = Arc::new(SharedRouter::new(a.clone()));
        // Under Miri (about a thousand times slower) fewer rounds still interleave the swaps
        // with the reads.
        let (reads, swaps) = if cfg!(miri) { (200u32, 20) } else { (20_000, 200) };
        std::thread::scope(|s| {
            for _ in 0..3 {
                let shared = Arc::clone(&shared);
                s.spawn(move || {
                    for i in 0..reads {
                        let r = shared.load();
                        let node = r.route(&i.to_le_bytes()).unwrap();
                        assert!((node as usize) < r.len());
                        assert!(r.fingerprint() == fa || r.fingerprint() == fb);
                    }
                });
            }
            for i in 0..swaps {
                shared.store(if i % 2 == 0 { b.clone() } else { a.clone() });
            }
        });
    }
}
