//! Hostile spec documents: arbitrary bytes as spec JSON through
//! `keyroute_bindings::Router::from_bytes`, under small limits (`common/limits.rs`), for every
//! algorithm and peer preset the registry knows.
//! Nothing may panic; a spec that builds must route every key inside its node list, agree
//! between single, batch, packed and by-hash routing, give distinct replicas led by the owner,
//! and round-trip through its canonical JSON to the same fingerprint and routes.

#![no_main]

use keyroute_bindings::{ErrorCode, Router};
use libfuzzer_sys::fuzz_target;

#[path = "common/limits.rs"]
mod limits;

fuzz_target!(|data: &[u8]| run(data));

fn run(data: &[u8]) {
    // The bytes as given: size, then UTF-8, then syntax, as every surface reads a spec.
    let router = match Router::from_bytes(data, &limits::FUZZ) {
        Ok(r) => r,
        Err(e) => {
            assert!(ErrorCode::ALL.contains(&e.code()));
            assert_ne!(e.code(), ErrorCode::Internal, "internal error for {:?}: {e}", String::from_utf8_lossy(data));
            return;
        }
    };
    check_router(&router, data);

    // The canonical form re-parses to the same router.
    let canonical = router.canonical_json();
    let again = Router::from_json(canonical).unwrap_or_else(|e| panic!("canonical JSON {canonical} refused: {e}"));
    assert_eq!(again.canonical_json(), canonical, "canonical JSON is not a fixed point");
    assert_eq!(again.fingerprint(), router.fingerprint());
    assert_eq!(again.fingerprint(), keyroute::hash::xxh3_64(canonical.as_bytes()));
    assert_eq!(again.version(), router.version());
    assert_eq!(again.algorithm(), router.algorithm());
    assert_eq!(again.len(), router.len());
    for i in 0..router.len() as u32 {
        assert_eq!(again.node_id(i), router.node_id(i));
    }
    let keys = derive_keys(data);
    for k in &keys {
        assert_eq!(again.route(k).ok(), router.route(k).ok(), "canonical router routes {k:?} differently");
    }
}

/// Keys derived from the input: the empty key, a fixed one, every 8-byte window start (u64be
/// jump keys), and chunks of the input itself.
fn derive_keys(data: &[u8]) -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = vec![Vec::new(), b"foo".to_vec(), b"user:{42}:x".to_vec()];
    keys.extend(data.chunks(8).take(8).map(<[u8]>::to_vec));
    keys.extend(data.chunks(5).rev().take(8).map(<[u8]>::to_vec));
    keys.extend((0..4).map(|i| format!("k{i}-{}", data.len()).into_bytes()));
    keys
}

fn check_router(router: &Router, data: &[u8]) {
    let n = router.len();
    assert!(n > 0);
    let keys = derive_keys(data);
    let mut owners: Vec<Option<u32>> = Vec::with_capacity(keys.len());
    for k in &keys {
        let owner = match router.route(k) {
            Ok(o) => {
                assert!((o as usize) < n, "route {o} outside {n} nodes");
                assert_eq!(router.route_id(k).ok(), router.node_id(o));
                Some(o)
            }
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::InvalidKey, "route: {e}");
                assert_eq!(router.route_id(k).map_err(|e| e.code()), Err(ErrorCode::InvalidKey));
                None
            }
        };
        owners.push(owner);

        // Replicas: distinct, inside the node list, led by the owner; a count that works
        // works for every smaller count, and one replica always works where replicas do.
        let mut refused_below: Option<usize> = None;
        // (Every node only for small topologies: a full walk of a large ring is slow.)
        for r in [0, 1, 2, 3, n.min(8), n.min(16), n + 1] {
            let mut out = vec![u32::MAX; r];
            match router.replicas(k, &mut out) {
                Ok(()) => {
                    assert!(out.iter().all(|&o| (o as usize) < n), "replica outside the nodes: {out:?}");
                    let mut sorted = out.clone();
                    sorted.sort_unstable();
                    sorted.dedup();
                    assert_eq!(sorted.len(), r, "replicas not distinct: {out:?}");
                    assert_eq!(out.first().copied(), owner.filter(|_| r > 0), "first replica is not the owner");
                    assert_eq!(router.replica_list(k, r).ok().as_deref(), Some(&out[..]));
                    assert!(refused_below.is_none_or(|b| b > r), "{r} replicas work but {refused_below:?} did not");
                }
                Err(e) => {
                    let c = e.code();
                    assert!(
                        matches!(
                            c,
                            ErrorCode::ReplicasUnsupported | ErrorCode::ReplicasExceedNodes | ErrorCode::InvalidKey
                        ),
                        "replicas: {e}"
                    );
                    assert!(owner.is_none() || c != ErrorCode::InvalidKey);
                    assert!(r > 1 || owner.is_none() || c == ErrorCode::ReplicasUnsupported, "{r} replicas: {e}");
                    refused_below = Some(refused_below.map_or(r, |b| b.min(r)));
                }
            }
        }

        // By hash: route(key) == route_hash(key_hash(key)).
        match router.key_hash(k) {
            Ok(x) => assert_eq!(router.route_hash(x).ok(), owner, "route_hash disagrees for {k:?}"),
            Err(e) => assert!(matches!(e.code(), ErrorCode::RouteHashUnsupported | ErrorCode::InvalidKey)),
        }
        if let Some(s) = router.slot(k) {
            let count = match router.core() {
                keyroute::Router::Slots(t) => t.slot_fn().count(),
                _ => keyroute::REDIS_SLOTS,
            };
            assert!(s < count, "slot {s} of {count}");
        }
    }

    // Batch and packed routing agree with single routing; a refused key is named.
    let first_bad = owners.iter().position(Option::is_none);
    let mut out = vec![u32::MAX; keys.len()];
    match router.route_batch(&keys, &mut out) {
        Ok(()) => {
            assert_eq!(first_bad, None);
            for (o, w) in out.iter().zip(&owners) {
                assert_eq!(Some(*o), *w, "batch disagrees");
            }
        }
        Err(e) => assert_eq!(e.key_index(), first_bad, "batch error {e}"),
    }
    let mut packed = Vec::new();
    let mut offsets = vec![0usize];
    for k in &keys {
        packed.extend_from_slice(k);
        offsets.push(packed.len());
    }
    let mut out2 = vec![u32::MAX; keys.len()];
    match router.route_packed(&packed, &offsets, &mut out2) {
        Ok(()) => assert_eq!(out2, out),
        Err(e) => assert_eq!(e.key_index(), first_bad, "packed error {e}"),
    }
    // A short buffer: buffer_too_small before any key is read, for every router (the
    // text-ring presets used to check their keys first).
    match router.route_batch(&keys, &mut out[..keys.len() - 1]) {
        Err(e) => assert_eq!(e.code(), ErrorCode::BufferTooSmall, "short batch: {e}"),
        Ok(()) => panic!("a batch into a short buffer succeeded"),
    }
}
