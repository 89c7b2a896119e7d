//! Analysis against brute force: exact and closed-form ownership and diffs agree with routing
//! real keys, and small cases come out exactly.
//!
//! Statistical bound: a share `s` measured over `k` keys has standard error
//! `sqrt(s(1−s)/k)`; every comparison allows 6 standard errors (plus 1e-12 for the float
//! sums), a false failure rate of about 2·10⁻⁹ per comparison. The keys are fixed (`probe:i`),
//! so each run sees the same sample.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;

use common::topology;
use keyroute::analysis::{Method, diff, ownership, plan};
use keyroute::{Jump, Maglev, Modulo, MultiProbe, Node, Rendezvous, Ring, Router, SlotFn, Slots, Topology};

const KEYS: u32 = 60_000;

fn sample_keys() -> Vec<Vec<u8>> {
    (0..KEYS).map(|i| format!("probe:{i}").into_bytes()).collect()
}

fn tolerance(share: f64) -> f64 {
    6.0 * (share * (1.0 - share) / f64::from(KEYS)).sqrt() + 1e-12
}

fn ids(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// Routes the sample through `a` and `b`: per-node shares of `b`, and (from id, to id) shares.
/// Shares of keys per (from id, to id) pair.
type Pairs = BTreeMap<(Vec<u8>, Vec<u8>), f64>;

fn brute_force(a: &Router, b: &Router) -> (Vec<f64>, Pairs, f64) {
    let keys = sample_keys();
    let mut own = vec![0u32; b.topology().len()];
    let mut pairs = Pairs::new();
    let mut moved = 0u32;
    let id = |r: &Router, i: u32| r.topology().node(i).unwrap().id().to_vec();
    for k in &keys {
        let (f, t) = (a.route(k).unwrap(), b.route(k).unwrap());
        own[t as usize] += 1;
        let (fi, ti) = (id(a, f), id(b, t));
        moved += u32::from(fi != ti);
        *pairs.entry((fi, ti)).or_default() += 1.0 / f64::from(KEYS);
    }
    (own.iter().map(|&c| f64::from(c) / f64::from(KEYS)).collect(), pairs, f64::from(moved) / f64::from(KEYS))
}

/// Checks ownership of `b` and diff(a, b) against the brute-force sample, flow by flow.
fn check(name: &str, a: &Router, b: &Router, method: Method) {
    let (own, pairs, moved) = brute_force(a, b);
    let exact_own = ownership(b);
    assert!((exact_own.shares.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{name}: shares sum to 1");
    for (i, (&e, &s)) in exact_own.shares.iter().zip(&own).enumerate() {
        assert!((e - s).abs() < tolerance(e), "{name}: node {i} owns {e} exactly, {s} sampled");
    }
    let d = diff(a, b).unwrap();
    assert_eq!(d.method, method, "{name}");
    assert!((d.moved - moved).abs() < tolerance(d.moved), "{name}: moved {} exactly, {moved} sampled", d.moved);
    assert!((d.flows.iter().map(|f| f.share).sum::<f64>() - 1.0).abs() < 1e-9, "{name}: flows sum to 1");
    let mut exact_pairs = Pairs::new();
    for f in &d.flows {
        let from = a.topology().node(f.from).unwrap().id().to_vec();
        let to = b.topology().node(f.to).unwrap().id().to_vec();
        *exact_pairs.entry((from, to)).or_default() += f.share;
    }
    for (pair, &share) in &exact_pairs {
        let s = pairs.get(pair).copied().unwrap_or(0.0);
        assert!((share - s).abs() < tolerance(share), "{name}: flow {pair:?}: {share} exactly, {s} sampled");
    }
    for (pair, &s) in &pairs {
        assert!(exact_pairs.contains_key(pair), "{name}: sampled flow {pair:?} ({s}) missing from the diff");
    }
}

#[test]
fn rings_maglev_and_slots_are_exact() {
    let t5 = Topology::uniform("n", 5).unwrap();
    let t6 = Topology::uniform("n", 6).unwrap();
    let ring = |t: &Topology, p: u32| -> Router { Ring::new(t.clone(), p).unwrap().into() };
    check("ring 5 → 6", &ring(&t5, 10), &ring(&t6, 10), Method::Exact);
    check("ring 6 → 5", &ring(&t6, 160), &ring(&t5, 160), Method::Exact);
    let w1 = topology(&ids("w", 4), &[1, 2, 3, 1]);
    let w2 = topology(&ids("w", 4), &[1, 2, 1, 4]);
    check("ring weights", &ring(&w1, 40), &ring(&w2, 40), Method::Exact);
    let maglev = |t: &Topology| -> Router { Maglev::new(t.clone(), 1031).unwrap().into() };
    check("maglev 5 → 6", &maglev(&t5), &maglev(&t6), Method::Exact);
    check("maglev weights", &maglev(&w1), &maglev(&w2), Method::Exact);
    let s5 = Slots::new(t5.clone(), SlotFn::Hash { count: 1024 }).unwrap();
    let s6 = s5.rebalance(t6.clone()).unwrap();
    check("slots 5 → 6", &s5.clone().into(), &s6.into(), Method::Exact);
    // Any mix over the same key hash is exact too.
    check("ring → maglev", &ring(&t5, 160), &maglev(&t6), Method::Exact);
    check("slots → ring", &s5.into(), &ring(&t5, 160), Method::Exact);
}

#[test]
fn jump_modulo_and_rendezvous_are_closed_form() {
    let u = |n: usize| Topology::uniform("n", n).unwrap();
    let jump = |n: usize| -> Router { Jump::new(u(n)).unwrap().into() };
    let modulo = |n: usize| -> Router { Modulo::new(u(n)).unwrap().into() };
    check("jump 3 → 4", &jump(3), &jump(4), Method::Expected);
    check("jump 7 → 4", &jump(7), &jump(4), Method::Expected);
    // Removing a node in the middle of a jump list renumbers the buckets after it.
    let middle = Topology::new(
        ids("n", 5).iter().enumerate().filter(|(i, _)| *i != 1).map(|(_, s)| Node::new(s)).collect::<Vec<_>>(),
    )
    .unwrap();
    check("jump remove middle", &jump(5), &Jump::new(middle).unwrap().into(), Method::Expected);
    check("modulo 3 → 4", &modulo(3), &modulo(4), Method::Expected);
    check("modulo 4 → 6", &modulo(4), &modulo(6), Method::Expected);
    check("modulo 10 → 11", &modulo(10), &modulo(11), Method::Expected);
    let hrw = |ids: &[String], w: &[u32]| -> Router { Rendezvous::new(topology(ids, w)).unwrap().into() };
    let base = ids("r", 5);
    let mut grown = base.clone();
    grown.push("r-new".into());
    check("rendezvous add", &hrw(&base, &[1, 2, 1, 3, 1]), &hrw(&grown, &[1, 2, 1, 3, 1, 2]), Method::Expected);
    check("rendezvous remove", &hrw(&grown, &[1, 2, 1, 3, 1, 2]), &hrw(&base, &[1, 2, 1, 3, 1]), Method::Expected);
    // Replace two nodes at once: flows from removed to added nodes, and some go to common ones.
    let swapped: Vec<String> = ["r0", "r1", "r2", "x", "y"].iter().map(|s| s.to_string()).collect();
    check("rendezvous swap", &hrw(&base, &[1, 2, 1, 3, 1]), &hrw(&swapped, &[1, 2, 1, 2, 2]), Method::Expected);
}

#[test]
fn what_has_no_closed_form_is_sampled_and_says_so() {
    let a: Router = MultiProbe::new(Topology::uniform("n", 4).unwrap(), 21).unwrap().into();
    let b: Router = MultiProbe::new(Topology::uniform("n", 5).unwrap(), 21).unwrap().into();
    assert!(matches!(diff(&a, &b).unwrap().method, Method::Sampled { .. }));
    assert!(matches!(ownership(&a).method, Method::Sampled { .. }));
    // A weight change of a common node has no closed form for rendezvous.
    let r1: Router = Rendezvous::new(topology(&ids("r", 3), &[1, 1, 1])).unwrap().into();
    let r2: Router = Rendezvous::new(topology(&ids("r", 3), &[1, 1, 2])).unwrap().into();
    assert!(matches!(diff(&r1, &r2).unwrap().method, Method::Sampled { .. }));
}

#[test]
fn small_cases_are_exact() {
    let u = |n: usize| Topology::uniform("n", n).unwrap();
    // The seeds' headline, in closed form: modulo 3 → 4 keeps only h ≡ same (mod 3 and 4).
    let m = diff(&Modulo::new(u(3)).unwrap().into(), &Modulo::new(u(4)).unwrap().into()).unwrap();
    assert!((m.moved - 0.75).abs() < 1e-12, "{}", m.moved);
    let m = diff(&Modulo::new(u(10)).unwrap().into(), &Modulo::new(u(11)).unwrap().into()).unwrap();
    assert!((m.moved - 100.0 / 110.0).abs() < 1e-12, "{}", m.moved);
    let j = diff(&Jump::new(u(3)).unwrap().into(), &Jump::new(u(4)).unwrap().into()).unwrap();
    assert!((j.moved - 0.25).abs() < 1e-12);
    assert!(j.flows.iter().all(|f| f.from == f.to || f.to == 3));
    // Rendezvous: a node of weight 2 joining weight 6 takes exactly 2/8, from everyone in turn.
    let hrw = |w: &[u32]| -> Router { Rendezvous::new(topology(&ids("r", w.len()), w)).unwrap().into() };
    let r = diff(&hrw(&[1, 2, 3]), &hrw(&[1, 2, 3, 2])).unwrap();
    assert!((r.moved - 0.25).abs() < 1e-12);
    let from_r2 = r.flows.iter().find(|f| f.from == 2 && f.to == 3).unwrap().share;
    assert!((from_r2 - 0.25 * 3.0 / 6.0).abs() < 1e-12);
    // A router against itself moves nothing, whatever the method.
    for r in [
        Router::from(Ring::new(u(4), 50).unwrap()),
        Maglev::new(u(4), 251).unwrap().into(),
        Jump::new(u(4)).unwrap().into(),
        Rendezvous::new(u(4)).unwrap().into(),
        Modulo::new(u(4)).unwrap().into(),
    ] {
        let d = diff(&r, &r).unwrap();
        assert_eq!(d.moved, 0.0);
        assert!(d.moved_arcs.is_empty());
    }
    // One node owns everything.
    let one: Router = Ring::new(u(1), 3).unwrap().into();
    assert_eq!(ownership(&one).shares, [1.0]);
    // Slots: 4 slots, 3 on the first node; balance relative to the fair share 1/2 each.
    let t = Topology::new([Node::new("x"), Node::new("y")].to_vec()).unwrap();
    let s: Router = Slots::from_owners(t.clone(), SlotFn::Hash { count: 4 }, [0, 0, 0, 1].to_vec()).unwrap().into();
    let own = ownership(&s);
    assert_eq!((own.shares.clone(), own.method), ([0.75, 0.25].to_vec(), Method::Exact));
    let bal = own.balance(&t);
    assert!((bal.cv - 0.5).abs() < 1e-15 && (bal.max_over_mean - 1.5).abs() < 1e-15);
    assert!((bal.min_over_mean - 0.5).abs() < 1e-15);
    // Weighted fair shares: a node of weight 3 owning 3/4 is perfectly balanced.
    let tw = topology(&ids("w", 2), &[3, 1]);
    let sw: Router = Slots::from_owners(tw.clone(), SlotFn::Hash { count: 4 }, [0, 0, 0, 1].to_vec()).unwrap().into();
    let bal = ownership(&sw).balance(&tw);
    assert!(bal.cv.abs() < 1e-15 && (bal.max_over_mean - 1.0).abs() < 1e-15);
}

/// Moved arcs are sorted, disjoint, cover exactly the moved share, and route as they say.
#[test]
fn moved_arcs_are_the_moved_hash_space() {
    let a = Ring::new(Topology::uniform("n", 5).unwrap(), 30).unwrap();
    let b = Ring::new(Topology::uniform("n", 6).unwrap(), 30).unwrap();
    let d = diff(&a.clone().into(), &b.clone().into()).unwrap();
    let mut covered = 0f64;
    let mut last_end: Option<u64> = None;
    for arc in &d.moved_arcs {
        assert!(arc.start <= arc.end && last_end.is_none_or(|e| e < arc.start));
        last_end = Some(arc.end);
        covered += (arc.end - arc.start) as f64 + 1.0;
        for h in [arc.start, arc.start / 2 + arc.end / 2, arc.end] {
            assert_eq!((a.route_hash(h), b.route_hash(h)), (arc.from, arc.to));
        }
    }
    assert!((covered / 2f64.powi(64) - d.moved).abs() < 1e-12);
    assert_eq!(d.moved_arcs.len() as f64 > 0.0, d.moved > 0.0);
}

/// The key-level plan lists exactly the sample keys whose owner changes.
#[test]
fn plan_lists_exactly_the_moved_keys() {
    let a: Router = Maglev::new(Topology::uniform("n", 4).unwrap(), 251).unwrap().into();
    let b: Router = Maglev::new(Topology::uniform("n", 5).unwrap(), 251).unwrap().into();
    let keys = sample_keys();
    let moves: Vec<_> = plan(&a, &b, keys.iter().map(Vec::as_slice)).map(Result::unwrap).collect();
    let (_, _, moved) = brute_force(&a, &b);
    assert_eq!(moves.len() as f64 / f64::from(KEYS), moved);
    for m in &moves {
        assert_eq!((a.route(m.key).unwrap(), b.route(m.key).unwrap()), (m.from, m.to));
    }
}
