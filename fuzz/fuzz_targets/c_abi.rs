//! The C ABI (`libkeyroute.a`, linked by build.rs; the `kr_` functions declared by hand from
//! ffi/include/keyroute.h) driven with arbitrary spans: NULL pointers with zero and non-zero
//! lengths, short output buffers, misaligned UTF-16, spec bytes that are not UTF-8. Every
//! status must be 0 or a code of the error table, out-parameters are written only on success,
//! a failure leaves a message, and every answer matches `keyroute-bindings` (compiled into this
//! binary separately, so the oracle shares no object code with the library under test).

#![no_main]

use std::borrow::Cow;
use std::ffi::{CStr, c_char};
use std::ptr;

use arbitrary::Arbitrary;
use keyroute_bindings::{ErrorCode, Router};
use libfuzzer_sys::fuzz_target;

#[path = "common/limits.rs"]
mod limits;

// ------------------------------------------------------------------------------------------
// ffi/include/keyroute.h, by hand
// ------------------------------------------------------------------------------------------

#[repr(C)]
struct KrRouter {
    _opaque: [u8; 0],
}

/// `kr_key`: `{ const uint8_t *ptr; size_t len; }`.
#[repr(C)]
#[derive(Clone, Copy)]
struct KrKey {
    ptr: *const u8,
    len: usize,
}

type KrStatus = u32;

unsafe extern "C" {
    fn kr_last_error_message() -> *const c_char;
    fn kr_status_name(status: u32) -> *const c_char;
    fn kr_router_from_json(json: *const c_char, json_len: usize, router: *mut *mut KrRouter) -> KrStatus;
    fn kr_router_from_json_with_limits(
        json: *const c_char,
        json_len: usize,
        limits_json: *const c_char,
        limits_len: usize,
        router: *mut *mut KrRouter,
    ) -> KrStatus;
    fn kr_router_free(router: *mut KrRouter);
    fn kr_route(router: *const KrRouter, key: *const u8, key_len: usize, node: *mut u32) -> KrStatus;
    fn kr_route_utf16(router: *const KrRouter, units: *const u16, units_len: usize, node: *mut u32) -> KrStatus;
    fn kr_route_id(
        router: *const KrRouter,
        key: *const u8,
        key_len: usize,
        id: *mut *const c_char,
        id_len: *mut usize,
    ) -> KrStatus;
    fn kr_route_batch(
        router: *const KrRouter,
        keys: *const KrKey,
        key_count: usize,
        nodes: *mut u32,
        nodes_len: usize,
    ) -> KrStatus;
    fn kr_replicas(router: *const KrRouter, key: *const u8, key_len: usize, nodes: *mut u32, count: usize) -> KrStatus;
    fn kr_router_node_count(router: *const KrRouter, count: *mut u32) -> KrStatus;
}

const KR_OK: u32 = 0;
const KR_NULL_POINTER: u32 = 18;
const KR_INVALID_UTF8: u32 = 19;
const KR_INVALID_PARAMETER: u32 = 15;
const KR_BUFFER_TOO_SMALL: u32 = 17;

/// A status the header's `enum kr_status_code` lists: `KR_OK` or a code of the error table
/// (which generates that enum).
fn known(s: u32) -> bool {
    s == KR_OK || ErrorCode::from_code(s).is_some()
}

/// Values out-parameters are preset to, to see whether a failing call wrote them.
const SENTINEL: u32 = 0xDEAD_BEEF;
const SENTINEL_LEN: usize = 0x5EED;

// ------------------------------------------------------------------------------------------
// Input
// ------------------------------------------------------------------------------------------

/// Specs that build, so that most inputs reach the routing calls.
const SPECS: [&str; 12] = [
    r#"{"algorithm":"ring","params":{"points_per_weight":8},"nodes":[{"id":"a"},{"id":"b","weight":2,"zone":"z1"},{"id":"c","zone":"z2"}]}"#,
    r#"{"algorithm":"jump","nodes":[{"id":"0"},{"id":"1"},{"id":"2"},{"id":"3"}]}"#,
    r#"{"algorithm":"jump","params":{"key_hash":"u64be"},"nodes":[{"id":"a"},{"id":"b"}]}"#,
    r#"{"algorithm":"maglev","params":{"table_size":251},"nodes":[{"id":"a"},{"id":"b","weight":3},{"id":"c","weight":0}]}"#,
    r#"{"algorithm":"slots","params":{"count":16},"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
    r#"{"algorithm":"rendezvous","nodes":[{"id":"a","zone":"x"},{"id":"b","zone":"x"},{"id":"c"}]}"#,
    r#"{"algorithm":"multi-probe","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
    r#"{"algorithm":"modulo","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
    r#"{"algorithm":"redis-cluster","nodes":[{"id":"a","slots":[[0,8191]]},{"id":"b","slots":[[8192,16383]]}]}"#,
    r#"{"algorithm":"libmemcached","params":{"distribution":"ketama"},"nodes":[{"id":"s1","host":"10.0.0.1","port":11211},{"id":"s2","host":"10.0.0.2","port":11211}]}"#,
    r#"{"algorithm":"nginx","nodes":[{"id":"10.0.0.1:80"},{"id":"10.0.0.2:80","weight":2}]}"#,
    r#"{"algorithm":"uhashring","nodes":[{"id":"a"},{"id":"b"}]}"#,
];

#[derive(Arbitrary, Debug)]
enum SpecIn {
    /// One of `SPECS`, built once per process and kept (routing calls are what most inputs
    /// exercise; building the same spec again every run would mostly measure the build).
    Cached(u8),
    /// One of `SPECS`, built and released in this run.
    Known(u8),
    Raw(Vec<u8>),
    NullWithLength(usize),
    NullEmpty,
    NullOut(u8),
}

#[derive(Arbitrary, Debug)]
enum Span {
    Bytes(Vec<u8>),
    /// NULL with this length (0 is the empty key; non-zero must be refused).
    Null(u16),
    Empty,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Route { key: Span, null_out: bool },
    RouteId { key: Span, null_id: bool, null_len: bool },
    RouteUtf16 { units: Vec<u16>, null: Option<u16>, misalign: bool },
    Batch { keys: Vec<Span>, nodes_len: u8, null_keys: bool, null_nodes: bool },
    Replicas { key: Span, count: u8, null_nodes: bool },
    NullRouter(u8),
    StatusName(u32),
}

#[derive(Arbitrary, Debug)]
struct Input {
    spec: SpecIn,
    ops: Vec<Op>,
}

// ------------------------------------------------------------------------------------------
// Checks
// ------------------------------------------------------------------------------------------

/// The thread's last error message, as a Rust string (it must be valid UTF-8, never NULL).
fn last_message() -> String {
    let p = unsafe { kr_last_error_message() };
    assert!(!p.is_null(), "kr_last_error_message returned NULL");
    unsafe { CStr::from_ptr(p) }.to_str().expect("the message is UTF-8").to_owned()
}

/// Checks a status: known; on failure a message is left, on success the message is unchanged.
fn status(s: KrStatus, before: &str) -> KrStatus {
    assert!(known(s), "unknown status {s}");
    assert_ne!(s, ErrorCode::Internal.code(), "KR_INTERNAL (a caught panic): {}", last_message());
    let name = unsafe { kr_status_name(s) };
    assert!(!name.is_null());
    if s == KR_OK {
        assert_eq!(last_message(), before, "a successful call changed the last error message");
    } else {
        assert!(!last_message().is_empty(), "status {s} left no message");
    }
    s
}

fn code(r: Result<(), ErrorCode>) -> u32 {
    r.err().map_or(KR_OK, |c| c.code())
}

/// A span as (pointer, length), its bytes kept alive in `keep`.
fn span(s: &Span) -> (*const u8, usize, Option<&[u8]>) {
    match s {
        Span::Bytes(b) => (b.as_ptr(), b.len(), Some(b)),
        Span::Null(n) => (ptr::null(), usize::from(*n), (*n == 0).then_some(&[][..])),
        // A dangling but non-null pointer with length 0 is a valid empty span.
        Span::Empty => (ptr::NonNull::<u8>::dangling().as_ptr(), 0, Some(&[][..])),
    }
}

/// Handles of `SPECS` built once (as addresses: raw pointers are not `Sync`), never released,
/// with the bindings' routers for them.
static CACHE: std::sync::OnceLock<Vec<(usize, Router)>> = std::sync::OnceLock::new();

fn cached(i: u8) -> (*mut KrRouter, &'static Router) {
    let cache = CACHE.get_or_init(|| {
        SPECS
            .iter()
            .map(|text| {
                let mut h: *mut KrRouter = ptr::null_mut();
                assert_eq!(unsafe { kr_router_from_json(text.as_ptr().cast(), text.len(), &mut h) }, KR_OK);
                (h as usize, Router::from_json(text).expect("a known spec builds"))
            })
            .collect()
    });
    let (h, r) = &cache[i as usize % cache.len()];
    (*h as *mut KrRouter, r)
}

fuzz_target!(|input: Input| run(input));

fn run(input: Input) {
    // Build the router through the C ABI and through the bindings (the oracle).
    let mut handle: *mut KrRouter = ptr::dangling_mut();
    let before = last_message();
    let mut release = true;
    let (s, oracle) = match &input.spec {
        SpecIn::Cached(i) => {
            let (h, r) = cached(*i);
            handle = h;
            release = false;
            (KR_OK, Ok(Cow::Borrowed(r)))
        }
        SpecIn::Known(i) => {
            let text = SPECS[*i as usize % SPECS.len()];
            let s = unsafe { kr_router_from_json(text.as_ptr().cast(), text.len(), &mut handle) };
            (s, Router::from_json(text).map(Cow::Owned).map_err(|e| e.code()))
        }
        SpecIn::Raw(bytes) => {
            let l = limits::FUZZ_JSON;
            let s = unsafe {
                kr_router_from_json_with_limits(bytes.as_ptr().cast(), bytes.len(), l.as_ptr().cast(), l.len(), &mut handle)
            };
            (s, Router::from_bytes(bytes, &limits::FUZZ).map(Cow::Owned).map_err(|e| e.code()))
        }
        SpecIn::NullWithLength(n) => {
            let s = unsafe { kr_router_from_json(ptr::null(), *n, &mut handle) };
            let oracle = if *n == 0 {
                Router::from_json("").map(Cow::Owned).map_err(|e| e.code())
            } else {
                Err(ErrorCode::NullPointer)
            };
            (s, oracle)
        }
        SpecIn::NullEmpty => {
            let s = unsafe { kr_router_from_json(ptr::null(), 0, &mut handle) };
            (s, Err(ErrorCode::InvalidJson))
        }
        SpecIn::NullOut(i) => {
            let text = SPECS[*i as usize % SPECS.len()];
            let s = unsafe { kr_router_from_json(text.as_ptr().cast(), text.len(), ptr::null_mut()) };
            (s, Err(ErrorCode::NullPointer))
        }
    };
    status(s, &before);
    let oracle = match oracle {
        Err(c) => {
            assert_eq!(s, c.code(), "kr_router_from_json: status {s}, bindings {c:?}");
            assert_eq!(handle, ptr::dangling_mut(), "a failed kr_router_from_json wrote *router");
            return;
        }
        Ok(r) => {
            assert_eq!(s, KR_OK, "kr_router_from_json failed with {s} ({}); the bindings build it", last_message());
            assert!(!handle.is_null() && handle != ptr::dangling_mut());
            r
        }
    };
    let router = handle.cast_const();
    let n = oracle.len();
    let mut count = SENTINEL;
    assert_eq!(unsafe { kr_router_node_count(router, &mut count) }, KR_OK);
    assert_eq!(count as usize, n);

    for op in input.ops.iter().take(16) {
        let before = last_message();
        match op {
            Op::Route { key, null_out } => {
                let (p, len, bytes) = span(key);
                let mut node = SENTINEL;
                let out = if *null_out { ptr::null_mut() } else { &mut node as *mut u32 };
                let s = status(unsafe { kr_route(router, p, len, out) }, &before);
                let want = if *null_out {
                    Err(ErrorCode::NullPointer)
                } else {
                    match bytes {
                        None => Err(ErrorCode::NullPointer),
                        Some(b) => oracle.route(b).map_err(|e| e.code()),
                    }
                };
                match want {
                    Ok(o) => assert_eq!((s, node), (KR_OK, o), "kr_route"),
                    Err(c) => assert_eq!((s, node), (c.code(), SENTINEL), "kr_route failed; *node written?"),
                }
            }
            Op::RouteId { key, null_id, null_len } => {
                let (p, len, bytes) = span(key);
                let mut id: *const c_char = ptr::dangling();
                let mut id_len = SENTINEL_LEN;
                let id_out = if *null_id { ptr::null_mut() } else { &mut id as *mut _ };
                let len_out = if *null_len { ptr::null_mut() } else { &mut id_len as *mut _ };
                let s = status(unsafe { kr_route_id(router, p, len, id_out, len_out) }, &before);
                let want = if *null_id || *null_len {
                    Err(ErrorCode::NullPointer)
                } else {
                    match bytes {
                        None => Err(ErrorCode::NullPointer),
                        Some(b) => oracle.route_id(b).map_err(|e| e.code()),
                    }
                };
                match want {
                    Ok(want_id) => {
                        assert_eq!(s, KR_OK);
                        let got = unsafe { std::slice::from_raw_parts(id.cast::<u8>(), id_len) };
                        assert_eq!(got, want_id.as_bytes(), "kr_route_id");
                    }
                    Err(c) => {
                        assert_eq!(s, c.code(), "kr_route_id");
                        assert_eq!(
                            (id, id_len),
                            (ptr::dangling(), SENTINEL_LEN),
                            "a failed kr_route_id wrote its outputs"
                        );
                    }
                }
            }
            Op::RouteUtf16 { units, null, misalign } => {
                let mut node = SENTINEL;
                // A copy one byte into a buffer: misaligned on purpose when asked.
                let mut raw = vec![0u8; units.len() * 2 + 2];
                let base = if *misalign && !units.is_empty() { 1 } else { 0 };
                let aligned_base = raw.as_ptr().align_offset(2);
                let start = aligned_base + base;
                for (i, u) in units.iter().enumerate() {
                    if let Some(dst) = raw.get_mut(start + 2 * i..start + 2 * i + 2) {
                        dst.copy_from_slice(&u.to_ne_bytes());
                    }
                }
                let fits = start + units.len() * 2 <= raw.len();
                let (p, len): (*const u16, usize) = match null {
                    Some(l) => (ptr::null(), usize::from(*l)),
                    None if fits => (unsafe { raw.as_ptr().add(start) }.cast(), units.len()),
                    None => continue,
                };
                let s = status(unsafe { kr_route_utf16(router, p, len, &mut node) }, &before);
                let want = if p.is_null() {
                    if len == 0 { oracle.route(b"").map_err(|e| e.code()) } else { Err(ErrorCode::NullPointer) }
                } else if (p as usize) % 2 != 0 {
                    Err(ErrorCode::InvalidParameter)
                } else {
                    match String::from_utf16(units) {
                        Ok(text) => oracle.route(text.as_bytes()).map_err(|e| e.code()),
                        Err(_) => Err(ErrorCode::InvalidUtf8),
                    }
                };
                match want {
                    Ok(o) => assert_eq!((s, node), (KR_OK, o), "kr_route_utf16"),
                    Err(c) => assert_eq!((s, node), (c.code(), SENTINEL), "kr_route_utf16 failed; *node written?"),
                }
                if s == KR_INVALID_PARAMETER {
                    assert!(*misalign);
                }
                if s == KR_INVALID_UTF8 {
                    assert!(String::from_utf16(units).is_err());
                }
            }
            Op::Batch { keys, nodes_len, null_keys, null_nodes } => {
                let keys: Vec<&Span> = keys.iter().take(40).collect();
                let spans: Vec<(*const u8, usize, Option<&[u8]>)> = keys.iter().map(|k| span(k)).collect();
                let c_keys: Vec<KrKey> = spans.iter().map(|&(ptr, len, _)| KrKey { ptr, len }).collect();
                let nodes_len = usize::from(*nodes_len) % (c_keys.len() + 3);
                let mut out = vec![SENTINEL; nodes_len];
                let keys_ptr = if *null_keys { ptr::null() } else { c_keys.as_ptr() };
                let nodes_ptr = if *null_nodes { ptr::null_mut() } else { out.as_mut_ptr() };
                let s =
                    status(unsafe { kr_route_batch(router, keys_ptr, c_keys.len(), nodes_ptr, nodes_len) }, &before);
                let null_keys_refused = *null_keys && !c_keys.is_empty();
                let null_nodes_refused = *null_nodes && nodes_len != 0;
                if null_keys_refused || null_nodes_refused {
                    assert_eq!(s, KR_NULL_POINTER, "kr_route_batch with NULL arrays");
                    assert!(out.iter().all(|&o| o == SENTINEL));
                    continue;
                }
                let count = if *null_keys { 0 } else { c_keys.len() };
                let bad_span = spans.iter().take(count).position(|s| s.2.is_none());
                if nodes_len < count {
                    // The header: KR_BUFFER_TOO_SMALL whenever nodes_len < key_count, before any
                    // key is read (regressions/c_abi/batch-short-buffer-null-key-text-ring: the
                    // text-ring presets used to check their keys first).
                    assert_eq!(s, KR_BUFFER_TOO_SMALL, "kr_route_batch, {nodes_len} outputs for {count} keys");
                    assert!(out.iter().all(|&o| o == SENTINEL), "kr_route_batch wrote into a short buffer");
                    continue;
                }
                let oracle_keys: Vec<&[u8]> = spans.iter().take(count).map(|s| s.2.unwrap_or_default()).collect();
                let mut want = vec![0u32; count];
                let routed = oracle.route_batch(&oracle_keys, &mut want);
                if let Some(bad) = bad_span {
                    // A key refused before the bad span may stop the batch first.
                    let earlier = routed.as_ref().err().filter(|e| e.key_index().is_some_and(|i| i < bad));
                    let allowed = earlier.map_or(KR_NULL_POINTER, |e| e.code().code());
                    assert!(s == KR_NULL_POINTER || s == allowed, "kr_route_batch with a NULL key span: {s}");
                } else {
                    match routed {
                        Ok(()) => {
                            assert_eq!(s, KR_OK, "kr_route_batch: {}", last_message());
                            assert_eq!(&out[..count], &want[..]);
                            assert!(out[count..].iter().all(|&o| o == SENTINEL), "kr_route_batch wrote past the keys");
                        }
                        Err(e) => assert_eq!(s, e.code().code(), "kr_route_batch"),
                    }
                }
            }
            Op::Replicas { key, count, null_nodes } => {
                let (p, len, bytes) = span(key);
                let count = usize::from(*count) % (n + 3);
                let mut out = vec![SENTINEL; count];
                let nodes_ptr = if *null_nodes { ptr::null_mut() } else { out.as_mut_ptr() };
                let s = status(unsafe { kr_replicas(router, p, len, nodes_ptr, count) }, &before);
                let mut want = vec![0u32; count];
                let expect = match bytes {
                    None => Err(ErrorCode::NullPointer),
                    Some(_) if *null_nodes && count != 0 => Err(ErrorCode::NullPointer),
                    Some(b) => oracle.replicas(b, &mut want).map_err(|e| e.code()),
                };
                assert_eq!(s, code(expect.map(|_| ())), "kr_replicas");
                if s == KR_OK {
                    assert_eq!(out, want);
                } else {
                    assert!(out.iter().all(|&o| o == SENTINEL), "a failed kr_replicas wrote {out:?}");
                }
            }
            Op::NullRouter(which) => {
                let mut node = SENTINEL;
                let s = match which % 4 {
                    0 => unsafe { kr_route(ptr::null(), ptr::null(), 0, &mut node) },
                    1 => unsafe { kr_route_utf16(ptr::null(), ptr::null(), 0, &mut node) },
                    2 => unsafe { kr_route_batch(ptr::null(), ptr::null(), 0, ptr::null_mut(), 0) },
                    _ => unsafe { kr_replicas(ptr::null(), ptr::null(), 0, &mut node, 1) },
                };
                assert_eq!(status(s, &before), KR_NULL_POINTER);
                assert_eq!(node, SENTINEL);
                unsafe { kr_router_free(ptr::null_mut()) };
            }
            Op::StatusName(x) => {
                let p = unsafe { kr_status_name(*x) };
                let want = if *x == 0 { Some("ok") } else { ErrorCode::from_code(*x).map(ErrorCode::name) };
                let got = (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().expect("UTF-8"));
                assert_eq!(got, want, "kr_status_name({x})");
                assert_eq!(got.is_some(), known(*x));
            }
        }
    }
    if release {
        unsafe { kr_router_free(handle) };
    }
}
