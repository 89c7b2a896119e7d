//! The topology spec: one JSON document that describes a router, shared by every surface and
//! by the conformance vectors.
//!
//! ```json
//! {
//!   "algorithm": "ring",
//!   "params": { "points_per_weight": 160 },
//!   "nodes": [ { "id": "cache-a", "weight": 1, "zone": "eu-1a" } ],
//!   "version": 7
//! }
//! ```
//!
//! Unknown fields are refused (`invalid_spec`), so a typo never silently changes a route.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Error, ErrorCode, Limits, Result};

/// Largest `version` accepted: 2^53 − 1, so the number survives every JSON parser (JS too).
pub const MAX_VERSION: u64 = (1 << 53) - 1;

/// A parsed (not yet validated) topology spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// A native algorithm (`ring`, `jump`, `rendezvous`, `maglev`, `slots`, `multi-probe`,
    /// `modulo`) or a peer preset (`libmemcached`, `nginx`, …; see `conformance/VECTORS.md`).
    pub algorithm: String,
    /// The algorithm's parameters; omitted ones take their documented defaults.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
    /// The nodes, in order: routes are positions in this list.
    pub nodes: Vec<NodeSpec>,
    /// The view's version (monotone per topology; 0 when unversioned).
    #[serde(default)]
    pub version: u64,
}

/// One node of a spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique id: what routes report.
    pub id: String,
    /// Integer weight (default 1).
    #[serde(default = "one")]
    pub weight: u32,
    /// Zone: replica lists spread over distinct zones first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    /// Host, for presets that build point names from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Port, for presets that build point names from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// An explicit point-name base, for presets that allow one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Slot ranges `[first, last]` (inclusive) for slot tables given explicitly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<[u32; 2]>>,
}

fn one() -> u32 {
    1
}

impl NodeSpec {
    /// A node with this id, weight 1 and no other field set (set the public fields for more),
    /// so surfaces that build specs in code keep compiling when optional fields are added.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), weight: 1, zone: None, host: None, port: None, name: None, slots: None }
    }
}

impl Spec {
    /// An empty spec for `algorithm`: no parameters (every default), no nodes, version 0. With
    /// [`NodeSpec::new`] and the public fields this is the programmatic builder every surface
    /// offers; [`Router::from_spec`](crate::Router::from_spec) validates the result.
    #[must_use]
    pub fn new(algorithm: impl Into<String>) -> Self {
        Self { algorithm: algorithm.into(), params: Map::new(), nodes: Vec::new(), version: 0 }
    }

    /// Replaces the parameters with the JSON object `text` (a builder given parameters as text,
    /// as the C ABI is). Nothing changes on error.
    ///
    /// # Errors
    /// `spec_too_large` past the default limit, `invalid_json` for malformed JSON,
    /// `invalid_spec` when it is not an object. Unknown or out-of-range parameters are reported
    /// when the router is built, as for a whole spec.
    pub fn set_params_json(&mut self, text: &str) -> Result<()> {
        Limits::DEFAULT.check_spec_bytes(text.len(), "params")?;
        let value: Value = serde_json::from_str(text).map_err(text_json_error)?;
        match value {
            Value::Object(map) => {
                self.params = map;
                Ok(())
            }
            _ => Err(Error::new(ErrorCode::InvalidSpec, "params must be a JSON object")),
        }
    }

    /// Parses a spec from JSON text, under the default [`Limits`].
    ///
    /// # Errors
    /// `spec_too_large`, `invalid_json` for malformed JSON, `invalid_spec` for a document of
    /// the wrong shape.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_bytes(text.as_bytes(), &Limits::DEFAULT)
    }

    /// Parses a spec from bytes that should be UTF-8 JSON text, checking in a fixed order so
    /// that one document gets one error code on every surface: its size, then its encoding,
    /// then its syntax, then its node count, then its shape (`conformance/SPEC.md`, Limits).
    /// The first three and the count are one pass that allocates nothing, so a hostile document
    /// is refused before it costs memory; then the typed parse holds at most `max_nodes` nodes.
    ///
    /// # Errors
    /// `spec_too_large`, `invalid_utf8`, `invalid_json`, `too_many_nodes`, `invalid_spec`.
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Self> {
        Self::parse(bytes, limits, Origin::Text)
    }

    /// As [`Spec::from_bytes`], for JSON that a surface serialised from the caller's own mapping
    /// or object (a Python `dict`, a JavaScript object): errors name the field
    /// (`nodes[1].weight`) but no line and column, which would point into text the caller never
    /// wrote.
    ///
    /// # Errors
    /// As [`Spec::from_bytes`].
    pub fn from_serialized(bytes: &[u8], limits: &Limits) -> Result<Self> {
        Self::parse(bytes, limits, Origin::Serialized)
    }

    fn parse(bytes: &[u8], limits: &Limits, origin: Origin) -> Result<Self> {
        limits.check_spec_bytes(bytes.len(), "the spec")?;
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::new(ErrorCode::InvalidUtf8, format!("the spec is not UTF-8: {e}")))?;
        let outline: Outline = serde_json::from_str(text).map_err(|e| json_error(e, origin))?;
        outline.check(limits)?;
        // The first pass proved the syntax, so what fails now is the shape (or text with no
        // UTF-8 form, if an escape the first pass skipped holds a lone surrogate).
        let mut de = serde_json::Deserializer::from_str(text);
        let spec: Spec = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let e = e.into_inner();
            let location = location(&e, origin);
            match json_error(e, origin) {
                e if e.code() == ErrorCode::InvalidUtf8 => e,
                e => {
                    let message = e.message().strip_prefix(&location).unwrap_or(e.message());
                    let e = shape_error(&path, message);
                    Error::new(e.code(), format!("{location}{}", e.message()))
                }
            }
        })?;
        spec.check_version()?;
        Ok(spec)
    }

    /// Reads a spec from an already parsed JSON value, with the checks [`Spec::from_bytes`]
    /// makes after the syntax, in the same order.
    ///
    /// # Errors
    /// `too_many_nodes`, then `invalid_spec` for a document of the wrong shape or a version above
    /// [`MAX_VERSION`].
    pub fn from_value(value: Value, limits: &Limits) -> Result<Self> {
        Outline::of(&value).check(limits)?;
        let spec: Spec = serde_path_to_error::deserialize(value)
            .map_err(|e| shape_error(&e.path().to_string(), &e.into_inner().to_string()))?;
        spec.check_version()?;
        Ok(spec)
    }

    /// The checks a spec's own fields need beyond their types (for specs built in code too).
    ///
    /// # Errors
    /// `invalid_spec` for a version above [`MAX_VERSION`].
    pub(crate) fn check_version(&self) -> Result<()> {
        if self.version > MAX_VERSION {
            return Err(Error::new(ErrorCode::InvalidSpec, "version above 2^53 - 1"));
        }
        Ok(())
    }
}

/// What the first pass over a spec document learns without allocating: that it is JSON, how
/// many nodes it lists, and whether a parameter holds an array or object (every parameter is a
/// number, string or boolean, so one that is not could only cost memory before its refusal).
#[derive(Debug, Default)]
struct Outline {
    nodes: usize,
    nested_param: bool,
}

impl Outline {
    /// The outline of a parsed document.
    fn of(value: &Value) -> Self {
        let Value::Object(map) = value else { return Self::default() };
        Self {
            nodes: map.get("nodes").and_then(Value::as_array).map_or(0, Vec::len),
            nested_param: map
                .get("params")
                .and_then(Value::as_object)
                .is_some_and(|p| p.values().any(|v| v.is_array() || v.is_object())),
        }
    }

    fn check(&self, limits: &Limits) -> Result<()> {
        if self.nodes as u64 > limits.max_nodes {
            return Err(Error::new(
                ErrorCode::TooManyNodes,
                format!("{} nodes, above the limit of {}", self.nodes, limits.max_nodes),
            ));
        }
        if self.nested_param {
            return Err(Error::new(ErrorCode::InvalidSpec, "params: every parameter is a number, string or boolean"));
        }
        Ok(())
    }
}

/// The first pass: any JSON document; for an object, its `nodes` counted and its `params`
/// looked into, every value skipped without being stored.
impl<'de> Deserialize<'de> for Outline {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(Pass::Document)
    }
}

/// Where the first pass is: at the document, its `nodes`, its `params`, or a parameter's value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Document,
    Nodes,
    Params,
    Param,
}

impl<'de> serde::de::DeserializeSeed<'de> for Pass {
    type Value = Outline;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Outline, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Pass {
    type Value = Outline;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_unit<E>(self) -> std::result::Result<Outline, E> {
        Ok(Outline::default())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Outline, A::Error> {
        let mut len = 0usize;
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            len += 1;
        }
        Ok(Outline { nodes: if self == Pass::Nodes { len } else { 0 }, nested_param: self == Pass::Param })
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Outline, A::Error> {
        let mut outline = Outline { nodes: 0, nested_param: self == Pass::Param };
        while let Some(key) = map.next_key::<Key>()? {
            match (self, key) {
                (Pass::Document, Key::Nodes) => {
                    outline.nodes = outline.nodes.max(map.next_value_seed(Pass::Nodes)?.nodes)
                }
                (Pass::Document, Key::Params) => {
                    outline.nested_param |= map.next_value_seed(Pass::Params)?.nested_param
                }
                (Pass::Params, _) => outline.nested_param |= map.next_value_seed(Pass::Param)?.nested_param,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(outline)
    }
}

/// A key in the first pass: one it looks into, or another (never stored).
enum Key {
    Nodes,
    Params,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Key, E> {
                Ok(match s {
                    "nodes" => Key::Nodes,
                    "params" => Key::Params,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(Name)
    }
}

/// Where a spec's JSON came from, for where its errors point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Text the caller wrote (a file, a string): errors give the line and column.
    Text,
    /// Serialised by a surface from the caller's mapping or object: errors give the field only.
    Serialized,
}

/// A JSON syntax error: `invalid_json`, except a number out of range (`invalid_spec`) and a
/// lone surrogate written as a `\uD800` escape,
/// which is text with no UTF-8 form (`invalid_utf8`), as it is when written raw: the same text
/// gets the same code however it was encoded (`JSON.stringify` escapes lone surrogates).
fn json_error(e: serde_json::Error, origin: Origin) -> Error {
    let full = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&at).unwrap_or(&full);
    let location = location(&e, origin);
    // serde_json's only two messages for an unpaired surrogate escape.
    let surrogate = ["lone leading surrogate in hex escape", "unexpected end of hex escape"];
    if surrogate.iter().any(|m| message.starts_with(m)) {
        return Error::new(
            ErrorCode::InvalidUtf8,
            format!(
                "{location}a \\u escape holds half of a UTF-16 surrogate pair without the other half: \
                 text in a spec must be Unicode (a lone surrogate has no UTF-8 form)"
            ),
        );
    }
    // Well-formed JSON (`1e400`) whose value no field can hold: a spec problem, as the same
    // value given in a mapping is.
    let code = if message.starts_with("number out of range") { ErrorCode::InvalidSpec } else { ErrorCode::InvalidJson };
    Error::new(code, format!("{location}{message}"))
}

/// `line L, column C: ` for an error in text the caller wrote; nothing otherwise.
fn location(e: &serde_json::Error, origin: Origin) -> String {
    match origin {
        Origin::Text if e.line() > 0 => format!("line {}, column {}: ", e.line(), e.column()),
        _ => String::new(),
    }
}

/// JSON syntax errors outside a spec document (a `params` string), located in its text.
pub(crate) fn text_json_error(e: serde_json::Error) -> Error {
    json_error(e, Origin::Text)
}

/// A shape error (`invalid_spec`) at `path` (`nodes[1].weight`; `.` for the document), with
/// serde's wording turned round to say what the field must be:
/// `nodes[1].weight must be an integer from 0 to 4294967295, not the string "2" (write 2, without quotes)`.
fn shape_error(path: &str, message: &str) -> Error {
    let mut path = if path == "." { "" } else { path };
    if let Some(field) = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next()) {
        // The path ends at the unknown field itself; name the object that holds it.
        path = path.strip_suffix(field).map_or(path, |p| p.strip_suffix('.').unwrap_or(p));
        let expected: Vec<&str> = message
            .split_once("expected")
            .map_or_else(Vec::new, |(_, list)| list.split('`').skip(1).step_by(2).collect());
        let hint = closest(field, &expected).map(|e| format!("did you mean `{e}`? ")).unwrap_or_default();
        let rest = message.split_once(", ").map_or("", |(_, rest)| rest);
        let text = format!("unknown field `{field}`: {hint}{rest}");
        return Error::new(ErrorCode::InvalidSpec, if path.is_empty() { text } else { format!("{path}: {text}") });
    }
    let reworded = ["invalid type: ", "invalid value: "].iter().find_map(|prefix| {
        let (got, want) = message.strip_prefix(prefix)?.split_once(", expected ")?;
        Some((got, want))
    });
    let text = match (reworded, path) {
        (Some((got, want)), path) => {
            let (want, range) = describe_expected(want);
            let subject = if path.is_empty() { "the spec" } else { path };
            let mut text = format!("{subject} must be {want}, not {}", describe_got(got));
            // A number written as a string, which a caller building a spec from form fields or
            // environment variables easily does.
            if let (Some(quoted), Some((lo, hi))) =
                (got.strip_prefix("string \"").and_then(|g| g.strip_suffix('"')), range)
                && quoted.parse::<u64>().is_ok_and(|n| (lo..=hi).contains(&n))
            {
                text.push_str(&format!(" (write {quoted}, without quotes)"));
            }
            text
        }
        (None, "") => message.to_owned(),
        (None, path) => format!("{path}: {message}"),
    };
    Error::new(ErrorCode::InvalidSpec, text)
}

/// The candidate `given` was most likely meant as: one it begins (`point` for
/// `points_per_weight`), else the nearest within a couple of edits.
pub(crate) fn closest<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    if given.len() >= 3
        && let Some(c) = candidates.iter().find(|c| c.starts_with(&given))
    {
        return Some(c);
    }
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&given, c), *c))
        .min()
        .filter(|&(distance, c)| distance <= 2.max(c.len() / 3))
        .map(|(_, c)| c)
}

/// serde's name for an expected type, in words, with its integer range if it is one.
fn describe_expected(want: &str) -> (String, Option<(u64, u64)>) {
    let range = match want {
        "u8" => Some(u64::from(u8::MAX)),
        "u16" => Some(u64::from(u16::MAX)),
        "u32" => Some(u64::from(u32::MAX)),
        "u64" => Some(u64::MAX),
        _ => None,
    };
    match range {
        Some(hi) => (format!("an integer from 0 to {hi}"), Some((0, hi))),
        None => (want.to_owned(), None),
    }
}

/// serde's description of a value it got (`string "2"`, `integer \`-1\``, `map`), in words.
fn describe_got(got: &str) -> String {
    if let Some(s) = got.strip_prefix("string ") {
        return format!("the string {s}");
    }
    for kind in ["integer ", "floating point ", "boolean "] {
        if let Some(v) = got.strip_prefix(kind) {
            return v.trim_matches('`').to_owned();
        }
    }
    match got {
        "map" => "an object".to_owned(),
        "sequence" => "an array".to_owned(),
        "null" => "null".to_owned(),
        other => other.to_owned(),
    }
}

/// Reads an algorithm's typed parameters from the spec's `params`, refusing unknown ones.
pub(crate) fn params<T: for<'de> Deserialize<'de>>(params: &Map<String, Value>) -> Result<T> {
    serde_path_to_error::deserialize(Value::Object(params.clone())).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { "params".to_owned() } else { format!("params.{path}") };
        shape_error(&path, &e.into_inner().to_string())
    })
}

/// A parameter's value as canonical JSON.
pub(crate) fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_spec_equals_the_parsed_one() {
        let mut built = Spec::new("ring");
        built.set_params_json(r#"{"points_per_weight": 40}"#).unwrap();
        built.nodes.push(NodeSpec::new("a"));
        built.nodes.push(NodeSpec { weight: 2, zone: Some("z".into()), ..NodeSpec::new("b") });
        built.version = 3;
        let parsed = Spec::from_json(
            r#"{"algorithm":"ring","params":{"points_per_weight":40},"version":3,
                "nodes":[{"id":"a"},{"id":"b","weight":2,"zone":"z"}]}"#,
        )
        .unwrap();
        assert_eq!(built, parsed);
    }

    #[test]
    fn an_escaped_lone_surrogate_is_invalid_utf8_like_a_raw_one() {
        for text in [
            r#"{"algorithm":"\ud800","nodes":[]}"#,
            r#"{"algorithm":"\udc00","nodes":[]}"#,
            r#"{"algorithm":"\ud800\u0041","nodes":[]}"#,
        ] {
            assert_eq!(Spec::from_json(text).unwrap_err().code(), ErrorCode::InvalidUtf8, "{text}");
        }
        assert_eq!(Spec::from_json(r#"{"algorithm":"\ud83d\ude00","nodes":[]}"#).unwrap().algorithm, "\u{1F600}");
        assert_eq!(Spec::from_json(r#"{"algorithm":"\u12"}"#).unwrap_err().code(), ErrorCode::InvalidJson);
    }

    #[test]
    fn params_text_must_be_a_json_object() {
        let mut spec = Spec::new("ring");
        assert_eq!(spec.set_params_json("{").unwrap_err().code(), ErrorCode::InvalidJson);
        assert_eq!(spec.set_params_json("[1]").unwrap_err().code(), ErrorCode::InvalidSpec);
        assert!(spec.params.is_empty(), "nothing changes on error");
    }
}
