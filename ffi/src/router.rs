//! `kr_router`: build from spec JSON, route, replicas, batches, and what a router knows about
//! itself (node ids, fingerprint, version, canonical form).

use std::cell::Cell;
use std::ffi::c_char;
use std::sync::Arc;

use keyroute_bindings::{ErrorCode, Limits, Router};

use crate::boundary::{bytes, call, error, get_mut, router, router_handle, too_long, utf16};
use crate::{KrKey, KrRouter, KrStatus};

/// Parses a topology spec (JSON, see `conformance/VECTORS.md`) and builds a router, under the
/// default limits (`conformance/SPEC.md`, Limits).
///
/// On success `*router` receives a new handle (release it with `kr_router_free`); on failure
/// it is left unchanged and no router is created.
///
/// Errors: any code a spec can produce (`KR_SPEC_TOO_LARGE`, `KR_INVALID_UTF8`,
/// `KR_INVALID_JSON`, `KR_TOO_MANY_NODES`, `KR_INVALID_SPEC`, `KR_UNKNOWN_ALGORITHM`,
/// `KR_DUPLICATE_NODE_ID`, `KR_TOO_MANY_POINTS`, …), `KR_OUT_OF_MEMORY`, `KR_NULL_POINTER`.
///
/// # Safety
/// `json` must point to `json_len` readable bytes (it may be NULL only when `json_len` is 0);
/// `router` must be NULL or point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_from_json(
    json: *const c_char,
    json_len: usize,
    router: *mut *mut KrRouter,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(router, "router") }?;
        // SAFETY: `json` is NULL or points to `json_len` readable bytes, as this function's `# Safety` requires.
        let json = unsafe { bytes(json.cast::<u8>(), json_len, "json") }?;
        *out = router_handle(Arc::new(Router::from_bytes(json, &Limits::DEFAULT)?));
        Ok(())
    })
}

/// As `kr_router_from_json`, under other limits: `limits_json` is a JSON object of the limits to
/// change (`{"max_points": 8388608}`; the others keep their defaults), or NULL for the defaults.
/// A service that must accept larger topologies raises a limit here, explicitly.
///
/// Errors: as `kr_router_from_json`; `KR_INVALID_JSON` or `KR_INVALID_PARAMETER` for limits
/// that are malformed, unknown or above the ceiling.
///
/// # Safety
/// As `kr_router_from_json`; `limits_json` must be NULL or point to `limits_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_from_json_with_limits(
    json: *const c_char,
    json_len: usize,
    limits_json: *const c_char,
    limits_len: usize,
    router: *mut *mut KrRouter,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(router, "router") }?;
        // SAFETY: `json` is NULL or points to `json_len` readable bytes, as this function's `# Safety` requires.
        let json = unsafe { bytes(json.cast::<u8>(), json_len, "json") }?;
        // SAFETY: `limits_json` is NULL or points to `limits_len` readable bytes, as this function's `# Safety` requires.
        let limits = unsafe { crate::view::limits(limits_json, limits_len) }?;
        *out = router_handle(Arc::new(Router::from_bytes(json, &limits)?));
        Ok(())
    })
}

/// Releases a router handle. NULL is ignored. Other handles to the same router (from
/// `kr_router_clone` or `kr_shared_router_load`) stay valid.
///
/// # Safety
/// `router` must be NULL or a handle from this library that has not been released yet; it
/// must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_free(router: *mut KrRouter) {
    if !router.is_null() {
        // SAFETY: a live handle is one `Arc::into_raw` reference; this gives it back.
        drop(unsafe { Arc::from_raw(router.cast_const().cast::<Router>()) });
    }
}

/// A new handle to the same router (a counted reference; no copy), for an owner with a
/// lifetime of its own. Release each handle with `kr_router_free`.
///
/// # Safety
/// `router` must be NULL or a live handle; `clone` must be NULL or point to writable storage
/// for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_clone(router: *const KrRouter, clone: *mut *mut KrRouter) -> KrStatus {
    call(|| {
        // SAFETY: `clone` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(clone, "clone") }?;
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        unsafe { self::router(router) }?;
        // SAFETY: a live handle is an `Arc<Router>` reference; the count goes up by one for `out`.
        *out = router_handle(unsafe {
            Arc::increment_strong_count(router.cast::<Router>());
            Arc::from_raw(router.cast::<Router>())
        });
        Ok(())
    })
}

/// Routes one key: `*node` receives the owner's index into the spec's node list
/// (`kr_router_node_id` gives its id). Allocates nothing.
///
/// Errors: `KR_INVALID_KEY` for a key the algorithm or preset refuses (e.g. a `u64be` key that
/// is not 8 bytes), `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `key` must point to `key_len` readable bytes (NULL
/// only when `key_len` is 0); `node` must be NULL or point to a writable `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route(router: *const KrRouter, key: *const u8, key_len: usize, node: *mut u32) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = r.route(key)?;
        Ok(())
    })
}

/// Routes a text key given as UTF-16 code units (a Java `char[]`, a JavaScript string, a
/// Windows `wchar_t` string), by the key text policy every surface shares: the key is the
/// text's UTF-8, and text holding a lone surrogate is refused with `KR_INVALID_UTF8` (never
/// replaced by U+FFFD, which would route like another key). Allocates nothing for keys of up to
/// 128 code units.
///
/// Errors: as `kr_route`; `KR_INVALID_UTF8`; `KR_INVALID_PARAMETER` for a misaligned `units`.
///
/// # Safety
/// `router` must be NULL or a live handle; `units` must point to `units_len` readable
/// `uint16_t`s (NULL only when `units_len` is 0); `node` must be NULL or point to a writable
/// `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route_utf16(
    router: *const KrRouter,
    units: *const u16,
    units_len: usize,
    node: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        // SAFETY: `units` is NULL or points to `units_len` readable u16s, as this function's `# Safety` requires.
        let units = unsafe { utf16(units, units_len, "units") }?;
        *out = keyroute_bindings::keys::with_utf16_key(units, |key| r.route(key))??;
        Ok(())
    })
}

/// Routes one key and gives the owner's id: `*id` receives the id's UTF-8 bytes (not
/// NUL-terminated; print with `%.*s`) and `*id_len` their length. The id is borrowed from the
/// router and stays valid while this handle is alive. Allocates nothing.
///
/// Errors: as `kr_route`.
///
/// # Safety
/// As `kr_route`; `id` and `id_len` must each be NULL or point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route_id(
    router: *const KrRouter,
    key: *const u8,
    key_len: usize,
    id: *mut *const c_char,
    id_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `id` is NULL or writable and not aliased; `id_len` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let (id, id_len) = unsafe { (get_mut(id, "id")?, get_mut(id_len, "id_len")?) };
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let owner = r.route_id(key)?;
        *id = owner.as_ptr().cast::<c_char>();
        *id_len = owner.len();
        Ok(())
    })
}

/// A `KrKey` whose bytes the caller of `kr_route_batch` promised readable. Private, and only
/// ever made by reinterpreting that caller's array (same layout), so safe code cannot forge
/// one; it lets the core's batch path read the C array in place, with no copy, no allocation and
/// no separate checking pass (which would cost ~15% at 1000 nodes): a span no slice can be made
/// from reads as the empty key and is reported after the batch.
#[repr(transparent)]
struct BorrowedKey(KrKey);

thread_local! {
    /// Set when a `BorrowedKey` with an impossible span was read on this thread.
    static SAW_BAD_KEY: Cell<bool> = const { Cell::new(false) };
}

impl AsRef<[u8]> for BorrowedKey {
    #[inline(always)]
    fn as_ref(&self) -> &[u8] {
        let KrKey { ptr, len } = self.0;
        if ptr.is_null() || len > isize::MAX as usize {
            if len != 0 {
                saw_bad_key();
            }
            return &[];
        }
        // SAFETY: non-null and at most isize::MAX bytes; the caller of `kr_route_batch` promised
        // `len` readable bytes for the duration of the call.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

#[cold]
#[inline(never)]
fn saw_bad_key() {
    SAW_BAD_KEY.set(true);
}

/// Routes `key_count` keys: `nodes[i]` receives the owner of `keys[i]`. Uses the core's batch
/// path (hashes several keys before touching the table); allocates nothing.
///
/// Errors: `KR_BUFFER_TOO_SMALL` when `nodes_len < key_count` (nothing is written);
/// `KR_NULL_POINTER`, also for a key with a NULL `ptr` and a non-zero `len`; `KR_INVALID_PARAMETER`
/// for a `len` above `PTRDIFF_MAX`; a key's error such as `KR_INVALID_KEY`. After an error the
/// contents of `nodes` are unspecified (no byte of a bad key span is ever read).
///
/// # Safety
/// `router` must be NULL or a live handle; `keys` must point to `key_count` readable `kr_key`s
/// (NULL only when `key_count` is 0), each pointing to `len` readable bytes; `nodes` must point
/// to `nodes_len` writable `uint32_t`s (NULL only when `nodes_len` is 0). The arrays must not
/// overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_route_batch(
    router: *const KrRouter,
    keys: *const KrKey,
    key_count: usize,
    nodes: *mut u32,
    nodes_len: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `keys` is NULL or points to `key_count` readable key spans, as this function's `# Safety` requires.
        let keys = unsafe { span(keys, key_count, "keys") }?;
        if nodes.is_null() && nodes_len != 0 {
            return Err(error(ErrorCode::NullPointer, "nodes is NULL".into()));
        }
        if nodes_len > isize::MAX as usize / size_of::<u32>() {
            return Err(too_long("nodes"));
        }
        let out: &mut [u32] = if nodes_len == 0 {
            &mut []
        } else {
            // SAFETY: non-null, `nodes_len` writable u32s per the contract, size checked above.
            unsafe { std::slice::from_raw_parts_mut(nodes, nodes_len) }
        };
        SAW_BAD_KEY.set(false); // in case a panic left it set
        // SAFETY: `BorrowedKey` is `repr(transparent)` over `KrKey`.
        let borrowed = unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<BorrowedKey>(), keys.len()) };
        let routed = r.route_batch(borrowed, out);
        if SAW_BAD_KEY.replace(false) {
            return Err(match keys.iter().enumerate().find(|(_, k)| invalid(k)) {
                Some((i, k)) => bad_key(i, *k),
                None => error(ErrorCode::Internal, "a bad key span was read but not found again".into()),
            });
        }
        routed?;
        Ok(())
    })
}

/// A key span no slice can be made from: NULL with a length, or longer than `isize::MAX`.
#[inline(always)]
fn invalid(k: &KrKey) -> bool {
    (k.ptr.is_null() & (k.len != 0)) | (k.len > isize::MAX as usize)
}

#[cold]
#[inline(never)]
fn bad_key(i: usize, key: KrKey) -> keyroute_bindings::Error {
    if key.ptr.is_null() {
        error(ErrorCode::NullPointer, format!("keys[{i}].ptr is NULL with a non-zero length"))
    } else {
        error(ErrorCode::InvalidParameter, format!("keys[{i}].len is above isize::MAX"))
    }
}

/// A C array as a slice; `(NULL, 0)` is empty.
///
/// # Safety
/// A non-null `ptr` must point to `len` readable `T`s.
unsafe fn span<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], keyroute_bindings::Error> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(error(ErrorCode::NullPointer, format!("{what} is NULL"))) };
    }
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(too_long(what));
    }
    // SAFETY: the caller's contract; size checked.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Writes `count` distinct nodes for `key` into `nodes[0..count]`, in preference order
/// (`nodes[0]` is the owner), spread over distinct zones first when nodes carry zones.
///
/// Allocates nothing for the ring-based algorithms and presets, Maglev and slot tables when
/// `count` is at most 32. Rendezvous, multi-probe and `pymemcache-rendezvous` rank every node
/// for the key (one scratch allocation of one entry per node, freed before returning), and a
/// `count` above 32 tracks the chosen nodes in a scratch set of one byte per node.
///
/// Errors: `KR_REPLICAS_UNSUPPORTED` (jump, modulo, presets whose peer defines no order),
/// `KR_REPLICAS_EXCEED_NODES`, `KR_INVALID_KEY`, `KR_NULL_POINTER`.
///
/// # Safety
/// As `kr_route`; `nodes` must point to `count` writable `uint32_t`s (NULL only when `count`
/// is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_replicas(
    router: *const KrRouter,
    key: *const u8,
    key_len: usize,
    nodes: *mut u32,
    count: usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        let out: &mut [u32] = if count == 0 {
            &mut []
        } else if nodes.is_null() {
            return Err(error(ErrorCode::NullPointer, "nodes is NULL".into()));
        } else if count > isize::MAX as usize / size_of::<u32>() {
            return Err(too_long("nodes"));
        } else {
            // SAFETY: non-null, `count` writable u32s per the contract, size checked.
            unsafe { std::slice::from_raw_parts_mut(nodes, count) }
        };
        r.replicas(key, out)?;
        Ok(())
    })
}

/// Read spreading for a hot key: `*node` receives the `selector mod r`-th of the key's first
/// `r` replicas (owner first). Pass a hash of the client's id as `selector` for a copy that
/// stays the same per client, or a random number to spread every read. Writes must reach all
/// `r` copies. Allocates only for `r` above 16.
///
/// Errors: `KR_INVALID_PARAMETER` (`r` = 0), `KR_REPLICAS_EXCEED_NODES`,
/// `KR_REPLICAS_UNSUPPORTED`, `KR_INVALID_KEY`, `KR_NULL_POINTER`.
///
/// # Safety
/// As `kr_route`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_spread(
    router: *const KrRouter,
    key: *const u8,
    key_len: usize,
    r: usize,
    selector: u64,
    node: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let rt = unsafe { self::router(router) }?;
        // SAFETY: `node` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(node, "node") }?;
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        *out = rt.spread(key, r, selector)?;
        Ok(())
    })
}

/// The read-spreading selector of a client id (XXH3-64 of its bytes), the same on every
/// surface: `*selector` receives it. An empty id (`client_len` 0) may pass NULL.
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// `client` must be NULL or point to `client_len` readable bytes; `selector` must be NULL or
/// point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_client_selector(client: *const u8, client_len: usize, selector: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `selector` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(selector, "selector") }?;
        // SAFETY: `client` is NULL or points to `client_len` readable bytes, as this function's `# Safety` requires.
        let client = unsafe { bytes(client, client_len, "client") }?;
        *out = keyroute_bindings::core::spread::client_selector(client);
        Ok(())
    })
}

/// The slot `key` falls in, for routers built on a slot table (`slots`, `redis-cluster`):
/// `*has_slot` receives whether the router has slots and, when it does, `*slot` the slot
/// (otherwise `*slot` is left unchanged).
///
/// # Safety
/// As `kr_route`; `has_slot` and `slot` must each be NULL or point to writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_slot(
    router: *const KrRouter,
    key: *const u8,
    key_len: usize,
    has_slot: *mut bool,
    slot: *mut u32,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `has_slot` is NULL or writable and not aliased; `slot` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let (has, out) = unsafe { (get_mut(has_slot, "has_slot")?, get_mut(slot, "slot")?) };
        // SAFETY: `key` is NULL or points to `key_len` readable bytes, as this function's `# Safety` requires.
        let key = unsafe { bytes(key, key_len, "key") }?;
        match r.slot(key) {
            Some(s) => {
                *has = true;
                *out = s;
            }
            None => *has = false,
        }
        Ok(())
    })
}

/// The number of nodes (route results are below it).
///
/// # Safety
/// `router` must be NULL or a live handle; `count` must be NULL or point to a writable
/// `uint32_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_node_count(router: *const KrRouter, count: *mut u32) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `count` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(count, "count") }?;
        // The core caps topologies far below u32::MAX nodes.
        *out = u32::try_from(r.len()).map_err(|_| error(ErrorCode::TooManyNodes, "node count above u32".into()))?;
        Ok(())
    })
}

/// The id of node `index`: `*id` receives its UTF-8 bytes (not NUL-terminated) and `*id_len`
/// their length, borrowed from the router (valid while this handle is alive).
///
/// Errors: `KR_NODE_OUT_OF_RANGE` when `index` is not below the node count, `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `id` and `id_len` must each be NULL or point to
/// writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_node_id(
    router: *const KrRouter,
    index: u32,
    id: *mut *const c_char,
    id_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `id` is NULL or writable and not aliased; `id_len` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let (id, id_len) = unsafe { (get_mut(id, "id")?, get_mut(id_len, "id_len")?) };
        let node = r.node_id(index).ok_or_else(|| {
            error(ErrorCode::NodeOutOfRange, format!("node index {index} out of range (the router has {})", r.len()))
        })?;
        *id = node.as_ptr().cast::<c_char>();
        *id_len = node.len();
        Ok(())
    })
}

/// The fingerprint of the router's view: XXH3-64 of its canonical spec JSON. Two processes
/// holding the same fingerprint route every key the same way.
///
/// # Safety
/// `router` must be NULL or a live handle; `fingerprint` must be NULL or point to a writable
/// `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_fingerprint(router: *const KrRouter, fingerprint: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `fingerprint` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(fingerprint, "fingerprint") }? = r.fingerprint();
        Ok(())
    })
}

/// The version the spec declared (0 when it declared none).
///
/// # Safety
/// `router` must be NULL or a live handle; `version` must be NULL or point to a writable
/// `uint64_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_version(router: *const KrRouter, version: *mut u64) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `version` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(version, "version") }? = r.version();
        Ok(())
    })
}

/// The canonical JSON of the router's spec (every default filled in, keys sorted, no
/// whitespace): `*json` receives its UTF-8 bytes (not NUL-terminated) and `*json_len` their
/// length, borrowed from the router (valid while this handle is alive).
///
/// # Safety
/// `router` must be NULL or a live handle; `json` and `json_len` must each be NULL or point to
/// writable storage.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_router_canonical_json(
    router: *const KrRouter,
    json: *mut *const c_char,
    json_len: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `json` is NULL or writable and not aliased; `json_len` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let (json, json_len) = unsafe { (get_mut(json, "json")?, get_mut(json_len, "json_len")?) };
        let canonical = r.canonical_json();
        *json = canonical.as_ptr().cast::<c_char>();
        *json_len = canonical.len();
        Ok(())
    })
}
