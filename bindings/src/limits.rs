//! [`Limits`]: what a spec may ask of the process that builds it.
//!
//! keyroute parses topology specs that arrive from config systems, so a spec must not be able to
//! take gigabytes or minutes to build. Every limit is checked before anything is allocated (the
//! core checks the work of each algorithm against its [`Budget`] before it builds), and a spec
//! over one fails at once with its error code. The defaults suit such a service; a caller that
//! needs more raises a limit explicitly, up to the core's ceiling ([`Limits::CEILING`]).
//! `conformance/SPEC.md` lists them; `SECURITY.md` says what they promise.

use keyroute::Budget;
use serde::{Deserialize, Serialize};

use crate::{Error, ErrorCode, Result};

/// The limits a spec is built under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest spec document, in bytes (`spec_too_large`).
    pub max_spec_bytes: u64,
    /// Most nodes (`too_many_nodes`).
    pub max_nodes: u64,
    /// Most ring points over all nodes and weights, for every ring-based algorithm and preset
    /// (`too_many_points`).
    pub max_points: u64,
    /// Most bytes hashed to place those points (`too_many_points`): long node ids cannot
    /// multiply the work of an allowed number of points.
    pub max_hashed_bytes: u64,
    /// Most entries of a lookup table: Maglev's table, a slot table (`table_size_out_of_range`).
    pub max_table_entries: u64,
}

impl Limits {
    /// The defaults: an 8 MiB spec, 16,384 nodes, 2,097,152 ring points (13,107 nodes × 160),
    /// 64 MiB hashed to place them, tables of 1,048,576 entries. A build within them takes
    /// well under a second and some tens of megabytes, and a spec refused under them never
    /// holds more than 10 MB (`bindings/tests/hostile.rs` measures it).
    pub const DEFAULT: Limits = Limits {
        max_spec_bytes: 8 << 20,
        max_nodes: 1 << 14,
        max_points: 1 << 21,
        max_hashed_bytes: 1 << 26,
        max_table_entries: 1 << 20,
    };

    /// The most any limit can be raised to: the core's own ceiling.
    pub const CEILING: Limits = Limits {
        max_spec_bytes: 1 << 30,
        max_nodes: keyroute::MAX_NODES as u64,
        max_points: Budget::MAX.points,
        max_hashed_bytes: Budget::MAX.hashed_bytes,
        max_table_entries: Budget::MAX.table_entries,
    };

    /// Limits from a JSON object of the fields to change (`{"max_points": 8388608}`); the others
    /// keep their defaults.
    ///
    /// # Errors
    /// `invalid_json` for malformed JSON; `invalid_parameter` for an unknown field, a value that
    /// is not a whole number, or one above [`Limits::CEILING`].
    pub fn from_json(text: &str) -> Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(crate::spec::text_json_error)?;
        let limits: Limits = serde_json::from_value(value)
            .map_err(|e| Error::new(ErrorCode::InvalidParameter, format!("limits: {e}")))?;
        limits.checked()
    }

    /// Every limit by name, in declaration order (for surfaces that show them).
    #[must_use]
    pub fn fields(&self) -> [(&'static str, u64); 5] {
        [
            ("max_spec_bytes", self.max_spec_bytes),
            ("max_nodes", self.max_nodes),
            ("max_points", self.max_points),
            ("max_hashed_bytes", self.max_hashed_bytes),
            ("max_table_entries", self.max_table_entries),
        ]
    }

    /// These limits, refused when one is above the ceiling.
    ///
    /// # Errors
    /// `invalid_parameter` naming the limit.
    pub fn checked(self) -> Result<Self> {
        for ((name, value), (_, ceiling)) in self.fields().into_iter().zip(Self::CEILING.fields()) {
            if value > ceiling {
                return Err(Error::new(
                    ErrorCode::InvalidParameter,
                    format!("limits: {name} {value} is above {ceiling}"),
                ));
            }
        }
        Ok(self)
    }

    /// The core's work budget for these limits.
    #[must_use]
    pub fn budget(&self) -> Budget {
        Budget { points: self.max_points, hashed_bytes: self.max_hashed_bytes, table_entries: self.max_table_entries }
    }

    /// Refuses a document longer than `max_spec_bytes`.
    ///
    /// # Errors
    /// `spec_too_large`.
    pub fn check_spec_bytes(&self, len: usize, what: &str) -> Result<()> {
        if len as u64 > self.max_spec_bytes {
            return Err(Error::new(
                ErrorCode::SpecTooLarge,
                format!("{what} of {len} bytes is larger than the limit of {} bytes", self.max_spec_bytes),
            ));
        }
        Ok(())
    }
}

#[cfg(feature = "schema")]
impl Limits {
    /// `(name, description, default, ceiling)` of every limit, for generated docs.
    #[must_use]
    pub fn table() -> Vec<(&'static str, String, u64, u64)> {
        let schema = crate::registry::schema_settings().into_generator().root_schema_for::<Limits>().to_value();
        Self::DEFAULT
            .fields()
            .into_iter()
            .zip(Self::CEILING.fields())
            .map(|((name, default), (_, ceiling))| {
                let doc = schema.pointer(&format!("/properties/{name}/description")).and_then(|d| d.as_str());
                let doc = doc.unwrap_or_default().to_string();
                (name, doc, default, ceiling)
            })
            .collect()
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_from_partial_json_and_stay_under_the_ceiling() {
        assert_eq!(Limits::from_json("{}").unwrap(), Limits::DEFAULT);
        let raised = Limits::from_json(r#"{"max_points": 8388608}"#).unwrap();
        assert_eq!((raised.max_points, raised.max_nodes), (8_388_608, Limits::DEFAULT.max_nodes));
        for bad in
            [r#"{"max_points": 1e30}"#, r#"{"max_point": 1}"#, r#"{"max_nodes": -1}"#, r#"{"max_nodes": 2097152}"#]
        {
            assert_eq!(Limits::from_json(bad).unwrap_err().code(), ErrorCode::InvalidParameter, "{bad}");
        }
        assert_eq!(Limits::from_json("{").unwrap_err().code(), ErrorCode::InvalidJson);
        assert!(Limits::CEILING.checked().is_ok());
    }
}
