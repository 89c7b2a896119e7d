//! Every entry point of the C ABI, called as C would call it: with valid spans and handles, and
//! with the NULLs, empty spans and short buffers its contract allows. Small on purpose: these
//! are the tests `make miri` runs under Miri, which checks every `unsafe` block they reach
//! (pointer reads and writes, handle reference counts, slices from raw parts, the thread-local
//! error message, the shared router's swap between threads) for undefined behaviour.
// The `unsafe` blocks below are calls of the C ABI as C makes them, each with the arguments
// its `# Safety` section names (Miri checks that they are).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
#![allow(clippy::undocumented_unsafe_blocks)]

use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

use keyroute_bindings::ErrorCode;

use crate::boundary::{kr_last_error_message, kr_status_name, kr_version};
use crate::builder::{
    kr_builder_add_node, kr_builder_add_node_slots, kr_builder_build, kr_builder_free, kr_builder_new,
    kr_builder_set_node_address, kr_builder_set_node_name, kr_builder_set_params_json, kr_builder_set_version,
};
use crate::router::{
    kr_replicas, kr_route, kr_route_batch, kr_route_id, kr_route_utf16, kr_router_canonical_json, kr_router_clone,
    kr_router_fingerprint, kr_router_free, kr_router_from_json, kr_router_from_json_with_limits, kr_router_node_count,
    kr_router_node_id, kr_router_version, kr_slot,
};
use crate::shared::{kr_shared_router_free, kr_shared_router_load, kr_shared_router_new, kr_shared_router_store};
use crate::{KrKey, KrRouter, KrSharedRouter};

const OK: u32 = 0;

fn code(c: ErrorCode) -> u32 {
    c.code()
}

fn from_json(json: &str) -> *mut KrRouter {
    let mut r = null_mut();
    assert_eq!(unsafe { kr_router_from_json(json.as_ptr().cast(), json.len(), &mut r) }, OK);
    r
}

/// The text of a span handed back by the library.
fn span(ptr: *const c_char, len: usize) -> String {
    String::from_utf8(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }.to_vec()).unwrap()
}

#[test]
fn routers_route_and_describe_themselves_through_raw_pointers() {
    let r = from_json(
        r#"{"algorithm":"ring","params":{"points_per_weight":4},"version":3,"nodes":[{"id":"a"},{"id":"b","zone":"z"}]}"#,
    );
    let (mut node, mut count, mut fp, mut version) = (u32::MAX, 0u32, 0u64, 0u64);
    unsafe {
        assert_eq!(kr_route(r, b"k".as_ptr(), 1, &mut node), OK);
        assert!(node < 2);
        assert_eq!(kr_route(r, null(), 0, &mut node), OK, "(NULL, 0) is the empty key");
        assert_eq!(kr_route(r, null(), 1, &mut node), code(ErrorCode::NullPointer));
        assert_eq!(kr_route(r, b"k".as_ptr(), 1, null_mut()), code(ErrorCode::NullPointer));
        assert_eq!(kr_route(null(), b"k".as_ptr(), 1, &mut node), code(ErrorCode::NullPointer));
        let units = [0x6bu16];
        let mut via_utf16 = u32::MAX;
        assert_eq!(kr_route_utf16(r, units.as_ptr(), 1, &mut via_utf16), OK);
        assert_eq!(kr_route(r, b"k".as_ptr(), 1, &mut node), OK);
        assert_eq!(via_utf16, node);
        assert_eq!(kr_route_utf16(r, [0xD800u16].as_ptr(), 1, &mut node), code(ErrorCode::InvalidUtf8));
        let (mut id, mut id_len) = (null(), 0usize);
        assert_eq!(kr_route_id(r, b"k".as_ptr(), 1, &mut id, &mut id_len), OK);
        assert!(["a", "b"].contains(&span(id, id_len).as_str()));
        let keys = [KrKey { ptr: b"x".as_ptr(), len: 1 }, KrKey { ptr: null(), len: 0 }];
        let mut out = [0u32; 2];
        assert_eq!(kr_route_batch(r, keys.as_ptr(), 2, out.as_mut_ptr(), 2), OK);
        assert_eq!(kr_route_batch(r, keys.as_ptr(), 2, out.as_mut_ptr(), 1), code(ErrorCode::BufferTooSmall));
        assert_eq!(kr_route_batch(r, null(), 0, null_mut(), 0), OK);
        let mut replicas = [0u32; 3];
        assert_eq!(kr_replicas(r, b"k".as_ptr(), 1, replicas.as_mut_ptr(), 2), OK);
        assert_ne!(replicas[0], replicas[1]);
        assert_eq!(kr_replicas(r, b"k".as_ptr(), 1, replicas.as_mut_ptr(), 3), code(ErrorCode::ReplicasExceedNodes));
        assert_eq!(kr_replicas(r, b"k".as_ptr(), 1, null_mut(), 0), OK);
        let (mut has, mut slot) = (true, 7u32);
        assert_eq!(kr_slot(r, b"k".as_ptr(), 1, &mut has, &mut slot), OK);
        assert!(!has, "a ring has no slots");
        assert_eq!(kr_router_node_count(r, &mut count), OK);
        assert_eq!(count, 2);
        assert_eq!(kr_router_node_id(r, 1, &mut id, &mut id_len), OK);
        assert_eq!(span(id, id_len), "b");
        assert_eq!(kr_router_node_id(r, 2, &mut id, &mut id_len), code(ErrorCode::NodeOutOfRange));
        assert_eq!(kr_router_fingerprint(r, &mut fp), OK);
        assert_eq!(kr_router_version(r, &mut version), OK);
        assert_eq!(version, 3);
        let (mut json, mut json_len) = (null(), 0usize);
        assert_eq!(kr_router_canonical_json(r, &mut json, &mut json_len), OK);
        assert!(span(json, json_len).contains("\"points_per_weight\":4"));
        // A clone is another counted handle: the first can go, the clone still routes.
        let mut clone = null_mut();
        assert_eq!(kr_router_clone(r, &mut clone), OK);
        kr_router_free(r);
        assert_eq!(kr_route(clone, b"k".as_ptr(), 1, &mut node), OK);
        kr_router_free(clone);
        kr_router_free(null_mut());
    }
}

#[test]
fn failures_leave_outputs_alone_and_say_why() {
    let mut r = std::ptr::dangling_mut::<KrRouter>(); // a sentinel: must be left as it is
    let sentinel = r;
    let bad = b"{\"algorithm\":\"ring\",\"nodes\":[";
    unsafe {
        assert_eq!(kr_router_from_json(bad.as_ptr().cast(), bad.len(), &mut r), code(ErrorCode::InvalidJson));
        assert_eq!(r, sentinel);
        let message = CStr::from_ptr(kr_last_error_message()).to_str().unwrap();
        assert!(!message.is_empty());
        assert_eq!(kr_router_from_json(null(), 5, &mut r), code(ErrorCode::NullPointer));
        assert_eq!(kr_router_from_json(b"{}".as_ptr().cast(), 2, null_mut()), code(ErrorCode::NullPointer));
        let spec = br#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"}]}"#;
        let limits = br#"{"max_nodes":1}"#;
        assert_eq!(
            kr_router_from_json_with_limits(
                spec.as_ptr().cast(),
                spec.len(),
                limits.as_ptr().cast(),
                limits.len(),
                &mut r
            ),
            code(ErrorCode::TooManyNodes)
        );
        assert_eq!(r, sentinel);
        assert_eq!(
            kr_router_from_json_with_limits(spec.as_ptr().cast(), spec.len(), null(), 0, &mut r),
            OK,
            "NULL limits are the defaults"
        );
        kr_router_free(r);
        assert_eq!(CStr::from_ptr(kr_status_name(OK)).to_str().unwrap(), "ok");
        assert!(kr_status_name(9999).is_null());
        assert!(!CStr::from_ptr(kr_version()).to_bytes().is_empty());
    }
}

#[test]
fn the_builder_builds_what_json_would() {
    let mut b = null_mut();
    let mut r = null_mut();
    unsafe {
        assert_eq!(kr_builder_new(b"slots".as_ptr().cast(), 5, &mut b), OK);
        assert_eq!(kr_builder_set_params_json(b, b"{\"count\":4}".as_ptr().cast(), 11), OK);
        assert_eq!(kr_builder_set_version(b, 2), OK);
        assert_eq!(kr_builder_add_node(b, b"a".as_ptr().cast(), 1, 1, null(), 0), OK);
        assert_eq!(kr_builder_add_node_slots(b, 0, 1), OK);
        assert_eq!(kr_builder_add_node(b, b"b".as_ptr().cast(), 1, 1, b"z".as_ptr().cast(), 1), OK);
        assert_eq!(kr_builder_add_node_slots(b, 2, 3), OK);
        assert_eq!(kr_builder_set_node_name(b, b"bee".as_ptr().cast(), 3), OK);
        assert_eq!(kr_builder_set_node_address(b, b"h".as_ptr().cast(), 1, 11211), OK);
        assert_eq!(kr_builder_build(b, &mut r), OK);
        let (mut has, mut slot) = (false, 0u32);
        assert_eq!(kr_slot(r, b"k".as_ptr(), 1, &mut has, &mut slot), OK);
        assert!(has && slot < 4);
        kr_router_free(r);
        kr_builder_free(b);
        assert_eq!(kr_builder_new(b"ring".as_ptr().cast(), 4, &mut b), OK);
        assert_eq!(kr_builder_add_node(b, b"a".as_ptr().cast(), 1, 1, null(), 0), OK);
        assert_eq!(kr_builder_build(b, &mut r), OK);
        kr_builder_free(b);
        kr_builder_free(null_mut());
        let mut node = u32::MAX;
        assert_eq!(kr_route(r, b"k".as_ptr(), 1, &mut node), OK);
        assert_eq!(node, 0);
        kr_router_free(r);
    }
}

/// A short output buffer is `buffer_too_small` before any key is read, for every router: the
/// text-only presets used to check their keys first (found by fuzzing:
/// fuzz/regressions/c_abi/batch-short-buffer-null-key-text-ring).
#[test]
fn a_short_batch_buffer_is_reported_before_the_keys() {
    for spec in [r#"{"algorithm":"uhashring","nodes":[{"id":"a"}]}"#, r#"{"algorithm":"ring","nodes":[{"id":"a"}]}"#] {
        let r = from_json(spec);
        let keys = [KrKey { ptr: null(), len: 39_062 }, KrKey { ptr: b"\xff".as_ptr(), len: 1 }];
        let mut out = [u32::MAX; 1];
        unsafe {
            assert_eq!(
                kr_route_batch(r, keys.as_ptr(), 2, out.as_mut_ptr(), 1),
                code(ErrorCode::BufferTooSmall),
                "{spec}"
            );
            assert_eq!(kr_route_batch(r, keys.as_ptr(), 2, null_mut(), 0), code(ErrorCode::BufferTooSmall), "{spec}");
            kr_router_free(r);
        }
        assert_eq!(out, [u32::MAX], "nothing written");
    }
}

/// Raw pointers may cross threads: the handles are `Send + Sync` behind the C ABI.
#[derive(Clone, Copy)]
struct Shared(*mut KrSharedRouter);
// SAFETY: a kr_shared_router may be used from any thread (the header's contract), which is
// exactly what this test checks under Miri's data-race detector.
unsafe impl Send for Shared {}

#[test]
fn a_shared_router_swaps_under_a_reader_thread() {
    let a = from_json(r#"{"algorithm":"jump","version":1,"nodes":[{"id":"a"}]}"#);
    let b = from_json(r#"{"algorithm":"jump","version":2,"nodes":[{"id":"a"},{"id":"b"}]}"#);
    let mut shared = null_mut();
    unsafe { assert_eq!(kr_shared_router_new(a, &mut shared), OK) };
    let handle = Shared(shared);
    let reader = std::thread::spawn(move || {
        let handle = handle;
        for _ in 0..8 {
            let mut r = null_mut();
            let (mut version, mut node) = (0u64, 0u32);
            unsafe {
                assert_eq!(kr_shared_router_load(handle.0, &mut r), OK);
                assert_eq!(kr_router_version(r, &mut version), OK);
                assert_eq!(kr_route(r, b"k".as_ptr(), 1, &mut node), OK);
                assert!(u64::from(node) < version, "node {node} in view {version}");
                kr_router_free(r);
            }
        }
    });
    for i in 0..8 {
        unsafe { assert_eq!(kr_shared_router_store(shared, if i % 2 == 0 { b } else { a }), OK) };
    }
    reader.join().unwrap();
    unsafe {
        kr_shared_router_free(shared);
        kr_router_free(a);
        kr_router_free(b);
    }
}

#[test]
fn bounded_loads_take_and_give_back_slots_across_threads() {
    use crate::KrBounded;
    use crate::bounded::{
        kr_bounded_acquire, kr_bounded_free, kr_bounded_load, kr_bounded_new, kr_bounded_pick, kr_bounded_release,
    };
    let r = from_json(r#"{"algorithm":"ring","params":{"points_per_weight":4},"nodes":[{"id":"a"},{"id":"b"}]}"#);
    let mut b: *mut KrBounded = null_mut();
    unsafe {
        assert_eq!(kr_bounded_new(r, 0.5, &mut b), code(ErrorCode::InvalidParameter));
        assert!(b.is_null(), "a failed kr_bounded_new wrote *bounded");
        assert_eq!(kr_bounded_new(r, 1.25, &mut b), OK);
        let mut spread = u32::MAX;
        assert_eq!(crate::router::kr_spread(r, b"k".as_ptr(), 1, 2, 7, &mut spread), OK);
        assert!(spread < 2);
        kr_router_free(r); // the bounded-load handle keeps its own reference
    }
    // Two threads acquire and release through the same handle.
    struct Handle(*mut KrBounded);
    // SAFETY: a bounded-load handle may be used from any thread (its counts are atomic).
    unsafe impl Send for Handle {}
    // SAFETY: as above, for shared use.
    unsafe impl Sync for Handle {}
    let handle = Handle(b);
    std::thread::scope(|s| {
        for t in 0..2u8 {
            let handle = &handle;
            s.spawn(move || {
                for i in 0..4u8 {
                    let key = [t, i];
                    let (mut node, mut rank) = (u32::MAX, u32::MAX);
                    unsafe {
                        assert_eq!(kr_bounded_acquire(handle.0, key.as_ptr(), 2, &mut node, &mut rank), OK);
                        assert_eq!(kr_bounded_release(handle.0, node), OK);
                    }
                }
            });
        }
    });
    let (mut node, mut rank, mut load, mut total) = (u32::MAX, u32::MAX, u32::MAX, u32::MAX);
    unsafe {
        assert_eq!(kr_bounded_pick(b, null(), 0, &mut node, &mut rank), OK, "(NULL, 0) is the empty key");
        assert_eq!(kr_bounded_load(b, node, &mut load, &mut total), OK);
        assert_eq!((rank, load, total), (0, 0, 0));
        assert_eq!(kr_bounded_release(b, node), code(ErrorCode::InvalidParameter));
        assert_eq!(kr_bounded_load(b, 2, &mut load, null_mut()), code(ErrorCode::NodeOutOfRange));
        assert_eq!(kr_bounded_acquire(null(), null(), 0, &mut node, &mut rank), code(ErrorCode::NullPointer));
        kr_bounded_free(b);
        kr_bounded_free(null_mut());
    }
}

#[test]
fn hot_keys_observe_from_threads_and_list_the_top_through_a_callback() {
    use std::ffi::c_void;

    use crate::KrHotKeys;
    use crate::hotkeys::{
        kr_hotkeys_decay, kr_hotkeys_free, kr_hotkeys_heat, kr_hotkeys_new, kr_hotkeys_observe, kr_hotkeys_top,
    };
    let mut h: *mut KrHotKeys = null_mut();
    unsafe {
        assert_eq!(kr_hotkeys_new(64, 8, 0, &mut h), code(ErrorCode::InvalidParameter));
        assert!(h.is_null(), "a failed kr_hotkeys_new wrote *hotkeys");
        assert_eq!(kr_hotkeys_new(64, 8, 2, &mut h), OK);
    }
    struct Handle(*mut KrHotKeys);
    // SAFETY: a hot-key handle may be used from any thread (its shards are locked).
    unsafe impl Send for Handle {}
    // SAFETY: as above, for shared use.
    unsafe impl Sync for Handle {}
    let handle = Handle(h);
    std::thread::scope(|s| {
        for t in 0..2u8 {
            let handle = &handle;
            s.spawn(move || {
                for i in 0..6u8 {
                    let cold = [t, i];
                    let key: &[u8] = if i % 2 == 0 { b"hot" } else { &cold };
                    unsafe { assert_eq!(kr_hotkeys_observe(handle.0, key.as_ptr(), key.len(), null_mut()), OK) };
                }
            });
        }
    });
    unsafe extern "C" fn collect(context: *mut c_void, key: *const u8, len: usize, count: u32) {
        // SAFETY: the test passes a `Vec` as the context, and the key is `len` readable bytes.
        let (seen, key) =
            unsafe { (&mut *context.cast::<Vec<(Vec<u8>, u32)>>(), std::slice::from_raw_parts(key, len)) };
        seen.push((key.to_vec(), count));
    }
    let mut seen: Vec<(Vec<u8>, u32)> = Vec::new();
    let (mut heat, mut total, mut listed) = (0u32, 0u64, 0usize);
    unsafe {
        let context = (&raw mut seen).cast::<c_void>();
        assert_eq!(kr_hotkeys_top(h, 1, Some(collect), context, &mut listed), OK);
        assert_eq!(kr_hotkeys_top(h, 1, None, context, &mut listed), code(ErrorCode::NullPointer));
        assert_eq!(kr_hotkeys_heat(h, b"hot".as_ptr(), 3, &mut heat, &mut total), OK);
        assert_eq!(kr_hotkeys_decay(h), OK);
        assert_eq!(kr_hotkeys_heat(h, null(), 0, &mut heat, null_mut()), OK, "(NULL, 0) is the empty key");
        assert_eq!(kr_hotkeys_observe(null(), b"k".as_ptr(), 1, null_mut()), code(ErrorCode::NullPointer));
        assert_eq!(kr_hotkeys_heat(h, null(), 1, &mut heat, null_mut()), code(ErrorCode::NullPointer));
        kr_hotkeys_free(h);
        kr_hotkeys_free(null_mut());
    }
    assert_eq!((listed, total), (1, 12));
    assert_eq!(seen, [(b"hot".to_vec(), 6)]);
}

struct Moving(*mut crate::KrTransition);
// SAFETY: a kr_transition may be used from any thread, also while its progress moves (the
// header's contract), which is what this test checks under Miri's data-race detector.
unsafe impl Send for Moving {}

#[test]
fn a_transition_routes_while_its_progress_moves() {
    use crate::KrPlacement;
    use crate::transition::{
        kr_transition_free, kr_transition_has_cut_over, kr_transition_new, kr_transition_node_count,
        kr_transition_node_id, kr_transition_progress, kr_transition_route, kr_transition_route_with_fallback,
        kr_transition_set_progress,
    };
    let a = from_json(r#"{"algorithm":"jump","nodes":[{"id":"a"}]}"#);
    let b = from_json(r#"{"algorithm":"jump","nodes":[{"id":"a"},{"id":"b"}]}"#);
    let mut t = null_mut();
    unsafe {
        assert_eq!(kr_transition_new(a, b, 0.0, &mut t), OK);
        assert_eq!(kr_transition_new(a, null(), 0.0, &mut t), code(ErrorCode::NullPointer));
        kr_router_free(a);
        kr_router_free(b);
    }
    let (mut id, mut id_len, mut count) = (null(), 0usize, 0u32);
    unsafe {
        assert_eq!(kr_transition_node_count(t, &mut count), OK);
        assert_eq!(kr_transition_node_id(t, 1, &mut id, &mut id_len), OK);
    }
    assert_eq!(count, 2);
    let moving = Moving(t);
    let reader = std::thread::spawn(move || {
        let moving = moving;
        for _ in 0..8 {
            let (mut node, mut cut) = (u32::MAX, false);
            let mut p = KrPlacement::default();
            unsafe {
                assert_eq!(kr_transition_route(moving.0, b"k".as_ptr(), 1, &mut node), OK);
                assert_eq!(kr_transition_route_with_fallback(moving.0, b"k".as_ptr(), 1, &mut p), OK);
                assert_eq!(kr_transition_has_cut_over(moving.0, b"k".as_ptr(), 1, &mut cut), OK);
            }
            assert!(node < 2 && p.owner < 2);
            assert!(!p.has_previous || p.previous == 0);
        }
    });
    for i in 0..=4 {
        unsafe { assert_eq!(kr_transition_set_progress(t, f64::from(i) / 4.0), OK) };
    }
    reader.join().unwrap();
    let mut progress = 0.0;
    unsafe {
        assert_eq!(kr_transition_set_progress(t, 2.0), code(ErrorCode::InvalidParameter));
        assert_eq!(kr_transition_progress(t, &mut progress), OK);
        assert_eq!(kr_transition_route(t, null(), 1, &mut count), code(ErrorCode::NullPointer));
    }
    assert_eq!(progress, 1.0);
    // The id borrowed before the progress moved is still the transition's.
    assert_eq!(span(id, id_len), "b");
    unsafe {
        kr_transition_free(t);
        kr_transition_free(null_mut());
    }
}

#[test]
fn hashes_route_one_at_a_time_and_in_batches() {
    use crate::hashed::{kr_key_hash, kr_route_hash, kr_route_hash_batch};
    let r = from_json(r#"{"algorithm":"ring","params":{"points_per_weight":4},"nodes":[{"id":"a"},{"id":"b"}]}"#);
    let (mut hash, mut node, mut by_key) = (0u64, u32::MAX, u32::MAX);
    let mut out = [u32::MAX; 3];
    unsafe {
        assert_eq!(kr_key_hash(r, b"k".as_ptr(), 1, &mut hash), OK);
        assert_eq!(kr_route_hash(r, hash, &mut node), OK);
        assert_eq!(kr_route(r, b"k".as_ptr(), 1, &mut by_key), OK);
        let hashes = [hash, 1, u64::MAX];
        assert_eq!(kr_route_hash_batch(r, hashes.as_ptr(), 3, out.as_mut_ptr(), 3), OK);
        assert_eq!(kr_route_hash_batch(r, hashes.as_ptr(), 3, out.as_mut_ptr(), 2), code(ErrorCode::BufferTooSmall));
        assert_eq!(kr_route_hash_batch(r, null(), 0, null_mut(), 0), OK);
        assert_eq!(kr_route_hash_batch(r, null(), 1, out.as_mut_ptr(), 3), code(ErrorCode::NullPointer));
        assert_eq!(kr_key_hash(r, null(), 1, &mut hash), code(ErrorCode::NullPointer));
        kr_router_free(r);
    }
    assert_eq!(node, by_key);
    assert_eq!(out[0], by_key);
}

#[test]
fn ownership_and_diffs_fill_caller_buffers() {
    use crate::analysis::{
        kr_diff_flows, kr_diff_free, kr_diff_moved_arcs, kr_diff_new, kr_diff_nodes, kr_diff_summary, kr_ownership,
    };
    use crate::{KR_NO_NODE, KrDiffFigures, KrFlow, KrMovedArc, KrNodeChange, KrOwnershipSummary};
    let a = from_json(r#"{"algorithm":"ring","params":{"points_per_weight":4},"nodes":[{"id":"a"},{"id":"b"}]}"#);
    let b = from_json(
        r#"{"algorithm":"ring","params":{"points_per_weight":4},"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
    );
    let mut shares = [0.0f64; 3];
    let mut own = KrOwnershipSummary::default();
    let mut d = null_mut();
    let mut fig = KrDiffFigures::default();
    let mut count = 0usize;
    unsafe {
        assert_eq!(kr_ownership(b, shares.as_mut_ptr(), 3, &mut own), OK);
        assert_eq!(kr_ownership(b, shares.as_mut_ptr(), 2, &mut own), code(ErrorCode::BufferTooSmall));
        assert_eq!(kr_diff_new(a, b, &mut d), OK);
        assert_eq!(kr_diff_summary(d, &mut fig), OK);
        assert_eq!(kr_diff_flows(d, null_mut(), 0, &mut count), code(ErrorCode::BufferTooSmall));
    }
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert_eq!(count, fig.flow_count);
    let mut flows = vec![KrFlow::default(); count];
    let mut nodes = vec![KrNodeChange::default(); fig.node_count];
    let mut arcs = vec![KrMovedArc::default(); fig.moved_arc_count];
    unsafe {
        assert_eq!(kr_diff_flows(d, flows.as_mut_ptr(), flows.len(), &mut count), OK);
        assert_eq!(kr_diff_nodes(d, nodes.as_mut_ptr(), nodes.len(), &mut count), OK);
        assert_eq!(kr_diff_moved_arcs(d, arcs.as_mut_ptr(), arcs.len(), &mut count), OK);
        assert_eq!(kr_diff_nodes(d, null_mut(), 3, &mut count), code(ErrorCode::NullPointer));
        kr_diff_free(d);
        kr_diff_free(null_mut());
        kr_router_free(a);
        kr_router_free(b);
    }
    assert!((flows.iter().map(|f| f.share).sum::<f64>() - 1.0).abs() < 1e-9);
    assert_eq!(nodes.len(), 3);
    assert_eq!((nodes[2].from_index, nodes[2].to_index), (KR_NO_NODE, 2));
    assert!((nodes[2].gained - fig.moved).abs() < 1e-9);
    assert!(arcs.iter().all(|m| m.to_index == 2 && m.start <= m.end));
}

#[test]
fn capabilities_fill_a_caller_struct() {
    use crate::capabilities::kr_router_capabilities;
    use crate::{KrCapabilities, KrWeights};
    let r = from_json(r#"{"algorithm":"jump","nodes":[{"id":"a"},{"id":"b"}]}"#);
    let mut c = KrCapabilities::default();
    unsafe {
        assert_eq!(kr_router_capabilities(r, &mut c), OK);
        assert_eq!(kr_router_capabilities(r, null_mut()), code(ErrorCode::NullPointer));
        assert_eq!(kr_router_capabilities(null(), &mut c), code(ErrorCode::NullPointer));
        kr_router_free(r);
    }
    assert_eq!(c.weights, KrWeights::Refused);
    assert!(c.route_hash && !c.replicas && c.slots == 0);
}

/// A live view's handle, sent to a reader thread.
struct Live(*mut crate::KrLiveView);
// SAFETY: a live view is `Send + Sync` (`Arc<LiveView>` behind the handle).
unsafe impl Send for Live {}

#[test]
fn a_live_view_routes_through_the_threads_shortcut_while_views_change_and_go() {
    use crate::view::{kr_live_view_free, kr_live_view_new, kr_live_view_publish, kr_live_view_route};
    fn new() -> *mut crate::KrLiveView {
        let mut live = null_mut();
        unsafe { assert_eq!(kr_live_view_new(null(), 0, &mut live), OK) };
        live
    }
    fn publish(live: *mut crate::KrLiveView, version: u64, nodes: usize) {
        let ids: Vec<String> = (0..nodes).map(|i| format!(r#"{{"id":"n{i}"}}"#)).collect();
        let text = format!(r#"{{"version":{version},"spec":{{"algorithm":"jump","nodes":[{}]}}}}"#, ids.join(","));
        let mut applied = 0u64;
        unsafe { assert_eq!(kr_live_view_publish(live, text.as_ptr(), text.len(), &mut applied), OK) };
        assert_eq!(applied, version);
    }
    fn route(live: *mut crate::KrLiveView) -> u64 {
        let (mut node, mut version) = (u32::MAX, 0u64);
        unsafe { assert_eq!(kr_live_view_route(live, b"k".as_ptr(), 1, &mut node, &mut version), OK) };
        assert!(u64::from(node) < version, "node {node} in view {version}");
        version
    }
    // Five live views, so the thread's four readers are taken in turn and the shortcut moves.
    let lives: Vec<_> = (0..5).map(|_| new()).collect();
    let (mut node, mut version) = (0u32, 0u64);
    unsafe {
        assert_eq!(kr_live_view_route(lives[0], b"k".as_ptr(), 1, &mut node, &mut version), code(ErrorCode::NoView));
    }
    for (i, &live) in lives.iter().enumerate() {
        publish(live, 1, 1);
        assert_eq!(route(live), 1);
        publish(live, 2 + i as u64, 2 + i);
        assert_eq!(route(live), 2 + i as u64, "a new view is seen on the next call");
    }
    assert_eq!(route(lives[4]), 6);
    assert_eq!(route(lives[0]), 2, "its reader was taken by the fifth: made again");
    // A live view freed while this thread's shortcut names it: its reader keeps it until
    // replaced, and a new live view (possibly at a reused address) is read afresh.
    unsafe { kr_live_view_free(lives[0]) };
    let fresh = new();
    publish(fresh, 9, 3);
    assert_eq!(route(fresh), 9);
    // Another thread routes and publishes; its shortcut goes with its readers at exit.
    let (a, b) = (Live(lives[1]), Live(lives[2]));
    std::thread::spawn(move || {
        let (a, b) = (a, b);
        assert_eq!(route(a.0), 3);
        publish(a.0, 10, 4);
        assert_eq!(route(a.0), 10);
        assert_eq!(route(b.0), 4);
    })
    .join()
    .unwrap();
    assert_eq!(route(lives[1]), 10, "a view published on another thread");
    unsafe {
        for &live in &lives[1..] {
            kr_live_view_free(live);
        }
        kr_live_view_free(fresh);
    }
}
