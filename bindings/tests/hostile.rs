//! The hostile-input catalogue (`conformance/vectors/v1/hostile.json`): specs, limits and keys
//! that keyroute must refuse, each with the one error code every surface gives it, plus the
//! cases at each limit's bound that must still work.
//!
//! Each case states its expected verdict here, and this test checks the bindings against it
//! before writing (`KEYROUTE_BLESS=1`) or comparing the committed file. It also measures what
//! each case costs the bindings: the most memory it holds at once, which must stay under
//! 10 MB (counted by this binary's allocator; the inputs themselves are built first and not
//! counted), and its time, printed (never asserted: this machine is shared). The conformance
//! runners of every surface (Rust, C, Python, the CLI, Node and WebAssembly) run the file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, missing_docs)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

use keyroute_bindings::{ErrorCode, Limits, Router};
use serde_json::{Value, json};

/// Counts the bytes the current thread holds, and the most it held since the last reset.
struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every call is passed to `System` unchanged; this only counts bytes or calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = HELD.try_with(|h| {
            h.set(h.get() + layout.size() as isize);
            let _ = PEAK.try_with(|p| p.set(p.get().max(h.get())));
        });
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = HELD.try_with(|h| h.set(h.get() - layout.size() as isize));
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = HELD.try_with(|h| {
            h.set(h.get() + new_size as isize - layout.size() as isize);
            let _ = PEAK.try_with(|p| p.set(p.get().max(h.get())));
        });
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` held at once beyond what was held before it ran.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, (PEAK.with(Cell::get) - base).max(0) as usize)
}

/// What a case must give.
#[derive(Clone, Copy, Debug)]
enum Verdict {
    /// Builds, and routes its key (or `"k"`) to this node.
    Routes(&'static str),
    /// Builds, and routes its key (or `"k"`) to whichever node the bindings say (recorded).
    Builds,
    /// Refused with this code.
    Refused(ErrorCode),
}
use Verdict::{Builds, Refused, Routes};

/// One case: its id, its fields (spec / limits / key), its verdict.
struct Case {
    id: String,
    fields: Value,
    verdict: Verdict,
}

fn case(id: impl Into<String>, fields: Value, verdict: Verdict) -> Case {
    Case { id: id.into(), fields, verdict }
}

const THREE: &str = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#;

fn three() -> Value {
    serde_json::from_str(THREE).unwrap()
}

/// A spec of one node `a` for `algorithm` with `params`.
fn one(algorithm: &str, params: Value) -> Value {
    json!({ "algorithm": algorithm, "params": params, "nodes": [{ "id": "a" }] })
}

/// Servers for the presets that read `host`/`port`.
fn server_nodes() -> Value {
    json!([{ "id": "10.0.0.1:11211", "host": "10.0.0.1", "port": 11211 }])
}

/// Two servers, one of a weight near `u32::MAX`.
fn two_servers() -> Value {
    json!([
        { "id": "s1", "host": "10.0.0.1", "port": 11211, "weight": 4_000_000_000u32 },
        { "id": "s2", "host": "10.0.0.2", "port": 11211 }
    ])
}

fn catalogue() -> Vec<Case> {
    use ErrorCode as E;
    let spec = |s: Value| json!({ "spec": s });
    let text = |t: &str| json!({ "spec_json": t });
    let mut cases = vec![
        // Documents that are not JSON, or not the JSON a spec is.
        case("json-empty-document", text(""), Refused(E::InvalidJson)),
        case("json-whitespace-only", text(" \n\t "), Refused(E::InvalidJson)),
        case("json-truncated", text(r#"{"algorithm":"ring","nodes":[{"id":"a"}"#), Refused(E::InvalidJson)),
        case("json-trailing-comma", text(r#"{"algorithm":"ring","nodes":[{"id":"a"},]}"#), Refused(E::InvalidJson)),
        case("json-single-quotes", text(r"{'algorithm':'ring','nodes':[]}"), Refused(E::InvalidJson)),
        case(
            "json-comment",
            text("// ring\n{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\"}]}"),
            Refused(E::InvalidJson),
        ),
        case(
            "json-nan-literal",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":NaN}]}"#),
            Refused(E::InvalidJson),
        ),
        case(
            "json-infinity-literal",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":Infinity}]}"#),
            Refused(E::InvalidJson),
        ),
        case("json-trailing-garbage", text(r#"{"algorithm":"ring","nodes":[{"id":"a"}]} x"#), Refused(E::InvalidJson)),
        case("json-two-documents", text(r#"{"algorithm":"ring","nodes":[{"id":"a"}]}{}"#), Refused(E::InvalidJson)),
        case(
            "json-byte-order-mark",
            json!({ "spec_hex": hex(&[b"\xef\xbb\xbf", THREE.as_bytes()].concat()) }),
            Refused(E::InvalidJson),
        ),
        case("json-not-an-object", text("[1,2,3]"), Refused(E::InvalidSpec)),
        case("json-null", text("null"), Refused(E::InvalidSpec)),
        case("json-string", text(r#""ring""#), Refused(E::InvalidSpec)),
        case(
            "json-nested-100000-arrays",
            json!({ "spec_repeat": { "unit": "[", "times": 100_000 } }),
            Refused(E::InvalidJson),
        ),
        case(
            "json-nested-10000-objects-in-params",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"ring","nodes":[{"id":"a"}],"params":"#, "unit": r#"{"x":"#, "times": 10_000 } }),
            Refused(E::InvalidJson),
        ),
        case(
            "json-nested-arrays-at-depth-100",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"ring","nodes":[{"id":"a"}],"x":"#, "unit": "[", "times": 100, "tail": &format!("{}}}", "]".repeat(100)) } }),
            Refused(E::InvalidSpec),
        ),
        case(
            "json-over-8-mib",
            json!({ "spec_repeat": { "head": THREE, "unit": " ", "times": (8 << 20) - THREE.len() + 1 } }),
            Refused(E::SpecTooLarge),
        ),
        case(
            "json-exactly-8-mib",
            json!({ "spec_repeat": { "head": THREE, "unit": " ", "times": (8 << 20) - THREE.len() } }),
            Builds,
        ),
        case(
            "json-over-8-mib-and-not-utf8",
            json!({ "spec_repeat": { "hex": true, "head": "22ff", "unit": "20", "times": 8 << 20 } }),
            Refused(E::SpecTooLarge),
        ),
        case(
            "utf8-invalid-byte-in-id",
            json!({ "spec_hex": hex(b"{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"a\xff\"}]}") }),
            Refused(E::InvalidUtf8),
        ),
        case(
            "utf8-overlong-slash",
            json!({ "spec_hex": hex(b"{\"algorithm\":\"ring\xc0\xaf\",\"nodes\":[]}") }),
            Refused(E::InvalidUtf8),
        ),
        case(
            "utf8-escaped-lone-surrogate-in-id",
            text(r#"{"algorithm":"ring","nodes":[{"id":"\udc00"}]}"#),
            Refused(E::InvalidUtf8),
        ),
        case(
            "utf8-encoded-surrogate",
            json!({ "spec_hex": hex(b"{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"\xed\xa0\x80\"}]}") }),
            Refused(E::InvalidUtf8),
        ),
        // Numbers.
        case(
            "number-weight-1e400",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":1e400}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-param-1e400",
            text(r#"{"algorithm":"ring","params":{"points_per_weight":1e400},"nodes":[{"id":"a"}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-negative",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": -1 }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-fraction",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 1.5 }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-exponent-form",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":1e2}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-minus-zero",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":-0}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-2-pow-32",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 4_294_967_296u64 }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-2-pow-64",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a","weight":18446744073709551616}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weight-string",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": "2" }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-weights-all-zero",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 0 }, { "id": "b", "weight": 0 }] })),
            Refused(E::ZeroTotalWeight),
        ),
        case(
            "number-weights-sum-past-u32-ring",
            spec(
                json!({ "algorithm": "ring", "nodes": [{ "id": "a", "weight": 4_294_967_295u32 }, { "id": "b", "weight": 4_294_967_295u32 }] }),
            ),
            Refused(E::TooManyPoints),
        ),
        case(
            "number-weights-sum-past-u32-rendezvous",
            json!({ "spec": { "algorithm": "rendezvous", "nodes": [{ "id": "a", "weight": 4_294_967_295u32 }, { "id": "b", "weight": 4_294_967_295u32 }] }, "key": "k" }),
            Builds,
        ),
        case(
            "number-weights-sum-past-u32-maglev",
            spec(
                json!({ "algorithm": "maglev", "nodes": [{ "id": "a", "weight": 4_294_967_295u32 }, { "id": "b", "weight": 4_294_967_295u32 }] }),
            ),
            Routes("a"),
        ),
        case(
            "number-version-negative",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a" }], "version": -1 })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-version-2-pow-53",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a" }], "version": 9_007_199_254_740_992u64 })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-version-fraction",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a" }], "version": 0.5 })),
            Refused(E::InvalidSpec),
        ),
        case(
            "number-points-2-pow-32",
            spec(one("ring", json!({ "points_per_weight": 4_294_967_296u64 }))),
            Refused(E::InvalidSpec),
        ),
        case("number-points-string", spec(one("ring", json!({ "points_per_weight": "160" }))), Refused(E::InvalidSpec)),
        // Node ids.
        case(
            "id-duplicate",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a" }, { "id": "a" }] })),
            Refused(E::DuplicateNodeId),
        ),
        case("id-empty", spec(json!({ "algorithm": "ring", "nodes": [{ "id": "" }] })), Refused(E::InvalidNodeId)),
        case(
            "id-4096-bytes",
            spec(json!({ "algorithm": "jump", "nodes": [{ "id": "x".repeat(4096) }] })),
            Routes("x".repeat(4096).leak()),
        ),
        case(
            "id-4097-bytes",
            spec(json!({ "algorithm": "jump", "nodes": [{ "id": "x".repeat(4097) }] })),
            Refused(E::InvalidNodeId),
        ),
        case(
            "id-1-mib",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"ring","nodes":[{"id":""#, "unit": "x", "times": 1 << 20, "tail": r#""}]}"# } }),
            Refused(E::InvalidNodeId),
        ),
        case(
            "id-with-nul",
            json!({ "spec": { "algorithm": "ring", "nodes": [{ "id": "a\u{0}b" }] }, "key": "k" }),
            Routes("a\u{0}b"),
        ),
        case("id-number", spec(json!({ "algorithm": "ring", "nodes": [{ "id": 1 }] })), Refused(E::InvalidSpec)),
        case("id-missing", spec(json!({ "algorithm": "ring", "nodes": [{ "weight": 1 }] })), Refused(E::InvalidSpec)),
        case("nodes-not-an-array", spec(json!({ "algorithm": "ring", "nodes": { "a": 1 } })), Refused(E::InvalidSpec)),
        case("nodes-item-not-an-object", spec(json!({ "algorithm": "ring", "nodes": ["a"] })), Refused(E::InvalidSpec)),
        case("nodes-empty", spec(json!({ "algorithm": "ring", "nodes": [] })), Refused(E::EmptyTopology)),
        case(
            "nodes-16385",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"jump","nodes":["#, "unit": r#"{"id":"n"},"#, "times": 16_384, "tail": r#"{"id":"last"}]}"# } }),
            Refused(E::TooManyNodes),
        ),
        case(
            "nodes-16384-passes-the-count",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"jump","nodes":["#, "unit": r#"{"id":"n"},"#, "times": 16_383, "tail": r#"{"id":"last"}]}"# } }),
            Refused(E::DuplicateNodeId),
        ),
        case(
            "nodes-200000-in-600-kib",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"jump","nodes":["#, "unit": "{},", "times": 200_000, "tail": "{}]}" } }),
            Refused(E::TooManyNodes),
        ),
        // Fields.
        case(
            "field-unknown-top-level",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a" }], "weights": [1] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "field-unknown-in-node",
            spec(json!({ "algorithm": "ring", "nodes": [{ "id": "a", "wieght": 2 }] })),
            Refused(E::InvalidSpec),
        ),
        case("field-unknown-param", spec(one("ring", json!({ "vnodes": 40 }))), Refused(E::InvalidSpec)),
        case(
            "field-param-is-an-array",
            spec(one("ring", json!({ "points_per_weight": [160] }))),
            Refused(E::InvalidSpec),
        ),
        case(
            "field-param-holds-a-huge-array",
            json!({ "spec_repeat": { "head": r#"{"algorithm":"ring","nodes":[{"id":"a"}],"params":{"x":["#, "unit": "1,", "times": 250_000, "tail": "1]}}" } }),
            Refused(E::InvalidSpec),
        ),
        case(
            "field-params-not-an-object",
            spec(json!({ "algorithm": "ring", "params": [1], "nodes": [{ "id": "a" }] })),
            Refused(E::InvalidSpec),
        ),
        case("field-algorithm-missing", spec(json!({ "nodes": [{ "id": "a" }] })), Refused(E::InvalidSpec)),
        case(
            "field-algorithm-number",
            spec(json!({ "algorithm": 1, "nodes": [{ "id": "a" }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "field-algorithm-unknown",
            spec(json!({ "algorithm": "consistent", "nodes": [{ "id": "a" }] })),
            Refused(E::UnknownAlgorithm),
        ),
        case(
            "field-algorithm-wrong-case",
            spec(json!({ "algorithm": "Ring", "nodes": [{ "id": "a" }] })),
            Refused(E::UnknownAlgorithm),
        ),
        case(
            "field-nodes-twice",
            text(r#"{"algorithm":"ring","nodes":[{"id":"a"}],"nodes":[{"id":"b"}]}"#),
            Refused(E::InvalidSpec),
        ),
        case(
            "field-port-past-u16",
            spec(
                json!({ "algorithm": "libmemcached", "params": { "distribution": "ketama" }, "nodes": [{ "id": "s", "host": "h", "port": 65536 }] }),
            ),
            Refused(E::InvalidSpec),
        ),
        // Slot ranges and tables.
        case(
            "slots-overlap",
            spec(
                json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 2]] }, { "id": "b", "slots": [[2, 3]] }] }),
            ),
            Refused(E::InvalidParameter),
        ),
        case(
            "slots-gap",
            spec(
                json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 1]] }, { "id": "b", "slots": [[3, 3]] }] }),
            ),
            Refused(E::InvalidParameter),
        ),
        case(
            "slots-reversed",
            spec(
                json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[3, 0]] }] }),
            ),
            Refused(E::InvalidParameter),
        ),
        case(
            "slots-past-count",
            spec(
                json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 4]] }] }),
            ),
            Refused(E::InvalidParameter),
        ),
        case(
            "slots-range-not-a-pair",
            spec(
                json!({ "algorithm": "slots", "params": { "count": 4 }, "nodes": [{ "id": "a", "slots": [[0, 1, 3]] }] }),
            ),
            Refused(E::InvalidSpec),
        ),
        case("slots-count-zero", spec(one("slots", json!({ "count": 0 }))), Refused(E::TableSizeOutOfRange)),
        case(
            "slots-count-4e9",
            spec(one("slots", json!({ "count": 4_000_000_000u32 }))),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "slots-count-over-the-table-limit",
            spec(one("slots", json!({ "count": (1 << 20) + 1 }))),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "redis-slot-16384",
            spec(json!({ "algorithm": "redis-cluster", "nodes": [{ "id": "a", "slots": [[0, 16384]] }] })),
            Refused(E::InvalidParameter),
        ),
        case("maglev-not-prime", spec(one("maglev", json!({ "table_size": 65536 }))), Refused(E::TableSizeNotPrime)),
        case("maglev-zero", spec(one("maglev", json!({ "table_size": 0 }))), Refused(E::TableSizeOutOfRange)),
        case(
            "maglev-smaller-than-nodes",
            spec(
                json!({ "algorithm": "maglev", "params": { "table_size": 2 }, "nodes": [{ "id": "a" }, { "id": "b" }, { "id": "c" }] }),
            ),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "maglev-67108859",
            spec(one("maglev", json!({ "table_size": 67_108_859 }))),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "maglev-first-prime-over-the-table-limit",
            spec(one("maglev", json!({ "table_size": 1_048_583 }))),
            Refused(E::TableSizeOutOfRange),
        ),
        case("maglev-negative", spec(one("maglev", json!({ "table_size": -7 }))), Refused(E::InvalidSpec)),
        // Work: small specs that ask for millions of points or entries.
        case(
            "work-uhashring-33554432-vnodes",
            spec(one("uhashring", json!({ "vnodes": 33_554_432 }))),
            Refused(E::TooManyPoints),
        ),
        case(
            "work-uhashring-long-id",
            spec(
                json!({ "algorithm": "uhashring", "params": { "vnodes": 100_000 }, "nodes": [{ "id": "x".repeat(940) }] }),
            ),
            Refused(E::TooManyPoints),
        ),
        case(
            "work-ring-33554432-points",
            spec(one("ring", json!({ "points_per_weight": 33_554_432 }))),
            Refused(E::TooManyPoints),
        ),
        case(
            "work-nginx-weight-209715",
            spec(json!({ "algorithm": "nginx", "nodes": [{ "id": "a", "weight": 209_715 }] })),
            Refused(E::TooManyPoints),
        ),
        // The ketama presets scale weights by their total, so a huge weight costs no points.
        case(
            "work-libmemcached-weight-is-relative",
            spec(
                json!({ "algorithm": "libmemcached", "params": { "distribution": "ketama_weighted" }, "nodes": two_servers() }),
            ),
            Builds,
        ),
        case(
            "work-npm-hashring-vnodes",
            spec(one("npm-hashring", json!({ "vnode_count": 4_000_000_000u32 }))),
            Refused(E::TooManyPoints),
        ),
        case(
            "work-multi-probe-probes",
            spec(one("multi-probe", json!({ "probes": 4_000_000_000u32 }))),
            Refused(E::InvalidParameter),
        ),
        case(
            "work-spymemcached-weight-is-relative",
            spec(json!({ "algorithm": "spymemcached", "params": { "weighted": true }, "nodes": two_servers() })),
            Builds,
        ),
        case(
            "work-twemproxy-weight-is-relative",
            spec(json!({ "algorithm": "twemproxy", "nodes": two_servers() })),
            Builds,
        ),
        // Every preset's invalid parameters.
        case(
            "preset-libmemcached-no-distribution",
            spec(json!({ "algorithm": "libmemcached", "nodes": server_nodes() })),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-libmemcached-unknown-distribution",
            spec(
                json!({ "algorithm": "libmemcached", "params": { "distribution": "modula" }, "nodes": server_nodes() }),
            ),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-libmemcached-unknown-hash",
            spec(
                json!({ "algorithm": "libmemcached", "params": { "distribution": "ketama", "hash": "sha1" }, "nodes": server_nodes() }),
            ),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-libmemcached-no-host",
            spec(
                json!({ "algorithm": "libmemcached", "params": { "distribution": "ketama" }, "nodes": [{ "id": "s" }] }),
            ),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-spymemcached-unknown-format",
            spec(json!({ "algorithm": "spymemcached", "params": { "format": "twemproxy" }, "nodes": server_nodes() })),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-spymemcached-weighted-not-bool",
            spec(json!({ "algorithm": "spymemcached", "params": { "weighted": 1 }, "nodes": server_nodes() })),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-uhashring-replicas-5",
            spec(one("uhashring", json!({ "mode": "ketama", "replicas": 5 }))),
            Refused(E::InvalidParameter),
        ),
        case("preset-uhashring-vnodes-0", spec(one("uhashring", json!({ "vnodes": 0 }))), Refused(E::InvalidParameter)),
        case(
            "preset-uhashring-unknown-mode",
            spec(one("uhashring", json!({ "mode": "jump" }))),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-npm-hashring-replicas-5",
            spec(one("npm-hashring", json!({ "replicas": 5 }))),
            Refused(E::InvalidParameter),
        ),
        case(
            "preset-npm-hashring-vnodes-0",
            spec(one("npm-hashring", json!({ "vnode_count": 0 }))),
            Refused(E::InvalidParameter),
        ),
        case(
            "preset-python-hash-ring-param",
            spec(one("python-hash-ring", json!({ "vnodes": 40 }))),
            Refused(E::InvalidSpec),
        ),
        case("preset-nginx-param", spec(one("nginx", json!({ "points": 160 }))), Refused(E::InvalidSpec)),
        case(
            "preset-twemproxy-unknown-hash",
            spec(json!({ "algorithm": "twemproxy", "params": { "hash": "sha1" }, "nodes": server_nodes() })),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-twemproxy-hash-tag-one-char",
            spec(json!({ "algorithm": "twemproxy", "params": { "hash_tag": "{" }, "nodes": server_nodes() })),
            Refused(E::InvalidParameter),
        ),
        case(
            "preset-guava-unknown-key-hash",
            spec(one("guava", json!({ "key_hash": "sha256" }))),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-guava-weighted",
            spec(json!({ "algorithm": "guava", "nodes": [{ "id": "a" }, { "id": "b", "weight": 2 }] })),
            Refused(E::WeightsUnsupported),
        ),
        case(
            "preset-redis-cluster-unknown-tag-rule",
            spec(
                json!({ "algorithm": "redis-cluster", "params": { "tag_rule": "twemproxy" }, "nodes": [{ "id": "a", "slots": [[0, 16383]] }] }),
            ),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-redis-cluster-no-slots",
            spec(json!({ "algorithm": "redis-cluster", "nodes": [{ "id": "a" }] })),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-pymemcache-negative-seed",
            spec(one("pymemcache-rendezvous", json!({ "seed": -1 }))),
            Refused(E::InvalidSpec),
        ),
        case(
            "preset-jump-unknown-key-hash",
            spec(one("jump", json!({ "key_hash": "u32be" }))),
            Refused(E::InvalidSpec),
        ),
        // Limits given by the caller: each at its bound, one past it, and malformed limits.
        case(
            "limits-malformed-unknown",
            json!({ "spec": three(), "limits": { "max_point": 10 } }),
            Refused(E::InvalidParameter),
        ),
        case(
            "limits-malformed-negative",
            json!({ "spec": three(), "limits": { "max_points": -1 } }),
            Refused(E::InvalidParameter),
        ),
        case(
            "limits-malformed-fraction",
            json!({ "spec": three(), "limits": { "max_points": 0.5 } }),
            Refused(E::InvalidParameter),
        ),
        case(
            "limits-malformed-string",
            json!({ "spec": three(), "limits": { "max_points": "10" } }),
            Refused(E::InvalidParameter),
        ),
        case(
            "limits-above-the-ceiling",
            json!({ "spec": three(), "limits": { "max_nodes": (1 << 20) + 1 } }),
            Refused(E::InvalidParameter),
        ),
        case("limits-max-nodes-at-bound", json!({ "spec": three(), "limits": { "max_nodes": 3 } }), Builds),
        case(
            "limits-max-nodes-past-bound",
            json!({ "spec": three(), "limits": { "max_nodes": 2 } }),
            Refused(E::TooManyNodes),
        ),
        case(
            "limits-max-points-at-bound",
            json!({ "spec": one("ring", json!({ "points_per_weight": 320 })), "limits": { "max_points": 320 } }),
            Routes("a"),
        ),
        case(
            "limits-max-points-past-bound",
            json!({ "spec": one("ring", json!({ "points_per_weight": 321 })), "limits": { "max_points": 320 } }),
            Refused(E::TooManyPoints),
        ),
        case(
            "limits-max-points-nginx-at-bound",
            json!({ "spec": { "algorithm": "nginx", "nodes": [{ "id": "a", "weight": 2 }] }, "limits": { "max_points": 320 } }),
            Routes("a"),
        ),
        case(
            "limits-max-points-nginx-past-bound",
            json!({ "spec": { "algorithm": "nginx", "nodes": [{ "id": "a", "weight": 3 }] }, "limits": { "max_points": 320 } }),
            Refused(E::TooManyPoints),
        ),
        case(
            "limits-max-table-maglev-at-bound",
            json!({ "spec": one("maglev", json!({ "table_size": 13 })), "limits": { "max_table_entries": 13 } }),
            Routes("a"),
        ),
        case(
            "limits-max-table-maglev-past-bound",
            json!({ "spec": one("maglev", json!({ "table_size": 13 })), "limits": { "max_table_entries": 12 } }),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "limits-max-table-slots-at-bound",
            json!({ "spec": one("slots", json!({ "count": 16 })), "limits": { "max_table_entries": 16 } }),
            Routes("a"),
        ),
        case(
            "limits-max-table-slots-past-bound",
            json!({ "spec": one("slots", json!({ "count": 17 })), "limits": { "max_table_entries": 16 } }),
            Refused(E::TableSizeOutOfRange),
        ),
        case(
            "limits-zero-nodes-allowed",
            json!({ "spec": three(), "limits": { "max_nodes": 0 } }),
            Refused(E::TooManyNodes),
        ),
    ];
    // The spec size limit at its bound and one past it, on a small limit.
    let padded = |times: usize| json!({ "head": THREE, "unit": " ", "times": times });
    let bound = 200usize;
    cases.push(case(
        "limits-max-spec-bytes-at-bound",
        json!({ "spec_repeat": padded(bound - THREE.len()), "limits": { "max_spec_bytes": bound } }),
        Builds,
    ));
    cases.push(case(
        "limits-max-spec-bytes-past-bound",
        json!({ "spec_repeat": padded(bound - THREE.len() + 1), "limits": { "max_spec_bytes": bound } }),
        Refused(E::SpecTooLarge),
    ));
    // The hashed-bytes limit: found where it binds for a ring of one 20-byte id, 100 points.
    let ring =
        json!({ "algorithm": "ring", "params": { "points_per_weight": 100 }, "nodes": [{ "id": "x".repeat(20) }] });
    let threshold = hashed_bytes_threshold(&ring);
    cases.push(case(
        "limits-max-hashed-bytes-at-bound",
        json!({ "spec": ring, "limits": { "max_hashed_bytes": threshold } }),
        Routes("xxxxxxxxxxxxxxxxxxxx"),
    ));
    cases.push(case(
        "limits-max-hashed-bytes-past-bound",
        json!({ "spec": ring, "limits": { "max_hashed_bytes": threshold - 1 } }),
        Refused(E::TooManyPoints),
    ));
    // Keys, through a valid ring of three.
    let keyed = |key: Value| {
        let mut fields = json!({ "spec": three() });
        for (k, v) in key.as_object().unwrap() {
            fields[k] = v.clone();
        }
        fields
    };
    let ring3 = Router::from_json(THREE).unwrap();
    let owner = |key: &[u8]| -> &'static str { ring3.route_id(key).unwrap().to_string().leak() };
    cases.extend([
        case("key-empty", keyed(json!({ "key": "" })), Routes(owner(b""))),
        case("key-with-nul", keyed(json!({ "key_hex": "610062" })), Routes(owner(b"a\0b"))),
        case("key-only-nul", keyed(json!({ "key_hex": "00" })), Routes(owner(b"\0"))),
        case("key-invalid-utf8", keyed(json!({ "key_hex": "ff" })), Routes(owner(b"\xff"))),
        case("key-1-mib", keyed(json!({ "key_repeat": { "unit": "k", "times": 1 << 20 } })), Routes(owner(&vec![b'k'; 1 << 20]))),
        case("key-lone-high-surrogate", keyed(json!({ "key_utf16": [0xD800] })), Refused(E::InvalidUtf8)),
        case("key-lone-low-surrogate-after-text", keyed(json!({ "key_utf16": [0x61, 0xDC00] })), Refused(E::InvalidUtf8)),
        case("key-reversed-surrogate-pair", keyed(json!({ "key_utf16": [0xDC00, 0xD800] })), Refused(E::InvalidUtf8)),
        case("key-type-int", keyed(json!({ "key_type": "int" })), Refused(E::InvalidType)),
        case("key-type-float", keyed(json!({ "key_type": "float" })), Refused(E::InvalidType)),
        case("key-type-null", keyed(json!({ "key_type": "null" })), Refused(E::InvalidType)),
        case("key-type-list", keyed(json!({ "key_type": "list" })), Refused(E::InvalidType)),
        case("key-type-object", keyed(json!({ "key_type": "object" })), Refused(E::InvalidType)),
        case("key-type-bool", keyed(json!({ "key_type": "bool" })), Refused(E::InvalidType)),
        case("key-text-only-preset-invalid-utf8", json!({ "spec": one("uhashring", json!({})), "key_hex": "ff" }), Refused(E::InvalidKey)),
        case(
            "key-text-only-preset-1-mib-invalid-utf8",
            json!({ "spec": one("uhashring", json!({})), "key_repeat": { "hex": true, "unit": "ff", "times": 1 << 20 } }),
            Refused(E::InvalidKey),
        ),
        case("key-pymemcache-invalid-utf8", json!({ "spec": one("pymemcache-rendezvous", json!({})), "key_hex": "c3" }), Refused(E::InvalidKey)),
        case("key-nginx-empty", json!({ "spec": one("nginx", json!({})), "key": "" }), Refused(E::InvalidKey)),
        case("key-jump-u64be-7-bytes", json!({ "spec": one("jump", json!({ "key_hash": "u64be" })), "key_hex": "01020304050607" }), Refused(E::InvalidKey)),
        case("key-replicas-past-nodes", keyed(json!({ "key": "k", "replicas_count": 4 })), Refused(E::ReplicasExceedNodes)),
        // A count far past the node count is refused before anything is sized from it (issue 22:
        // `spread` allocated r entries first on every surface, Java `new int[count]`).
        case("key-replicas-count-2-24", keyed(json!({ "key": "k", "replicas_count": 1 << 24 })), Refused(E::ReplicasExceedNodes)),
    ]);
    // TOML, which only the CLI reads (by file extension).
    cases.extend([
        case("toml-malformed", json!({ "spec_toml": "algorithm = \n" }), Refused(E::InvalidToml)),
        case("toml-wrong-shape", json!({ "spec_toml": "algorithm = \"ring\"\nnodes = 3\n" }), Refused(E::InvalidSpec)),
        case("toml-unknown-field", json!({ "spec_toml": "algorithm = \"ring\"\nweights = [1]\n[[nodes]]\nid = \"a\"\n" }), Refused(E::InvalidSpec)),
        case("toml-valid", json!({ "spec_toml": "algorithm = \"ring\"\n[[nodes]]\nid = \"a\"\n[[nodes]]\nid = \"b\"\n[[nodes]]\nid = \"c\"\n" }), Routes("a")),
    ]);
    cases
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The least `max_hashed_bytes` under which `spec` builds.
fn hashed_bytes_threshold(spec: &Value) -> u64 {
    let builds = |t: u64| {
        let limits = Limits { max_hashed_bytes: t, ..Limits::DEFAULT };
        Router::from_bytes(spec.to_string().as_bytes(), &limits).is_ok()
    };
    let (mut lo, mut hi) = (0u64, 1 << 20);
    assert!(builds(hi) && !builds(lo));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if builds(mid) { hi = mid } else { lo = mid }
    }
    hi
}

/// A case's inputs, built before anything is measured: spec bytes, limits JSON, key.
struct Inputs {
    spec: Vec<u8>,
    limits: Option<String>,
    key: keyroute_bindings::Result<Vec<u8>>,
    replicas: Option<usize>,
}

/// The inputs of a case, or `None` for cases the typed Rust surface cannot express
/// (`key_type`) or does not read (`spec_toml`).
fn inputs(fields: &Value) -> Option<Inputs> {
    if fields.get("key_type").is_some() || fields.get("spec_toml").is_some() {
        return None;
    }
    Some(Inputs {
        spec: common::case_spec_bytes(fields).expect("every case has a spec"),
        limits: common::case_limits(fields),
        key: common::case_key(fields).unwrap_or_else(|| Ok(b"k".to_vec())),
        replicas: fields.get("replicas_count").and_then(Value::as_u64).map(|n| n as usize),
    })
}

/// What the bindings give a case: the owner of its key (`"k"` when it has none), or a code.
fn run(inputs: &Inputs) -> Result<String, ErrorCode> {
    let limits = match &inputs.limits {
        Some(text) => Limits::from_json(text).map_err(|e| e.code())?,
        None => Limits::DEFAULT,
    };
    let router = Router::from_bytes(&inputs.spec, &limits).map_err(|e| e.code())?;
    let key = inputs.key.as_ref().map_err(keyroute_bindings::Error::code)?;
    if let Some(n) = inputs.replicas {
        // The list form (Python, Node, WebAssembly): it sizes its result from `n`, so a case's
        // memory check holds it to checking `n` first. (The C ABI fills the caller's buffer.)
        let out = router.replica_list(key, n).map_err(|e| e.code())?;
        return Ok(router.node_id(out[0]).unwrap().to_string());
    }
    router.route_id(key).map(str::to_string).map_err(|e| e.code())
}

#[test]
fn the_catalogue_is_current_and_every_case_is_cheap() {
    let cases = catalogue();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut ids = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut wrong = Vec::new();
    let (mut worst_bytes, mut worst_time) = ((0usize, String::new()), (Duration::ZERO, String::new()));
    for c in &cases {
        assert!(ids.insert(c.id.clone()), "duplicate id {}", c.id);
        let mut verdict = c.verdict;
        if let Some(inputs) = inputs(&c.fields) {
            let started = Instant::now();
            let (got, bytes) = peak_of(|| run(&inputs));
            let took = started.elapsed();
            drop(inputs);
            match (c.verdict, &got) {
                (Routes(node), _) if got != Ok(node.to_string()) => wrong.push(format!("{}: {got:?}", c.id)),
                (Builds, Ok(node)) => verdict = Routes(node.clone().leak()),
                (Builds, Err(code)) => wrong.push(format!("{}: refused with {code:?}", c.id)),
                (Refused(code), _) if got != Err(code) => wrong.push(format!("{}: {got:?}, not {code:?}", c.id)),
                _ => {}
            }
            if matches!(c.verdict, Refused(_)) {
                // A refusal holds at most 10 MB, whatever the input.
                assert!(bytes <= 10 << 20, "case {} held {bytes} bytes", c.id);
                if bytes > worst_bytes.0 {
                    worst_bytes = (bytes, c.id.clone());
                }
                if took > worst_time.0 {
                    worst_time = (took, c.id.clone());
                }
                if std::env::var_os("KEYROUTE_HOSTILE_TIMES").is_some() {
                    println!("{:>10.3} ms {:>10} B  {}", took.as_secs_f64() * 1e3, bytes, c.id);
                }
            }
        }
        let mut doc = json!({ "id": c.id });
        for (k, v) in c.fields.as_object().unwrap() {
            doc[k] = v.clone();
        }
        let keyed = ["key", "key_hex", "key_utf16", "key_repeat", "key_type"].iter().any(|k| doc.get(k).is_some());
        match verdict {
            Routes(node) => {
                if !keyed {
                    doc["key"] = "k".into();
                }
                doc["node"] = node.into();
            }
            Builds => panic!("case {}: a build whose route the Rust runner does not see", c.id),
            Refused(code) => {
                doc["error"] = code.name().into();
                doc["code"] = code.code().into();
            }
        }
        out.push(doc);
    }
    assert!(wrong.is_empty(), "cases with another verdict:\n{}", wrong.join("\n"));
    println!(
        "hostile: {} cases; the costliest refusals: {} bytes held ({}), {:?} ({}, {} build)",
        cases.len(),
        worst_bytes.0,
        worst_bytes.1,
        worst_time.0,
        worst_time.1,
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    let doc = json!({
        "id": "hostile",
        "description": "The hostile-input catalogue: specs, limits and keys every surface must refuse with the same code (or, at a limit's bound, still route). Fields beyond the common ones: spec_hex, spec_repeat (head + unit × times + tail, as text or hex), spec_toml (the CLI only), limits, key_repeat (as spec_repeat), key_type (the dynamic surfaces only).",
        "provenance": {
            "kind": "generator",
            "generator": "keyroute-bindings tests/hostile.rs",
            "version": concat!("keyroute ", env!("CARGO_PKG_VERSION")),
        },
        "cases": out,
    });
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let path = common::vectors_dir().join("hostile.json");
    if std::env::var_os("KEYROUTE_BLESS").is_some() {
        std::fs::write(&path, text).unwrap();
    } else {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == text, "{} is stale: run `make vectors`", path.display());
    }
}
