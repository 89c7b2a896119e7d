//! [`Router`]: a validated spec, its core router, its canonical form and fingerprint.

use serde_json::{Map, Value};

use crate::spec::Spec;
use crate::{Error, ErrorCode, Limits, Result, registry};

/// A router built from a topology spec. Immutable; share it freely between threads.
#[derive(Debug, Clone)]
pub struct Router {
    core: keyroute::Router,
    ids: Vec<String>,
    algorithm: String,
    /// The parameters with every default filled in (as in the canonical form).
    params: Map<String, Value>,
    canonical: String,
    fingerprint: u64,
    version: u64,
}

impl Router {
    /// Parses and builds a router from spec JSON, under the default [`Limits`].
    ///
    /// # Errors
    /// Any [`ErrorCode`] a spec can produce; nothing is built on error.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_bytes(text.as_bytes(), &Limits::DEFAULT)
    }

    /// Parses and builds a router from spec bytes (UTF-8 JSON) under `limits`: the path every
    /// surface takes, so one document gets one code everywhere (see [`Spec::from_bytes`]).
    ///
    /// # Errors
    /// As [`Router::from_json`].
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Self> {
        Self::from_spec_with(&Spec::from_bytes(bytes, limits)?, limits)
    }

    /// As [`Router::from_bytes`], for JSON a surface serialised from the caller's own mapping or
    /// object: errors name the field but no line and column ([`Spec::from_serialized`]).
    ///
    /// # Errors
    /// As [`Router::from_json`].
    pub fn from_serialized(bytes: &[u8], limits: &Limits) -> Result<Self> {
        Self::from_spec_with(&Spec::from_serialized(bytes, limits)?, limits)
    }

    /// Builds a router from a parsed spec, under the default [`Limits`].
    ///
    /// # Errors
    /// As [`Router::from_json`], minus the JSON errors.
    pub fn from_spec(spec: &Spec) -> Result<Self> {
        Self::from_spec_with(spec, &Limits::DEFAULT)
    }

    /// Builds a router from a parsed spec under `limits`: the node count and the work of the
    /// algorithm are checked before anything is built.
    ///
    /// # Errors
    /// As [`Router::from_json`], minus the JSON errors.
    pub fn from_spec_with(spec: &Spec, limits: &Limits) -> Result<Self> {
        spec.check_version()?;
        if spec.nodes.len() as u64 > limits.max_nodes {
            return Err(Error::new(
                ErrorCode::TooManyNodes,
                format!("{} nodes, above the limit of {}", spec.nodes.len(), limits.max_nodes),
            ));
        }
        let nodes = spec
            .nodes
            .iter()
            .map(|n| {
                let node = keyroute::Node::new(n.id.as_bytes()).with_weight(n.weight);
                match &n.zone {
                    Some(z) => node.with_zone(z.as_bytes()),
                    None => node,
                }
            })
            .collect::<Vec<_>>();
        let topology = keyroute::Topology::new(nodes).map_err(|e| node_error(spec, e))?.with_budget(limits.budget());
        let algorithm = registry::find(&spec.algorithm).ok_or_else(|| unknown_algorithm(&spec.algorithm))?;
        let (core, params) = (algorithm.build)(spec, topology)?;
        let params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let canonical = canonical_json(spec, &params);
        let fingerprint = keyroute::hash::xxh3_64(canonical.as_bytes());
        Ok(Self {
            core,
            ids: spec.nodes.iter().map(|n| n.id.clone()).collect(),
            algorithm: spec.algorithm.clone(),
            params,
            canonical,
            fingerprint,
            version: spec.version,
        })
    }

    /// The owner of `key` (a node index).
    ///
    /// # Errors
    /// `invalid_key` for a key the algorithm cannot take.
    #[inline]
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        Ok(self.core.route(key)?)
    }

    /// The owner's id.
    ///
    /// # Errors
    /// As [`Router::route`].
    pub fn route_id(&self, key: &[u8]) -> Result<&str> {
        let i = self.route(key)?;
        self.node_id(i).ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
    }

    /// Routes `keys` into `out[..keys.len()]`, allocating nothing.
    ///
    /// # Errors
    /// `buffer_too_small`, or the first refused key's error, whose [`Error::key_index`] says
    /// which key it was (outputs before it are written).
    pub fn route_batch<K: AsRef<[u8]>>(&self, keys: &[K], out: &mut [u32]) -> Result<()> {
        Ok(self.core.route_batch(keys, out)?)
    }

    /// Fills `out` with `out.len()` distinct nodes for `key`, in preference order.
    ///
    /// # Errors
    /// `replicas_unsupported`, `replicas_exceed_nodes`, or a key error.
    pub fn replicas(&self, key: &[u8], out: &mut [u32]) -> Result<()> {
        Ok(self.core.replicas(key, out)?)
    }

    /// Read spreading for a hot key: the `selector mod r`-th of its first `r` replicas (see
    /// [`keyroute::Router::spread`]).
    ///
    /// # Errors
    /// `invalid_parameter` for `r` = 0; as [`Router::replicas`].
    pub fn spread(&self, key: &[u8], r: usize, selector: u64) -> Result<u32> {
        Ok(self.core.spread(key, r, selector)?)
    }

    /// The slot `key` falls in, for routers built on a slot table (`slots`, `redis-cluster`).
    #[must_use]
    pub fn slot(&self, key: &[u8]) -> Option<u32> {
        self.core.slot(key)
    }

    /// What this router supports ([`keyroute::Router::capabilities`]).
    #[must_use]
    pub fn capabilities(&self) -> keyroute::Capabilities {
        self.core.capabilities()
    }

    /// The id of node `index`.
    #[must_use]
    pub fn node_id(&self, index: u32) -> Option<&str> {
        self.ids.get(index as usize).map(String::as_str)
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Always false: a router has at least one node.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The algorithm or preset the spec names.
    #[must_use]
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// Its parameters, every default filled in.
    #[must_use]
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    /// The canonical JSON of the spec: every default filled in, object keys sorted, no
    /// whitespace. Two specs that route identically and carry the same version have the same
    /// canonical form.
    #[must_use]
    pub fn canonical_json(&self) -> &str {
        &self.canonical
    }

    /// XXH3-64 of [`Router::canonical_json`]'s bytes.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The view's version.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The core router.
    #[must_use]
    pub fn core(&self) -> &keyroute::Router {
        &self.core
    }
}

/// A topology error with the offending node named by its id as well as its position.
fn node_error(spec: &Spec, e: keyroute::Error) -> Error {
    let id = |index: u32| spec.nodes.get(index as usize).map(|n| n.id.as_str());
    match e {
        keyroute::Error::DuplicateNodeId { index } => match id(index) {
            Some(dup) => {
                let first = spec.nodes.iter().position(|n| n.id == dup).unwrap_or(0);
                Error::new(
                    ErrorCode::DuplicateNodeId,
                    format!("nodes[{index}] repeats the id {dup:?} of nodes[{first}]: every node needs its own id"),
                )
            }
            None => e.into(),
        },
        other => other.into(),
    }
}

/// `unknown_algorithm`, naming the closest valid name and listing them all.
fn unknown_algorithm(name: &str) -> Error {
    let names: Vec<&str> = registry::algorithms().map(|a| a.name).collect();
    let hint = crate::spec::closest(name, &names).map_or_else(|| ".".to_owned(), |n| format!("; did you mean {n:?}?"));
    Error::new(
        ErrorCode::UnknownAlgorithm,
        format!("unknown algorithm {name:?}{hint} The algorithms and presets are: {}", names.join(", ")),
    )
}

/// Canonical JSON: `serde_json`'s maps are ordered by key, so serialising a `Value` sorts every
/// object; node fields that are absent stay absent, defaults are written out.
fn canonical_json(spec: &Spec, params: &Map<String, Value>) -> String {
    let mut doc = Map::new();
    doc.insert("algorithm".into(), Value::String(spec.algorithm.clone()));
    doc.insert("params".into(), Value::Object(params.clone()));
    let nodes = spec.nodes.iter().map(|n| serde_json::to_value(n).unwrap_or(Value::Null)).collect();
    doc.insert("nodes".into(), Value::Array(nodes));
    doc.insert("version".into(), Value::from(spec.version));
    Value::Object(doc).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_fills_defaults_and_sorts() {
        let a = Router::from_json(r#"{"nodes":[{"id":"a"},{"weight":1,"id":"b"}],"algorithm":"ring"}"#).unwrap();
        let b = Router::from_json(
            r#"{"algorithm":"ring","params":{"points_per_weight":160},"version":0,"nodes":[{"id":"a","weight":1},{"id":"b"}]}"#,
        )
        .unwrap();
        assert_eq!(a.canonical_json(), b.canonical_json());
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(
            a.canonical_json(),
            r#"{"algorithm":"ring","nodes":[{"id":"a","weight":1},{"id":"b","weight":1}],"params":{"points_per_weight":160},"version":0}"#
        );
        let c = Router::from_json(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"}],"version":1}"#).unwrap();
        assert_ne!(a.fingerprint(), c.fingerprint());
    }

    #[test]
    fn spread_refuses_more_replicas_than_nodes_as_replicas_does_at_once() {
        // Before the check came first, spread sized an r-entry buffer: 8 GB for 2^31 from Python.
        let specs = [
            r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#,
            r#"{"algorithm":"maglev","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#,
            r#"{"algorithm":"rendezvous","nodes":[{"id":"a"},{"id":"b","weight":0},{"id":"c"},{"id":"d"}]}"#,
            r#"{"algorithm":"jump","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#,
            concat!(
                r#"{"algorithm":"libmemcached","params":{"distribution":"ketama"},"nodes":["#,
                r#"{"id":"a:11211","host":"a","port":11211},{"id":"b:11211","host":"b","port":11211}]}"#
            ),
        ];
        let started = std::time::Instant::now();
        for spec in specs {
            let router = Router::from_json(spec).unwrap();
            let mut over = vec![0u32; router.len() + 1];
            let want = router.replicas(b"hot", &mut over).unwrap_err().code();
            assert!(matches!(want, ErrorCode::ReplicasExceedNodes | ErrorCode::ReplicasUnsupported), "{spec}");
            for r in [router.len() + 1, 1 << 31, 1_000_000_000, usize::MAX] {
                let e = router.spread(b"hot", r, 3).unwrap_err();
                assert_eq!(e.code(), want, "{spec} r={r}: {}", e.message());
            }
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "{:?}", started.elapsed());
        let ring = Router::from_json(specs[0]).unwrap();
        assert_eq!(
            ring.spread(b"hot", 1_000_000_000, 0).unwrap_err().message(),
            "1000000000 replicas requested but only 4 nodes can hold one"
        );
    }

    /// The four mistakes a new user makes first, each answered with a message that names the
    /// fix: the valid names, the field, the repeated id.
    #[test]
    fn errors_point_at_the_fix() {
        let message = |json: &str| Router::from_json(json).unwrap_err().message().to_owned();
        let typo = message(r#"{"algorithm":"rnig","nodes":[{"id":"a"}]}"#);
        assert!(
            typo.starts_with(
                r#"unknown algorithm "rnig"; did you mean "ring"? The algorithms and presets are: ring, jump,"#
            ),
            "{typo}"
        );
        assert!(message(r#"{"algorithm":"Zzz","nodes":[{"id":"a"}]}"#).contains(r#""Zzz". The algorithms"#));
        let weight = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b","weight":"2"}]}"#;
        assert_eq!(
            message(weight),
            r#"line 1, column 62: nodes[1].weight must be an integer from 0 to 4294967295, not the string "2" (write 2, without quotes)"#
        );
        let serialized = Router::from_serialized(weight.as_bytes(), &Limits::DEFAULT).unwrap_err();
        assert_eq!(serialized.code(), ErrorCode::InvalidSpec);
        assert!(serialized.message().starts_with("nodes[1].weight must be"), "{}", serialized.message());
        assert_eq!(
            message(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"a"}]}"#),
            r#"nodes[2] repeats the id "a" of nodes[0]: every node needs its own id"#
        );
        assert_eq!(
            message(r#"{"algorithm":"ring","params":{"point":3},"nodes":[{"id":"a"}]}"#),
            "params: unknown field `point`: did you mean `points_per_weight`? expected `points_per_weight`"
        );
        assert!(message(r#"{"algorithm":"ring","parms":{},"nodes":[{"id":"a"}]}"#).contains("did you mean `params`?"));
        assert!(
            message(r#"{"algorithm":"ring","nodes":[{"id":"\ud800"}]}"#).contains("half of a UTF-16 surrogate pair")
        );
    }

    #[test]
    fn errors_carry_their_codes() {
        let code = |json: &str| Router::from_json(json).unwrap_err().code();
        assert_eq!(code("{"), ErrorCode::InvalidJson);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[],"extra":1}"#), ErrorCode::InvalidSpec);
        assert_eq!(code(r#"{"algorithm":"nope","nodes":[{"id":"a"}]}"#), ErrorCode::UnknownAlgorithm);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[]}"#), ErrorCode::EmptyTopology);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}"#), ErrorCode::DuplicateNodeId);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":0}]}"#), ErrorCode::ZeroTotalWeight);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":4294967295}]}"#), ErrorCode::TooManyPoints);
        assert_eq!(code(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":-1}]}"#), ErrorCode::InvalidSpec);
        assert_eq!(
            code(r#"{"algorithm":"maglev","params":{"table_size":65536},"nodes":[{"id":"a"}]}"#),
            ErrorCode::TableSizeNotPrime
        );
        assert_eq!(code(r#"{"algorithm":"ring","params":{"points":3},"nodes":[{"id":"a"}]}"#), ErrorCode::InvalidSpec);
    }
}
