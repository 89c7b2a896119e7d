//! Gradual transitions, for every algorithm: raising progress only ever moves more keys from
//! their A-owner to their B-owner (monotone), progress 0 is exactly A (rollback) and 1 exactly
//! B, the fallback names the previous owner exactly when the key has moved, and node states
//! (UP, JOINING, DRAINING, DOWN) behave as `Transition::from_states` documents.
//!
//! Owners are compared by node **id**: a transition's indices span both sides' nodes.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use common::{config, keys, topology};
use keyroute::{
    Jump, Maglev, Modulo, MultiProbe, Node, NodeState, Rendezvous, Ring, Router, SlotFn, Slots, Topology, Transition,
};
use proptest::prelude::*;

/// Every native algorithm, by name, for messages.
const ALGORITHMS: [&str; 7] = ["ring", "jump", "rendezvous", "maglev", "slots", "multi-probe", "modulo"];

/// True for the algorithms that honour unequal weights.
fn weighted(algorithm: usize) -> bool {
    matches!(ALGORITHMS[algorithm], "ring" | "rendezvous" | "maglev" | "slots")
}

/// Builds `algorithm` over `t`; a slot table for B is A's table rebalanced, as an operator
/// would change it, so `before` is given for slots.
fn build(algorithm: usize, t: Topology, before: Option<&Router>) -> Router {
    match ALGORITHMS[algorithm] {
        "ring" => Ring::new(t, 40).unwrap().into(),
        "jump" => Jump::new(t).unwrap().into(),
        "rendezvous" => Rendezvous::new(t).unwrap().into(),
        "maglev" => Maglev::new(t, 1031).unwrap().into(),
        "slots" => match before {
            Some(Router::Slots(s)) => s.rebalance(t).unwrap().into(),
            _ => Slots::new(t, SlotFn::Hash { count: 256 }).unwrap().into(),
        },
        "multi-probe" => MultiProbe::new(t, 21).unwrap().into(),
        _ => Modulo::new(t).unwrap().into(),
    }
}

fn owner_id<'r>(r: &'r Router, key: &[u8]) -> &'r [u8] {
    r.topology().node(r.route(key).unwrap()).unwrap().id()
}

fn id(t: &Transition, i: u32) -> &[u8] {
    &t.node_ids()[i as usize]
}

/// A membership change: ids and weights of A, and of B (some of A's nodes removed, some new
/// ones added, weights of the common nodes kept).
#[derive(Debug, Clone)]
struct Change {
    algorithm: usize,
    a: (Vec<String>, Vec<u32>),
    b: (Vec<String>, Vec<u32>),
}

fn change() -> impl Strategy<Value = Change> {
    (0..ALGORITHMS.len(), common::ids(2, 12)).prop_flat_map(|(algorithm, ids)| {
        let n = ids.len();
        let max_weight: u32 = if weighted(algorithm) { 4 } else { 1 };
        (
            Just(algorithm),
            Just(ids),
            proptest::collection::vec(1..=max_weight, n),
            // Per node: 0 = in both, 1 = only in A (removed), 2 = only in B (added).
            proptest::collection::vec(prop_oneof![6 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)], n),
        )
            .prop_filter_map("both sides need a node", |(algorithm, ids, weights, side)| {
                let pick = |keep: u8| -> (Vec<String>, Vec<u32>) {
                    let idx: Vec<usize> = (0..ids.len()).filter(|&i| side[i] == 0 || side[i] == keep).collect();
                    (idx.iter().map(|&i| ids[i].clone()).collect(), idx.iter().map(|&i| weights[i]).collect())
                };
                let (a, b) = (pick(1), pick(2));
                (!a.0.is_empty() && !b.0.is_empty()).then_some(Change { algorithm, a, b })
            })
    })
}

fn routers(c: &Change) -> (Router, Router) {
    let a = build(c.algorithm, topology(&c.a.0, &c.a.1), None);
    let b = build(c.algorithm, topology(&c.b.0, &c.b.1), Some(&a));
    (a, b)
}

proptest! {
    #![proptest_config(config(48))]

    /// p = 0 is A, p = 1 is B, and in between every key is on its A-owner or its B-owner; a
    /// key that has cut over at p1 has cut over at every p2 ≥ p1, and the fallback is the
    /// A-owner exactly when the key is on a different node.
    #[test]
    fn progress_is_monotone_and_the_ends_are_exact(c in change(), p in 0.0f64..=1.0, q in 0.0f64..=1.0) {
        let (a, b) = routers(&c);
        let (p1, p2) = (p.min(q), p.max(q));
        let t = Transition::new(a.clone(), b.clone(), 0.0).unwrap();
        let steps: Vec<Transition> = [0.0, p1, p2, 1.0].iter().map(|&x| t.with_progress(x).unwrap()).collect();
        for key in keys(300, "transition") {
            let (ka, kb) = (owner_id(&a, &key), owner_id(&b, &key));
            let mut cut_before = false;
            for (step, s) in steps.iter().enumerate() {
                let placed = s.route_with_fallback(&key).unwrap();
                let owner = id(s, placed.owner);
                let cut = s.has_cut_over(&key);
                prop_assert!(!cut_before || cut, "{}: key went back to A at step {step}", ALGORITHMS[c.algorithm]);
                cut_before = cut;
                prop_assert_eq!(owner, if cut { kb } else { ka }, "{}", ALGORITHMS[c.algorithm]);
                match placed.previous {
                    Some(prev) => {
                        prop_assert!(cut && ka != kb);
                        prop_assert_eq!(id(s, prev), ka);
                    }
                    None => prop_assert!(!cut || ka == kb),
                }
            }
            prop_assert!(!steps[0].has_cut_over(&key) && steps[3].has_cut_over(&key));
        }
    }

    /// Rolling back (progress to 0) from anywhere routes exactly as A, with no fallbacks; rolling
    /// forward again returns the same keys to B.
    #[test]
    fn rollback_restores_a_exactly(c in change(), p in 0.0f64..=1.0) {
        let (a, b) = routers(&c);
        let during = Transition::new(a.clone(), b, p).unwrap();
        let back = during.with_progress(0.0).unwrap();
        let again = back.with_progress(p).unwrap();
        for key in keys(300, "rollback") {
            let placed = back.route_with_fallback(&key).unwrap();
            prop_assert_eq!(id(&back, placed.owner), owner_id(&a, &key));
            prop_assert_eq!(placed.previous, None);
            prop_assert_eq!(again.route_with_fallback(&key).unwrap(), during.route_with_fallback(&key).unwrap());
        }
    }

    /// States, for every algorithm: at p = 0 only UP and DRAINING nodes own keys, at p = 1 only
    /// UP and JOINING ones; a DOWN node never owns a key nor is offered as a fallback; a JOINING
    /// node is never a fallback; while draining, a DRAINING node is only ever a fallback.
    #[test]
    fn node_states_for_every_algorithm(
        algorithm in 0..ALGORITHMS.len(),
        ids in common::ids(2, 10),
        states in proptest::collection::vec(
            prop_oneof![4 => Just(NodeState::Up), 1 => Just(NodeState::Joining),
                        1 => Just(NodeState::Draining), 1 => Just(NodeState::Down)], 10),
        p in 0.0f64..=1.0,
    ) {
        let nodes: Vec<(Node, NodeState)> = ids.iter().zip(&states).map(|(id, &s)| (Node::new(id), s)).collect();
        let has = |f: fn(NodeState) -> bool| nodes.iter().any(|(_, s)| f(*s));
        prop_assume!(has(|s| matches!(s, NodeState::Up | NodeState::Draining)));
        prop_assume!(has(|s| matches!(s, NodeState::Up | NodeState::Joining)));
        let state_of = |id: &[u8]| nodes.iter().find(|(n, _)| n.id() == id).unwrap().1;
        let slots_a = std::cell::RefCell::new(None::<Router>);
        let t = Transition::from_states(&nodes, |topo| {
            let r = build(algorithm, topo, slots_a.borrow().as_ref());
            slots_a.borrow_mut().get_or_insert_with(|| r.clone());
            Ok(r)
        }, p).unwrap();
        let (start, end) = (t.with_progress(0.0).unwrap(), t.with_progress(1.0).unwrap());
        for key in keys(200, "states") {
            let s0 = state_of(id(&start, start.route(&key).unwrap()));
            prop_assert!(matches!(s0, NodeState::Up | NodeState::Draining), "{}: {s0:?} at p = 0", ALGORITHMS[algorithm]);
            let s1 = state_of(id(&end, end.route(&key).unwrap()));
            prop_assert!(matches!(s1, NodeState::Up | NodeState::Joining), "{}: {s1:?} at p = 1", ALGORITHMS[algorithm]);
            let now = t.route_with_fallback(&key).unwrap();
            prop_assert_ne!(state_of(id(&t, now.owner)), NodeState::Down);
            if let Some(prev) = now.previous {
                let s = state_of(id(&t, prev));
                prop_assert!(matches!(s, NodeState::Up | NodeState::Draining), "fallback to a {s:?} node");
            }
        }
    }
}

/// The share of keys on their B-owner grows like `p` times the share the whole change moves
/// (the cut-over hash is independent of placement). Checked at fixed points over 40,000 keys,
/// within 6 standard errors of a binomial proportion.
#[test]
fn moved_share_grows_linearly_with_progress() {
    let a: Router = Ring::new(Topology::uniform("cache-", 3).unwrap(), 160).unwrap().into();
    let b: Router = Ring::new(Topology::uniform("cache-", 4).unwrap(), 160).unwrap().into();
    let t = Transition::new(a.clone(), b.clone(), 0.0).unwrap();
    let keys: Vec<Vec<u8>> = (0..40_000u32).map(|i| format!("user:{i}").into_bytes()).collect();
    let total = keys.iter().filter(|k| owner_id(&a, k) != owner_id(&b, k)).count() as f64 / keys.len() as f64;
    for p in [0.01, 0.05, 0.2, 0.5, 0.9] {
        let s = t.with_progress(p).unwrap();
        let moved = keys.iter().filter(|k| s.route_with_fallback(k).unwrap().previous.is_some()).count() as f64
            / keys.len() as f64;
        let expect = p * total;
        let se = (expect * (1.0 - expect) / keys.len() as f64).sqrt();
        assert!((moved - expect).abs() < 6.0 * se + 1e-9, "p = {p}: moved {moved}, expected {expect}");
    }
}

/// A DOWN node's keys leave at once (already at p = 0) and are never read back from it.
#[test]
fn down_nodes_are_removed_at_once() {
    let nodes = [
        (Node::new("a"), NodeState::Up),
        (Node::new("b"), NodeState::Up),
        (Node::new("c"), NodeState::Down),
        (Node::new("d"), NodeState::Joining),
    ];
    for (algorithm, name) in ALGORITHMS.iter().enumerate() {
        let t = Transition::from_states(&nodes, |topo| Ok(build(algorithm, topo, None)), 0.0).unwrap();
        for key in keys(2_000, "down") {
            for p in [0.0, 0.5, 1.0] {
                let placed = t.with_progress(p).unwrap().route_with_fallback(&key).unwrap();
                assert_ne!(id(&t, placed.owner), b"c", "{name}");
                assert!(placed.previous.is_none_or(|q| id(&t, q) != b"c"), "{name}");
            }
        }
    }
}
