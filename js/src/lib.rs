//! The Rust half of keyroute's JavaScript API, written once for both JavaScript backends.
//!
//! The npm package's JavaScript layer (`node/lib/api.js`) calls one low-level surface:
//! `NativeRouter`, `NativeTransition`, `NativeBoundedLoad`, `NativeLease`, `NativeHotKeys`,
//! `diff`, `errorTable`, `limitTable`, `parseServer`, `redisSlot`, `splitKeys` and `splitKey`.
//! [`surface!`] holds every one of those methods, once. A backend expands it with its own
//! *emitter*, a `macro_rules!` that writes the methods out with its binding generator's
//! attributes (`#[napi]` in `node/`, `#[wasm_bindgen]` in `wasm/`) and its argument types, and
//! implements [`Host`], the few conversions that differ between the two (reading a key or a
//! number from a JavaScript value, throwing an error, making a result object).
//!
//! Why a macro and not only a crate generic over [`Host`]: napi-rs and wasm-bindgen are
//! attribute macros that must see concrete, non-generic methods on concrete structs, so a
//! generic crate would still need every backend to list every method again with its attribute.
//! Expanding one list through each backend's emitter writes the list once; [`Host`] keeps what
//! is really different in each backend small and named.
//!
//! What the bodies do is only argument checks and conversions: every decision is
//! keyroute-bindings'.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use keyroute_bindings as bindings;
use keyroute_bindings::bounded::BoundedLoad;
use keyroute_bindings::view::{OwnedViewReader, ViewState};
use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Router};

/// A JavaScript value a method returns when it is more than a scalar (an object, an array, a
/// typed array), built in Rust and made a JavaScript value by [`Host::out`].
#[derive(Debug, Clone, PartialEq)]
pub enum Js {
    /// `null`.
    Null,
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A bigint of 0..2^64.
    Big(u64),
    /// A `Uint32Array`.
    U32s(Vec<u32>),
    /// A `BigUint64Array`.
    U64s(Vec<u64>),
    /// A `Uint8Array`.
    Bytes(Vec<u8>),
    /// An array.
    List(Vec<Js>),
    /// A plain object with these properties, in order.
    Obj(Vec<(&'static str, Js)>),
}

impl Js {
    /// A number, or `null` when absent.
    pub fn num_or_null(n: Option<u32>) -> Js {
        n.map_or(Js::Null, |n| Js::Num(f64::from(n)))
    }
}

/// What a JavaScript backend provides to [`surface!`]'s methods: reading JavaScript values by
/// keyroute's policies, throwing errors as the JavaScript layer expects them (`Error` objects
/// with `code` `"KR_…"`, `errno` and, for batches, `keyIndex`), and making results.
pub trait Host {
    /// A JavaScript argument of any type.
    type Value<'v>;
    /// What a method throws.
    type Error;
    /// A `Uint32Array` a method writes into.
    type U32sOut<'v>;
    /// A JavaScript value a method returns ([`Js`], converted).
    type Out;

    /// `e` as the error the method throws.
    fn error(&self, e: &Error) -> Self::Error;

    /// Calls `f` with the bytes of the key `value` by the key text policy
    /// (`keyroute_bindings::keys`): a string is its UTF-8 (a lone surrogate refused with
    /// `invalid_utf8`), a `Uint8Array` its bytes, anything else `invalid_type`.
    fn with_key<R>(&self, value: &Self::Value<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<R, Self::Error>;

    /// Calls `f` with the bytes of `value` when it is a `Uint8Array` (a `Buffer` is one);
    /// `None` for any other value.
    fn with_bytes<R>(&self, value: &Self::Value<'_>, f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>, Self::Error>;

    /// `value` as Rust text by the key text policy; `invalid_type` naming `what` when it is not
    /// a string.
    fn text(&self, value: &Self::Value<'_>, what: &str) -> Result<String, Self::Error>;

    /// `value` when it is a number, else `None`.
    fn number(&self, value: &Self::Value<'_>) -> Result<Option<f64>, Self::Error>;

    /// `value` when it is a bigint: `Some(None)` when it is outside 0..2^64; `None` for any
    /// other value.
    fn bigint(&self, value: &Self::Value<'_>) -> Result<Option<Option<u64>>, Self::Error>;

    /// Whether `value` is undefined or null (an option left out).
    fn is_absent(&self, value: &Self::Value<'_>) -> Result<bool, Self::Error>;

    /// What `value` is, for a message: `"a number"`, `"null"`, `"an object"`, ….
    fn type_name(&self, value: &Self::Value<'_>) -> Result<String, Self::Error>;

    /// A router from a spec (JSON text, or its bytes as a `Uint8Array`) under `limits`, in
    /// the shared order: the spec's size first, before it is copied anywhere. `serialized`: the
    /// JavaScript layer wrote the text from the caller's object, so errors name the field but
    /// no line and column (`Router::from_serialized`).
    fn build(&self, spec: &Self::Value<'_>, limits: &Limits, serialized: bool) -> Result<Router, Self::Error>;

    /// The keys of `joined` (one string; key `i` is `lengths[i]` UTF-16 code units) as packed
    /// UTF-8 and `lengths.len() + 1` offsets, each key by the key text policy (an error names
    /// the key by `keyIndex`).
    fn joined_keys(&self, joined: &Self::Value<'_>, lengths: &[u32]) -> Result<(Vec<u8>, Vec<usize>), Self::Error>;

    /// A token another worker passes to [`Host::shared`] for `router`.
    fn share(&self, router: &Arc<Router>) -> Result<f64, Self::Error>;

    /// The router a token names, if it is alive.
    fn shared(&self, token: f64) -> Result<Option<Arc<Router>>, Self::Error>;

    /// `value` as a JavaScript value.
    fn out(&self, value: Js) -> Result<Self::Out, Self::Error>;

    /// Calls `f` with the elements of `out`, which it writes (all or a prefix; the rest stay as
    /// they were).
    fn fill<R>(&self, out: Self::U32sOut<'_>, f: impl FnOnce(&mut [u32]) -> R) -> R;

    /// `r`'s value, or its error thrown.
    fn check<T>(&self, r: keyroute_bindings::Result<T>) -> Result<T, Self::Error> {
        r.map_err(|e| self.error(&e))
    }

    /// An error of `code` with `message`.
    fn fail(&self, code: ErrorCode, message: impl Into<String>) -> Self::Error {
        self.error(&Error::new(code, message))
    }

    /// A non-negative integer count from a JavaScript number: `invalid_type` for another
    /// value, `invalid_parameter` for a number that is not an integer of 0..2^53.
    fn count(&self, value: &Self::Value<'_>, what: &str) -> Result<usize, Self::Error> {
        let Some(n) = self.number(value)? else {
            let got = self.type_name(value)?;
            return Err(self.fail(ErrorCode::InvalidType, format!("{what} must be a number, not {got}")));
        };
        if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
            return Err(self.fail(ErrorCode::InvalidParameter, format!("{what} must be an integer ≥ 0, not {n}")));
        }
        Ok(n as usize)
    }

    /// The limits a spec is built under: `limits` is JSON of the limits to change, or absent
    /// for the defaults.
    fn limits(&self, limits: &Self::Value<'_>) -> Result<Limits, Self::Error> {
        if self.is_absent(limits)? {
            return Ok(Limits::DEFAULT);
        }
        self.check(Limits::from_json(&self.text(limits, "limits")?))
    }

    /// A read-spreading selector: `client`'s (a string or bytes, by the key text policy), or
    /// `random` (an integer the JavaScript side drew) when `client` is absent.
    fn selector(&self, client: &Self::Value<'_>, random: f64) -> Result<u64, Self::Error> {
        if self.is_absent(client)? {
            // A draw in 0..2^32 from JavaScript; anything else is clamped by the cast.
            return Ok(random as u64);
        }
        self.with_key(client, keyroute_bindings::spread::client_selector)
    }
}

/// A slot taken on a node by bounded loads, given back exactly once: by [`Slot::release`], or
/// when it is dropped (the JavaScript object holding it was collected).
#[derive(Debug)]
pub struct Slot {
    bounded: Arc<BoundedLoad>,
    /// The node serving the request (its position in the router's nodes).
    pub node: u32,
    /// Its position in the key's preference order (0: the key's owner).
    pub rank: u32,
    held: AtomicBool,
}

impl Slot {
    /// Places `key` on `bounded` and takes a slot on its node.
    ///
    /// # Errors
    /// The core's, as `keyroute_bindings::Error`.
    pub fn acquire(bounded: &Arc<BoundedLoad>, key: &[u8]) -> keyroute_bindings::Result<Slot> {
        let pick = bounded.acquire_raw(key).map_err(Error::from)?;
        Ok(Slot { bounded: Arc::clone(bounded), node: pick.node, rank: pick.rank, held: AtomicBool::new(true) })
    }

    /// Whether the slot is still held.
    pub fn held(&self) -> bool {
        self.held.load(Ordering::Acquire)
    }

    /// Gives the slot back: true the first time, false after.
    pub fn release(&self) -> bool {
        self.held.swap(false, Ordering::AcqRel) && self.bounded.release(self.node).is_ok()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.release();
    }
}

/// The node ids of a router or transition with `n` nodes, in order.
pub fn ids<'a>(n: usize, id: impl Fn(u32) -> Option<&'a str>) -> Vec<String> {
    (0..n as u32).map(|i| id(i).unwrap_or_default().to_owned()).collect()
}

/// `[code, name, category, description]` for every kind of the error table, in numeric order.
pub fn error_table() -> Js {
    Js::List(
        ErrorCode::ALL
            .iter()
            .map(|c| {
                Js::List(vec![
                    Js::Num(f64::from(c.code())),
                    Js::Str(c.name().to_owned()),
                    Js::Str(c.category().name().to_owned()),
                    Js::Str(c.description().to_owned()),
                ])
            })
            .collect(),
    )
}

/// `[name, default, ceiling]` for every limit a spec is built under (`Limits::DEFAULT`,
/// `Limits::CEILING`), in declaration order. Every value is below 2^53, so a plain number.
pub fn limit_table() -> Js {
    Js::List(
        Limits::DEFAULT
            .fields()
            .into_iter()
            .zip(Limits::CEILING.fields())
            .map(|((name, default), (_, ceiling))| {
                Js::List(vec![Js::Str(name.to_owned()), Js::Num(default as f64), Js::Num(ceiling as f64)])
            })
            .collect(),
    )
}

/// What changing from `a` to `b` moves (node positions in each router), as the JavaScript layer
/// reads it.
///
/// # Errors
/// `keyroute_bindings::analysis::diff`'s.
pub fn diff(a: &Router, b: &Router) -> keyroute_bindings::Result<Js> {
    let d = keyroute_bindings::analysis::diff(a, b)?;
    let flows = d
        .flows
        .iter()
        .map(|f| {
            Js::Obj(vec![
                ("from", Js::Num(f64::from(f.from_index))),
                ("to", Js::Num(f64::from(f.to_index))),
                ("share", Js::Num(f.share)),
            ])
        })
        .collect();
    let arcs = d
        .moved_arcs
        .iter()
        .map(|m| {
            Js::Obj(vec![
                ("start", Js::Big(m.start)),
                ("end", Js::Big(m.end)),
                ("from", Js::Num(f64::from(m.from_index))),
                ("to", Js::Num(f64::from(m.to_index))),
            ])
        })
        .collect();
    Ok(Js::Obj(vec![
        ("moved", Js::Num(d.moved)),
        ("idealMoved", Js::Num(d.ideal_moved)),
        ("flows", Js::List(flows)),
        ("movedArcs", Js::List(arcs)),
        ("method", Js::Str(d.method.name().to_owned())),
        ("sampleKeys", Js::num_or_null(d.method.sample_keys())),
    ]))
}

/// The share of keys each node owns, with the balance figures.
pub fn ownership(router: &Router) -> Js {
    let own = keyroute_bindings::analysis::ownership(router);
    Js::Obj(vec![
        ("shares", Js::List(own.shares.iter().map(|s| Js::Num(s.share)).collect())),
        ("method", Js::Str(own.method.name().to_owned())),
        ("sampleKeys", Js::num_or_null(own.method.sample_keys())),
        ("cv", Js::Num(own.balance.cv)),
        ("maxOverMean", Js::Num(own.balance.max_over_mean)),
        ("minOverMean", Js::Num(own.balance.min_over_mean)),
    ])
}

/// The key-hash space as pieces owned by nodes (rings, Maglev, hash slots), or null.
pub fn pieces(router: &Router) -> Js {
    keyroute_bindings::analysis::pieces(router).map_or(Js::Null, |p| {
        Js::Obj(vec![
            ("bits", Js::Num(f64::from(p.bits))),
            ("starts", Js::U64s(p.starts)),
            ("owners", Js::U32s(p.owners)),
        ])
    })
}

/// What a live view's per-key call returns when the version asked for is not the one in effect
/// (no node index is this large: the node count is far below it).
pub const OTHER_VERSION: u32 = u32::MAX;

/// What a JavaScript `NativeLiveView` holds: the live view, the reader its per-key calls go
/// through (one per object; JavaScript calls it from one thread), and the version whose node
/// ids the JavaScript `LiveView` holds.
#[derive(Debug)]
pub struct LiveHandle {
    /// The live view (shared with the watches that feed it).
    pub view: Arc<LiveView>,
    reader: std::cell::RefCell<OwnedViewReader>,
    known: Known,
}

/// The version whose node ids the JavaScript `LiveView` holds (`u64::MAX`, no version, before any):
/// set by `routeFresh`, which hands those ids over, and read by each per-key call, so the call
/// needs no version argument (reading one through Node-API cost the addon's call a few ns).
/// Shared with the addon's per-key handle.
#[derive(Debug, Clone)]
pub struct Known(Arc<std::sync::atomic::AtomicU64>);

impl Known {
    fn new() -> Self {
        Self(Arc::new(std::sync::atomic::AtomicU64::new(u64::MAX)))
    }

    /// The version whose ids JavaScript holds.
    #[inline(always)]
    #[must_use]
    pub fn get(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set(&self, version: u64) {
        self.0.store(version, std::sync::atomic::Ordering::Relaxed);
    }
}

impl LiveHandle {
    /// A handle on `view`.
    pub fn new(view: LiveView) -> Self {
        let view = Arc::new(view);
        Self { reader: std::cell::RefCell::new(OwnedViewReader::new(Arc::clone(&view))), view, known: Known::new() }
    }

    /// The version whose node ids JavaScript holds, shared (for the addon's per-key handle).
    #[must_use]
    pub fn known(&self) -> Known {
        self.known.clone()
    }

    /// [`reader_route_at`] through this handle's reader, for the version JavaScript holds ids of.
    ///
    /// # Errors
    /// As `ViewState::route`.
    #[inline]
    pub fn route_at(&self, key: &[u8]) -> keyroute_bindings::Result<u32> {
        let version = self.known.get();
        match self.reader.try_borrow_mut() {
            Ok(mut reader) => reader_route_at(&mut reader, key, version),
            // Only a call made while another on the same object routes: none can be.
            Err(_) => view_route_at(&self.view, key, version),
        }
    }

    /// [`view_route_fresh`], and the version it hands the ids of becomes the one JavaScript
    /// holds.
    ///
    /// # Errors
    /// As [`view_route_fresh`].
    pub fn route_fresh(&self, key: &[u8]) -> keyroute_bindings::Result<Js> {
        let (version, fresh) = view_route_fresh(&self.view, key)?;
        self.known.set(version);
        Ok(fresh)
    }
}

/// The owner of `key` in `view`'s view in effect when that view's version is `version`, as an
/// index into its node list; [`OTHER_VERSION`] when another version (or none) is in effect, so the JavaScript
/// layer, which keeps the node ids of the version it last saw, fetches the new version's
/// ([`view_route_fresh`]). The per-key call of a live view.
///
/// # Errors
/// As `ViewState::route`.
#[inline]
pub fn view_route_at(view: &LiveView, key: &[u8], version: u64) -> keyroute_bindings::Result<u32> {
    unset_is_other(view.with(|state| route_if(state, key, version)))
}

/// [`view_route_at`] through a reader that keeps the view it last saw (one relaxed load a call
/// while the view stays): the addon's per-key call, whose handle holds the reader.
///
/// # Errors
/// As `ViewState::route`.
#[inline(always)]
pub fn reader_route_at(reader: &mut OwnedViewReader, key: &[u8], version: u64) -> keyroute_bindings::Result<u32> {
    unset_is_other(reader.with(|state| route_if(state, key, version)))
}

#[inline(always)]
fn route_if(state: &ViewState, key: &[u8], version: u64) -> keyroute_bindings::Result<u32> {
    if state.version() == version { state.route(key) } else { Ok(OTHER_VERSION) }
}

/// No view yet is "another version": the JavaScript layer then asks for the view in effect,
/// and that call reports `no_view`.
#[inline(always)]
fn unset_is_other(routed: keyroute_bindings::Result<u32>) -> keyroute_bindings::Result<u32> {
    match routed {
        Err(e) if e.code() == ErrorCode::NoView => Ok(OTHER_VERSION),
        r => r,
    }
}

/// `{version, index, ids}`: the owner of `key` in `view`'s view in effect and that view's node
/// ids, read from one view (a newer one may be applied at any moment); and that version.
///
/// # Errors
/// `no_view` before a first view; as `ViewState::route`.
pub fn view_route_fresh(view: &LiveView, key: &[u8]) -> keyroute_bindings::Result<(u64, Js)> {
    view.with(|state| {
        let index = state.route(key)?;
        let version = state.version();
        let ids = (0..state.node_count() as u32).map(|i| Js::Str(state.node_id(i).unwrap_or_default().to_owned()));
        Ok((
            version,
            Js::Obj(vec![
                ("version", Js::Num(version as f64)),
                ("index", Js::Num(f64::from(index))),
                ("ids", Js::List(ids.collect())),
            ]),
        ))
    })
}

/// `[owner]`, or `[owner, previous]` (ids) when `key` has cut over during a rollout.
///
/// # Errors
/// `no_view`; as `ViewState::route`.
pub fn view_route_with_fallback(view: &LiveView, key: &[u8]) -> keyroute_bindings::Result<Vec<String>> {
    view.with(|state| {
        let placed = state.route_with_fallback(key)?;
        std::iter::once(placed.owner).chain(placed.previous).map(|i| node_id(state, i)).collect()
    })
}

/// `[from, to]` ids: the owners of `key` at the two ends of the rollout in effect (`[owner]` for
/// a plain view), the copies a write or a delete during a rollout must reach.
///
/// # Errors
/// `no_view`; as `Router::route`.
pub fn view_ends(view: &LiveView, key: &[u8]) -> keyroute_bindings::Result<Vec<String>> {
    let owner = |r: &Router| r.route(key).and_then(|i| node_id_of(r.node_id(i)));
    view.with(|state| std::iter::once(state.router()).chain(state.rollout_target()).map(owner).collect())
}

fn node_id(state: &ViewState, index: u32) -> keyroute_bindings::Result<String> {
    node_id_of(state.node_id(index))
}

fn node_id_of(id: Option<&str>) -> keyroute_bindings::Result<String> {
    id.map(str::to_owned).ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
}

/// Publishes a view document (JSON text, or its bytes) on `view`; returns the version applied.
///
/// # Errors
/// As `LiveView::publish_bytes` (the refusal is recorded).
pub fn view_publish(view: &LiveView, document: &[u8]) -> keyroute_bindings::Result<f64> {
    view.publish_bytes(document).map(|state| state.version() as f64)
}

/// Every method of the JavaScript surface, written once; `surface!(emit)` hands them to the
/// backend's emitter macro `emit!`, which writes them out with its binding attributes.
///
/// The grammar `emit!` receives:
///
/// ```text
/// classes {
///     /// doc…
///     class Name { field: Type, … }
///     new(h, arg: Type, …) -> Self { body }          // the constructor (optional)
///     {
///         /// doc…
///         [flags] "jsName" fn name(self; h, arg: Type, …) -> Ret { body }   // a method
///         [flags] "jsName" fn name(; h, arg: Type, …) -> Ret { body }       // a static
///     }
///     …
/// }
/// functions {
///     /// doc…
///     "jsName" fn name(h, arg: Type, …) -> Ret { body }
///     …
/// }
/// ```
///
/// `flags` is empty or `getter`. `h` names the backend's [`Host`] inside the body, whose
/// `?` errors are `Host::Error`. The argument types are names each backend defines: `Value`
/// (any JavaScript value), `U32s` (a `Uint32Array` read), `U32sOut` (a `Uint32Array`
/// written), `Out` (a [`Js`] result), plain Rust scalars, and `&Native…` class references.
#[macro_export]
macro_rules! surface {
    ($emit:ident) => {
        $emit! {
            classes {
                /// A built router (immutable; shared, not copied, by the bounded loads and
                /// transitions built over it).
                class NativeRouter { inner: ::std::sync::Arc<$crate::bindings::Router> }
                /// Builds a router from a spec: JSON text, or its bytes (a `Buffer` or
                /// `Uint8Array`, for documents that may not be UTF-8), under `limits` (JSON of the
                /// limits to change; absent, the defaults). The spec is read in the shared order:
                /// its size first, then its encoding, syntax, node count and shape.
                new(h, spec: Value, limits: Value) -> Self {
                    let limits = h.limits(&limits)?;
                    Ok(Self { inner: ::std::sync::Arc::new(h.build(&spec, &limits, false)?) })
                }
                {
                    /// The position of the node that owns `key`.
                    [] "routeIndex" fn route_index(self; h, key: Value) -> u32 {
                        h.check(h.with_key(&key, |k| self.inner.route(k))?)
                    }

                    /// `n` distinct node positions for `key`, in preference order.
                    [] "replicaIndices" fn replica_indices(self; h, key: Value, n: Value) -> Out {
                        let n = h.count(&n, "the replica count")?;
                        let list = h.check(h.with_key(&key, |k| self.inner.replica_list(k, n))?)?;
                        h.out($crate::Js::U32s(list))
                    }

                    /// Read spreading: the position of the `selector mod r`-th of `key`'s first `r`
                    /// replicas, the selector being `client`'s (a string or bytes) or, without one,
                    /// `random`.
                    [] "spreadIndex" fn spread_index(self; h, key: Value, r: Value, client: Value, random: f64) -> u32 {
                        let r = h.count(&r, "the replica count")?;
                        let selector = h.selector(&client, random)?;
                        h.check(h.with_key(&key, |k| self.inner.spread(k, r, selector))?)
                    }

                    /// The slot `key` falls in (slot-table routers), or null.
                    [] "slot" fn slot(self; h, key: Value) -> Out {
                        h.out($crate::Js::num_or_null(h.with_key(&key, |k| self.inner.slot(k))?))
                    }

                    /// The 64-bit number this router routes `key` on.
                    [] "keyHash" fn key_hash(self; h, key: Value) -> Out {
                        h.out($crate::Js::Big(h.check(h.with_key(&key, |k| self.inner.key_hash(k))?)?))
                    }

                    /// The position of the node that owns every key whose `keyHash` is `hash` (a
                    /// bigint).
                    [] "routeHash" fn route_hash(self; h, hash: Value) -> u32 {
                        use $crate::bindings::ErrorCode;
                        match h.bigint(&hash)? {
                            None => Err(h.fail(ErrorCode::InvalidType, "a key hash must be a bigint")),
                            Some(None) => Err(h.fail(ErrorCode::InvalidKey, "a key hash must be in 0..2**64")),
                            Some(Some(value)) => h.check(self.inner.route_hash(value)),
                        }
                    }

                    /// Routes the keys of `joined` (one string, the keys concatenated; `lengths[i]`
                    /// UTF-16 code units each) into `out`, by the key text policy, each key
                    /// separately.
                    [] "routeJoinedInto" fn route_joined_into(self; h, joined: Value, lengths: U32s, out: U32sOut) -> () {
                        let (data, offsets) = h.joined_keys(&joined, &lengths)?;
                        h.check(h.fill(out, |out| self.inner.route_packed(&data, &offsets, out)))
                    }

                    /// Routes keys packed in `data` (key `i` is `data[offsets[i]..offsets[i + 1]]`)
                    /// into `out`, reading the keys in place.
                    [] "routeBatchInto" fn route_batch_into(self; h, data: Value, offsets: U32s, out: U32sOut) -> () {
                        let routed = h.with_bytes(&data, |bytes| h.fill(out, |out| self.inner.route_packed(bytes, &offsets, out)))?;
                        match routed {
                            Some(r) => h.check(r),
                            None => Err(h.fail(
                                $crate::bindings::ErrorCode::InvalidType,
                                "packed keys must be a Buffer or Uint8Array",
                            )),
                        }
                    }

                    /// The node ids, in spec order.
                    [getter] "nodeIds" fn node_ids(self; h) -> Vec<String> {
                        Ok($crate::ids(self.inner.len(), |i| self.inner.node_id(i)))
                    }

                    /// The algorithm or preset the spec names.
                    [getter] "algorithm" fn algorithm(self; h) -> String {
                        Ok(self.inner.algorithm().to_owned())
                    }

                    /// The view's version (at most 2^53 − 1, so a plain number).
                    [getter] "version" fn version(self; h) -> f64 {
                        Ok(self.inner.version() as f64)
                    }

                    /// XXH3-64 of the canonical JSON.
                    [getter] "fingerprint" fn fingerprint(self; h) -> Out {
                        h.out($crate::Js::Big(self.inner.fingerprint()))
                    }

                    /// The spec in canonical form.
                    [getter] "canonicalJson" fn canonical_json(self; h) -> String {
                        Ok(self.inner.canonical_json().to_owned())
                    }

                    /// The share of keys each node owns, with the balance figures.
                    [] "ownership" fn ownership(self; h) -> Out {
                        h.out($crate::ownership(&self.inner))
                    }

                    /// The key-hash space as pieces owned by nodes (rings, Maglev, hash slots), or
                    /// null.
                    [] "pieces" fn pieces(self; h) -> Out {
                        h.out($crate::pieces(&self.inner))
                    }

                    /// A token another worker thread passes to `fromShared` to use this router
                    /// without copying its table (valid while this router is alive).
                    [] "share" fn share(self; h) -> f64 {
                        h.share(&self.inner)
                    }

                    /// As the constructor, for JSON the JavaScript layer wrote from the caller's
                    /// spec object: errors name the field (`nodes[1].weight`), not a line and
                    /// column of text the caller never wrote.
                    [] "fromSerialized" fn from_serialized(; h, spec: Value, limits: Value) -> NativeRouter {
                        let limits = h.limits(&limits)?;
                        Ok(NativeRouter { inner: ::std::sync::Arc::new(h.build(&spec, &limits, true)?) })
                    }

                    /// The router a token from `share` names, in this worker.
                    [] "fromShared" fn from_shared(; h, token: Value) -> NativeRouter {
                        use $crate::bindings::ErrorCode;
                        let Some(token) = h.number(&token)? else {
                            let got = h.type_name(&token)?;
                            return Err(h.fail(ErrorCode::InvalidType, format!("a share token must be a number, not {got}")));
                        };
                        match h.shared(token)? {
                            Some(inner) => Ok(NativeRouter { inner }),
                            None => Err(h.fail(ErrorCode::InvalidParameter, "no live router was shared with this token")),
                        }
                    }
                }

                /// A change from router A to router B at some progress.
                class NativeTransition { inner: $crate::bindings::Transition }
                /// A transition from `from` to `to` at `progress` in [0, 1].
                new(h, from: &NativeRouter, to: &NativeRouter, progress: f64) -> Self {
                    let inner = $crate::bindings::Transition::new((*from.inner).clone(), (*to.inner).clone(), progress);
                    Ok(Self { inner: h.check(inner)? })
                }
                {
                    /// The same change at another progress.
                    [] "withProgress" fn with_progress(self; h, progress: f64) -> NativeTransition {
                        Ok(NativeTransition { inner: h.check(self.inner.with_progress(progress))? })
                    }

                    /// The position (in `nodeIds`) of the node that owns `key` now.
                    [] "routeIndex" fn route_index(self; h, key: Value) -> u32 {
                        h.check(h.with_key(&key, |k| self.inner.route(k))?)
                    }

                    /// `[owner]`, or `[owner, previous]` when the key has cut over to a different
                    /// node.
                    [] "routeWithFallback" fn route_with_fallback(self; h, key: Value) -> Vec<u32> {
                        let placed = h.check(h.with_key(&key, |k| self.inner.route_with_fallback(k))?)?;
                        Ok(::std::iter::once(placed.owner).chain(placed.previous).collect())
                    }

                    /// Whether `key` has cut over to its owner in B.
                    [] "hasCutOver" fn has_cut_over(self; h, key: Value) -> bool {
                        h.with_key(&key, |k| self.inner.has_cut_over(k))
                    }

                    /// Both sides' node ids: B's in order, then A's that B lacks.
                    [getter] "nodeIds" fn node_ids(self; h) -> Vec<String> {
                        Ok($crate::ids(self.inner.len(), |i| self.inner.node_id(i)))
                    }

                    /// Progress in [0, 1].
                    [getter] "progress" fn progress(self; h) -> f64 {
                        Ok(self.inner.progress())
                    }

                    /// Both views and the progress, as processes exchange them (JSON).
                    [] "describeJson" fn describe_json(self; h) -> String {
                        Ok(self.inner.describe_json())
                    }
                }

                /// The view in effect for this process (`keyroute_bindings::LiveView`): a newer
                /// version applies atomically, a lookup never waits, and a document that does not
                /// build is refused and recorded while the last good view stays.
                class NativeLiveView { inner: $crate::LiveHandle }
                /// A live view with no view yet; documents are read under `limits` (JSON of the
                /// limits to change, or absent).
                new(h, limits: Value) -> Self {
                    let limits = h.limits(&limits)?;
                    Ok(Self { inner: $crate::LiveHandle::new($crate::bindings::LiveView::new(limits)) })
                }
                {
                    /// Applies a view document (JSON text, or its bytes) if its version is newer
                    /// and it builds; returns the version applied. Otherwise the refusal is
                    /// recorded and thrown.
                    [] "publish" fn publish(self; h, document: Value) -> f64 {
                        let published = h.with_bytes(&document, |b| $crate::view_publish(&self.inner.view, b))?;
                        let published = match published {
                            Some(r) => r,
                            None => $crate::view_publish(&self.inner.view, h.text(&document, "a view document")?.as_bytes()),
                        };
                        h.check(published)
                    }

                    /// The owner of `key` (an index into the node ids of the version the last
                    /// `routeFresh` handed over), or 2^32 - 1 when another version is in effect.
                    [] "routeAt" fn route_at(self; h, key: Value) -> u32 {
                        h.check(h.with_key(&key, |k| self.inner.route_at(k))?)
                    }

                    /// `{version, index, ids}` for `key` from the view in effect; `routeAt` then
                    /// routes for that version.
                    [] "routeFresh" fn route_fresh(self; h, key: Value) -> Out {
                        let fresh = h.check(h.with_key(&key, |k| self.inner.route_fresh(k))?)?;
                        h.out(fresh)
                    }

                    /// `[owner]`, or `[owner, previous]` when `key` has cut over during a rollout.
                    [] "routeWithFallback" fn route_with_fallback(self; h, key: Value) -> Vec<String> {
                        h.check(h.with_key(&key, |k| $crate::view_route_with_fallback(&self.inner.view, k))?)
                    }

                    /// `[from, to]` owners of `key` at the rollout's two ends, or `[owner]`.
                    [] "ends" fn ends(self; h, key: Value) -> Vec<String> {
                        h.check(h.with_key(&key, |k| $crate::view_ends(&self.inner.view, k))?)
                    }

                    /// `{version, fingerprint, progress, appliedUnixMs, refusals, lastRefusal}`
                    /// (`lastRefusal` as JSON text, or null), read at once.
                    [] "status" fn status(self; h) -> Out {
                        use $crate::Js;
                        let state = self.inner.view.load();
                        let refusal = self.inner.view.last_refusal().map_or(Js::Null, |r| Js::Str(r.to_json()));
                        let num = |n: Option<f64>| n.map_or(Js::Null, Js::Num);
                        h.out(Js::Obj(vec![
                            ("version", num(state.as_ref().map(|s| s.version() as f64))),
                            ("fingerprint", state.as_ref().map_or(Js::Null, |s| Js::Str($crate::bindings::view::fingerprint_text(s.fingerprint())))),
                            ("progress", num(state.as_ref().and_then(|s| s.progress()))),
                            ("appliedUnixMs", num(state.as_ref().map(|s| $crate::bindings::view::unix_ms(s.applied_at()) as f64))),
                            ("refusals", Js::Num(self.inner.view.refusals() as f64)),
                            ("lastRefusal", refusal),
                        ]))
                    }

                    /// The view in effect as a canonical view document (JSON), or null.
                    [] "documentJson" fn document_json(self; h) -> Out {
                        h.out(self.inner.view.load().map_or($crate::Js::Null, |s| $crate::Js::Str(s.document_json())))
                    }
                }

                /// A router whose keys go to the first node of their preference order with room.
                class NativeBoundedLoad { inner: ::std::sync::Arc<$crate::bindings::bounded::BoundedLoad> }
                /// Bounded loads over `router` with balance factor `c` (1 to 1000), sharing its
                /// table.
                new(h, router: &NativeRouter, c: f64) -> Self {
                    let inner = h.check($crate::bindings::bounded::bounded(::std::sync::Arc::clone(&router.inner), c))?;
                    Ok(Self { inner: ::std::sync::Arc::new(inner) })
                }
                {
                    /// `[node, rank]` where `key` would go now, without taking a slot (rank 0: its
                    /// owner).
                    [] "pick" fn pick(self; h, key: Value) -> Vec<u32> {
                        let pick = h.with_key(&key, |k| self.inner.pick(k))?;
                        let pick = h.check(pick.map_err($crate::bindings::Error::from))?;
                        Ok(vec![pick.node, pick.rank])
                    }

                    /// Places `key` and takes a slot on its node until the lease is released (or
                    /// collected).
                    [] "acquire" fn acquire(self; h, key: Value) -> NativeLease {
                        let slot = h.with_key(&key, |k| $crate::Slot::acquire(&self.inner, k))?;
                        Ok(NativeLease { inner: h.check(slot)? })
                    }

                    /// Requests in flight on the node at `node` (a position in the router's nodes).
                    [] "load" fn load(self; h, node: u32) -> u32 {
                        Ok(self.inner.load(node))
                    }

                    /// The most requests the node at `node` may serve once one more arrives.
                    [] "capacity" fn capacity(self; h, node: u32) -> u32 {
                        Ok(self.inner.capacity(node, self.inner.total().saturating_add(1)))
                    }

                    /// Requests in flight over all nodes.
                    [getter] "total" fn total(self; h) -> u32 {
                        Ok(self.inner.total())
                    }

                    /// The balance factor `c`, as kept (three decimals).
                    [getter] "factor" fn factor(self; h) -> f64 {
                        Ok(self.inner.factor())
                    }
                }

                /// A slot on a node, given back exactly once: by `release()`, or when the lease is
                /// collected.
                class NativeLease { inner: $crate::Slot }
                {
                    /// The node serving the request (its position in the router's nodes).
                    [getter] "node" fn node(self; h) -> u32 {
                        Ok(self.inner.node)
                    }

                    /// Its position in the key's preference order (0: the key's owner).
                    [getter] "rank" fn rank(self; h) -> u32 {
                        Ok(self.inner.rank)
                    }

                    /// Whether the slot is still held.
                    [getter] "held" fn held(self; h) -> bool {
                        Ok(self.inner.held())
                    }

                    /// Gives the slot back: true the first time, false after.
                    [] "release" fn release(self; h) -> bool {
                        Ok(self.inner.release())
                    }
                }

                /// A bounded-memory hot-key detector.
                class NativeHotKeys { inner: $crate::bindings::hotkeys::SharedHotKeys }
                /// `shards` shards with `width` sketch counters a row and `capacity` candidate keys
                /// in all.
                new(h, width: Value, capacity: Value, shards: Value) -> Self {
                    let width = h.count(&width, "the sketch width")?;
                    let capacity = h.count(&capacity, "the candidate capacity")?;
                    let shards = h.count(&shards, "the shard count")?;
                    Ok(Self { inner: h.check($crate::bindings::hotkeys::SharedHotKeys::new(width, capacity, shards))? })
                }
                {
                    /// Counts one observation of `key`; returns its estimate after it.
                    [] "observe" fn observe(self; h, key: Value) -> u32 {
                        h.check(h.with_key(&key, |k| self.inner.observe(k))?)
                    }

                    /// The estimate of `key`'s decayed count (never below the true count).
                    [] "heat" fn heat(self; h, key: Value) -> u32 {
                        h.with_key(&key, |k| self.inner.heat(k))
                    }

                    /// Whether `key`'s estimate is at least `count`.
                    [] "isHot" fn is_hot(self; h, key: Value, count: u32) -> bool {
                        h.with_key(&key, |k| self.inner.is_hot(k, count))
                    }

                    /// Whether `key`'s estimate is at least `share` of all observations.
                    [] "isHotShare" fn is_hot_share(self; h, key: Value, share: f64) -> bool {
                        h.with_key(&key, |k| self.inner.is_hot_share(k, share))
                    }

                    /// The `k` most counted keys, most counted first: `[keys, counts]`; a key
                    /// longer than 1 KiB is given as its first 1,024 bytes.
                    [] "top" fn top(self; h, k: Value) -> Out {
                        let k = h.count(&k, "k")?;
                        let (keys, counts): (Vec<_>, Vec<_>) =
                            h.check(self.inner.top(k))?.into_iter().map(|(key, n)| ($crate::Js::Bytes(key), n)).unzip();
                        h.out($crate::Js::List(vec![$crate::Js::List(keys), $crate::Js::U32s(counts)]))
                    }

                    /// Halves every count.
                    [] "decay" fn decay(self; h) -> () {
                        self.inner.decay();
                        Ok(())
                    }

                    /// Observations counted (decayed with the counts).
                    [getter] "total" fn total(self; h) -> f64 {
                        Ok(self.inner.total() as f64)
                    }

                    /// Bytes held by the detector.
                    [getter] "memoryBytes" fn memory_bytes(self; h) -> f64 {
                        Ok(self.inner.memory_bytes() as f64)
                    }
                }
            }
            functions {
                /// `[code, name, category, description]` for every kind of the error table, in
                /// numeric order.
                "errorTable" fn error_table(h) -> Out {
                    h.out($crate::error_table())
                }

                /// `[name, default, ceiling]` for every limit a spec is built under
                /// (`Limits::DEFAULT`, `Limits::CEILING`), in declaration order.
                "limitTable" fn limit_table(h) -> Out {
                    h.out($crate::limit_table())
                }

                /// What changing from `a` to `b` moves (positions in each router).
                "diff" fn diff(h, a: &NativeRouter, b: &NativeRouter) -> Out {
                    let d = h.check($crate::diff(&a.inner, &b.inner))?;
                    h.out(d)
                }

                /// `[host, port]` of a memcached-style server address (`host:port`, `host`,
                /// `[v6]:port`).
                "parseServer" fn parse_server(h, address: Value) -> Out {
                    let address = h.text(&address, "a server address")?;
                    let node = h.check($crate::bindings::NodeSpec::from_server(&address, 1))?;
                    h.out($crate::Js::List(vec![
                        $crate::Js::Str(node.host.unwrap_or_default()),
                        $crate::Js::Num(f64::from(node.port.unwrap_or_default())),
                    ]))
                }

                /// A constructor's node argument (JSON text) as a spec's `nodes` list (JSON text),
                /// read in `form` (`nodes`, `buckets`, `servers`, `slot_ranges`) under `limits`
                /// (JSON, or absent): `keyroute_bindings::nodes::spec_nodes`, the one reading
                /// every surface shares. Limits that do not parse bound the count by the
                /// ceiling; the router then reports them.
                "specNodes" fn spec_nodes(h, form: Value, nodes: Value, limits: Value) -> Out {
                    use $crate::bindings::{ErrorCode, Limits, registry::NodeForm};
                    let form = h.text(&form, "a node form")?;
                    let form = NodeForm::from_name(&form).ok_or_else(|| h.fail(ErrorCode::Internal, "unknown node form"))?;
                    let limits = h.limits(&limits).unwrap_or(Limits::CEILING);
                    let nodes = h.text(&nodes, "nodes")?;
                    let list = h.check($crate::bindings::nodes::spec_nodes(form, nodes.as_bytes(), &limits))?;
                    h.out($crate::Js::Str(list))
                }

                /// The Redis Cluster slot of `key`: `rule` 0 is Redis's own hash-tag rule, 1 the
                /// npm `cluster-key-slot` package's.
                "redisSlot" fn redis_slot(h, key: Value, rule: u32) -> u32 {
                    use $crate::bindings::core::presets::HashTagRule;
                    let rule = if rule == 0 { HashTagRule::Redis } else { HashTagRule::ClusterKeySlot };
                    h.with_key(&key, |k| rule.slot(k))
                }

                /// The `r` derived keys `key#1` … `key#r` a hot key is written under, as bytes.
                "splitKeys" fn split_keys(h, key: Value, r: Value) -> Out {
                    let r = h.count(&r, "the number of copies")?;
                    let keys = h.check(h.with_key(&key, |k| $crate::bindings::spread::split_keys(k, r))?)?;
                    h.out($crate::Js::List(keys.into_iter().map($crate::Js::Bytes).collect()))
                }

                /// The derived key a reader reads a split hot key from: by `client`'s selector, or
                /// `random`.
                "splitKey" fn split_key(h, key: Value, r: Value, client: Value, random: f64) -> Out {
                    let r = h.count(&r, "the number of copies")?;
                    let selector = h.selector(&client, random)?;
                    let key = h.check(h.with_key(&key, |k| $crate::bindings::spread::split_key(k, r, selector))?)?;
                    h.out($crate::Js::Bytes(key))
                }
            }
        }
    };
}
