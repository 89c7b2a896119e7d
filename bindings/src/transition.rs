//! [`Transition`]: a membership change between two views of a topology, part way done.
//!
//! A transition holds both ends as built [`Router`]s, so it carries each end's version and
//! fingerprint ([`View`]): two processes that hold the same transition (same two views, same
//! progress) route every key the same way, and either can say which change it is in. The
//! routing itself is the core's [`keyroute::Transition`]: each key cuts over from its A-owner
//! to its B-owner at a deterministic point (`conformance/SPEC.md`, "transition-v1"), so raising
//! progress only moves more keys, progress 0 is A exactly (a rollback) and 1 is B exactly.
//!
//! Node states are the two views: a node only in B is JOINING, only in A is DRAINING (still
//! read through the fallback), in both is UP, and a node in neither is DOWN.

use serde_json::{Map, Value};

use crate::{Error, ErrorCode, Result, Router, Spec};

pub use keyroute::Placement;

/// One end of a transition, as processes compare it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct View {
    /// The spec's `version`.
    pub version: u64,
    /// XXH3-64 of the spec's canonical JSON ([`Router::fingerprint`]).
    pub fingerprint: u64,
}

/// A change from one router (`from`, view A) to another (`to`, view B) at progress `p`.
#[derive(Debug, Clone)]
pub struct Transition {
    from: Router,
    to: Router,
    core: keyroute::Transition,
    ids: Vec<String>,
}

impl Transition {
    /// A transition from `from` to `to` at `progress` (0 = every key on A, 1 = every key on B).
    ///
    /// # Errors
    /// `invalid_parameter` when `progress` is not within [0, 1].
    pub fn new(from: Router, to: Router, progress: f64) -> Result<Self> {
        let core = keyroute::Transition::new(from.core().clone(), to.core().clone(), progress)?;
        // Spec ids are UTF-8 and every id of the core transition is one of them.
        let ids = core.node_ids().iter().map(|id| String::from_utf8_lossy(id).into_owned()).collect();
        Ok(Self { from, to, core, ids })
    }

    /// Parses both specs and builds the transition.
    ///
    /// # Errors
    /// Any error of [`Router::from_json`] for either spec (the message says which end), or
    /// `invalid_parameter` for `progress`.
    pub fn from_json(from: &str, to: &str, progress: f64) -> Result<Self> {
        let end = |name: &str, text: &str| {
            Router::from_json(text).map_err(|e| Error::new(e.code(), format!("{name} spec: {}", e.message())))
        };
        Self::new(end("from", from)?, end("to", to)?, progress)
    }

    /// The same change at another progress (rolling forward, or back to 0).
    ///
    /// # Errors
    /// `invalid_parameter` when `progress` is not within [0, 1].
    pub fn with_progress(&self, progress: f64) -> Result<Self> {
        Ok(Self { core: self.core.with_progress(progress)?, ..self.clone() })
    }

    /// The owner of `key` now, as an index into [`Transition::node_id`]'s list (both sides'
    /// nodes: B's in order, then A's nodes that are not in B).
    ///
    /// # Errors
    /// `invalid_key` for a key either end cannot take.
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Ok(self.core.route(key)?)
    }

    /// The owner's id.
    ///
    /// # Errors
    /// As [`Transition::route`].
    pub fn route_id(&self, key: &[u8]) -> Result<&str> {
        let i = self.route(key)?;
        self.node_id(i).ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
    }

    /// The owner now and, when the key has cut over to a different node, the previous owner
    /// (read there on a miss while the data migrates).
    ///
    /// # Errors
    /// As [`Transition::route`].
    pub fn route_with_fallback(&self, key: &[u8]) -> Result<Placement> {
        Ok(self.core.route_with_fallback(key)?)
    }

    /// True when `key` has cut over to its B-owner at this progress.
    #[must_use]
    pub fn has_cut_over(&self, key: &[u8]) -> bool {
        self.core.has_cut_over(key)
    }

    /// The id of node `index` (of either side).
    #[must_use]
    pub fn node_id(&self, index: u32) -> Option<&str> {
        self.ids.get(index as usize).map(String::as_str)
    }

    /// Number of nodes on either side.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Always false: each side has at least one node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Progress in [0, 1].
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.core.progress()
    }

    /// The router before the change (view A).
    #[must_use]
    pub fn from(&self) -> &Router {
        &self.from
    }

    /// The router after the change (view B).
    #[must_use]
    pub fn to(&self) -> &Router {
        &self.to
    }

    /// View A: version and fingerprint before the change.
    #[must_use]
    pub fn from_view(&self) -> View {
        View { version: self.from.version(), fingerprint: self.from.fingerprint() }
    }

    /// View B: version and fingerprint after the change.
    #[must_use]
    pub fn to_view(&self) -> View {
        View { version: self.to.version(), fingerprint: self.to.fingerprint() }
    }

    /// The transition as processes exchange it, without the specs:
    /// `{"from":{"fingerprint":"<16 hex>","version":7},"progress":0.25,"to":{…}}` (keys sorted,
    /// fingerprints as lowercase hex strings so no JSON reader rounds them).
    #[must_use]
    pub fn describe_json(&self) -> String {
        self.described(false)
    }

    /// The transition as a document another process loads ([`Transition::from_document`]):
    /// [`Transition::describe_json`]'s fields, each end with its `spec` as well (in canonical
    /// form, every default filled in).
    #[must_use]
    pub fn document_json(&self) -> String {
        self.described(true)
    }

    fn described(&self, specs: bool) -> String {
        let end = |r: &Router| {
            let mut m = Map::new();
            m.insert("fingerprint".into(), Value::String(format!("{:016x}", r.fingerprint())));
            if specs {
                let spec = Spec::from_json(r.canonical_json()).ok().and_then(|s| serde_json::to_value(s).ok());
                m.insert("spec".into(), spec.unwrap_or(Value::Null));
            }
            m.insert("version".into(), Value::from(r.version()));
            Value::Object(m)
        };
        let mut doc = Map::new();
        doc.insert("from".into(), end(self.from()));
        doc.insert("progress".into(), Value::from(self.progress()));
        doc.insert("to".into(), end(self.to()));
        Value::Object(doc).to_string()
    }

    /// The core transition.
    #[must_use]
    pub fn core(&self) -> &keyroute::Transition {
        &self.core
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}],"version":7}"#;
    const B: &str = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}],"version":8}"#;

    #[test]
    fn carries_both_views_and_routes_like_each_end() {
        let t = Transition::from_json(A, B, 0.0).unwrap();
        let (a, b) = (Router::from_json(A).unwrap(), Router::from_json(B).unwrap());
        assert_eq!(t.from_view(), View { version: 7, fingerprint: a.fingerprint() });
        assert_eq!(t.to_view(), View { version: 8, fingerprint: b.fingerprint() });
        let done = t.with_progress(1.0).unwrap();
        for i in 0..2_000u32 {
            let key = format!("k{i}");
            assert_eq!(t.route_id(key.as_bytes()).unwrap(), a.route_id(key.as_bytes()).unwrap());
            let placed = done.route_with_fallback(key.as_bytes()).unwrap();
            assert_eq!(done.node_id(placed.owner).unwrap(), b.route_id(key.as_bytes()).unwrap());
            if let Some(prev) = placed.previous {
                assert_eq!(done.node_id(prev).unwrap(), a.route_id(key.as_bytes()).unwrap());
            }
        }
        let described: Value = serde_json::from_str(&t.with_progress(0.25).unwrap().describe_json()).unwrap();
        assert_eq!(described["from"]["version"], 7);
        assert_eq!(described["to"]["fingerprint"], format!("{:016x}", b.fingerprint()));
        assert_eq!(described["progress"], 0.25);
    }

    /// A migration away from a client's `hash % n` (pylibmc's MODULA, python-memcached with a
    /// dead server, Java's hashCode) to a ring: at each progress a key is at its old owner or
    /// its new one, the keys cut over grow with progress, and every cut-over key names its
    /// previous owner to read on a miss.
    #[test]
    fn a_modulo_source_moves_gradually() {
        let ring = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#;
        let sources = [
            r#"{"algorithm":"libmemcached-modula","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
            r#"{"algorithm":"python-memcached","params":{"dead":"b"},"nodes":[{"id":"a"},{"id":"b"},{"id":"c","weight":2}]}"#,
            r#"{"algorithm":"java-hashcode","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
        ];
        for source in sources {
            let (a, b) = (Router::from_json(source).unwrap(), Router::from_json(ring).unwrap());
            let mut cut_over = Vec::new();
            for p in [0.0, 0.25, 0.5, 1.0] {
                let t = Transition::from_json(source, ring, p).unwrap();
                let mut n = 0;
                for i in 0..4_000u32 {
                    let key = format!("user:{i}");
                    let (old, new) = (a.route_id(key.as_bytes()).unwrap(), b.route_id(key.as_bytes()).unwrap());
                    let placed = t.route_with_fallback(key.as_bytes()).unwrap();
                    let owner = t.node_id(placed.owner).unwrap();
                    assert!(owner == old || owner == new, "{source}: {key} on {owner}");
                    if owner != old {
                        n += 1;
                        assert_eq!(owner, new);
                        assert_eq!(t.node_id(placed.previous.unwrap()).unwrap(), old);
                    }
                }
                cut_over.push(n);
            }
            assert_eq!(cut_over[0], 0, "{source}");
            assert!(cut_over.windows(2).all(|w| w[0] <= w[1]), "{source}: {cut_over:?}");
            // At the end every key is where the ring puts it: most of them moved.
            assert!(cut_over[3] > 2_000, "{source}: {cut_over:?}");
        }
    }

    #[test]
    fn errors_name_the_end_and_keep_their_codes() {
        let e = Transition::from_json(A, "{", 0.5).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidJson);
        assert!(e.message().starts_with("to spec:"), "{}", e.message());
        let e = Transition::from_json(r#"{"algorithm":"ring","nodes":[]}"#, B, 0.5).unwrap_err();
        assert_eq!(e.code(), ErrorCode::EmptyTopology);
        for p in [-0.1, 1.1, f64::NAN] {
            assert_eq!(Transition::from_json(A, B, p).unwrap_err().code(), ErrorCode::InvalidParameter);
        }
    }
}
