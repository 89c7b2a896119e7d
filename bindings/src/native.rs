//! Native algorithms from a spec: their parameters (the structs are the definition: their serde
//! attributes parse specs, their doc comments and JSON Schema feed the registry and every
//! generated surface), defaults, and the core routers they build.

use keyroute::{Jump, JumpKey, JumpVariant, KeyHash, Maglev, Modulo, MultiProbe, Rendezvous, Ring, SlotFn, Slots};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "schema")]
use crate::registry::schema_of;
use crate::registry::{Algorithm, Kind, NodeField, NodeForm, build_with};
use crate::spec::Spec;
use crate::{Error, ErrorCode, Result};

/// A core router and its parameters with every default filled in (for the canonical form).
pub(crate) type Built = (keyroute::Router, Value);

use NodeField::{Id, Slots as SlotField, Weight, Zone};

/// Hash ring with weighted virtual points (ring-v1): adding a node moves only about 1/(n+1) of
/// the keys, and more points per weight spread keys more evenly.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct RingParams {
    /// Points per unit of weight: a node of weight w gets w × this many points.
    #[serde(default = "default_points")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    points_per_weight: u32,
}
fn default_points() -> u32 {
    keyroute::DEFAULT_POINTS_PER_WEIGHT
}

impl Spec {
    /// Sets the parameter a native ring reads its points per unit of weight from (the one
    /// [`keyroute::Capabilities::points_per_weight`] reports on the built router), for tools
    /// that compare one ring at several point counts (`keyroute balance --points`). Other
    /// algorithms refuse the parameter when the router is built (`invalid_spec`).
    pub fn set_points_per_weight(&mut self, points: u32) {
        self.params.insert("points_per_weight".into(), Value::from(points));
    }
}

/// What jump hashes a key into.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
enum JumpKeyParam {
    /// XXH3-64 of the key.
    #[default]
    Xxh3,
    /// The key itself: exactly 8 bytes, read as a big-endian u64 (as PyPI
    /// `jump-consistent-hash` takes integers).
    U64be,
}

/// Jump consistent hash (Lamping & Veach) over buckets in order: no memory per node and a
/// perfectly even spread, but equal weights only, no replicas, and buckets are added or removed
/// at the end only.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct JumpParams {
    /// What is hashed into the jump function's 64-bit input.
    #[serde(default)]
    key_hash: JumpKeyParam,
}

/// Weighted rendezvous (highest random weight) hashing: every node scores every key, the
/// highest score wins; exact weights and natural replica lists, at O(n) per lookup.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct RendezvousParams {}

/// Maglev lookup table: O(1) lookups and a near-perfect spread; a change moves a little more
/// than the minimum.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct MaglevParams {
    /// Entries in the lookup table: a prime, at least the number of weighted nodes.
    #[serde(default = "default_table")]
    #[cfg_attr(feature = "schema", schemars(range(min = 2, max = keyroute::MAX_TABLE_SIZE)))]
    table_size: u32,
}
fn default_table() -> u32 {
    keyroute::DEFAULT_TABLE_SIZE
}

/// Fixed slots: key → one of `count` slots → node. Slots are dealt out by weight, or given per
/// node (every node lists `slots`, inclusive `[first, last]` ranges covering each slot once).
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct SlotsParams {
    /// Number of slots.
    #[serde(default = "default_slots")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = keyroute::MAX_SLOTS)))]
    count: u32,
}
fn default_slots() -> u32 {
    1024
}

/// Multi-probe consistent hashing: one point per node and several probes per key, for a ring's
/// balance without a ring's memory; equal weights only.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct MultiProbeParams {
    /// Probes per key: more probes spread keys more evenly and cost more per lookup.
    #[serde(default = "default_probes")]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = keyroute::MAX_PROBES)))]
    probes: u32,
}
fn default_probes() -> u32 {
    keyroute::DEFAULT_PROBES
}

/// `hash(key) mod n`: the baseline that moves most keys when n changes. For comparisons only.
#[derive(Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
struct ModuloParams {}

const EQUAL_WEIGHTS: &[NodeField] = &[Id];

/// The native algorithms, in the order docs list them.
pub(crate) static ALGORITHMS: [Algorithm; 7] = [
    Algorithm {
        name: "ring",
        class_name: "Ring",
        kind: Kind::Native { scheme: "ring-v1" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[("points_per_weight", "points")],
        example: r#"{"algorithm":"ring","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<RingParams>,
        build: |spec, t| build_with(spec, t, |p: &mut RingParams, t| Ok(Ring::new(t, p.points_per_weight)?.into())),
    },
    Algorithm {
        name: "jump",
        class_name: "Jump",
        kind: Kind::Native { scheme: "jump-v1" },
        nodes: NodeForm::Buckets,
        node_fields: EQUAL_WEIGHTS,
        keywords: &[],
        example: r#"{"algorithm":"jump","nodes":[{"id":"0"},{"id":"1"},{"id":"2"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<JumpParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut JumpParams, t| {
                let key = match p.key_hash {
                    JumpKeyParam::Xxh3 => JumpKey::Hash(KeyHash::Xxh3),
                    JumpKeyParam::U64be => JumpKey::U64Be,
                };
                Ok(Jump::with(t, key, JumpVariant::Paper)?.into())
            })
        },
    },
    Algorithm {
        name: "rendezvous",
        class_name: "Rendezvous",
        kind: Kind::Native { scheme: "rendezvous-v1" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"rendezvous","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<RendezvousParams>,
        build: |spec, t| build_with(spec, t, |_: &mut RendezvousParams, t| Ok(Rendezvous::new(t)?.into())),
    },
    Algorithm {
        name: "maglev",
        class_name: "Maglev",
        kind: Kind::Native { scheme: "maglev-v1" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone],
        keywords: &[],
        example: r#"{"algorithm":"maglev","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<MaglevParams>,
        build: |spec, t| build_with(spec, t, |p: &mut MaglevParams, t| Ok(Maglev::new(t, p.table_size)?.into())),
    },
    Algorithm {
        name: "slots",
        class_name: "Slots",
        kind: Kind::Native { scheme: "slots-v1" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Weight, Zone, SlotField],
        keywords: &[],
        example: r#"{"algorithm":"slots","params":{"count":1024},"nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<SlotsParams>,
        build: |spec, t| {
            build_with(spec, t, |p: &mut SlotsParams, t| {
                let slot_fn = SlotFn::Hash { count: p.count };
                Ok(match explicit_slots(spec)? {
                    Some(ranges) => Slots::from_ranges(t, slot_fn, &ranges)?,
                    None => Slots::new(t, slot_fn)?,
                }
                .into())
            })
        },
    },
    Algorithm {
        name: "multi-probe",
        class_name: "MultiProbe",
        kind: Kind::Native { scheme: "multi-probe-v1" },
        nodes: NodeForm::Nodes,
        node_fields: &[Id, Zone],
        keywords: &[],
        example: r#"{"algorithm":"multi-probe","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<MultiProbeParams>,
        build: |spec, t| build_with(spec, t, |p: &mut MultiProbeParams, t| Ok(MultiProbe::new(t, p.probes)?.into())),
    },
    Algorithm {
        name: "modulo",
        class_name: "Modulo",
        kind: Kind::Native { scheme: "modulo" },
        nodes: NodeForm::Buckets,
        node_fields: EQUAL_WEIGHTS,
        keywords: &[],
        example: r#"{"algorithm":"modulo","nodes":[{"id":"cache-a"},{"id":"cache-b"},{"id":"cache-c"}]}"#,
        #[cfg(feature = "schema")]
        schema: schema_of::<ModuloParams>,
        build: |spec, t| build_with(spec, t, |_: &mut ModuloParams, t| Ok(Modulo::new(t)?.into())),
    },
];

/// One node's inclusive `(first, last)` slot ranges.
type SlotRanges = Vec<(u32, u32)>;

/// The nodes' `slots` ranges, when every node gives some (`None` when none does). The ranges
/// themselves are checked by the core ([`Slots::from_ranges`]), in one place for every
/// algorithm that takes them.
///
/// # Errors
/// `invalid_parameter` when only some nodes give ranges.
pub(crate) fn explicit_slots(spec: &Spec) -> Result<Option<Vec<SlotRanges>>> {
    let given = spec.nodes.iter().filter(|n| n.slots.is_some()).count();
    if given == 0 {
        return Ok(None);
    }
    if given != spec.nodes.len() {
        return Err(Error::new(ErrorCode::InvalidParameter, "either every node lists its slots or none does"));
    }
    Ok(Some(
        spec.nodes.iter().map(|n| n.slots.iter().flatten().map(|&[first, last]| (first, last)).collect()).collect(),
    ))
}
