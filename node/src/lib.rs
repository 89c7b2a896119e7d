//! The native half of the npm package `keyroute`: keyroute-bindings for Node.js, through
//! napi-rs. Its classes (`NativeRouter`, `NativeTransition`, `NativeBoundedLoad`, `NativeLease`,
//! `NativeHotKeys`) are private building blocks; the public API is the JavaScript layer in
//! `node/lib/`, which the WebAssembly backend (`wasm/`) serves too, with the same low-level
//! surface. Everything that decides a route — parsing, validation, the key text policy,
//! hashing, lookup — happens in keyroute-bindings.
//!
//! Errors leave as JavaScript `Error` objects carrying `code` (`"KR_…"`), `errno` (the table's
//! number) and, for batches, `keyIndex`; the JavaScript layer turns them into the generated
//! `KeyrouteError` classes. Nothing panics across the boundary: the workspace denies every
//! panicking construct, and arguments of any type are checked here. Should a bug panic all the
//! same, every exported function catches it (`#[napi(catch_unwind)]`, and `fast.rs` by hand)
//! and throws a JavaScript error: unwinding out of a Node-API callback would abort the process.

mod bounded;
mod error;
mod fast;
mod keys;
mod router;
mod shared;
mod spread;
mod transition;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use keyroute_bindings::{ErrorCode, Limits, NodeSpec};

pub use bounded::{NativeBoundedLoad, NativeHotKeys, NativeLease};
pub use router::{NativeArc, NativeDiff, NativeFlow, NativeOwnership, NativePieces, NativeRouter, diff};
pub use spread::{split_key, split_keys};
pub use transition::NativeTransition;

/// `[code, name, category, description]` for every kind of the error table, in numeric order.
#[napi(catch_unwind)]
pub fn error_table() -> Vec<(u32, String, String, String)> {
    ErrorCode::ALL
        .iter()
        .map(|c| (c.code(), c.name().to_owned(), c.category().name().to_owned(), c.description().to_owned()))
        .collect()
}

/// `[name, default, ceiling]` for every limit a spec is built under (`Limits::DEFAULT`,
/// `Limits::CEILING`), in declaration order. Every value is below 2^53, so a plain number.
#[napi(catch_unwind)]
pub fn limit_table() -> Vec<(String, f64, f64)> {
    Limits::DEFAULT
        .fields()
        .into_iter()
        .zip(Limits::CEILING.fields())
        .map(|((name, default), (_, ceiling))| (name.to_owned(), default as f64, ceiling as f64))
        .collect()
}

/// The per-key call `routeIndex(handle, key)`, a plain Node-API function (see `fast.rs`);
/// `NativeRouter.handle()` gives the handle.
#[napi(catch_unwind)]
pub fn route_index_function(env: Env) -> Result<Unknown<'static>> {
    fast::route_index_function(&env)
}

/// `[host, port]` of a memcached-style server address (`host:port`, `host`, `[v6]:port`).
#[napi(catch_unwind)]
pub fn parse_server(env: Env, address: Unknown<'_>) -> Result<(String, u32)> {
    let address = keys::text(&env, &address, "a server address")?;
    let node = NodeSpec::from_server(&address, 1).map_err(|e| error::throw(&env, &e))?;
    Ok((node.host.unwrap_or_default(), u32::from(node.port.unwrap_or_default())))
}

/// The Redis Cluster slot of `key`: `rule` 0 is Redis's own hash-tag rule, 1 the npm
/// `cluster-key-slot` package's.
#[napi(catch_unwind)]
pub fn redis_slot(env: Env, key: Unknown<'_>, rule: u32) -> Result<u32> {
    let rule = match rule {
        0 => keyroute_bindings::core::presets::HashTagRule::Redis,
        _ => keyroute_bindings::core::presets::HashTagRule::ClusterKeySlot,
    };
    keys::with_key(&env, &key, |k| rule.slot(k))
}
