//! Transitions between two arbitrary small ring / jump / rendezvous routers A and B, built
//! through `keyroute-bindings`: the cut-over is monotone in progress and follows
//! transition-v1's threshold exactly, p = 0 is A and p = 1 is B (by node id), the fallback is
//! A's owner exactly when the key moved, and `analysis::diff(a, b)` agrees with the keys: for
//! two rings, a key moved exactly when its hash lies in a moved arc, and the moved share is
//! within sampling error of a deterministic key sample.

#![no_main]

#[path = "common/reference.rs"]
mod reference;
#[path = "common/topo.rs"]
mod topo;

use arbitrary::Arbitrary;
use keyroute_bindings::analysis::{self, Method};
use keyroute_bindings::{ErrorCode, Router, Transition};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use topo::{NodeIn, spec_json};

#[derive(Arbitrary, Debug)]
enum Kind {
    Ring { points: u8 },
    Jump,
    Rendezvous,
}

#[derive(Arbitrary, Debug)]
struct Side {
    kind: Kind,
    nodes: Vec<NodeIn>,
    zones: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Progress {
    Zero,
    One,
    /// A multiple of 2^-53 in [0, 1).
    Fraction(u64),
    /// Any binary64 (NaN, negative, above 1: refused with invalid_parameter).
    Raw(f64),
}

impl Progress {
    fn value(self) -> f64 {
        match self {
            Progress::Zero => 0.0,
            Progress::One => 1.0,
            Progress::Fraction(x) => (x >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0),
            Progress::Raw(x) => x,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    a: Side,
    b: Side,
    p1: Progress,
    p2: Progress,
    keys: Vec<Vec<u8>>,
}

fn build(side: &Side) -> Option<Router> {
    let nodes: Vec<Value> = side.nodes.iter().take(24).map(|n| Value::Object(n.json(side.zones))).collect();
    let mut params = Map::new();
    let name = match side.kind {
        Kind::Ring { points } => {
            params.insert("points_per_weight".into(), json!(1 + u32::from(points % 8)));
            "ring"
        }
        Kind::Jump => "jump",
        Kind::Rendezvous => "rendezvous",
    };
    Router::from_json(&spec_json(name, params, nodes, None)).ok()
}

/// Whether `analysis::diff(a, b)` is exact or in closed form: two rings, two jump routers,
/// or two rendezvous routers whose common nodes keep their weights.
fn cheap_diff(a: &Router, b: &Router) -> bool {
    use keyroute::Router as R;
    match (a.core(), b.core()) {
        (R::Ring(_), R::Ring(_)) | (R::Jump(_), R::Jump(_)) => true,
        (R::Rendezvous(x), R::Rendezvous(y)) => x.topology().nodes().iter().all(|n| {
            y.topology().position(n.id()).and_then(|j| y.topology().node(j)).is_none_or(|m| m.weight() == n.weight())
        }),
        _ => false,
    }
}

/// A deterministic key sample, independent of the fuzz input.
const SAMPLE: u32 = 256;

fn sample_key(i: u32) -> Vec<u8> {
    format!("kr-fuzz-sample:{i}").into_bytes()
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let (Some(a), Some(b)) = (build(&input.a), build(&input.b)) else { return };
    let (v1, v2) = (input.p1.value(), input.p2.value());
    let valid = |p: f64| (0.0..=1.0).contains(&p);
    for p in [v1, v2] {
        if !valid(p) {
            let e = Transition::new(a.clone(), b.clone(), p).expect_err("progress outside [0, 1] is refused");
            assert_eq!(e.code(), ErrorCode::InvalidParameter);
        }
    }
    let (p1, p2) = match (valid(v1), valid(v2)) {
        (true, true) => (v1.min(v2), v1.max(v2)),
        (true, false) => (v1, v1),
        (false, true) => (v2, v2),
        (false, false) => (0.5, 0.5),
    };
    let t0 = Transition::new(a.clone(), b.clone(), 0.0).expect("p = 0");
    let t1 = t0.with_progress(1.0).expect("p = 1");
    let tp1 = t0.with_progress(p1).expect("p1");
    let tp2 = tp1.with_progress(p2).expect("p2");
    assert_eq!(tp2.progress(), p2);

    // The node list: B's nodes in order, then A's nodes not in B.
    let mut ids: Vec<&str> = (0..b.len() as u32).filter_map(|i| b.node_id(i)).collect();
    for i in 0..a.len() as u32 {
        let id = a.node_id(i).unwrap_or_default();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    assert_eq!(t0.len(), ids.len());
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(t0.node_id(i as u32), Some(*id));
    }
    assert_eq!(t0.node_id(ids.len() as u32), None);

    let mut keys: Vec<Vec<u8>> = input.keys.iter().take(32).map(|k| k.iter().copied().take(64).collect()).collect();
    keys.extend((0..SAMPLE).map(sample_key));

    // For two exact (piecewise) routers, the moved arcs of the hash space.
    // (Only where the diff is exact or in closed form: a sampled one routes 2^18 keys.)
    let diff = cheap_diff(&a, &b).then(|| analysis::diff(&a, &b).expect("diff"));
    if let Some(d) = &diff {
        assert!(!matches!(d.method, Method::Sampled { .. }), "{}", d.method.name());
    }
    let exact_arcs = diff.as_ref().filter(|d| d.method == Method::Exact).map(|d| &d.moved_arcs);

    let mut moved_in_sample = 0u32;
    for (ki, key) in keys.iter().enumerate() {
        let id_a = a.route_id(key).expect("ring, jump (xxh3) and rendezvous take any key");
        let id_b = b.route_id(key).expect("ring, jump (xxh3) and rendezvous take any key");
        let moved = id_a != id_b;
        if ki >= keys.len() - SAMPLE as usize && moved {
            moved_in_sample += 1;
        }

        // p = 0 is exactly A, p = 1 exactly B; the fallback is A's owner exactly when it moved.
        assert!(!t0.has_cut_over(key));
        let at0 = t0.route_with_fallback(key).expect("route at 0");
        assert_eq!(t0.node_id(at0.owner), Some(id_a), "p = 0 routes as A");
        assert_eq!(at0.previous, None);
        assert!(t1.has_cut_over(key));
        let at1 = t1.route_with_fallback(key).expect("route at 1");
        assert_eq!(t1.node_id(at1.owner), Some(id_b), "p = 1 routes as B");
        assert_eq!(at1.previous.map(|p| t1.node_id(p)), moved.then_some(Some(id_a)), "fallback iff the owner moved");

        // Monotone cut-over, at transition-v1's threshold exactly.
        let (c1, c2) = (tp1.has_cut_over(key), tp2.has_cut_over(key));
        assert_eq!(c1, reference::has_cut_over(key, p1), "cut-over at p = {p1}");
        assert_eq!(c2, reference::has_cut_over(key, p2), "cut-over at p = {p2}");
        assert!(!c1 || c2, "cut over at {p1} but not at {p2}");
        for (t, c) in [(&tp1, c1), (&tp2, c2)] {
            let at = t.route_with_fallback(key).expect("route");
            assert_eq!(t.node_id(at.owner), Some(if c { id_b } else { id_a }));
            assert_eq!(t.route(key).ok(), Some(at.owner));
            let previous = at.previous.map(|p| t.node_id(p).unwrap_or_default());
            assert_eq!(previous, (c && moved).then_some(id_a));
        }

        // Two rings: a key moved exactly when its hash lies in a moved arc.
        if let Some(arcs) = exact_arcs {
            let x = reference::h(key);
            let in_arc = arcs.iter().find(|m| m.start <= x && x <= m.end);
            assert_eq!(in_arc.is_some(), moved, "key {key:?} (hash {x:#x}): moved {moved}, arcs say otherwise");
            if let Some(m) = in_arc {
                assert_eq!((m.from, m.to), (id_a, id_b));
            }
        }
    }

    if let Some(d) = &diff {
        // The flows partition the keys, and the moved share is theirs between different ids.
        let total: f64 = d.flows.iter().map(|f| f.share).sum();
        assert!((total - 1.0).abs() < 1e-9, "flows sum to {total}");
        let moved: f64 = d.flows.iter().filter(|f| f.from != f.to).map(|f| f.share).sum();
        assert!((moved - d.moved).abs() < 1e-9, "moved {} but flows say {moved}", d.moved);
        assert!((0.0..=1.0 + 1e-12).contains(&d.moved));
        // Loose: 256 keys have a standard error of at most 0.031, so 0.25 is 8 of them.
        let share = f64::from(moved_in_sample) / f64::from(SAMPLE);
        assert!(
            (share - d.moved).abs() <= 0.25,
            "diff says {} moved ({}), the sample {share}",
            d.moved,
            d.method.name()
        );
    }
}
