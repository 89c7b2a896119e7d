//! `NativeRouter`: a `keyroute_bindings::Router` behind an `Arc`, for the JavaScript `Router`.

use std::sync::Arc;

use keyroute_bindings::{ErrorCode, Limits, Router, analysis};
use napi::bindgen_prelude::*;
use napi::{JsValue, sys};
use napi_derive::napi;

use crate::error::{throw, throw_code};
use crate::keys::{self, string_units, text, with_key};
use crate::shared;

/// A built router (immutable; safe to use from any worker through `share`/`fromShared`).
#[napi]
pub struct NativeRouter {
    pub(crate) inner: Arc<Router>,
}

/// The share of keys each node owns, with the balance figures.
#[napi(object)]
pub struct NativeOwnership {
    /// Per node, in spec order.
    pub shares: Vec<f64>,
    /// How the shares were obtained (`exact`, `slot_share`, `expected`, `sampled`).
    pub method: String,
    /// Sample keys, for `sampled`.
    pub sample_keys: Option<u32>,
    /// Coefficient of variation of share / fair share.
    pub cv: f64,
    /// Largest share / fair share.
    pub max_over_mean: f64,
    /// Smallest share / fair share.
    pub min_over_mean: f64,
}

/// The key-hash space as pieces, each owned by one node.
#[napi(object)]
pub struct NativePieces {
    /// The space has 2^bits hashes.
    pub bits: u32,
    /// First hash of each piece.
    pub starts: BigUint64Array,
    /// Owner (node position) of each piece.
    pub owners: Uint32Array,
}

/// A share of all keys moving from node `from` (position in A) to `to` (position in B).
#[napi(object)]
pub struct NativeFlow {
    /// Position in A.
    pub from: u32,
    /// Position in B.
    pub to: u32,
    /// Share of all keys.
    pub share: f64,
}

/// A moved piece of the key-hash space.
#[napi(object)]
pub struct NativeArc {
    /// First hash of the piece.
    pub start: BigInt,
    /// Last hash of the piece (inclusive).
    pub end: BigInt,
    /// Owner in A (position).
    pub from: u32,
    /// Owner in B (position).
    pub to: u32,
}

/// What changing from router A to router B moves.
#[napi(object)]
pub struct NativeDiff {
    /// Share of keys whose owner changes.
    pub moved: f64,
    /// The least any router could move for this change.
    pub ideal_moved: f64,
    /// Every (from, to) pair with a positive share.
    pub flows: Vec<NativeFlow>,
    /// The moved pieces of the hash space (exact diffs only).
    pub moved_arcs: Vec<NativeArc>,
    /// How the figures were obtained.
    pub method: String,
    /// Sample keys, for `sampled`.
    pub sample_keys: Option<u32>,
}

#[napi]
impl NativeRouter {
    /// Builds a router from a spec: JSON text, or its bytes (a `Buffer` or `Uint8Array`, for
    /// documents that may not be UTF-8), under `limits` (JSON of the limits to change; absent,
    /// the defaults). The spec is read in the shared order: its size first (text by the length
    /// of its UTF-8), then its encoding, syntax, node count and shape.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, spec: Unknown<'_>, limits: Option<Unknown<'_>>) -> Result<Self> {
        let limits = match limits {
            Some(limits) if !matches!(limits.get_type()?, ValueType::Undefined | ValueType::Null) => {
                Limits::from_json(&text(&env, &limits, "limits")?).map_err(|e| throw(&env, &e))?
            }
            _ => Limits::DEFAULT,
        };
        let raw = spec.value().value;
        let built = match spec.get_type()? {
            ValueType::String => {
                limits.check_spec_bytes(keys::utf8_len(&env, raw)?, "the spec").map_err(|e| throw(&env, &e))?;
                keys::with_string(&env, raw, |bytes| Router::from_bytes(bytes, &limits))?
            }
            ValueType::Object => match keys::typed_bytes(&env, raw)? {
                Some(bytes) => Router::from_bytes(bytes, &limits),
                None => return Err(keys::wrong_type(&env, "a spec", "an object that is not a Uint8Array")),
            },
            other => return Err(keys::wrong_type(&env, "a spec", keys::type_name(other))),
        };
        Ok(Self { inner: Arc::new(built.map_err(|e| throw(&env, &e))?) })
    }

    /// A handle to this router for the per-key `routeIndex(handle, key)` function.
    #[napi(catch_unwind)]
    pub fn handle(&self, env: Env) -> Result<Unknown<'static>> {
        crate::fast::handle(&env, &self.inner)
    }

    /// The position of the node that owns `key`.
    #[napi(catch_unwind)]
    pub fn route_index(&self, env: Env, key: Unknown<'_>) -> Result<u32> {
        with_key(&env, &key, |k| self.inner.route(k))?.map_err(|e| throw(&env, &e))
    }

    /// `n` distinct node positions for `key`, in preference order.
    #[napi(catch_unwind)]
    pub fn replica_indices(&self, env: Env, key: Unknown<'_>, n: Unknown<'_>) -> Result<Uint32Array> {
        let n = count(&env, &n, "the replica count")?;
        let list = with_key(&env, &key, |k| self.inner.replica_list(k, n))?.map_err(|e| throw(&env, &e))?;
        Ok(Uint32Array::new(list))
    }

    /// Read spreading: the position of the `selector mod r`-th of `key`'s first `r` replicas,
    /// the selector being `client`'s (a string or bytes) or, without one, `random`.
    #[napi(catch_unwind)]
    pub fn spread_index(
        &self,
        env: Env,
        key: Unknown<'_>,
        r: Unknown<'_>,
        client: Option<Unknown<'_>>,
        random: f64,
    ) -> Result<u32> {
        let r = count(&env, &r, "the replica count")?;
        let selector = crate::spread::selector(&env, client.as_ref(), random)?;
        with_key(&env, &key, |k| self.inner.spread(k, r, selector))?.map_err(|e| throw(&env, &e))
    }

    /// The slot `key` falls in (slot-table routers), or null.
    #[napi(catch_unwind)]
    pub fn slot(&self, env: Env, key: Unknown<'_>) -> Result<Option<u32>> {
        with_key(&env, &key, |k| self.inner.slot(k))
    }

    /// The 64-bit number this router routes `key` on.
    #[napi(catch_unwind)]
    pub fn key_hash(&self, env: Env, key: Unknown<'_>) -> Result<BigInt> {
        let h = with_key(&env, &key, |k| self.inner.key_hash(k))?.map_err(|e| throw(&env, &e))?;
        Ok(BigInt::from(h))
    }

    /// The position of the node that owns every key whose `keyHash` is `hash` (a bigint).
    #[napi(catch_unwind)]
    pub fn route_hash(&self, env: Env, hash: Unknown<'_>) -> Result<u32> {
        if hash.get_type()? != ValueType::BigInt {
            return Err(throw_code(&env, ErrorCode::InvalidType, "a key hash must be a bigint"));
        }
        // SAFETY: checked to be a bigint.
        let big: BigInt = unsafe { hash.cast()? };
        let (negative, value, lossless) = big.get_u64();
        if negative || !lossless {
            return Err(throw_code(&env, ErrorCode::InvalidKey, "a key hash must be in 0..2**64"));
        }
        self.inner.route_hash(value).map_err(|e| throw(&env, &e))
    }

    /// Routes the keys of `joined` (one string, the keys concatenated; `lengths[i]` UTF-16 code
    /// units each) into `out`, by the key text policy, each key separately.
    #[napi(catch_unwind)]
    pub fn route_joined_into(
        &self,
        env: Env,
        joined: Unknown<'_>,
        lengths: Uint32ArraySlice<'_>,
        mut out: Uint32ArraySlice<'_>,
    ) -> Result<()> {
        let (data, offsets) = joined_keys(&env, &joined, &lengths)?;
        // SAFETY: the slice is the caller's Uint32Array, written before this call returns.
        let out = unsafe { out.as_mut() };
        self.inner.route_packed(&data, &offsets, out).map_err(|e| throw(&env, &e))
    }

    /// Routes keys packed in `data` (key `i` is `data[offsets[i]..offsets[i + 1]]`) into
    /// `out`, reading the keys in place.
    #[napi(catch_unwind)]
    pub fn route_batch_into(
        &self,
        env: Env,
        data: Unknown<'_>,
        offsets: Uint32ArraySlice<'_>,
        mut out: Uint32ArraySlice<'_>,
    ) -> Result<()> {
        let bytes = match data.get_type()? {
            ValueType::Object => keys::typed_bytes(&env, data.value().value)?,
            _ => None,
        };
        let Some(bytes) = bytes else {
            return Err(throw_code(&env, ErrorCode::InvalidType, "packed keys must be a Buffer or Uint8Array"));
        };
        // SAFETY: the slice is the caller's Uint32Array, written before this call returns.
        let out = unsafe { out.as_mut() };
        self.inner.route_packed(bytes, &offsets, out).map_err(|e| throw(&env, &e))
    }

    /// The node ids, in spec order.
    #[napi(getter, catch_unwind)]
    pub fn node_ids(&self) -> Vec<String> {
        (0..self.inner.len() as u32).map(|i| self.inner.node_id(i).unwrap_or_default().to_owned()).collect()
    }

    /// The algorithm or preset the spec names.
    #[napi(getter, catch_unwind)]
    pub fn algorithm(&self) -> String {
        self.inner.algorithm().to_owned()
    }

    /// The view's version (at most 2^53 − 1, so a plain number).
    #[napi(getter, catch_unwind)]
    pub fn version(&self) -> f64 {
        self.inner.version() as f64
    }

    /// XXH3-64 of the canonical JSON.
    #[napi(getter, catch_unwind)]
    pub fn fingerprint(&self) -> BigInt {
        BigInt::from(self.inner.fingerprint())
    }

    /// The spec in canonical form.
    #[napi(getter, catch_unwind)]
    pub fn canonical_json(&self) -> String {
        self.inner.canonical_json().to_owned()
    }

    /// The share of keys each node owns.
    #[napi(catch_unwind)]
    pub fn ownership(&self) -> NativeOwnership {
        let own = analysis::ownership(&self.inner);
        NativeOwnership {
            shares: own.shares.iter().map(|s| s.share).collect(),
            method: own.method.name().to_owned(),
            sample_keys: own.method.sample_keys(),
            cv: own.balance.cv,
            max_over_mean: own.balance.max_over_mean,
            min_over_mean: own.balance.min_over_mean,
        }
    }

    /// The key-hash space as pieces owned by nodes (rings, Maglev, hash slots), or null.
    #[napi(catch_unwind)]
    pub fn pieces(&self) -> Option<NativePieces> {
        analysis::pieces(&self.inner).map(|p| NativePieces {
            bits: p.bits,
            starts: BigUint64Array::new(p.starts),
            owners: Uint32Array::new(p.owners),
        })
    }

    /// A token another worker thread passes to `fromShared` to use this router without copying
    /// its table (valid while this router is alive).
    #[napi(catch_unwind)]
    pub fn share(&self) -> f64 {
        shared::share(&self.inner)
    }

    /// The router a token from `share` names, in this worker.
    #[napi(factory, catch_unwind)]
    pub fn from_shared(env: Env, token: f64) -> Result<Self> {
        shared::lookup(token)
            .map(|inner| Self { inner })
            .ok_or_else(|| throw_code(&env, ErrorCode::InvalidParameter, "no live router was shared with this token"))
    }
}

/// What changing from `a` to `b` moves (positions in each router).
#[napi(catch_unwind)]
pub fn diff(env: Env, a: &NativeRouter, b: &NativeRouter) -> Result<NativeDiff> {
    let d = analysis::diff(&a.inner, &b.inner).map_err(|e| throw(&env, &e))?;
    Ok(NativeDiff {
        moved: d.moved,
        ideal_moved: d.ideal_moved,
        flows: d.flows.iter().map(|f| NativeFlow { from: f.from_index, to: f.to_index, share: f.share }).collect(),
        moved_arcs: d
            .moved_arcs
            .iter()
            .map(|m| NativeArc {
                start: BigInt::from(m.start),
                end: BigInt::from(m.end),
                from: m.from_index,
                to: m.to_index,
            })
            .collect(),
        method: d.method.name().to_owned(),
        sample_keys: d.method.sample_keys(),
    })
}

/// A non-negative integer count from a JavaScript number.
pub(crate) fn count(env: &Env, value: &Unknown<'_>, what: &str) -> Result<usize> {
    if value.get_type()? != ValueType::Number {
        let got = keys::type_name(value.get_type()?);
        return Err(throw_code(env, ErrorCode::InvalidType, format!("{what} must be a number, not {got}")));
    }
    // SAFETY: checked to be a number.
    let n: f64 = unsafe { value.cast()? };
    if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
        return Err(throw_code(env, ErrorCode::InvalidParameter, format!("{what} must be an integer ≥ 0, not {n}")));
    }
    Ok(n as usize)
}

/// The keys of a joined string as packed UTF-8 and offsets. ASCII text (the common case) is
/// taken from V8's UTF-8 in one copy; other text goes key by key through the key text policy,
/// so a lone surrogate is refused in the key that holds it.
fn joined_keys(env: &Env, joined: &Unknown<'_>, lengths: &[u32]) -> Result<(Vec<u8>, Vec<u32>)> {
    let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    let bad_lengths = || throw_code(env, ErrorCode::InvalidParameter, "the key lengths do not add up to the text");
    if joined.get_type()? != ValueType::String {
        return Err(keys::wrong_type(env, "joined keys", keys::type_name(joined.get_type()?)));
    }
    let value = joined.value().value;
    let mut units = 0usize;
    let mut bytes = 0usize;
    // SAFETY: a string of the current env; NULL buffers ask for lengths only.
    unsafe {
        sys::napi_get_value_string_utf16(env.raw(), value, std::ptr::null_mut(), 0, &mut units);
        sys::napi_get_value_string_utf8(env.raw(), value, std::ptr::null_mut(), 0, &mut bytes);
    }
    if total != units as u64 {
        return Err(bad_lengths());
    }
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0u32);
    if bytes == units {
        // One byte per code unit: all ASCII, so the UTF-8 is the text and lengths are bytes.
        let mut data = vec![0u8; bytes + 1];
        let mut written = 0usize;
        // SAFETY: `data` has room for the text and the NUL.
        unsafe {
            sys::napi_get_value_string_utf8(env.raw(), value, data.as_mut_ptr().cast(), bytes + 1, &mut written);
        }
        data.truncate(written);
        let mut end = 0u32;
        for &l in lengths {
            end = end.checked_add(l).ok_or_else(bad_lengths)?;
            offsets.push(end);
        }
        return Ok((data, offsets));
    }
    let all = string_units(env, joined, "joined keys")?;
    let mut data = Vec::with_capacity(bytes);
    let mut start = 0usize;
    for (i, &l) in lengths.iter().enumerate() {
        let end = start + l as usize;
        let key = all.get(start..end).ok_or_else(bad_lengths)?;
        keyroute_bindings::keys::utf16_to_utf8(key, &mut data).map_err(|e| throw(env, &e.at_key(i)))?;
        let Ok(offset) = u32::try_from(data.len()) else {
            return Err(throw_code(env, ErrorCode::InvalidParameter, "the keys pass 4 GiB of UTF-8"));
        };
        offsets.push(offset);
        start = end;
    }
    Ok((data, offsets))
}
