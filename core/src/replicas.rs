//! Preference lists: `n` distinct nodes for a key, distinct zones first.

use alloc::vec;

use crate::{Error, Result, Topology};

/// Above this many replicas a bitset replaces the linear "already chosen?" scan.
const LINEAR_LIMIT: usize = 32;

/// Fills `out` with distinct nodes taken from `candidates()` in order.
///
/// Two passes over the same candidate order: the first takes only nodes whose zone is not yet
/// represented (nodes without a zone always count as a new zone), the second fills what is left
/// with any node not yet chosen. `candidates` must yield every node that can hold a replica.
pub(crate) fn select<I, F>(topology: &Topology, available: usize, out: &mut [u32], candidates: F) -> Result<()>
where
    I: Iterator<Item = u32>,
    F: Fn() -> I,
{
    let n = out.len();
    if n > available {
        return Err(Error::ReplicasExceedNodes { requested: n as u32, available: available as u32 });
    }
    if n == 0 {
        return Ok(());
    }
    let mut chosen_set = if n > LINEAR_LIMIT { vec![false; topology.len()] } else { vec![] };
    let mut count = 0usize;
    let is_chosen = |set: &[bool], out: &[u32], count: usize, c: u32| {
        if set.is_empty() {
            out.get(..count).is_some_and(|o| o.contains(&c))
        } else {
            set.get(c as usize).copied().unwrap_or(true)
        }
    };
    let (zone_count, zoneless) = topology.zone_census();
    for zone_pass in [true, false] {
        if zone_pass && zone_count == 0 {
            continue;
        }
        // In the zone pass, every pick is a new zone or a zoneless node; once both kinds are
        // used up, no further candidate can qualify, so the walk stops early.
        let (mut zones_taken, mut zoneless_taken) = (0u32, 0u32);
        for c in candidates() {
            if count == n || (zone_pass && zones_taken == zone_count && zoneless_taken == zoneless) {
                break;
            }
            if is_chosen(&chosen_set, out, count, c) {
                continue;
            }
            if zone_pass {
                match topology.zone_of(c) {
                    Some(z) => {
                        if out.get(..count).unwrap_or(&[]).iter().any(|&o| topology.zone_of(o) == Some(z)) {
                            continue;
                        }
                        zones_taken += 1;
                    }
                    None => zoneless_taken += 1,
                }
            }
            if let Some(slot) = out.get_mut(count) {
                *slot = c;
            }
            if let Some(s) = chosen_set.get_mut(c as usize) {
                *s = true;
            }
            count += 1;
        }
        if count == n {
            return Ok(());
        }
    }
    Err(Error::ReplicasExceedNodes { requested: n as u32, available: count as u32 })
}
