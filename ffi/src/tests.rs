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
    let listed: Vec<(String, u32)> = header
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
