//! Rust-side tests of the boundary: what C tests cannot see (allocations, panics) and the
//! committed header against the error table.
// The `unsafe` blocks below are calls of the C ABI as C makes them, each with the arguments
// its `# Safety` section names (Miri checks that they are).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
#![allow(clippy::undocumented_unsafe_blocks)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CStr;

use keyroute_bindings::ErrorCode;

use crate::boundary::{call, kr_last_error_message, kr_status_name, kr_version, kr_version_compatible};
use crate::router::{kr_replicas, kr_route, kr_route_batch, kr_route_id, kr_router_free, kr_router_from_json};
use crate::{KrKey, KrRouter};

/// Counts the allocations made by the current thread (tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed to `System` unchanged; this only counts bytes or calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn router(json: &str) -> *mut KrRouter {
    let mut r = std::ptr::null_mut();
    assert_eq!(unsafe { kr_router_from_json(json.as_ptr().cast(), json.len(), &mut r) }, 0, "{json}");
    r
}

#[test]
fn lookups_allocate_nothing() {
    let r = router(r#"{"algorithm":"ring","nodes":[{"id":"a","zone":"x"},{"id":"b","zone":"y"},{"id":"c"}]}"#);
    let keys: Vec<String> = (0..1000).map(|i| format!("user:{i}")).collect();
    let spans: Vec<KrKey> = keys.iter().map(|k| KrKey { ptr: k.as_ptr(), len: k.len() }).collect();
    let mut out = vec![0u32; keys.len()];
    let mut replicas = [0u32; 3];
    let before = allocations();
    for k in &keys {
        let (mut node, mut id, mut len) = (0u32, std::ptr::null(), 0usize);
        assert_eq!(unsafe { kr_route(r, k.as_ptr(), k.len(), &mut node) }, 0);
        assert_eq!(unsafe { kr_route_id(r, k.as_ptr(), k.len(), &mut id, &mut len) }, 0);
        assert_eq!(unsafe { kr_replicas(r, k.as_ptr(), k.len(), replicas.as_mut_ptr(), 3) }, 0);
    }
    assert_eq!(unsafe { kr_route_batch(r, spans.as_ptr(), spans.len(), out.as_mut_ptr(), out.len()) }, 0);
    assert_eq!(allocations(), before, "a successful lookup allocated");
    unsafe { kr_router_free(r) };
}

/// Routing through a live view, loading a snapshot, routing with it and reading its ids,
/// version and fingerprint allocate nothing, plain or during a rollout, as their docs say.
#[test]
fn live_view_lookups_allocate_nothing() {
    use crate::view::{
        kr_live_view_free, kr_live_view_load, kr_live_view_new, kr_live_view_publish, kr_live_view_route, kr_view_ends,
        kr_view_fingerprint_text, kr_view_free, kr_view_node_id, kr_view_route, kr_view_route_with_fallback,
        kr_view_version,
    };
    let a = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#;
    let b = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#;
    let docs = [
        format!(r#"{{"version":1,"spec":{a}}}"#),
        format!(r#"{{"version":2,"spec":{a},"rollout":{{"to":{b},"progress":0.5}}}}"#),
    ];
    let mut live = std::ptr::null_mut();
    assert_eq!(unsafe { kr_live_view_new(std::ptr::null(), 0, &mut live) }, 0);
    for doc in &docs {
        let mut version = 0u64;
        assert_eq!(unsafe { kr_live_view_publish(live, doc.as_ptr(), doc.len(), &mut version) }, 0);
        let keys: Vec<String> = (0..1000).map(|i| format!("user:{i}")).collect();
        // A thread's first route registers its reader's destructor (glibc allocates for that).
        let (mut node, mut v) = (0u32, 0u64);
        assert_eq!(unsafe { kr_live_view_route(live, keys[0].as_ptr(), keys[0].len(), &mut node, &mut v) }, 0);
        let before = allocations();
        for k in &keys {
            let (mut node, mut v, mut view) = (0u32, 0u64, std::ptr::null_mut());
            let (mut id, mut len, mut text) = (std::ptr::null(), 0usize, [0 as std::ffi::c_char; 17]);
            let mut placement = crate::KrPlacement::default();
            let mut ends = crate::KrEnds {
                from_id: std::ptr::null(),
                from_id_len: 0,
                to_id: std::ptr::null(),
                to_id_len: 0,
                has_to: false,
            };
            assert_eq!(unsafe { kr_live_view_route(live, k.as_ptr(), k.len(), &mut node, &mut v) }, 0);
            assert_eq!(v, version);
            assert_eq!(unsafe { kr_live_view_load(live, &mut view) }, 0);
            assert_eq!(unsafe { kr_view_route(view, k.as_ptr(), k.len(), &mut node) }, 0);
            assert_eq!(unsafe { kr_view_route_with_fallback(view, k.as_ptr(), k.len(), &mut placement) }, 0);
            assert_eq!(unsafe { kr_view_ends(view, k.as_ptr(), k.len(), &mut ends) }, 0);
            assert_eq!(unsafe { kr_view_node_id(view, node, &mut id, &mut len) }, 0);
            assert_eq!(unsafe { kr_view_version(view, &mut v) }, 0);
            assert_eq!(unsafe { kr_view_fingerprint_text(view, text.as_mut_ptr()) }, 0);
            unsafe { kr_view_free(view) };
        }
        assert_eq!(allocations(), before, "a live-view lookup allocated ({doc})");
    }
    unsafe { kr_live_view_free(live) };
}

/// `kr_live_view_route` reads through a per-thread reader of the last live view it routed
/// through: switching between live views, publishing, freeing one and creating another (which
/// may reuse its address) and routing from new threads all give the view in effect's answer.
#[test]
fn live_view_route_follows_every_view_and_handle() {
    use crate::view::{kr_live_view_free, kr_live_view_new, kr_live_view_publish, kr_live_view_route};
    // Views of `n` nodes named `{tag}0`, `{tag}1`, ...
    let spec = |(n, tag): (usize, &str)| {
        let nodes: Vec<String> = (0..n).map(|i| format!(r#"{{"id":"{tag}{i}"}}"#)).collect();
        format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))
    };
    let expected = |view: (usize, &str)| {
        let r = router(&spec(view));
        let mut node = 0u32;
        assert_eq!(unsafe { kr_route(r, b"user:7".as_ptr(), 6, &mut node) }, 0);
        unsafe { kr_router_free(r) };
        node
    };
    let publish = |live: *mut crate::KrLiveView, view: (usize, &str), version: u64| {
        let doc = format!(r#"{{"version":{version},"spec":{}}}"#, spec(view));
        let mut applied = 0u64;
        assert_eq!(unsafe { kr_live_view_publish(live, doc.as_ptr(), doc.len(), &mut applied) }, 0);
    };
    let new_live = |view: (usize, &str), version: u64| {
        let mut live = std::ptr::null_mut();
        assert_eq!(unsafe { kr_live_view_new(std::ptr::null(), 0, &mut live) }, 0);
        publish(live, view, version);
        live
    };
    let route = |live: *mut crate::KrLiveView| {
        let (mut node, mut version) = (0u32, 0u64);
        assert_eq!(unsafe { kr_live_view_route(live, b"user:7".as_ptr(), 6, &mut node, &mut version) }, 0);
        (node, version)
    };
    // The views in the order they are routed, each answering differently from the one before,
    // so that a reader left on the previous view cannot pass.
    let views = [(3, "a"), (40, "b"), (17, "a"), (5, "c"), (9, "d"), (23, "e")];
    let owners: Vec<u32> = views.into_iter().map(expected).collect();
    assert!(owners.windows(2).all(|w| w[0] != w[1]), "{owners:?}");
    let (a, b) = (new_live(views[0], 1), new_live(views[1], 5));
    for _ in 0..3 {
        assert_eq!(route(a), (owners[0], 1));
        assert_eq!(route(b), (owners[1], 5));
    }
    publish(a, views[2], 2);
    assert_eq!(route(a), (owners[2], 2), "the cached reader follows a publish");
    unsafe { kr_live_view_free(a) };
    for (i, &view) in views.iter().enumerate().skip(3) {
        let c = new_live(view, 1);
        assert_eq!(route(c), (owners[i], 1), "a live view made after another was freed");
        unsafe { kr_live_view_free(c) };
    }
    // More live views than a thread keeps readers of, routed in turn: each answers for itself.
    // (Node names picked so that each answers differently from the one before it, the last from
    // the first.)
    let tags: Vec<String> = (0..64).map(|i| format!("m{i}-")).collect();
    let (mut many, mut many_owners): (Vec<(usize, &str)>, Vec<u32>) = (vec![], vec![]);
    for tag in &tags {
        let owner = expected((5, tag));
        if many_owners.last() != Some(&owner) && (many.len() < 5 || many_owners.first() != Some(&owner)) {
            many.push((5, tag));
            many_owners.push(owner);
        }
        if many.len() == 6 {
            break;
        }
    }
    assert_eq!(many.len(), 6);
    let lives: Vec<_> = many.iter().enumerate().map(|(i, &view)| new_live(view, i as u64 + 1)).collect();
    for _ in 0..3 {
        for (i, &live) in lives.iter().enumerate() {
            assert_eq!(route(live), (many_owners[i], i as u64 + 1));
        }
    }
    for live in lives {
        unsafe { kr_live_view_free(live) };
    }
    let shared = b as usize;
    let answers: Vec<(u32, u64)> = (0..4)
        .map(|_| std::thread::spawn(move || route(shared as *mut crate::KrLiveView)))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("a routing thread"))
        .collect();
    assert!(answers.iter().all(|&x| x == (owners[1], 5)), "{answers:?}");
    unsafe { kr_live_view_free(b) };
}

/// Routing through a transition and routing by hash allocate nothing either, as their docs say
/// (ring and jump, at every progress the test sets; setting a progress is allowed to).
#[test]
fn transition_and_hash_lookups_allocate_nothing() {
    use crate::hashed::{kr_key_hash, kr_route_hash, kr_route_hash_batch};
    use crate::transition::{
        kr_transition_free, kr_transition_has_cut_over, kr_transition_new, kr_transition_route,
        kr_transition_route_with_fallback, kr_transition_set_progress,
    };
    let a = router(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#);
    let b = router(r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#);
    let jump = router(r#"{"algorithm":"jump","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#);
    let mut t = std::ptr::null_mut();
    assert_eq!(unsafe { kr_transition_new(a, b, 0.0, &mut t) }, 0);
    let keys: Vec<String> = (0..1000).map(|i| format!("user:{i}")).collect();
    let mut hashes = vec![0u64; keys.len()];
    let mut out = vec![0u32; keys.len()];
    let mut cut_over = 0;
    for progress in [0.0, 0.5, 1.0] {
        assert_eq!(unsafe { kr_transition_set_progress(t, progress) }, 0);
        let before = allocations();
        for (k, h) in keys.iter().zip(hashes.iter_mut()) {
            let (mut node, mut cut) = (0u32, false);
            let mut placed = crate::KrPlacement::default();
            assert_eq!(unsafe { kr_transition_route(t, k.as_ptr(), k.len(), &mut node) }, 0);
            assert_eq!(unsafe { kr_transition_route_with_fallback(t, k.as_ptr(), k.len(), &mut placed) }, 0);
            assert_eq!(unsafe { kr_transition_has_cut_over(t, k.as_ptr(), k.len(), &mut cut) }, 0);
            cut_over += usize::from(placed.has_previous);
            for r in [a, jump] {
                assert_eq!(unsafe { kr_key_hash(r, k.as_ptr(), k.len(), h) }, 0);
                assert_eq!(unsafe { kr_route_hash(r, *h, &mut node) }, 0);
            }
        }
        for r in [a, jump] {
            assert_eq!(
                unsafe { kr_route_hash_batch(r, hashes.as_ptr(), hashes.len(), out.as_mut_ptr(), out.len()) },
                0
            );
        }
        assert_eq!(allocations(), before, "a successful lookup allocated at progress {progress}");
    }
    assert!(cut_over > 0, "no key cut over: the transition was not exercised");
    unsafe {
        kr_transition_free(t);
        kr_router_free(a);
        kr_router_free(b);
        kr_router_free(jump);
    }
}

/// `kr_replicas` allocates exactly when its doc says: never for rings, Maglev and slot tables
/// with up to 32 replicas; one scratch ranking for the algorithms that rank every node; one
/// scratch set above 32 replicas. Every algorithm and preset that has replicas is covered.
#[test]
fn replicas_allocate_only_where_documented() {
    let ranked = ["rendezvous", "multi-probe", "pymemcache-rendezvous"];
    let mut covered = 0;
    for algorithm in keyroute_bindings::registry::algorithms().filter(|a| a.supports().is_ok_and(|s| s.replicas)) {
        // The algorithm's own example, with 40 nodes.
        let mut spec: serde_json::Value = serde_json::from_str(algorithm.example).unwrap();
        let host = algorithm.node_fields.contains(&keyroute_bindings::registry::NodeField::Host);
        spec["nodes"] = (0..40)
            .map(|i| match host {
                true => serde_json::json!({ "id": format!("10.0.0.{i}:11211"), "host": format!("10.0.0.{i}"), "port": 11211 }),
                false => serde_json::json!({ "id": format!("10.0.0.{i}") }),
            })
            .collect();
        let r = router(&spec.to_string());
        for count in [1usize, 3, 32, 33, 40] {
            let mut out = vec![0u32; count];
            let keys: Vec<String> = (0..100).map(|i| format!("user:{i}")).collect();
            let before = allocations();
            for k in &keys {
                assert_eq!(unsafe { kr_replicas(r, k.as_ptr(), k.len(), out.as_mut_ptr(), count) }, 0);
            }
            let per_call = (allocations() - before) / 100;
            let expected = u64::from(ranked.contains(&algorithm.name)) + u64::from(count > 32);
            assert_eq!(per_call, expected, "{} with {count} replicas", algorithm.name);
        }
        unsafe { kr_router_free(r) };
        covered += 1;
    }
    assert!(covered >= 10, "only {covered} algorithms with replicas");
}

#[test]
fn a_panic_becomes_internal_with_a_message() {
    let status = call(|| panic!("boom at the boundary"));
    assert_eq!(status, ErrorCode::Internal.code());
    let message = unsafe { CStr::from_ptr(kr_last_error_message()) }.to_str().unwrap();
    assert!(message.contains("boom at the boundary"), "{message}");
    assert_eq!(unsafe { CStr::from_ptr(kr_status_name(status)) }.to_str().unwrap(), "internal");
}

#[test]
fn the_committed_header_lists_every_code_of_the_error_table() {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/keyroute.h")).unwrap();
    let statuses = header.split("enum kr_status_code {").nth(1).and_then(|rest| rest.split("};").next()).unwrap();
    let listed: Vec<(String, u32)> = statuses
        .lines()
        .filter_map(|l| l.trim().strip_prefix("KR_"))
        .filter_map(|l| {
            let (name, value) = l.trim_end_matches(',').split_once(" = ")?;
            Some((name.to_ascii_lowercase(), value.parse().ok()?))
        })
        .collect();
    let mut want: Vec<(String, u32)> = vec![("ok".into(), 0)];
    want.extend(ErrorCode::ALL.iter().map(|c| (c.name().to_string(), c.code())));
    assert_eq!(listed, want, "include/keyroute.h is stale: rebuild keyroute-ffi and commit it");
    for (name, code) in &want {
        let got = unsafe { CStr::from_ptr(kr_status_name(*code)) }.to_str().unwrap();
        assert_eq!(got, name);
    }
}

#[test]
fn the_header_and_the_library_have_the_workspace_version() {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/keyroute.h")).unwrap();
    let define = |name: &str| {
        let prefix = format!("#define KEYROUTE_VERSION_{name} ");
        header
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("no {prefix}"))
            .to_string()
    };
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(define("STRING"), format!("\"{version}\""), "include/keyroute.h is stale: run cargo xtask codegen");
    let [major, minor, patch] = ["MAJOR", "MINOR", "PATCH"].map(|n| define(n).parse::<u32>().unwrap());
    assert_eq!(format!("{major}.{minor}.{patch}"), version.split('-').next().unwrap());
    assert_eq!(unsafe { CStr::from_ptr(kr_version()) }.to_str().unwrap(), version);

    // The rule the SONAME follows (ffi/build.rs): same 0.MINOR (or MAJOR from 1.0), not older.
    assert!(kr_version_compatible(major, minor, patch));
    assert!(!kr_version_compatible(major + 1, minor, patch));
    assert!(!kr_version_compatible(major, minor, patch + 1));
    if major == 0 {
        assert!(!kr_version_compatible(0, minor + 1, 0));
        assert!(minor == 0 || !kr_version_compatible(0, minor - 1, 0));
    } else {
        assert!(!kr_version_compatible(major, minor + 1, 0));
        assert!(kr_version_compatible(major, 0, 0));
    }
    assert!(patch == 0 || kr_version_compatible(major, minor, patch - 1));
}

/// `kr_router_capabilities` says what every algorithm's and preset's example router does, as the
/// core decides it, and each claim holds when the C functions it names are called: route_hash
/// exactly when `kr_key_hash` works, replicas exactly when `kr_replicas` does, slots exactly
/// when `kr_slot` finds one, and ownership measured as `analysis` says.
#[test]
fn capabilities_match_what_the_router_does() {
    use crate::analysis::kr_ownership;
    use crate::capabilities::kr_router_capabilities;
    use crate::hashed::kr_key_hash;
    use crate::router::kr_slot;
    use crate::{KrAnalysisMethod, KrCapabilities, KrOwnershipSummary, KrWeights};
    let mut seen = std::collections::HashSet::new();
    for algorithm in keyroute_bindings::registry::algorithms() {
        let r = router(algorithm.example);
        let mut c = KrCapabilities::default();
        assert_eq!(unsafe { kr_router_capabilities(r, &mut c) }, 0, "{}", algorithm.name);
        let core = keyroute_bindings::Router::from_json(algorithm.example).unwrap().capabilities();
        assert_eq!(
            c.weights,
            match core.weights {
                keyroute_bindings::core::Weights::Honoured => KrWeights::Honoured,
                keyroute_bindings::core::Weights::Refused => KrWeights::Refused,
                keyroute_bindings::core::Weights::Ignored => KrWeights::Ignored,
            },
            "{}",
            algorithm.name
        );
        assert_eq!((c.replicas, c.route_hash, c.rebalance), (core.replicas, core.route_hash, core.rebalance));
        assert_eq!((c.slots, c.points_per_weight), (core.slots.unwrap_or(0), core.points_per_weight.unwrap_or(0)));
        let key = b"\0\0\0\0\0\0\0\x07"; // 8 bytes, which every algorithm and preset takes
        let mut hash = 0u64;
        let hashed = unsafe { kr_key_hash(r, key.as_ptr(), key.len(), &mut hash) };
        assert_eq!(hashed == 0, c.route_hash, "{}: route_hash", algorithm.name);
        let mut nodes = [0u32; 1];
        let replicas = unsafe { kr_replicas(r, key.as_ptr(), key.len(), nodes.as_mut_ptr(), 1) };
        assert_eq!(replicas != ErrorCode::ReplicasUnsupported.code(), c.replicas, "{}: replicas", algorithm.name);
        let (mut has, mut slot) = (false, 0u32);
        assert_eq!(unsafe { kr_slot(r, key.as_ptr(), key.len(), &mut has, &mut slot) }, 0);
        assert_eq!(has, c.slots > 0, "{}: slots", algorithm.name);
        assert!(!has || slot < c.slots, "{}: slot {slot} of {}", algorithm.name, c.slots);
        let mut shares = vec![0.0; 64];
        let mut own = KrOwnershipSummary::default();
        assert_eq!(unsafe { kr_ownership(r, shares.as_mut_ptr(), shares.len(), &mut own) }, 0);
        assert_eq!((own.method, own.sample_keys), (c.analysis, c.sample_keys), "{}: analysis", algorithm.name);
        assert_eq!(c.sample_keys > 0, c.analysis == KrAnalysisMethod::Sampled);
        seen.insert((c.analysis as u32, c.weights as u32, c.route_hash, c.replicas, c.slots > 0));
        unsafe { kr_router_free(r) };
    }
    // The corpus of examples reaches every method and every answer of each flag.
    let methods: std::collections::HashSet<u32> = seen.iter().map(|s| s.0).collect();
    let weights: std::collections::HashSet<u32> = seen.iter().map(|s| s.1).collect();
    assert_eq!(methods.len(), 4, "{seen:?}");
    assert_eq!(weights.len(), 3, "{seen:?}");
    type Seen = (u32, u32, bool, bool, bool);
    let flags: [fn(&Seen) -> bool; 3] = [|s| s.2, |s| s.3, |s| s.4];
    for flag in flags {
        assert!(seen.iter().any(flag) && !seen.iter().all(flag), "{seen:?}");
    }
    assert_eq!(unsafe { kr_router_capabilities(std::ptr::null(), &mut KrCapabilities::default()) }, 18);
}
