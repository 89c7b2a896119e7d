//! Diagnosis hints: when mismatches follow a pattern, say which mistake gives that pattern.
//! Each hint is a test over every case of the run (which ones differ, which match) that only a
//! particular mistake passes:
//!
//! - **key classes** (`key-encoding`, `nul-byte`, `empty-key`, `long-key`, `hash-tag`): every
//!   mismatch is a key of one class, and keys outside it match: the adapter hashes other bytes
//!   than the key's for those keys (a Latin-1 or UTF-16 encoding, a C string cut at NUL, …);
//! - **`weights`**: only topologies with unequal weights differ, equal-weight ones match;
//! - **`node-order`**: in every differing file each expected node is always answered as one
//!   other node: the buckets are right, their mapping to nodes is not;
//! - **`neighbour`**: every wrong answer is the key's next node in keyroute's replica order (the
//!   next distinct node clockwise on a ring): the lookup is one point off;
//! - **`state-after-change`**: every wrong answer is what an earlier topology of the same
//!   algorithm gives for the key: the adapter keeps state from an earlier spec;
//! - **`unrelated`** (only when no other hint holds): about (n−1)/n of the keys differ in every
//!   differing file, as for a random choice: the key hash or the ring's point names differ.

use std::collections::HashMap;

use keyroute_bindings::{Limits, Router, Spec};
use serde_json::Value;

use super::{CaseReport, CaseResult, FileReport};

/// A hint: a short stable id and what to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    /// Stable id (`key-encoding`), for scripts and tests.
    pub id: &'static str,
    /// What the pattern is and what usually causes it.
    pub text: String,
}

/// A class of keys, and what it means when only its keys differ.
struct KeyClass {
    id: &'static str,
    test: fn(&[u8]) -> bool,
    text: &'static str,
}

const KEY_CLASSES: &[KeyClass] = &[
    KeyClass {
        id: "key-encoding",
        test: |k| k.iter().any(|&b| b >= 0x80),
        text: "every mismatch is a key with non-ASCII bytes, and ASCII keys match: the adapter hashes other bytes \
               than the key's for non-ASCII text (Latin-1, UTF-16 or a platform charset instead of UTF-8); \
               hash the bytes of `hex`, or encode `utf8` as UTF-8",
    },
    KeyClass {
        id: "nul-byte",
        test: |k| k.contains(&0),
        text: "every mismatch is a key holding a NUL byte: the key is cut at its first NUL (read as a C string); \
               pass the key's length",
    },
    KeyClass {
        id: "empty-key",
        test: <[u8]>::is_empty,
        text: "every mismatch is the empty key: the adapter treats an empty key specially (refuses it, or hashes \
               something else); the empty key routes like any other",
    },
    KeyClass {
        id: "long-key",
        test: |k| k.len() > 250,
        text: "every mismatch is a key longer than 250 bytes: long keys are truncated or hashed in part (a fixed \
               buffer, a memcached key-length limit applied before hashing)",
    },
    KeyClass {
        id: "hash-tag",
        test: |k| k.iter().position(|&b| b == b'{').is_some_and(|i| k.iter().skip(i).any(|&b| b == b'}')),
        text: "every mismatch is a key holding `{…}`: hash tags differ — only the bytes between the tag characters \
               are hashed, by the preset's rule for empty and unclosed tags",
    },
];

/// The hints that hold for a run, most specific first.
pub fn hints(reports: &[FileReport]) -> Vec<Hint> {
    let failing: Vec<&FileReport> = reports.iter().filter(|f| f.failed() > 0).collect();
    if failing.is_empty() {
        return Vec::new();
    }
    let fails: Vec<&CaseReport> =
        failing.iter().flat_map(|f| f.cases.iter()).filter(|c| matches!(c.result, CaseResult::Fail { .. })).collect();
    let passes: Vec<&CaseReport> =
        reports.iter().flat_map(|f| f.cases.iter()).filter(|c| matches!(c.result, CaseResult::Pass)).collect();
    let mut out = Vec::new();
    // Classes holding every mismatch (while keys outside them match), with the share of their
    // keys that differ: when several hold (a NUL key that also has braces), the mistake is the
    // class whose keys differ most often.
    let mut classes: Vec<(&KeyClass, f64)> = Vec::new();
    for class in KEY_CLASSES {
        let all_in = fails.iter().all(|c| c.key.as_deref().is_some_and(class.test));
        let others_pass = passes.iter().any(|c| c.key.as_deref().is_some_and(|k| !(class.test)(k)));
        if all_in && others_pass {
            let members = passes.iter().filter(|c| c.key.as_deref().is_some_and(class.test)).count() + fails.len();
            classes.push((class, fails.len() as f64 / members.max(1) as f64));
        }
    }
    let top = classes.iter().map(|(_, share)| *share).fold(0.0, f64::max);
    for (class, share) in classes {
        if share >= top / 2.0 {
            out.push(Hint { id: class.id, text: class.text.to_string() });
        }
    }
    if let Some(hint) = weights(reports, &failing) {
        out.push(hint);
    }
    if let Some(hint) = node_order(&failing) {
        out.push(hint);
    }
    if let Some(hint) = neighbour(&failing) {
        out.push(hint);
    }
    if let Some(hint) = state_after_change(reports) {
        out.push(hint);
    }
    if out.is_empty()
        && let Some(hint) = unrelated(&failing)
    {
        out.push(hint);
    }
    out
}

/// The weights of a spec's nodes (1 when absent).
fn weights_of(spec: Option<&Value>) -> Vec<f64> {
    spec.and_then(|s| s.get("nodes"))
        .and_then(Value::as_array)
        .map(|nodes| nodes.iter().map(|n| n.get("weight").and_then(Value::as_f64).unwrap_or(1.0)).collect())
        .unwrap_or_default()
}

fn unequal_weights(file: &FileReport) -> bool {
    let w = weights_of(file.spec.as_ref());
    w.iter().any(|x| w.first().is_some_and(|f| (x - f).abs() > f64::EPSILON))
}

fn ran(file: &FileReport) -> usize {
    file.cases.len() - file.skipped()
}

fn weights(reports: &[FileReport], failing: &[&FileReport]) -> Option<Hint> {
    let all_weighted = failing.iter().all(|f| unequal_weights(f));
    let equal_pass = reports
        .iter()
        .any(|f| f.failed() == 0 && ran(f) > 0 && weights_of(f.spec.as_ref()).len() >= 2 && !unequal_weights(f));
    (all_weighted && equal_pass).then(|| Hint {
        id: "weights",
        text: format!(
            "only topologies with unequal node weights differ ({} files), and equal-weight ones match: weights are \
             ignored or turned into points or shares differently (the peer's weighted flag, how it rounds points \
             per node)",
            failing.len()
        ),
    })
}

fn node_order(failing: &[&FileReport]) -> Option<Hint> {
    let mut wide = false;
    for file in failing {
        let mut map: HashMap<&str, &str> = HashMap::new();
        for case in &file.cases {
            let got = match &case.result {
                CaseResult::Pass => case.want_node.as_deref(),
                CaseResult::Fail { got_node, .. } => Some(got_node.as_deref()?),
                CaseResult::Skip(_) => continue,
            };
            let (Some(want), Some(got)) = (case.want_node.as_deref(), got) else { continue };
            if *map.entry(want).or_insert(got) != got {
                return None;
            }
        }
        // A relabelling: no two expected nodes answered as the same one.
        let mut answered: Vec<&str> = map.values().copied().collect();
        answered.sort_unstable();
        answered.dedup();
        if answered.len() != map.len() {
            return None;
        }
        wide |= map.len() >= 3;
    }
    wide.then(|| Hint {
        id: "node-order",
        text: "in every differing file each expected node is always answered as one other node: the key's bucket \
               is right but buckets map to nodes in another order; number the nodes in the spec's order (not sorted, \
               not by address)"
            .to_string(),
    })
}

fn neighbour(failing: &[&FileReport]) -> Option<Hint> {
    let mut wide = false;
    for file in failing {
        let router = build(file)?;
        for case in &file.cases {
            let CaseResult::Fail { got_node, .. } = &case.result else { continue };
            let (Some(key), Some(got)) = (case.key.as_deref(), got_node.as_deref()) else { return None };
            let mut order = [0u32; 2];
            router.replicas(key, &mut order).ok()?;
            if router.node_id(order[1]) != Some(got) {
                return None;
            }
        }
        wide |= router.len() >= 3;
    }
    wide.then(|| Hint {
        id: "neighbour",
        text: "every wrong answer is the key's next node in keyroute's replica order (the next distinct node \
               clockwise on a ring): the lookup is one point off — a search that returns the point after the \
               owner's, or a wrong wrap-around at the top of the ring"
            .to_string(),
    })
}

fn build(file: &FileReport) -> Option<Router> {
    Spec::from_value(file.spec.clone()?, &Limits::DEFAULT).and_then(|s| Router::from_spec(&s)).ok()
}

fn state_after_change(reports: &[FileReport]) -> Option<Hint> {
    let mut earlier: Vec<(&str, Router)> = Vec::new();
    let mut seen = false;
    for file in reports {
        let Some(algorithm) = file.algorithm() else { continue };
        if file.failed() > 0 {
            let explains = |router: &Router| {
                file.cases.iter().all(|case| match (&case.result, case.key.as_deref()) {
                    (CaseResult::Fail { got_node: Some(got), .. }, Some(key)) => {
                        router.route_id(key).is_ok_and(|id| id == got)
                    }
                    // An error answer: the earlier topology refuses the key too.
                    (CaseResult::Fail { got_node: None, .. }, Some(key)) => router.route_id(key).is_err(),
                    (CaseResult::Fail { .. }, None) => false,
                    _ => true,
                })
            };
            if !earlier.iter().any(|(a, router)| *a == algorithm && explains(router)) {
                return None;
            }
            seen = true;
        }
        if let Some(router) = build(file) {
            earlier.push((algorithm, router));
        }
    }
    seen.then(|| Hint {
        id: "state-after-change",
        text: "every wrong answer is what an earlier topology of the same algorithm gives for the key: the adapter \
               keeps state from an earlier spec; build a new router from every spec message (one that adds and \
               removes nodes in place must end with what a fresh build gives)"
            .to_string(),
    })
}

fn unrelated(failing: &[&FileReport]) -> Option<Hint> {
    for file in failing {
        let nodes = weights_of(file.spec.as_ref()).len();
        if nodes < 2 {
            return None;
        }
        let random = 1.0 - 1.0 / nodes as f64;
        let rate = file.failed() as f64 / ran(file).max(1) as f64;
        if rate < 0.5 * random {
            return None;
        }
    }
    Some(Hint {
        id: "unrelated",
        text: "answers look unrelated to the expected ones (in every differing file about (n-1)/n of the keys \
               differ, as for a random choice): the key hash or the ring's points differ; check the hash function \
               and its byte order, and how point names are written (host:port or host, the separator before the \
               point number, numbering from 0 or 1)"
            .to_string(),
    })
}
