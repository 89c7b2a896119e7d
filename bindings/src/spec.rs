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

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Error, ErrorCode, Result};

/// Largest `version` accepted: 2^53 − 1, so the number survives every JSON parser (JS too).
pub const MAX_VERSION: u64 = (1 << 53) - 1;
/// Largest spec document accepted, in bytes.
pub const MAX_SPEC_BYTES: usize = 64 << 20;

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

impl Spec {
    /// Parses a spec from JSON text.
    ///
    /// # Errors
    /// `invalid_json` for malformed JSON, `invalid_spec` for a document of the wrong shape.
    pub fn from_json(text: &str) -> Result<Self> {
        if text.len() > MAX_SPEC_BYTES {
            return Err(Error::new(ErrorCode::InvalidSpec, format!("spec larger than {MAX_SPEC_BYTES} bytes")));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| Error::new(ErrorCode::InvalidJson, e.to_string()))?;
        Self::from_value(value)
    }

    /// Reads a spec from an already parsed JSON value.
    ///
    /// # Errors
    /// `invalid_spec` for a document of the wrong shape or a version above [`MAX_VERSION`].
    pub fn from_value(value: Value) -> Result<Self> {
        let spec: Spec =
            serde_json::from_value(value).map_err(|e| Error::new(ErrorCode::InvalidSpec, e.to_string()))?;
        if spec.version > MAX_VERSION {
            return Err(Error::new(ErrorCode::InvalidSpec, "version above 2^53 - 1"));
        }
        Ok(spec)
    }
}

/// Reads an algorithm's typed parameters from the spec's `params`, refusing unknown ones.
pub(crate) fn params<T: for<'de> Deserialize<'de>>(params: &Map<String, Value>) -> Result<T> {
    serde_json::from_value(Value::Object(params.clone()))
        .map_err(|e| Error::new(ErrorCode::InvalidSpec, format!("params: {e}")))
}

/// A parameter's value as canonical JSON.
pub(crate) fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
