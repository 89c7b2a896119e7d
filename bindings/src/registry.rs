//! The registry: every algorithm and peer preset a spec can name, with its parameters, the node
//! fields it reads and what it supports. It is the one definition every surface is generated
//! from (`cargo xtask codegen`): Python's and JavaScript's constructors and their types, the
//! spec's JSON Schema, the preset table of `conformance/VECTORS.md`.
//!
//! An entry is defined next to its parameter struct (`native.rs`, `presets.rs`). The parameter
//! metadata is not written twice: it is read from the struct's JSON Schema (`schemars`, which
//! follows the same serde attributes the spec parser uses), so a name, a type, an allowed value
//! or a default cannot differ between the parser and what surfaces show.

#[cfg(feature = "schema")]
use schemars::generate::SchemaSettings;
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema};
use serde::Deserialize;
#[cfg(feature = "schema")]
use serde_json::{Map, Value};

use crate::native::Built;
use crate::spec::{Spec, params, to_value};
use crate::{Result, native, presets};

/// Where an algorithm comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One of keyroute's own schemes, specified in `conformance/SPEC.md`.
    Native {
        /// The scheme's versioned name (`ring-v1`).
        scheme: &'static str,
    },
    /// A configuration that reproduces an existing router, bit for bit.
    Preset {
        /// The peer and the versions reproduced.
        peer: &'static str,
    },
}

/// How a surface takes the nodes of an algorithm in its constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeForm {
    /// Node ids, with weights and zones: `{id: weight}` or a list of ids / node mappings.
    Nodes,
    /// Like [`NodeForm::Nodes`], or a count `n` for buckets `"0"` … `"n-1"`.
    Buckets,
    /// Memcached-style servers (`"host:port"` addresses), which give `host` and `port`.
    Servers,
    /// Owners of inclusive slot ranges: `{id: [[first, last], …]}`.
    SlotRanges,
}

impl NodeForm {
    /// The form's name in generated code and docs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Nodes => "nodes",
            Self::Buckets => "buckets",
            Self::Servers => "servers",
            Self::SlotRanges => "slot_ranges",
        }
    }

    /// The form [`NodeForm::name`] names.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Nodes, Self::Buckets, Self::Servers, Self::SlotRanges].into_iter().find(|f| f.name() == name)
    }
}

pub use keyroute::analysis::Method as Analysis;
pub use keyroute::{Capabilities, Weights};

/// A node field a spec may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeField {
    /// `id`: what routes report.
    Id,
    /// `weight`.
    Weight,
    /// `zone`: replica lists spread over zones first.
    Zone,
    /// `host`, from which point names are built.
    Host,
    /// `port`, from which point names are built.
    Port,
    /// `name`: the peer's own name for a server, where it has one.
    Name,
    /// `slots`: inclusive slot ranges.
    Slots,
}

impl NodeField {
    /// The field's name in a spec.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Id => "id",
            Self::Weight => "weight",
            Self::Zone => "zone",
            Self::Host => "host",
            Self::Port => "port",
            Self::Name => "name",
            Self::Slots => "slots",
        }
    }
}

/// One algorithm or peer preset.
#[derive(Clone, Copy)]
pub struct Algorithm {
    /// The spec's `algorithm` value.
    pub name: &'static str,
    /// The constructor's name in every surface (`Ring`, `Libmemcached`).
    pub class_name: &'static str,
    /// Native scheme or peer preset.
    pub kind: Kind,
    /// How constructors take the nodes.
    pub nodes: NodeForm,
    /// The node fields it reads (`id` always).
    pub node_fields: &'static [NodeField],
    /// Shorter constructor keywords for parameters: `(parameter, keyword)`.
    pub keywords: &'static [(&'static str, &'static str)],
    /// A small spec that builds (for docs and tests).
    pub example: &'static str,
    #[cfg(feature = "schema")]
    pub(crate) schema: fn(&mut schemars::SchemaGenerator) -> Schema,
    pub(crate) build: fn(&Spec, keyroute::Topology) -> Result<Built>,
}

impl std::fmt::Debug for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Algorithm").field("name", &self.name).field("kind", &self.kind).finish_non_exhaustive()
    }
}

#[cfg(feature = "schema")]
/// The JSON Schema of a parameter struct (a registry entry's `schema`).
pub(crate) fn schema_of<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) -> Schema {
    generator.root_schema_for::<T>()
}

/// Reads a spec's parameters into `P`, then builds with them; the canonical form records the
/// parameters as `P` serialises them (every default written out).
pub(crate) fn build_with<P: for<'de> Deserialize<'de> + serde::Serialize>(
    spec: &Spec,
    topology: keyroute::Topology,
    build: impl FnOnce(&mut P, keyroute::Topology) -> Result<keyroute::Router>,
) -> Result<Built> {
    let mut p: P = params(&spec.params)?;
    let router = build(&mut p, topology)?;
    Ok((router, to_value(&p)))
}

/// Every algorithm and preset, native ones first, in the order docs list them.
pub fn algorithms() -> impl Iterator<Item = &'static Algorithm> {
    native::ALGORITHMS.iter().chain(presets::ALGORITHMS.iter())
}

/// The algorithm or preset a spec's `algorithm` names.
#[must_use]
pub fn find(name: &str) -> Option<&'static Algorithm> {
    algorithms().find(|a| a.name == name)
}

#[cfg(feature = "schema")]
/// The schema settings every generated schema uses: JSON Schema 2020-12, with every
/// sub-schema inlined (the parameter schemas are small, and inlined ones read on their own).
#[must_use]
pub fn schema_settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
}

#[cfg(feature = "schema")]
impl Algorithm {
    /// The JSON Schema of the algorithm's `params` object.
    #[must_use]
    pub fn params_schema(&self) -> Schema {
        let mut generator = schema_settings().into_generator();
        let mut schema = (self.schema)(&mut generator);
        schema.remove("$schema");
        schema.remove("title");
        schema
    }

    /// What the parameter struct's doc comment says: the algorithm's description.
    #[must_use]
    pub fn description(&self) -> String {
        self.params_schema().get("description").and_then(Value::as_str).unwrap_or_default().to_owned()
    }

    /// The first sentence of [`Algorithm::description`].
    #[must_use]
    pub fn summary(&self) -> String {
        let description = self.description();
        let first = description.split("\n\n").next().unwrap_or_default();
        first.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Every parameter, in declaration order.
    #[must_use]
    pub fn params(&self) -> Vec<Param> {
        let schema = self.params_schema();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        properties.iter().map(|(name, s)| Param::from_schema(name, s, required.contains(&name.as_str()))).collect()
    }
}

impl Algorithm {
    /// What the algorithm supports, as its [`Algorithm::example`] router reports it
    /// ([`keyroute::Router::capabilities`]): the core decides, the registry only asks. Options
    /// can change the answer for one spec (libmemcached's `modula` distribution has no replica
    /// order): ask a built router for its own.
    ///
    /// # Errors
    /// Only if the example does not build, which the registry's tests rule out.
    pub fn supports(&self) -> Result<Capabilities> {
        Ok(crate::Router::from_json(self.example)?.capabilities())
    }

    /// The constructor keyword for parameter `param` (its name unless a shorter one is set).
    #[must_use]
    pub fn keyword<'a>(&self, param: &'a str) -> &'a str {
        self.keywords.iter().find(|(p, _)| *p == param).map_or(param, |(_, k)| k)
    }

    /// Whether the algorithm reads node field `field`.
    #[must_use]
    pub fn reads(&self, field: NodeField) -> bool {
        self.node_fields.contains(&field)
    }
}

#[cfg(feature = "schema")]
/// One parameter of an algorithm, as its JSON Schema describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The name in `params`.
    pub name: String,
    /// Its doc comment.
    pub doc: String,
    /// Its type.
    pub kind: ParamKind,
    /// The value used when it is absent (none when required, or when the default is worked out
    /// from other parameters or the nodes: the doc says how).
    pub default: Option<Value>,
    /// Whether a spec must give it.
    pub required: bool,
    /// Whether `null` is accepted (and means the same as absent).
    pub nullable: bool,
}

#[cfg(feature = "schema")]
/// A parameter's type.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Integer {
        /// Smallest value.
        min: Option<i64>,
        /// Largest value.
        max: Option<i64>,
    },
    /// `true` or `false`.
    Boolean,
    /// Text.
    String,
    /// One of a list of names.
    Enum(Vec<EnumValue>),
}

#[cfg(feature = "schema")]
/// One allowed value of an enumerated parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumValue {
    /// The value, as a spec writes it.
    pub value: String,
    /// What it means.
    pub doc: String,
}

#[cfg(feature = "schema")]
impl Param {
    fn from_schema(name: &str, schema: &Value, required: bool) -> Self {
        let doc = description(schema);
        let default = schema.get("default").filter(|v| !v.is_null()).cloned();
        let (kind, nullable) = kind_of(schema);
        Self { name: name.to_owned(), doc, kind, default, required, nullable }
    }
}

#[cfg(feature = "schema")]
/// A schema's description as one line, with rustdoc's intra-doc links (`` [`Type::Item`] ``)
/// turned into plain code spans for readers outside Rust.
fn description(schema: &Value) -> String {
    let text = schema.get("description").and_then(Value::as_str).unwrap_or_default();
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(one_line.len());
    let mut rest = one_line.as_str();
    while let Some(start) = rest.find("[`") {
        let Some(len) = rest[start..].find("`]") else { break };
        out.push_str(&rest[..start]);
        let inner = &rest[start + 2..start + len];
        out.push('`');
        out.push_str(inner.rsplit("::").next().unwrap_or(inner));
        out.push('`');
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(feature = "schema")]
/// The kind of a (sub)schema and whether it also admits `null`.
fn kind_of(schema: &Value) -> (ParamKind, bool) {
    // `Option<Enum>` inlined: `{"anyOf": [{enum schema}, {"type": "null"}]}`.
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let is_null = |s: &Value| {
                s.get("type").and_then(Value::as_str) == Some("null") || s.get("const") == Some(&Value::Null)
            };
            let nullable = alternatives.iter().any(is_null);
            let rest: Vec<&Value> = alternatives.iter().filter(|s| !is_null(s)).collect();
            if let [single] = rest.as_slice()
                && single.get("const").is_none()
            {
                let (kind, inner_nullable) = kind_of(single);
                return (kind, nullable || inner_nullable);
            }
            let values = rest.iter().flat_map(|s| enum_values(s)).collect();
            return (ParamKind::Enum(values), nullable);
        }
    }
    if schema.get("enum").is_some() {
        let nullable = schema["enum"].as_array().is_some_and(|v| v.contains(&Value::Null));
        return (ParamKind::Enum(enum_values(schema)), nullable);
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null");
    let kind = if types.contains(&"integer") {
        ParamKind::Integer {
            min: schema.get("minimum").and_then(Value::as_i64),
            max: schema.get("maximum").and_then(Value::as_i64),
        }
    } else if types.contains(&"boolean") {
        ParamKind::Boolean
    } else {
        ParamKind::String
    };
    (kind, nullable)
}

#[cfg(feature = "schema")]
/// The values of an enum schema: `{"enum": […]}`, `{"const": v}`, or `{"oneOf": [{"const"…}]}`.
fn enum_values(schema: &Value) -> Vec<EnumValue> {
    let doc = description(schema);
    if let Some(Value::String(v)) = schema.get("const") {
        return vec![EnumValue { value: v.clone(), doc }];
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(|v| EnumValue { value: v.to_owned(), doc: String::new() })
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .flat_map(enum_values)
        .collect()
}

#[cfg(feature = "schema")]
/// The JSON Schema of a whole topology spec: `algorithm` one of the registry's names, the
/// `params` each one accepts, and the node fields. Vector files and users' config checks use it.
#[must_use]
pub fn spec_schema() -> Value {
    let mut generator = schema_settings().into_generator();
    let mut node = generator.root_schema_for::<crate::NodeSpec>().to_value();
    if let Value::Object(m) = &mut node {
        m.remove("$schema");
        m.remove("title");
    }
    let names: Vec<Value> = algorithms().map(|a| Value::from(a.name)).collect();
    let by_algorithm: Vec<Value> = algorithms()
        .map(|a| {
            let mut params = a.params_schema().to_value();
            if let Value::Object(m) = &mut params {
                m.remove("description");
            }
            serde_json::json!({
                "if": { "properties": { "algorithm": { "const": a.name } } },
                "then": { "properties": { "params": params } }
            })
        })
        .collect();
    let mut doc = Map::new();
    doc.insert("$schema".into(), "https://json-schema.org/draft/2020-12/schema".into());
    doc.insert("$id".into(), "https://keyroute.invalid/conformance/v1/spec.schema.json".into());
    doc.insert("title".into(), "keyroute topology spec".into());
    doc.insert(
        "description".into(),
        "One router: an algorithm or peer preset, its parameters, the nodes and the view's version. \
         Generated from keyroute-bindings' registry by `cargo xtask codegen`; do not edit."
            .into(),
    );
    doc.insert("type".into(), "object".into());
    doc.insert("additionalProperties".into(), false.into());
    doc.insert("required".into(), serde_json::json!(["algorithm", "nodes"]));
    doc.insert(
        "properties".into(),
        serde_json::json!({
            "algorithm": { "enum": names },
            "params": { "type": "object" },
            "nodes": { "type": "array", "items": node },
            "version": { "type": "integer", "minimum": 0, "maximum": crate::MAX_VERSION },
        }),
    );
    doc.insert("allOf".into(), Value::Array(by_algorithm));
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorCode, Router};

    #[test]
    fn names_are_unique_and_every_spec_algorithm_is_registered() {
        let mut names: Vec<&str> = algorithms().map(|a| a.name).collect();
        let mut classes: Vec<&str> = algorithms().map(|a| a.class_name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        classes.sort_unstable();
        classes.dedup();
        assert_eq!((names.len(), classes.len()), (n, n));
        assert!(find("ring").is_some() && find("libmemcached").is_some() && find("nope").is_none());
    }

    #[test]
    fn every_example_builds_and_every_claim_holds() {
        for a in algorithms() {
            let router = Router::from_json(a.example).unwrap_or_else(|e| panic!("{}: example: {e}", a.name));
            let supports = a.supports().unwrap();
            assert_eq!(router.algorithm(), a.name);
            assert!(router.len() >= 2, "{}: the example needs two nodes for the checks", a.name);
            let key = b"user:42";
            let mut two = [0u32; 2];
            match router.replicas(key, &mut two) {
                Ok(()) => assert!(supports.replicas, "{}: replicas work but are not claimed", a.name),
                Err(e) => {
                    assert!(!supports.replicas, "{}: {e}", a.name);
                    assert_eq!(e.code(), ErrorCode::ReplicasUnsupported, "{}", a.name);
                }
            }
            match router.route_hash(7) {
                Ok(_) => assert!(supports.route_hash, "{}: route_hash works but is not claimed", a.name),
                Err(e) => {
                    assert!(!supports.route_hash, "{}: {e}", a.name);
                    assert_eq!(e.code(), ErrorCode::RouteHashUnsupported, "{}", a.name);
                }
            }
            let method = keyroute::analysis::ownership(router.core()).method;
            assert_eq!(method.name(), supports.analysis.name(), "{}", a.name);
            // Weights: make the first node twice as heavy.
            let mut spec = Spec::from_json(a.example).unwrap();
            spec.nodes[0].weight = 2;
            let weighted = Router::from_spec(&spec);
            match supports.weights {
                Weights::Refused => {
                    assert_eq!(weighted.unwrap_err().code(), ErrorCode::WeightsUnsupported, "{}", a.name);
                }
                Weights::Ignored => {
                    let w = weighted.unwrap();
                    let same =
                        (0..500u32).all(|i| w.route(&i.to_le_bytes()).ok() == router.route(&i.to_le_bytes()).ok());
                    assert!(same, "{}: weights are said to be ignored but change routes", a.name);
                }
                Weights::Honoured => {
                    let w = weighted.unwrap_or_else(|e| panic!("{}: {e}", a.name));
                    let shares = keyroute::analysis::ownership(w.core()).shares;
                    let base = keyroute::analysis::ownership(router.core()).shares;
                    assert!(shares[0] > base[0] * 1.15, "{}: weight 2 did not grow node 0's share", a.name);
                }
            }
            for field in [NodeField::Host, NodeField::Port, NodeField::Slots] {
                if a.reads(field) {
                    assert!(
                        a.example.contains(&format!("\"{}\"", field.name())),
                        "{}: example lacks {field:?}",
                        a.name
                    );
                }
            }
        }
    }

    #[test]
    #[cfg(feature = "schema")]
    fn params_are_read_from_the_structs() {
        let ring = find("ring").unwrap();
        let p = ring.params();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "points_per_weight");
        assert_eq!(p[0].default, Some(Value::from(160)));
        assert!(!p[0].required && !p[0].nullable);
        assert!(matches!(p[0].kind, ParamKind::Integer { min: Some(1), .. }), "{:?}", p[0].kind);
        let lm = find("libmemcached").unwrap().params();
        let hash = lm.iter().find(|p| p.name == "hash").unwrap();
        assert!(hash.nullable && hash.default.is_none());
        let ParamKind::Enum(values) = &hash.kind else { panic!("{:?}", hash.kind) };
        assert!(values.iter().any(|v| v.value == "fnv1a_64" && !v.doc.is_empty()), "{values:?}");
        let distribution = lm.iter().find(|p| p.name == "distribution").unwrap();
        assert!(distribution.required);
        for a in algorithms() {
            assert!(!a.summary().is_empty(), "{}: the params struct needs a doc comment", a.name);
            for p in a.params() {
                assert!(!p.doc.is_empty(), "{}.{}: no doc", a.name, p.name);
                if let ParamKind::Enum(values) = &p.kind {
                    assert!(!values.is_empty(), "{}.{}", a.name, p.name);
                }
            }
        }
    }
}
