//! Routing by key hash (`keyroute_bindings::Router::{key_hash, route_hash, route_hash_batch}`):
//! for callers that hash a key once and route it on several routers, or keep hashes instead of
//! keys.

use keyroute_bindings::ErrorCode;

use crate::boundary::{bytes, call, error, get_mut, router, too_long};
use crate::{KrRouter, KrStatus};

/// The 64-bit number this router routes `key` on: `*hash` receives it (XXH3-64 for the native
/// ring, jump, Maglev and modulo; the peer's key hash for ring presets, 32-bit values; the key
/// itself as a big-endian integer for jump over `u64be` keys). `kr_route_hash` of it gives the
/// key's owner. Allocates nothing.
///
/// Errors: `KR_ROUTE_HASH_UNSUPPORTED` for algorithms that do not route on one 64-bit hash
/// (rendezvous, multi-probe, slots, presets that check or rewrite keys first); `KR_INVALID_KEY`;
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `key` must point to `key_len` readable bytes (NULL
/// only when `key_len` is 0); `hash` must be NULL or point to a writable `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_key_hash(
    router: *const KrRouter,
    key: *const u8,
    key_len: usize,
    hash: *mut u64,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `hash` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(hash, "hash") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = r.key_hash(key)?;
        Ok(())
    })
}

/// The owner of any key whose `kr_key_hash` is `hash`: `*node` receives its index. Allocates
/// nothing.
///
/// Errors: `KR_ROUTE_HASH_UNSUPPORTED` as `kr_key_hash`, `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `node` must be NULL or point to a writable
/// `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route_hash(router: *const KrRouter, hash: u64, node: *mut u32) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        *out = r.route_hash(hash)?;
        Ok(())
    })
}

/// Routes `hash_count` hashes: `nodes[i]` receives the owner of `hashes[i]`. Allocates nothing.
///
/// Errors: `KR_ROUTE_HASH_UNSUPPORTED` as `kr_key_hash`; `KR_BUFFER_TOO_SMALL` when
/// `nodes_len < hash_count` (nothing is written); `KR_NULL_POINTER`; `KR_INVALID_PARAMETER` for
/// a length above `PTRDIFF_MAX` bytes.
///
/// # Safety
/// `router` must be NULL or a live handle; `hashes` must point to `hash_count` readable
/// `uint64_t`s (NULL only when `hash_count` is 0); `nodes` must point to `nodes_len` writable
/// `uint32_t`s (NULL only when `nodes_len` is 0). The arrays must not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route_hash_batch(
    router: *const KrRouter,
    hashes: *const u64,
    hash_count: usize,
    nodes: *mut u32,
    nodes_len: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        let hashes: &[u64] = if hash_count == 0 {
            &[]
        } else if hashes.is_null() {
            return Err(error(ErrorCode::NullPointer, "hashes is NULL".into()));
        } else if hash_count > isize::MAX as usize / size_of::<u64>() {
            return Err(too_long("hashes"));
        } else if !hashes.is_aligned() {
            return Err(error(ErrorCode::InvalidParameter, "hashes: not aligned to 8 bytes".into()));
        } else {
            // SAFETY: non-null, aligned, `hash_count` readable u64s per the contract, size checked.
            unsafe { std::slice::from_raw_parts(hashes, hash_count) }
        };
        let out: &mut [u32] = if nodes_len == 0 {
            &mut []
        } else if nodes.is_null() {
            return Err(error(ErrorCode::NullPointer, "nodes is NULL".into()));
        } else if nodes_len > isize::MAX as usize / size_of::<u32>() {
            return Err(too_long("nodes"));
        } else if !nodes.is_aligned() {
            return Err(error(ErrorCode::InvalidParameter, "nodes: not aligned to 4 bytes".into()));
        } else {
            // SAFETY: non-null, aligned, `nodes_len` writable u32s per the contract, size checked.
            unsafe { std::slice::from_raw_parts_mut(nodes, nodes_len) }
        };
        r.route_hash_batch(hashes, out)?;
        Ok(())
    })
}
