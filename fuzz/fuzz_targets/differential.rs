//! Differential fuzzing: native routers built through `keyroute-bindings` specs against the
//! simple reference implementations of `common/reference.rs` (written from
//! conformance/SPEC.md), on arbitrary small topologies and keys. Owners, replica lists, key
//! hashes, slots and refusals must all agree.

#![no_main]

#[path = "common/reference.rs"]
mod reference;
#[path = "common/topo.rs"]
mod topo;

use arbitrary::Arbitrary;
use keyroute_bindings::{ErrorCode, Router};
use libfuzzer_sys::fuzz_target;
use reference::*;
use serde_json::{Map, Value, json};
use topo::{NodeIn, spec_json, topology_errors, uniform};

/// Small table sizes: mostly primes, some not (table_size_not_prime), 0 and 1.
const TABLE_SIZES: [u32; 40] = [
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 127, 131, 251,
    257, 509, 1021, 0, 1, 4, 9, 25, 49, 100, 1024,
];

#[derive(Arbitrary, Debug)]
enum Algo {
    /// `points_per_weight` 1..=8 (0: refused).
    Ring {
        points: u8,
    },
    Jump {
        u64be: Option<bool>,
    },
    Maglev {
        table: u8,
    },
    Slots {
        count: Option<u8>,
        explicit: Option<Explicit>,
    },
    Modulo,
    Rendezvous,
    MultiProbe {
        probes: Option<u8>,
    },
}

/// An explicit slot table: consecutive pieces from slot 0, each given to a node; `extra`
/// ranges (reversed, overlapping, past the end) make it invalid.
#[derive(Arbitrary, Debug)]
struct Explicit {
    pieces: Vec<(u8, u8)>,
    extra: Vec<(u8, u8, u8)>,
    /// Drop the `slots` field of one node (either every node lists slots or none does).
    drop: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum KeyIn {
    Bytes(Vec<u8>),
    U64(u64),
    Index(u16),
}

impl KeyIn {
    fn bytes(&self) -> Vec<u8> {
        match self {
            KeyIn::Bytes(b) => b.iter().copied().take(64).collect(),
            KeyIn::U64(x) => x.to_be_bytes().to_vec(),
            KeyIn::Index(i) => format!("key-{i}").into_bytes(),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    algo: Algo,
    nodes: Vec<NodeIn>,
    zones: bool,
    version: Option<u64>,
    keys: Vec<KeyIn>,
    replicas: Vec<u8>,
}

/// What the reference says a router of this spec does.
enum Model {
    Ring(RefRing),
    Jump { u64be: bool },
    Maglev(Vec<u32>),
    Slots(Vec<u32>),
    Modulo,
    Rendezvous,
    MultiProbe(RefMultiProbe),
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    let nodes_in: Vec<NodeIn> = input.nodes.iter().take(24).cloned().collect();
    let mut nodes: Vec<RefNode> = nodes_in.iter().map(NodeIn::reference).collect();
    if !input.zones {
        for n in &mut nodes {
            n.zone = None;
        }
    }
    let mut node_json: Vec<Map<String, Value>> = nodes_in.iter().map(|n| n.json(input.zones)).collect();
    let n = nodes.len();
    let mut params = Map::new();
    let mut errors: Vec<&'static str> = topology_errors(&nodes);
    let total_weight: u64 = nodes.iter().map(|n| u64::from(n.weight)).sum();
    let positive = nodes.iter().filter(|n| n.weight > 0).count();
    if input.version.is_some_and(|v| v > (1 << 53) - 1) {
        errors.push("invalid_spec");
    }

    // Each algorithm's own refusals, then (when none applies) its reference model.
    let build_ok = |errors: &Vec<&str>| errors.is_empty();
    let (name, model): (&str, Option<Model>) = match &input.algo {
        Algo::Ring { points } => {
            let ppw = u32::from(points % 9);
            params.insert("points_per_weight".into(), json!(ppw));
            if ppw == 0 {
                errors.push("invalid_parameter");
            }
            ("ring", build_ok(&errors).then(|| Model::Ring(RefRing::new(&nodes, ppw))))
        }
        Algo::Jump { u64be } => {
            if let Some(b) = u64be {
                params.insert("key_hash".into(), json!(if *b { "u64be" } else { "xxh3" }));
            }
            if !uniform(&nodes) {
                errors.push("weights_unsupported");
            }
            ("jump", build_ok(&errors).then(|| Model::Jump { u64be: *u64be == Some(true) }))
        }
        Algo::Maglev { table } => {
            let m = TABLE_SIZES[*table as usize % TABLE_SIZES.len()];
            params.insert("table_size".into(), json!(m));
            if m > (1 << 26) - 5 || (m as usize) < positive {
                errors.push("table_size_out_of_range");
            }
            if !is_prime(u64::from(m)) {
                errors.push("table_size_not_prime");
            }
            ("maglev", build_ok(&errors).then(|| Model::Maglev(maglev_table(&nodes, u64::from(m)))))
        }
        Algo::Slots { count, explicit } => {
            let s = count.map_or(1024, |c| u32::from(c % 65));
            if count.is_some() {
                params.insert("count".into(), json!(s));
            }
            if s == 0 {
                errors.push("table_size_out_of_range");
            }
            let mut owners = None;
            match explicit {
                None => {
                    if build_ok(&errors) {
                        owners = Some(slots_even(&nodes, u64::from(s)));
                    }
                }
                Some(x) => {
                    let mut ranges: Vec<Vec<[u32; 2]>> = vec![Vec::new(); n];
                    let mut at = 0u32;
                    for &(node, len) in &x.pieces {
                        if at >= s || n == 0 {
                            break;
                        }
                        let last = (at + u32::from(len % 16)).min(s - 1);
                        ranges[node as usize % n].push([at, last]);
                        at = last + 1;
                    }
                    // Mostly complete: the remainder to one node.
                    if at < s && n > 0 && x.extra.len() % 4 != 3 {
                        ranges[at as usize % n].push([at, s - 1]);
                    }
                    for &(node, first, last) in x.extra.iter().take(3) {
                        if n > 0 {
                            ranges[node as usize % n].push([u32::from(first % 70), u32::from(last % 70)]);
                        }
                    }
                    let dropped = x.drop.filter(|_| n > 1).map(|d| d as usize % n);
                    for (i, (j, r)) in node_json.iter_mut().zip(&ranges).enumerate() {
                        if Some(i) != dropped {
                            j.insert("slots".into(), json!(r));
                        }
                    }
                    if dropped.is_some() {
                        errors.push("invalid_parameter");
                    } else {
                        match slots_explicit(&ranges, u64::from(s)) {
                            Some(o) if s > 0 => {
                                if build_ok(&errors) {
                                    owners = Some(o);
                                }
                            }
                            Some(_) => {}
                            None => errors.push("invalid_parameter"),
                        }
                    }
                }
            }
            ("slots", owners.filter(|_| errors.is_empty()).map(Model::Slots))
        }
        Algo::Modulo => {
            if !uniform(&nodes) {
                errors.push("weights_unsupported");
            }
            ("modulo", build_ok(&errors).then_some(Model::Modulo))
        }
        Algo::Rendezvous => ("rendezvous", build_ok(&errors).then_some(Model::Rendezvous)),
        Algo::MultiProbe { probes } => {
            let k = match probes {
                None => 21,
                Some(41) => 1024,
                Some(42) => 1025,
                Some(p) => u32::from(p % 41),
            };
            if probes.is_some() {
                params.insert("probes".into(), json!(k));
            }
            if !uniform(&nodes) {
                errors.push("weights_unsupported");
            }
            if k == 0 || k > 1024 {
                errors.push("invalid_parameter");
            }
            ("multi-probe", build_ok(&errors).then(|| Model::MultiProbe(RefMultiProbe::new(&nodes, k))))
        }
    };
    let _ = total_weight;

    let spec = spec_json(name, params, node_json.into_iter().map(Value::Object).collect(), input.version);
    let built = Router::from_json(&spec);
    let router = match built {
        Err(e) => {
            assert!(
                errors.contains(&e.code().name()),
                "spec {spec}\nrefused with {} ({}) but the reference expects {errors:?}",
                e.code().name(),
                e.message()
            );
            return;
        }
        Ok(r) => {
            assert!(errors.is_empty(), "spec {spec}\nbuilt, but the reference expects one of {errors:?}");
            r
        }
    };
    assert_eq!(router.len(), n);
    let Some(model) = model else { return };

    let mut keys: Vec<Vec<u8>> = input.keys.iter().take(32).map(KeyIn::bytes).collect();
    keys.push(Vec::new());
    keys.push(b"foo".to_vec());
    for (ki, key) in keys.iter().enumerate() {
        let hk = h(key);
        // The owner (None: invalid_key), candidates for replicas (None: replicas_unsupported),
        // the number of nodes that can own keys, the key hash (None: route_hash_unsupported)
        // and the slot.
        let (owner, candidates, available, key_hash, slot): (
            Option<u32>,
            Option<Vec<u32>>,
            usize,
            Option<u64>,
            Option<u32>,
        ) = match &model {
            Model::Ring(r) => (Some(r.route_hash(hk)), Some(r.candidates(hk)), r.available(), Some(hk), None),
            Model::Jump { u64be } => {
                let input =
                    if *u64be { <[u8; 8]>::try_from(key.as_slice()).ok().map(u64::from_be_bytes) } else { Some(hk) };
                (input.map(|x| jump(x, n as i32) as u32), None, n, input, None)
            }
            Model::Maglev(t) => {
                let s = reduce(hk, t.len() as u64);
                (Some(t[s as usize]), Some(slot_candidates(t, s)), distinct(t), Some(hk), None)
            }
            Model::Slots(o) => {
                let s = reduce(hk, o.len() as u64);
                (Some(o[s as usize]), Some(slot_candidates(o, s)), distinct(o), None, Some(s as u32))
            }
            Model::Modulo => (Some((hk % n as u64) as u32), None, n, Some(hk), None),
            Model::Rendezvous => (
                Some(rendezvous_route(&nodes, key)),
                Some(rendezvous_candidates(&nodes, key)),
                nodes.iter().filter(|x| x.weight > 0).count(),
                None,
                None,
            ),
            Model::MultiProbe(m) => (Some(m.route(key)), Some(m.candidates(key)), n, None, None),
        };
        match (router.route(key), owner) {
            (Ok(got), Some(want)) => {
                assert_eq!(got, want, "spec {spec}\nkey {key:?}: owner {got}, reference {want}");
                assert_eq!(router.route_id(key).ok(), router.node_id(want));
            }
            (Err(e), None) => assert_eq!(e.code(), ErrorCode::InvalidKey, "spec {spec}\nkey {key:?}"),
            (got, want) => panic!("spec {spec}\nkey {key:?}: route {got:?}, reference {want:?}"),
        }
        match router.key_hash(key) {
            Ok(x) => assert_eq!(Some(x), key_hash, "spec {spec}\nkey {key:?}: key hash"),
            Err(e) => match e.code() {
                ErrorCode::RouteHashUnsupported => {
                    assert!(matches!(model, Model::Rendezvous | Model::MultiProbe(_) | Model::Slots(_)))
                }
                ErrorCode::InvalidKey => assert!(owner.is_none()),
                c => panic!("spec {spec}\nkey_hash: {c:?}"),
            },
        }
        if let (Some(x), Some(want)) = (key_hash, owner) {
            assert_eq!(router.route_hash(x).ok(), Some(want), "spec {spec}\nroute_hash of key {key:?}");
        }
        assert_eq!(router.slot(key), slot, "spec {spec}\nslot of key {key:?}");

        let r_sel = input.replicas.get(ki).copied().unwrap_or(ki as u8);
        for r in [usize::from(r_sel) % (n + 2), 1, n] {
            let mut out = vec![u32::MAX; r];
            let got = router.replicas(key, &mut out);
            match &candidates {
                None => {
                    let code = got.expect_err("jump and modulo have no replicas").code();
                    assert_eq!(code, ErrorCode::ReplicasUnsupported, "spec {spec}");
                }
                Some(c) => match (got, replica_rule(&nodes, c, r, available)) {
                    (Ok(()), Ok(want)) => {
                        assert_eq!(out, want, "spec {spec}\nkey {key:?}: {r} replicas");
                        if r > 0 {
                            assert_eq!(Some(out[0]), owner, "spec {spec}\nfirst replica is not the owner");
                        }
                    }
                    (Err(e), Err(())) => assert_eq!(e.code(), ErrorCode::ReplicasExceedNodes, "spec {spec}"),
                    (got, want) => {
                        panic!("spec {spec}\nkey {key:?}: {r} replicas: {got:?} {out:?}, reference {want:?}")
                    }
                },
            }
        }
    }

    // The batch path (the ring's pipelined lanes need more than 8 keys) agrees key by key; a
    // refused key is reported at its position.
    let mut out = vec![u32::MAX; keys.len()];
    match router.route_batch(&keys, &mut out) {
        Ok(()) => {
            for (k, &o) in keys.iter().zip(&out) {
                assert_eq!(router.route(k).ok(), Some(o), "spec {spec}\nbatch disagrees for {k:?}");
            }
        }
        Err(e) => {
            let first_bad = keys.iter().position(|k| router.route(k).is_err());
            assert_eq!(e.key_index(), first_bad, "spec {spec}\nbatch error {e}");
        }
    }
    if keys.len() > 1 {
        let short = router.route_batch(&keys, &mut out[..keys.len() - 1]);
        assert_eq!(short.map_err(|e| e.code()), Err(ErrorCode::BufferTooSmall));
    }
}
