//! The node arguments a language's constructors take (`Ring({"a": 1, "b": 2})`,
//! `Jump(8)`, `Libmemcached(["10.0.0.1:11211"])`), turned into a spec's `nodes` list. Every
//! surface serialises the caller's argument to JSON and calls [`spec_nodes`], so one mistake
//! gets one code everywhere. Only the argument's shape is read here; the nodes it gives are
//! validated as any spec's are, so a bad weight is reported at its field (`nodes[1].weight`).
//!
//! The forms ([`NodeForm`]):
//!
//! | argument | `nodes`, `buckets` | `servers` | `slot_ranges` |
//! |---|---|---|---|
//! | an object `{k: v}`, in its order | `{id: k, weight: v}` | the address `k` with weight `v` | `{id: k, slots: v}` |
//! | a list item `"k"` | `{id: k}` | the address `k`, weight 1 | `{id: k}` |
//! | a list item `["k", v]` | as the object entry | as the object entry | as the object entry |
//! | a list item `{…}` | taken as written | taken as written | taken as written |
//! | a whole number `n` | `buckets`: ids `"0"` … `"n-1"` | — | — |
//!
//! An address is `host:port`, `host` (port 11211) or `[v6]:port` ([`NodeSpec::from_server`]).

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::registry::NodeForm;
use crate::{Error, ErrorCode, Limits, NodeSpec, Result};

/// The spec `nodes` list (as JSON text) for a constructor's node argument `arg` (JSON text)
/// in `form`, under `limits`. No more than `limits.max_nodes` nodes are read or made: a longer
/// list, or a bucket count above it, is refused before anything is built from it.
///
/// # Errors
/// `invalid_type` for an argument that is no form of nodes (one string, a boolean, null, a
/// number where buckets are not taken); `invalid_spec` for a bucket count that is not a whole
/// number ≥ 0 and for a malformed server address; `too_many_nodes`; `invalid_json` when `arg`
/// is not JSON; `spec_too_large` past the spec size limit.
pub fn spec_nodes(form: NodeForm, arg: &[u8], limits: &Limits) -> Result<String> {
    limits.check_spec_bytes(arg.len(), "the nodes")?;
    let mut de = serde_json::Deserializer::from_slice(arg);
    let read = ArgSeed { max: limits.max_nodes }.deserialize(&mut de);
    let arg = match read {
        Ok(arg) => arg,
        // The visitor's own refusals travel through serde as custom errors; recover them.
        Err(e) => {
            // A bucket count past even a float's range (Python's `Jump(10**400)`) is a count.
            if form == NodeForm::Buckets && e.to_string().starts_with("number out of range") {
                return buckets(&serde_json::Number::from(u64::MAX), limits).map(|n| Value::Array(n).to_string());
            }
            return Err(TooMany::recover(&e, limits.max_nodes).unwrap_or_else(|| crate::spec::text_json_error(e)));
        }
    };
    de.end().map_err(crate::spec::text_json_error)?;
    let nodes = match (arg, form) {
        (Arg::Count(n), NodeForm::Buckets) => buckets(&n, limits)?,
        (Arg::Count(n), _) => return Err(not_nodes(form, &format!("the number {n}"))),
        (Arg::Entries(entries), _) => {
            entries.into_iter().map(|(k, v)| entry(form, k, v)).collect::<Result<Vec<_>>>()?
        }
        (Arg::List(items), _) => items.into_iter().map(|item| list_item(form, item)).collect::<Result<Vec<_>>>()?,
        (Arg::Other(what), _) => return Err(not_nodes(form, what)),
    };
    Ok(Value::Array(nodes).to_string())
}

/// What a node argument is, read in one pass (object entries keep their order).
enum Arg {
    Count(serde_json::Number),
    Entries(Vec<(String, Value)>),
    List(Vec<Value>),
    Other(&'static str),
}

fn not_nodes(form: NodeForm, what: &str) -> Error {
    let wanted = match form {
        NodeForm::Buckets => "a bucket count, an object of id to weight or a list of nodes",
        NodeForm::Servers => "an object of address to weight or a list of server addresses",
        NodeForm::SlotRanges => "an object of id to slot ranges or a list of nodes with slots",
        NodeForm::Nodes => "an object of id to weight or a list of nodes",
    };
    Error::new(ErrorCode::InvalidType, format!("nodes must be {wanted}, not {what}"))
}

fn buckets(n: &serde_json::Number, limits: &Limits) -> Result<Vec<Value>> {
    let count = match n.as_u64() {
        Some(count) => count,
        // A whole number written as a float (`3.0`, or a count too large for an integer) is
        // still a count: JavaScript has only floats, and Python's `Jump(3.0)` means the same.
        None if n.as_f64().is_some_and(|f| f.fract() == 0.0 && f >= 0.0) => {
            n.as_f64().map_or(u64::MAX, |f| if f > limits.max_nodes as f64 { u64::MAX } else { f as u64 })
        }
        None => {
            return Err(Error::new(
                ErrorCode::InvalidSpec,
                format!("a bucket count must be a whole number ≥ 0, not {n}"),
            ));
        }
    };
    if count > limits.max_nodes {
        return Err(Error::new(
            ErrorCode::TooManyNodes,
            format!("{n} buckets, above the limit of {} nodes (limits.max_nodes)", limits.max_nodes),
        ));
    }
    Ok((0..count).map(|i| node(i.to_string(), None)).collect())
}

fn node(id: String, weight: Option<Value>) -> Value {
    let mut map = Map::new();
    map.insert("id".into(), Value::String(id));
    if let Some(w) = weight {
        map.insert("weight".into(), w);
    }
    Value::Object(map)
}

/// The node for an object entry or `[key, value]` pair.
fn entry(form: NodeForm, key: String, value: Value) -> Result<Value> {
    Ok(match form {
        NodeForm::Nodes | NodeForm::Buckets => node(key, Some(value)),
        NodeForm::Servers => server(&key, value)?,
        NodeForm::SlotRanges => {
            let mut map = Map::new();
            map.insert("id".into(), Value::String(key));
            map.insert("slots".into(), value);
            Value::Object(map)
        }
    })
}

fn list_item(form: NodeForm, item: Value) -> Result<Value> {
    match item {
        Value::String(id) if form == NodeForm::Servers => server(&id, Value::from(1)),
        Value::String(id) => Ok(node(id, None)),
        Value::Array(pair) if matches!(pair.first(), Some(Value::String(_))) && pair.len() == 2 => {
            let mut pair = pair.into_iter();
            match (pair.next(), pair.next()) {
                (Some(Value::String(key)), Some(value)) => entry(form, key, value),
                _ => Err(Error::new(ErrorCode::Internal, "a checked pair lost an element")),
            }
        }
        // Objects are taken as written; anything else is refused by the spec at its position.
        other => Ok(other),
    }
}

/// A server's node: its address split into host and port, the weight as given (the spec checks
/// its type, at its field).
fn server(address: &str, weight: Value) -> Result<Value> {
    let parsed = NodeSpec::from_server(address, 1)?;
    let mut map = Map::new();
    map.insert("id".into(), Value::String(parsed.id));
    map.insert("host".into(), parsed.host.map_or(Value::Null, Value::String));
    map.insert("port".into(), parsed.port.map_or(Value::Null, Value::from));
    map.insert("weight".into(), weight);
    Ok(Value::Object(map))
}

/// Reads an [`Arg`], counting nodes as it goes.
struct ArgSeed {
    max: u64,
}

/// The refusal of a list or object longer than the node limit, carried through serde.
struct TooMany;

impl TooMany {
    const MESSAGE: &'static str = "keyroute: more nodes than the limit";

    fn error<E: de::Error>() -> E {
        E::custom(Self::MESSAGE)
    }

    fn recover(e: &serde_json::Error, max: u64) -> Option<Error> {
        e.to_string().starts_with(Self::MESSAGE).then(|| {
            Error::new(ErrorCode::TooManyNodes, format!("more than {max} nodes, above the limit (limits.max_nodes)"))
        })
    }
}

impl<'de> DeserializeSeed<'de> for ArgSeed {
    type Value = Arg;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Arg, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ArgSeed {
    type Value = Arg;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("nodes")
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Arg, E> {
        Ok(Arg::Count(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Arg, E> {
        Ok(Arg::Count(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Arg, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Arg::Other("a number that is not finite"), Arg::Count))
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Arg, E> {
        Ok(Arg::Other("a boolean"))
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Arg, E> {
        Ok(Arg::Other("one string (a list of ids is written as a list)"))
    }
    fn visit_unit<E>(self) -> std::result::Result<Arg, E> {
        Ok(Arg::Other("null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Arg, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            if items.len() as u64 >= self.max {
                return Err(TooMany::error());
            }
            items.push(item);
        }
        Ok(Arg::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Arg, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            if entries.len() as u64 >= self.max {
                return Err(TooMany::error());
            }
            entries.push((key, value));
        }
        Ok(Arg::Entries(entries))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    /// A case of the node-argument catalogue (`conformance/node-args.json`).
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NodeArgCase {
        id: String,
        form: String,
        /// The argument, as JSON text (object entries in their order).
        nodes: Box<serde_json::value::RawValue>,
        /// The node ids it gives, in order (when it is accepted).
        #[serde(default)]
        ids: Option<Vec<String>>,
        /// The error it gets (when it is refused).
        #[serde(default)]
        error: Option<String>,
    }

    fn nodes(form: NodeForm, arg: &str) -> Result<Value> {
        spec_nodes(form, arg.as_bytes(), &Limits::DEFAULT).map(|t| serde_json::from_str(&t).unwrap())
    }

    #[test]
    fn objects_keep_their_order_and_lists_take_every_item_form() {
        let v = nodes(NodeForm::Nodes, r#"{"b": 2, "a": 1}"#).unwrap();
        assert_eq!(v, serde_json::json!([{"id": "b", "weight": 2}, {"id": "a", "weight": 1}]));
        let v = nodes(NodeForm::Nodes, r#"["x", ["y", 3], {"id": "z", "zone": "q"}]"#).unwrap();
        assert_eq!(v, serde_json::json!([{"id": "x"}, {"id": "y", "weight": 3}, {"id": "z", "zone": "q"}]));
        let v = nodes(NodeForm::Servers, r#"["10.0.0.1", "[::1]:11212"]"#).unwrap();
        assert_eq!(
            v,
            serde_json::json!([
                {"id": "10.0.0.1", "host": "10.0.0.1", "port": 11211, "weight": 1},
                {"id": "[::1]:11212", "host": "::1", "port": 11212, "weight": 1}
            ])
        );
        let v = nodes(NodeForm::SlotRanges, r#"{"a": [[0, 9]], "b": [[10, 16383]]}"#).unwrap();
        assert_eq!(v[1], serde_json::json!({"id": "b", "slots": [[10, 16383]]}));
        assert_eq!(nodes(NodeForm::Buckets, "3").unwrap(), serde_json::json!([{"id": "0"}, {"id": "1"}, {"id": "2"}]));
    }

    #[test]
    fn the_catalogue_holds_on_the_shared_reading() {
        let text = include_str!("../../conformance/node-args.json");
        #[derive(Deserialize)]
        struct File {
            #[allow(dead_code, reason = "for people")]
            description: String,
            cases: Vec<NodeArgCase>,
        }
        let cases = serde_json::from_str::<File>(text).unwrap().cases;
        assert!(cases.len() >= 10);
        for case in cases {
            let form = NodeForm::from_name(&case.form).unwrap_or_else(|| panic!("{}: form", case.id));
            let got = spec_nodes(form, case.nodes.get().as_bytes(), &Limits::DEFAULT).and_then(|list| {
                // The nodes must also make a spec (as every constructor builds one).
                let (algorithm, params) = match form {
                    NodeForm::Servers => ("libmemcached", r#"{"distribution":"ketama_weighted"}"#),
                    NodeForm::SlotRanges => ("redis-cluster", "{}"),
                    NodeForm::Buckets => ("jump", "{}"),
                    NodeForm::Nodes => ("ring", "{}"),
                };
                let spec = format!(r#"{{"algorithm":"{algorithm}","params":{params},"nodes":{list}}}"#);
                crate::Router::from_serialized(spec.as_bytes(), &Limits::DEFAULT)
            });
            match (&case.error, got) {
                (Some(want), Err(e)) => assert_eq!(e.code().name(), want, "{}: {}", case.id, e.message()),
                (Some(want), Ok(_)) => panic!("{}: wanted {want}, built", case.id),
                (None, Ok(r)) => {
                    let ids: Vec<&str> = (0..r.len() as u32).filter_map(|i| r.node_id(i)).collect();
                    assert_eq!(Some(ids.iter().map(|s| s.to_string()).collect()), case.ids, "{}", case.id);
                }
                (None, Err(e)) => panic!("{}: {e:?}", case.id),
            }
        }
    }

    #[test]
    fn a_count_or_list_past_the_limit_is_refused_before_it_is_built() {
        let limits = Limits { max_nodes: 3, ..Limits::DEFAULT };
        for arg in ["4", "1e300", r#"["a","b","c","d"]"#, r#"{"a":1,"b":1,"c":1,"d":1}"#] {
            let e = spec_nodes(NodeForm::Buckets, arg.as_bytes(), &limits).unwrap_err();
            assert_eq!(e.code(), ErrorCode::TooManyNodes, "{arg}: {}", e.message());
        }
        assert!(spec_nodes(NodeForm::Buckets, b"3", &limits).is_ok());
    }
}
