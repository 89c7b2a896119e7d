//! Native algorithms from a spec: typed parameters, their defaults, and the core router.

use keyroute::{Jump, JumpKey, JumpVariant, KeyHash, Maglev, Modulo, MultiProbe, Rendezvous, Ring, SlotFn, Slots};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::{Spec, params, to_value};
use crate::{Error, ErrorCode, Result};

/// A core router and its parameters with every default filled in (for the canonical form).
pub(crate) type Built = (keyroute::Router, Value);

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RingParams {
    #[serde(default = "default_points")]
    points_per_weight: u32,
}
fn default_points() -> u32 {
    keyroute::DEFAULT_POINTS_PER_WEIGHT
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum JumpKeyParam {
    #[default]
    Xxh3,
    U64be,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JumpParams {
    #[serde(default)]
    key_hash: JumpKeyParam,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaglevParams {
    #[serde(default = "default_table")]
    table_size: u32,
}
fn default_table() -> u32 {
    keyroute::DEFAULT_TABLE_SIZE
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SlotsParams {
    #[serde(default = "default_slots")]
    count: u32,
}
fn default_slots() -> u32 {
    1024
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MultiProbeParams {
    #[serde(default = "default_probes")]
    probes: u32,
}
fn default_probes() -> u32 {
    keyroute::DEFAULT_PROBES
}

/// Builds a native algorithm, or `None` when `spec.algorithm` is not a native one.
pub(crate) fn build(spec: &Spec, topology: keyroute::Topology) -> Option<Result<Built>> {
    Some(match spec.algorithm.as_str() {
        "ring" => params::<RingParams>(&spec.params)
            .and_then(|p| Ok((Ring::new(topology, p.points_per_weight)?.into(), to_value(&p)))),
        "jump" => params::<JumpParams>(&spec.params).and_then(|p| {
            let key = match p.key_hash {
                JumpKeyParam::Xxh3 => JumpKey::Hash(KeyHash::Xxh3),
                JumpKeyParam::U64be => JumpKey::U64Be,
            };
            Ok((Jump::with(topology, key, JumpVariant::Paper)?.into(), to_value(&p)))
        }),
        "rendezvous" => {
            params::<NoParams>(&spec.params).and_then(|p| Ok((Rendezvous::new(topology)?.into(), to_value(&p))))
        }
        "maglev" => params::<MaglevParams>(&spec.params)
            .and_then(|p| Ok((Maglev::new(topology, p.table_size)?.into(), to_value(&p)))),
        "slots" => params::<SlotsParams>(&spec.params).and_then(|p| {
            let slot_fn = SlotFn::Hash { count: p.count };
            let router = match explicit_slots(spec, p.count)? {
                Some(owners) => Slots::from_owners(topology, slot_fn, owners)?,
                None => Slots::new(topology, slot_fn)?,
            };
            Ok((router.into(), to_value(&p)))
        }),
        "multi-probe" => params::<MultiProbeParams>(&spec.params)
            .and_then(|p| Ok((MultiProbe::new(topology, p.probes)?.into(), to_value(&p)))),
        "modulo" => params::<NoParams>(&spec.params).and_then(|p| Ok((Modulo::new(topology)?.into(), to_value(&p)))),
        _ => return None,
    })
}

/// The owner table from the nodes' `slots` ranges, when every node gives some (or none does).
///
/// # Errors
/// `invalid_spec` when only some nodes give ranges, a range is reversed or past the slot count,
/// or a slot is given twice or not at all.
pub(crate) fn explicit_slots(spec: &Spec, count: u32) -> Result<Option<Vec<u32>>> {
    let given = spec.nodes.iter().filter(|n| n.slots.is_some()).count();
    if given == 0 {
        return Ok(None);
    }
    let bad = |m: String| Error::new(ErrorCode::InvalidSpec, m);
    if given != spec.nodes.len() {
        return Err(bad("either every node lists its slots or none does".into()));
    }
    const FREE: u32 = u32::MAX;
    let mut owners = vec![FREE; count as usize];
    for (i, node) in spec.nodes.iter().enumerate() {
        for &[first, last] in node.slots.iter().flatten() {
            if first > last || last >= count {
                return Err(bad(format!("node {}: slot range [{first}, {last}] outside 0..{count}", node.id)));
            }
            for slot in &mut owners[first as usize..=last as usize] {
                if *slot != FREE {
                    return Err(bad(format!("slot given twice (node {})", node.id)));
                }
                *slot = i as u32;
            }
        }
    }
    if let Some(s) = owners.iter().position(|&o| o == FREE) {
        return Err(bad(format!("slot {s} has no owner")));
    }
    Ok(Some(owners))
}
