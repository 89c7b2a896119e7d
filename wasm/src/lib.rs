//! The WebAssembly backend of the npm package `keyroute`: keyroute-bindings through
//! wasm-bindgen, with the same low-level surface as the Node addon (`node/src`) —
//! `NativeRouter`, `NativeTransition`, `NativeBoundedLoad`, `NativeLease`, `NativeHotKeys`,
//! `diff`, `errorTable`, `parseServer`, `redisSlot`, `splitKeys`, `splitKey` — so one
//! JavaScript layer (`node/lib/api.js`) serves both. There are no threads here: the bounded
//! loads' atomics and the hot-key detector's shard locks are never contended. Every decision
//! (parsing, validation, the key text policy, hashing, lookup, analysis) is made in
//! keyroute-bindings.
//!
//! Errors leave as JavaScript `Error` objects with `code` (`"KR_…"`), `errno` and, for batches,
//! `keyIndex`, exactly as the addon's. Nothing panics: the workspace denies every panicking
//! construct (a panic would trap the instance), and arguments of any type are checked here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use js_sys::{Array, JsString, Object, Reflect, Uint8Array};
use keyroute_bindings::bounded::{self, BoundedLoad};
use keyroute_bindings::hotkeys::SharedHotKeys;
use keyroute_bindings::{Error, ErrorCode, Limits, NodeSpec, Router, Transition, analysis, keys, spread};
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// `e` as a JavaScript error with `code`, `errno` and `keyIndex`.
fn js_error(e: &Error) -> JsValue {
    let error = js_sys::Error::new(e.message());
    let code = format!("KR_{}", e.code().name().to_ascii_uppercase());
    let set = |name: &str, value: JsValue| {
        // Setting a property on a fresh Error cannot fail; if it did, the error still throws.
        let _ = Reflect::set(&error, &JsValue::from_str(name), &value);
    };
    set("code", JsValue::from_str(&code));
    set("errno", JsValue::from(e.code().code()));
    if let Some(i) = e.key_index() {
        set("keyIndex", JsValue::from(i as f64));
    }
    error.into()
}

fn js_code(code: ErrorCode, message: impl Into<String>) -> JsValue {
    js_error(&Error::new(code, message))
}

fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        return "null".into();
    }
    match value.js_typeof().as_string().as_deref() {
        Some("object") => "an object".into(),
        Some("undefined") => "undefined".into(),
        Some(t) => format!("a {t}"),
        None => "an unknown value".into(),
    }
}

/// Calls `f` with the bytes of the key `value`, by the key text policy: a string is its UTF-8
/// (a lone surrogate refused, never replaced), a `Uint8Array` its bytes, anything else
/// `invalid_type`.
fn with_key<R>(value: &JsValue, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    if let Some(text) = value.as_string() {
        return with_text(value, &text, f);
    }
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        return Ok(f(&uint8_bytes(bytes)));
    }
    Err(js_code(
        ErrorCode::InvalidType,
        format!("a key must be a string, Buffer or Uint8Array, not {}", type_name(value)),
    ))
}

/// Calls `f` with the UTF-8 of the string `value`, given as `text`, its conversion by
/// wasm-bindgen: `TextEncoder` replaces a lone surrogate by U+FFFD, so text holding one is read
/// again as UTF-16 and refused (`invalid_utf8`).
fn with_text<R>(value: &JsValue, text: &str, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    if !keys::lossy_utf8_needs_check(text.as_bytes()) {
        return Ok(f(text.as_bytes()));
    }
    let units: Vec<u16> = JsString::from(value.clone()).iter().collect();
    keys::with_utf16_key(&units, f).map_err(|e| js_error(&e))
}

/// The limits a spec is built under: `limits` is JSON of the limits to change, or undefined
/// (or null) for the defaults.
fn limits_of(limits: &JsValue) -> JsResult<Limits> {
    if limits.is_undefined() || limits.is_null() {
        return Ok(Limits::DEFAULT);
    }
    Limits::from_json(&text(limits, "limits")?).map_err(|e| js_error(&e))
}

/// Builds a router from a spec (JSON text, or its bytes as a `Uint8Array`) under `limits`, in
/// the shared order: the size first, before anything is copied into the module's memory.
fn build(spec: &JsValue, limits: &Limits) -> JsResult<Router> {
    if let Some(bytes) = spec.dyn_ref::<Uint8Array>() {
        limits.check_spec_bytes(bytes.length() as usize, "the spec").map_err(|e| js_error(&e))?;
        return Router::from_bytes(&uint8_bytes(bytes), limits).map_err(|e| js_error(&e));
    }
    if !spec.is_string() {
        return Err(js_code(
            ErrorCode::InvalidType,
            format!("a spec must be JSON text, a Buffer or a Uint8Array, not {}", type_name(spec)),
        ));
    }
    // Text has at least one UTF-8 byte per UTF-16 code unit: a string with more units than the
    // limit has bytes is refused without converting it.
    let units = spec.unchecked_ref::<JsString>().length();
    if u64::from(units) > limits.max_spec_bytes {
        return Err(js_code(
            ErrorCode::SpecTooLarge,
            format!("the spec of at least {units} bytes is larger than the limit of {} bytes", limits.max_spec_bytes),
        ));
    }
    let text = spec.as_string().unwrap_or_default();
    // Its UTF-8 length as V8 and the addon count it (a lone surrogate is the 3 bytes of U+FFFD).
    limits.check_spec_bytes(text.len(), "the spec").map_err(|e| js_error(&e))?;
    with_text(spec, &text, |bytes| Router::from_bytes(bytes, limits))?.map_err(|e| js_error(&e))
}

/// The bytes of a `Uint8Array`, copied into the module's memory. A detached buffer reads as
/// empty, as JavaScript itself sees it (copying from one would throw).
fn uint8_bytes(bytes: &Uint8Array) -> Vec<u8> {
    if bytes.length() == 0 { Vec::new() } else { bytes.to_vec() }
}

/// A string argument (spec JSON, an address) as Rust text, by the same policy.
fn text(value: &JsValue, what: &str) -> JsResult<String> {
    if value.as_string().is_none() {
        return Err(js_code(ErrorCode::InvalidType, format!("{what} must be a string, not {}", type_name(value))));
    }
    with_key(value, |bytes| String::from_utf8_lossy(bytes).into_owned())
}

/// A non-negative integer count from a JavaScript number.
fn count(value: &JsValue, what: &str) -> JsResult<usize> {
    let Some(n) = value.as_f64() else {
        return Err(js_code(ErrorCode::InvalidType, format!("{what} must be a number, not {}", type_name(value))));
    };
    if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
        return Err(js_code(ErrorCode::InvalidParameter, format!("{what} must be an integer ≥ 0, not {n}")));
    }
    Ok(n as usize)
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (name, value) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(name), value);
    }
    o.into()
}

fn ids(n: usize, id: impl Fn(u32) -> Option<String>) -> Vec<String> {
    (0..n as u32).map(|i| id(i).unwrap_or_default()).collect()
}

/// A built router (shared with the bounded loads built over it, without copying its table).
#[wasm_bindgen]
pub struct NativeRouter {
    inner: Arc<Router>,
}

#[wasm_bindgen]
impl NativeRouter {
    /// Builds a router from a spec: JSON text, or its bytes (a `Uint8Array`, for documents that
    /// may not be UTF-8), under `limits` (JSON of the limits to change; undefined, the
    /// defaults). The spec is read in the shared order: size, encoding, syntax, node count,
    /// shape.
    #[wasm_bindgen(constructor)]
    pub fn new(spec: JsValue, limits: JsValue) -> JsResult<NativeRouter> {
        let limits = limits_of(&limits)?;
        Ok(Self { inner: Arc::new(build(&spec, &limits)?) })
    }

    /// The position of the node that owns `key`.
    #[wasm_bindgen(js_name = routeIndex)]
    pub fn route_index(&self, key: JsValue) -> JsResult<u32> {
        with_key(&key, |k| self.inner.route(k))?.map_err(|e| js_error(&e))
    }

    /// `n` distinct node positions for `key`, in preference order.
    #[wasm_bindgen(js_name = replicaIndices)]
    pub fn replica_indices(&self, key: JsValue, n: JsValue) -> JsResult<Vec<u32>> {
        let n = count(&n, "the replica count")?;
        with_key(&key, |k| self.inner.replica_list(k, n))?.map_err(|e| js_error(&e))
    }

    /// Read spreading: the position of the `selector mod r`-th of `key`'s first `r` replicas,
    /// the selector being `client`'s (a string or bytes) or, without one, `random`.
    #[wasm_bindgen(js_name = spreadIndex)]
    pub fn spread_index(&self, key: JsValue, r: JsValue, client: JsValue, random: f64) -> JsResult<u32> {
        let r = count(&r, "the replica count")?;
        let selector = selector(&client, random)?;
        with_key(&key, |k| self.inner.spread(k, r, selector))?.map_err(|e| js_error(&e))
    }

    /// The slot `key` falls in (slot-table routers), or undefined.
    pub fn slot(&self, key: JsValue) -> JsResult<JsValue> {
        Ok(with_key(&key, |k| self.inner.slot(k))?.map_or(JsValue::NULL, JsValue::from))
    }

    /// The 64-bit number this router routes `key` on.
    #[wasm_bindgen(js_name = keyHash)]
    pub fn key_hash(&self, key: JsValue) -> JsResult<u64> {
        with_key(&key, |k| self.inner.key_hash(k))?.map_err(|e| js_error(&e))
    }

    /// The position of the node that owns every key whose `keyHash` is `hash` (a bigint).
    #[wasm_bindgen(js_name = routeHash)]
    pub fn route_hash(&self, hash: JsValue) -> JsResult<u32> {
        if !hash.is_bigint() {
            return Err(js_code(ErrorCode::InvalidType, "a key hash must be a bigint"));
        }
        let value =
            u64::try_from(hash).map_err(|_| js_code(ErrorCode::InvalidKey, "a key hash must be in 0..2**64"))?;
        self.inner.route_hash(value).map_err(|e| js_error(&e))
    }

    /// Routes the keys of `joined` (`lengths[i]` UTF-16 code units each) into `out`.
    #[wasm_bindgen(js_name = routeJoinedInto)]
    pub fn route_joined_into(&self, joined: JsValue, lengths: &[u32], out: &mut [u32]) -> JsResult<()> {
        if joined.as_string().is_none() {
            return Err(js_code(
                ErrorCode::InvalidType,
                format!("joined keys must be a string, not {}", type_name(&joined)),
            ));
        }
        let units: Vec<u16> = JsString::from(joined).iter().collect();
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        if total != units.len() as u64 {
            return Err(js_code(ErrorCode::InvalidParameter, "the key lengths do not add up to the text"));
        }
        let mut data = Vec::with_capacity(units.len());
        let mut offsets = Vec::with_capacity(lengths.len() + 1);
        offsets.push(0usize);
        let mut start = 0usize;
        for (i, &l) in lengths.iter().enumerate() {
            let end = start + l as usize;
            let key = units.get(start..end).unwrap_or_default();
            keys::utf16_to_utf8(key, &mut data).map_err(|e| js_error(&e.at_key(i)))?;
            offsets.push(data.len());
            start = end;
        }
        self.inner.route_packed(&data, &offsets, out).map_err(|e| js_error(&e))
    }

    /// Routes keys packed in `data` (key `i` is `data[offsets[i]..offsets[i + 1]]`) into `out`.
    #[wasm_bindgen(js_name = routeBatchInto)]
    pub fn route_batch_into(&self, data: JsValue, offsets: &[u32], out: &mut [u32]) -> JsResult<()> {
        let Some(bytes) = data.dyn_ref::<Uint8Array>() else {
            return Err(js_code(ErrorCode::InvalidType, "packed keys must be a Buffer or Uint8Array"));
        };
        self.inner.route_packed(&uint8_bytes(bytes), offsets, out).map_err(|e| js_error(&e))
    }

    /// The node ids, in spec order.
    #[wasm_bindgen(getter, js_name = nodeIds)]
    pub fn node_ids(&self) -> Vec<String> {
        ids(self.inner.len(), |i| self.inner.node_id(i).map(str::to_owned))
    }

    /// The algorithm or preset the spec names.
    #[wasm_bindgen(getter)]
    pub fn algorithm(&self) -> String {
        self.inner.algorithm().to_owned()
    }

    /// The view's version.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.inner.version() as f64
    }

    /// XXH3-64 of the canonical JSON.
    #[wasm_bindgen(getter)]
    pub fn fingerprint(&self) -> u64 {
        self.inner.fingerprint()
    }

    /// The spec in canonical form.
    #[wasm_bindgen(getter, js_name = canonicalJson)]
    pub fn canonical_json(&self) -> String {
        self.inner.canonical_json().to_owned()
    }

    /// The share of keys each node owns, with the balance figures.
    pub fn ownership(&self) -> JsValue {
        let own = analysis::ownership(&self.inner);
        let shares: Vec<f64> = own.shares.iter().map(|s| s.share).collect();
        object(&[
            ("shares", JsValue::from(shares)),
            ("method", JsValue::from_str(own.method.name())),
            ("sampleKeys", own.method.sample_keys().map_or(JsValue::NULL, JsValue::from)),
            ("cv", JsValue::from(own.balance.cv)),
            ("maxOverMean", JsValue::from(own.balance.max_over_mean)),
            ("minOverMean", JsValue::from(own.balance.min_over_mean)),
        ])
    }

    /// The key-hash space as pieces owned by nodes (rings, Maglev, hash slots), or null.
    pub fn pieces(&self) -> JsValue {
        analysis::pieces(&self.inner).map_or(JsValue::NULL, |p| {
            object(&[
                ("bits", JsValue::from(p.bits)),
                ("starts", js_sys::BigUint64Array::from(p.starts.as_slice()).into()),
                ("owners", js_sys::Uint32Array::from(p.owners.as_slice()).into()),
            ])
        })
    }

    /// Sharing between workers needs shared memory, which this build has not: always throws.
    pub fn share(&self) -> JsResult<f64> {
        Err(unshared())
    }

    /// Always throws (see `share`).
    #[wasm_bindgen(js_name = fromShared)]
    pub fn from_shared(_token: JsValue) -> JsResult<NativeRouter> {
        Err(unshared())
    }
}

fn unshared() -> JsValue {
    js_code(
        ErrorCode::InvalidParameter,
        "the WebAssembly build cannot share a router between workers (no shared memory); \
         post router.canonicalJson and build a Router from it there",
    )
}

/// What changing from `a` to `b` moves (positions in each router).
#[wasm_bindgen]
pub fn diff(a: &NativeRouter, b: &NativeRouter) -> JsResult<JsValue> {
    let d = analysis::diff(&a.inner, &b.inner).map_err(|e| js_error(&e))?;
    let flows: Array = d
        .flows
        .iter()
        .map(|f| {
            object(&[
                ("from", JsValue::from(f.from_index)),
                ("to", JsValue::from(f.to_index)),
                ("share", JsValue::from(f.share)),
            ])
        })
        .collect();
    let arcs: Array = d
        .moved_arcs
        .iter()
        .map(|m| {
            object(&[
                ("start", JsValue::from(m.start)),
                ("end", JsValue::from(m.end)),
                ("from", JsValue::from(m.from_index)),
                ("to", JsValue::from(m.to_index)),
            ])
        })
        .collect();
    Ok(object(&[
        ("moved", JsValue::from(d.moved)),
        ("idealMoved", JsValue::from(d.ideal_moved)),
        ("flows", flows.into()),
        ("movedArcs", arcs.into()),
        ("method", JsValue::from_str(d.method.name())),
        ("sampleKeys", d.method.sample_keys().map_or(JsValue::NULL, JsValue::from)),
    ]))
}

/// A change from router A to router B at some progress.
#[wasm_bindgen]
pub struct NativeTransition {
    inner: Transition,
}

#[wasm_bindgen]
impl NativeTransition {
    /// A transition from `from` to `to` at `progress` in [0, 1].
    #[wasm_bindgen(constructor)]
    pub fn new(from: &NativeRouter, to: &NativeRouter, progress: f64) -> JsResult<NativeTransition> {
        let inner = Transition::new((*from.inner).clone(), (*to.inner).clone(), progress).map_err(|e| js_error(&e))?;
        Ok(Self { inner })
    }

    /// The same change at another progress.
    #[wasm_bindgen(js_name = withProgress)]
    pub fn with_progress(&self, progress: f64) -> JsResult<NativeTransition> {
        Ok(Self { inner: self.inner.with_progress(progress).map_err(|e| js_error(&e))? })
    }

    /// The position (in `nodeIds`) of the node that owns `key` now.
    #[wasm_bindgen(js_name = routeIndex)]
    pub fn route_index(&self, key: JsValue) -> JsResult<u32> {
        with_key(&key, |k| self.inner.route(k))?.map_err(|e| js_error(&e))
    }

    /// `[owner]`, or `[owner, previous]` when the key has cut over to a different node.
    #[wasm_bindgen(js_name = routeWithFallback)]
    pub fn route_with_fallback(&self, key: JsValue) -> JsResult<Vec<u32>> {
        let placed = with_key(&key, |k| self.inner.route_with_fallback(k))?.map_err(|e| js_error(&e))?;
        Ok(std::iter::once(placed.owner).chain(placed.previous).collect())
    }

    /// Whether `key` has cut over to its owner in B.
    #[wasm_bindgen(js_name = hasCutOver)]
    pub fn has_cut_over(&self, key: JsValue) -> JsResult<bool> {
        with_key(&key, |k| self.inner.has_cut_over(k))
    }

    /// Both sides' node ids: B's in order, then A's that B lacks.
    #[wasm_bindgen(getter, js_name = nodeIds)]
    pub fn node_ids(&self) -> Vec<String> {
        ids(self.inner.len(), |i| self.inner.node_id(i).map(str::to_owned))
    }

    /// Progress in [0, 1].
    #[wasm_bindgen(getter)]
    pub fn progress(&self) -> f64 {
        self.inner.progress()
    }

    /// Both views and the progress, as processes exchange them (JSON).
    #[wasm_bindgen(js_name = describeJson)]
    pub fn describe_json(&self) -> String {
        self.inner.describe_json()
    }
}

/// `[code, name, category, description]` for every kind of the error table.
#[wasm_bindgen(js_name = errorTable)]
pub fn error_table() -> Array {
    ErrorCode::ALL
        .iter()
        .map(|c| -> JsValue {
            [
                JsValue::from(c.code()),
                JsValue::from_str(c.name()),
                JsValue::from_str(c.category().name()),
                JsValue::from_str(c.description()),
            ]
            .into_iter()
            .collect::<Array>()
            .into()
        })
        .collect()
}

/// `[name, default, ceiling]` for every limit a spec is built under (`Limits::DEFAULT`,
/// `Limits::CEILING`), in declaration order.
#[wasm_bindgen(js_name = limitTable)]
pub fn limit_table() -> Array {
    Limits::DEFAULT
        .fields()
        .into_iter()
        .zip(Limits::CEILING.fields())
        .map(|((name, default), (_, ceiling))| -> JsValue {
            [JsValue::from_str(name), JsValue::from(default as f64), JsValue::from(ceiling as f64)]
                .into_iter()
                .collect::<Array>()
                .into()
        })
        .collect()
}

/// `[host, port]` of a memcached-style server address.
#[wasm_bindgen(js_name = parseServer)]
pub fn parse_server(address: JsValue) -> JsResult<Array> {
    let address = text(&address, "a server address")?;
    let node = NodeSpec::from_server(&address, 1).map_err(|e| js_error(&e))?;
    Ok([JsValue::from_str(&node.host.unwrap_or_default()), JsValue::from(node.port.unwrap_or_default())]
        .into_iter()
        .collect())
}

/// The Redis Cluster slot of `key`: `rule` 0 is Redis's hash-tag rule, 1 npm
/// `cluster-key-slot`'s.
#[wasm_bindgen(js_name = redisSlot)]
pub fn redis_slot(key: JsValue, rule: u32) -> JsResult<u32> {
    let rule = match rule {
        0 => keyroute_bindings::core::presets::HashTagRule::Redis,
        _ => keyroute_bindings::core::presets::HashTagRule::ClusterKeySlot,
    };
    with_key(&key, |k| rule.slot(k))
}

/// The selector of `client` (a string or bytes, by the key text policy), or `random` (an
/// integer the JavaScript side drew) when `client` is undefined or null.
fn selector(client: &JsValue, random: f64) -> JsResult<u64> {
    if client.is_undefined() || client.is_null() {
        // A draw in 0..2^32 from JavaScript; anything else is clamped by the cast.
        return Ok(random as u64);
    }
    with_key(client, spread::client_selector)
}

/// The `r` derived keys `key#1` … `key#r` a hot key is written under, as bytes.
#[wasm_bindgen(js_name = splitKeys)]
pub fn split_keys(key: JsValue, r: JsValue) -> JsResult<Array> {
    let r = count(&r, "the number of copies")?;
    let keys = with_key(&key, |k| spread::split_keys(k, r))?.map_err(|e| js_error(&e))?;
    Ok(keys.iter().map(|k| JsValue::from(Uint8Array::from(k.as_slice()))).collect())
}

/// The derived key a reader reads a split hot key from: by `client`'s selector, or `random`.
#[wasm_bindgen(js_name = splitKey)]
pub fn split_key(key: JsValue, r: JsValue, client: JsValue, random: f64) -> JsResult<Uint8Array> {
    let r = count(&r, "the number of copies")?;
    let selector = selector(&client, random)?;
    let key = with_key(&key, |k| spread::split_key(k, r, selector))?.map_err(|e| js_error(&e))?;
    Ok(Uint8Array::from(key.as_slice()))
}

fn core_error(e: keyroute_bindings::core::Error) -> JsValue {
    js_error(&Error::from(e))
}

/// A router whose keys go to the first node of their preference order with room.
#[wasm_bindgen]
pub struct NativeBoundedLoad {
    inner: Arc<BoundedLoad>,
}

#[wasm_bindgen]
impl NativeBoundedLoad {
    /// Bounded loads over `router` with balance factor `c` (1 to 1000).
    #[wasm_bindgen(constructor)]
    pub fn new(router: &NativeRouter, c: f64) -> JsResult<NativeBoundedLoad> {
        let inner = bounded::bounded(Arc::clone(&router.inner), c).map_err(|e| js_error(&e))?;
        Ok(Self { inner: Arc::new(inner) })
    }

    /// `[node, rank]` where `key` would go now, without taking a slot (rank 0: its owner).
    pub fn pick(&self, key: JsValue) -> JsResult<Vec<u32>> {
        let pick = with_key(&key, |k| self.inner.pick(k))?.map_err(core_error)?;
        Ok(vec![pick.node, pick.rank])
    }

    /// Places `key` and takes a slot on its node until the lease is released (or collected).
    pub fn acquire(&self, key: JsValue) -> JsResult<NativeLease> {
        let pick = with_key(&key, |k| self.inner.acquire_raw(k))?.map_err(core_error)?;
        Ok(NativeLease {
            bounded: Arc::clone(&self.inner),
            node: pick.node,
            rank: pick.rank,
            held: AtomicBool::new(true),
        })
    }

    /// Requests in flight on the node at `node` (a position in the router's nodes).
    pub fn load(&self, node: u32) -> u32 {
        self.inner.load(node)
    }

    /// The most requests the node at `node` may serve once one more arrives.
    pub fn capacity(&self, node: u32) -> u32 {
        self.inner.capacity(node, self.inner.total().saturating_add(1))
    }

    /// Requests in flight over all nodes.
    #[wasm_bindgen(getter)]
    pub fn total(&self) -> u32 {
        self.inner.total()
    }

    /// The balance factor `c`, as kept (three decimals).
    #[wasm_bindgen(getter)]
    pub fn factor(&self) -> f64 {
        self.inner.factor()
    }
}

/// A slot on a node, given back exactly once: by `release()`, or when the lease is collected
/// (wasm-bindgen frees collected objects through a `FinalizationRegistry`).
#[wasm_bindgen]
pub struct NativeLease {
    bounded: Arc<BoundedLoad>,
    node: u32,
    rank: u32,
    held: AtomicBool,
}

impl NativeLease {
    fn give_back(&self) -> bool {
        self.held.swap(false, Ordering::AcqRel) && self.bounded.release(self.node).is_ok()
    }
}

#[wasm_bindgen]
impl NativeLease {
    /// The node serving the request (its position in the router's nodes).
    #[wasm_bindgen(getter)]
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Its position in the key's preference order (0: the key's owner).
    #[wasm_bindgen(getter)]
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// Whether the slot is still held.
    #[wasm_bindgen(getter)]
    pub fn held(&self) -> bool {
        self.held.load(Ordering::Acquire)
    }

    /// Gives the slot back: true the first time, false after.
    pub fn release(&self) -> bool {
        self.give_back()
    }
}

impl Drop for NativeLease {
    fn drop(&mut self) {
        self.give_back();
    }
}

/// A bounded-memory hot-key detector.
#[wasm_bindgen]
pub struct NativeHotKeys {
    inner: SharedHotKeys,
}

#[wasm_bindgen]
impl NativeHotKeys {
    /// `shards` shards with `width` sketch counters a row and `capacity` candidate keys in all.
    #[wasm_bindgen(constructor)]
    pub fn new(width: JsValue, capacity: JsValue, shards: JsValue) -> JsResult<NativeHotKeys> {
        let width = count(&width, "the sketch width")?;
        let capacity = count(&capacity, "the candidate capacity")?;
        let shards = count(&shards, "the shard count")?;
        Ok(Self { inner: SharedHotKeys::new(width, capacity, shards).map_err(|e| js_error(&e))? })
    }

    /// Counts one observation of `key`; returns its estimate after it.
    pub fn observe(&self, key: JsValue) -> JsResult<u32> {
        with_key(&key, |k| self.inner.observe(k))?.map_err(|e| js_error(&e))
    }

    /// The estimate of `key`'s decayed count (never below the true count).
    pub fn heat(&self, key: JsValue) -> JsResult<u32> {
        with_key(&key, |k| self.inner.heat(k))
    }

    /// Whether `key`'s estimate is at least `count`.
    #[wasm_bindgen(js_name = isHot)]
    pub fn is_hot(&self, key: JsValue, count: u32) -> JsResult<bool> {
        with_key(&key, |k| self.inner.is_hot(k, count))
    }

    /// Whether `key`'s estimate is at least `share` of all observations.
    #[wasm_bindgen(js_name = isHotShare)]
    pub fn is_hot_share(&self, key: JsValue, share: f64) -> JsResult<bool> {
        with_key(&key, |k| self.inner.is_hot_share(k, share))
    }

    /// The `k` most counted keys, most counted first: `[keys, counts]`; a key longer than 1 KiB
    /// is given as its first 1,024 bytes.
    pub fn top(&self, k: JsValue) -> JsResult<Array> {
        let k = count(&k, "k")?;
        let (keys, counts): (Array, Vec<u32>) = {
            let top = self.inner.top(k).map_err(|e| js_error(&e))?;
            let keys: Array = top.iter().map(|(key, _)| JsValue::from(Uint8Array::from(key.as_slice()))).collect();
            (keys, top.iter().map(|&(_, n)| n).collect())
        };
        Ok([JsValue::from(keys), JsValue::from(counts)].into_iter().collect())
    }

    /// Halves every count.
    pub fn decay(&self) {
        self.inner.decay();
    }

    /// Observations counted (decayed with the counts).
    #[wasm_bindgen(getter)]
    pub fn total(&self) -> f64 {
        self.inner.total() as f64
    }

    /// Bytes held by the detector.
    #[wasm_bindgen(getter, js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        self.inner.memory_bytes() as f64
    }
}
