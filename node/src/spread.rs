//! Read spreading for hot keys (`keyroute_bindings::spread`): a client id's selector, and the
//! derived keys a hot key is split into.

use keyroute_bindings::spread;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::throw;
use crate::keys::with_key;
use crate::router::count;

/// The selector of `client` (a string or bytes, by the key text policy), or `random` (an
/// integer the JavaScript side drew) when `client` is undefined or null.
pub(crate) fn selector(env: &Env, client: Option<&Unknown<'_>>, random: f64) -> Result<u64> {
    match client {
        Some(c) if !matches!(c.get_type()?, ValueType::Undefined | ValueType::Null) => {
            with_key(env, c, spread::client_selector)
        }
        // A draw in 0..2^32 from JavaScript; anything else is clamped by the cast.
        _ => Ok(random as u64),
    }
}

/// The `r` derived keys `key#1` … `key#r` a hot key is written under, as bytes.
#[napi(catch_unwind)]
pub fn split_keys(env: Env, key: Unknown<'_>, r: Unknown<'_>) -> Result<Vec<Uint8Array>> {
    let r = count(&env, &r, "the number of copies")?;
    let keys = with_key(&env, &key, |k| spread::split_keys(k, r))?.map_err(|e| throw(&env, &e))?;
    Ok(keys.into_iter().map(Uint8Array::new).collect())
}

/// The derived key a reader reads a split hot key from: by `client`'s selector, or `random`.
#[napi(catch_unwind)]
pub fn split_key(
    env: Env,
    key: Unknown<'_>,
    r: Unknown<'_>,
    client: Option<Unknown<'_>>,
    random: f64,
) -> Result<Uint8Array> {
    let r = count(&env, &r, "the number of copies")?;
    let selector = selector(&env, client.as_ref(), random)?;
    let key = with_key(&env, &key, |k| spread::split_key(k, r, selector))?.map_err(|e| throw(&env, &e))?;
    Ok(Uint8Array::new(key))
}
