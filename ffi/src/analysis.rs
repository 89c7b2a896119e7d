//! Ownership and diffs (`keyroute_bindings::analysis`), the figures `keyroute plan` prints:
//! `kr_ownership` for one router, and `kr_diff` for a change from one router to another, whose
//! flows, per-node changes and moved pieces of the hash space are copied into caller buffers.

use std::collections::HashMap;

use keyroute_bindings::analysis::{self, Method};
use keyroute_bindings::{Error, ErrorCode};

use crate::boundary::{call, error, get, get_mut, router, too_long};
use crate::{
    KR_NO_NODE, KrAnalysisMethod, KrDiff, KrDiffFigures, KrFlow, KrMovedArc, KrNodeChange, KrOwnershipSummary,
    KrRouter, KrStatus,
};

/// The C form of an analysis method, and its number of sample keys (0 unless sampled).
pub(crate) fn method(m: Method) -> Result<(KrAnalysisMethod, u32), Error> {
    Ok(match m {
        Method::Exact => (KrAnalysisMethod::Exact, 0),
        Method::SlotShare => (KrAnalysisMethod::SlotShare, 0),
        Method::Expected => (KrAnalysisMethod::Expected, 0),
        Method::Sampled { keys } => (KrAnalysisMethod::Sampled, keys),
        // The core's enum is non-exhaustive: a method added there needs its C constant here.
        other => {
            return Err(error(ErrorCode::Internal, format!("analysis method {} has no C constant", other.name())));
        }
    })
}

/// `len` writable `T`s at `ptr` as a slice, after checking that `needed` fit: `*count`
/// receives `needed` in any case, and a shorter buffer is `KR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// A non-null `ptr` must point to `len` writable `T`s that nothing else uses during `'a`.
unsafe fn buffer<'a, T>(ptr: *mut T, len: usize, needed: usize, what: &str) -> Result<&'a mut [T], Error> {
    if len < needed {
        return Err(error(
            ErrorCode::BufferTooSmall,
            format!("{what} has room for {len}, {needed} are needed (the count says how many)"),
        ));
    }
    if needed == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(error(ErrorCode::NullPointer, format!("{what} is NULL")));
    }
    if needed > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(too_long(what));
    }
    // SAFETY: non-null, at least `needed` writable `T`s per the caller's contract, size checked.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, needed) })
}

/// The share of keys each node of `router` owns: `shares[i]` receives node `i`'s (the shares
/// sum to 1) and `*summary` (may be NULL) the balance and how the shares were obtained. Rings,
/// Maglev and slot tables are measured exactly on the key-hash space, jump, modulo and
/// rendezvous in closed form, the rest from sample keys (`summary->method` says which).
/// Allocates while it measures.
///
/// Errors: `KR_BUFFER_TOO_SMALL` when `shares_len` is below the node count
/// (`kr_router_node_count`; nothing is written), `KR_NULL_POINTER`.
///
/// # Safety
/// `router` must be NULL or a live handle; `shares` must point to `shares_len` writable
/// `double`s (NULL only when `shares_len` is 0); `summary` must be NULL or point to a writable
/// `kr_ownership_summary`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_ownership(
    router: *const KrRouter,
    shares: *mut f64,
    shares_len: usize,
    summary: *mut KrOwnershipSummary,
) -> KrStatus {
    call(|| {
        // SAFETY: `router` is NULL or a live router handle, as this function's `# Safety` requires.
        let r = unsafe { self::router(router) }?;
        // SAFETY: `shares` points to `shares_len` writable doubles, as this function's `# Safety` requires.
        let out = unsafe { buffer(shares, shares_len, r.len(), "shares") }?;
        let own = analysis::ownership(r);
        let (m, keys) = method(own.method)?;
        for (slot, node) in out.iter_mut().zip(&own.shares) {
            *slot = node.share;
        }
        // SAFETY: `summary` is NULL or writable and not aliased, as this function's `# Safety` requires.
        if let Some(s) = unsafe { summary.as_mut() } {
            *s = KrOwnershipSummary {
                method: m,
                sample_keys: keys,
                cv: own.balance.cv,
                max_over_mean: own.balance.max_over_mean,
                min_over_mean: own.balance.min_over_mean,
            };
        }
        Ok(())
    })
}

/// A computed diff: the figures, and the per-node changes over both sides' nodes.
struct Diff {
    figures: KrDiffFigures,
    flows: Vec<KrFlow>,
    nodes: Vec<KrNodeChange>,
    arcs: Vec<KrMovedArc>,
}

/// The diff behind a handle.
///
/// # Safety
/// A non-null `diff` must be a live diff handle.
unsafe fn handle<'a>(diff: *const KrDiff) -> Result<&'a Diff, Error> {
    // SAFETY: a diff handle is `Box::into_raw` of a `Box<Diff>`.
    unsafe { get(diff.cast::<Diff>(), "diff") }
}

/// Computes what changing from `from` (view A) to `to` (view B) moves, nodes matched by id, as
/// `keyroute plan` reports it: `*diff` receives a handle holding the figures
/// (`kr_diff_summary`), every from → to flow (`kr_diff_flows`), the change per node
/// (`kr_diff_nodes`) and the moved pieces of the hash space (`kr_diff_moved_arcs`). Release it
/// with `kr_diff_free`. Exact for rings, Maglev and slot tables, in closed form for two jump,
/// two modulo or two rendezvous routers, from sample keys otherwise. Allocates.
///
/// Errors: `KR_INVALID_KEY` when sample keys are needed and a router refuses them,
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `from` and `to` must each be NULL or a live router handle; `diff` must be NULL or point to
/// writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_new(from: *const KrRouter, to: *const KrRouter, diff: *mut *mut KrDiff) -> KrStatus {
    call(|| {
        // SAFETY: `diff` is NULL or writable and not aliased, as this function's `# Safety` requires.
        let out = unsafe { get_mut(diff, "diff") }?;
        // SAFETY: `from` and `to` are NULL or live router handles, as this function's `# Safety` requires.
        let (a, b) = unsafe { (router(from)?, router(to)?) };
        let d = analysis::diff(a, b)?;
        // The union of both sides' nodes by id: A's in A's order, then B's that A lacks.
        let mut nodes: Vec<KrNodeChange> = (0..a.len())
            .map(|i| KrNodeChange { from_index: index(i), to_index: KR_NO_NODE, ..KrNodeChange::default() })
            .collect();
        let in_a: HashMap<&str, usize> =
            (0..index(a.len())).filter_map(|i| Some((a.node_id(i)?, i as usize))).collect();
        let mut by_b = Vec::with_capacity(b.len());
        for j in 0..index(b.len()) {
            let u = match b.node_id(j).and_then(|id| in_a.get(id)) {
                Some(&i) => i,
                None => {
                    nodes.push(KrNodeChange { from_index: KR_NO_NODE, ..KrNodeChange::default() });
                    nodes.len() - 1
                }
            };
            if let Some(n) = nodes.get_mut(u) {
                n.to_index = j;
            }
            by_b.push(u);
        }
        for f in &d.flows {
            let (i, Some(&j)) = (f.from_index as usize, by_b.get(f.to_index as usize)) else { continue };
            if let Some(n) = nodes.get_mut(i) {
                n.before += f.share;
                if i != j {
                    n.lost += f.share;
                }
            }
            if let Some(n) = nodes.get_mut(j) {
                n.after += f.share;
                if i != j {
                    n.gained += f.share;
                }
            }
        }
        let flows: Vec<KrFlow> = d
            .flows
            .iter()
            .map(|f| KrFlow { from_index: f.from_index, to_index: f.to_index, moved: f.from != f.to, share: f.share })
            .collect();
        let arcs: Vec<KrMovedArc> = d
            .moved_arcs
            .iter()
            .map(|m| KrMovedArc { start: m.start, end: m.end, from_index: m.from_index, to_index: m.to_index })
            .collect();
        let (m, keys) = method(d.method)?;
        let figures = KrDiffFigures {
            moved: d.moved,
            ideal_moved: d.ideal_moved,
            method: m,
            sample_keys: keys,
            flow_count: flows.len(),
            node_count: nodes.len(),
            moved_arc_count: arcs.len(),
        };
        *out = Box::into_raw(Box::new(Diff { figures, flows, nodes, arcs })).cast::<KrDiff>();
        Ok(())
    })
}

/// The index of a node (the core caps topologies far below `u32::MAX` nodes).
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(KR_NO_NODE)
}

/// The diff's figures: `*figures` receives the moved share, the least any router could move,
/// the method, and how many flows, nodes and moved arcs the other calls give.
///
/// Errors: `KR_NULL_POINTER`.
///
/// # Safety
/// `diff` must be NULL or a live diff handle; `figures` must be NULL or point to a writable
/// `kr_diff_figures`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_summary(diff: *const KrDiff, figures: *mut KrDiffFigures) -> KrStatus {
    call(|| {
        // SAFETY: `diff` is NULL or a live diff handle, as this function's `# Safety` requires.
        let d = unsafe { handle(diff) }?;
        // SAFETY: `figures` is NULL or writable and not aliased, as this function's `# Safety` requires.
        *unsafe { get_mut(figures, "figures") }? = d.figures;
        Ok(())
    })
}

/// Copies `items` into the caller's buffer, writing the number needed to `*count`.
///
/// # Safety
/// `buf` must point to `len` writable `T`s (NULL only when `len` is 0); `count` must be NULL
/// or writable.
unsafe fn copy_out<T: Copy>(items: &[T], buf: *mut T, len: usize, count: *mut usize, what: &str) -> Result<(), Error> {
    // SAFETY: `count` is NULL or writable and not aliased, per this function's contract.
    let count = unsafe { get_mut(count, "count") }?;
    *count = items.len();
    // SAFETY: `buf` points to `len` writable `T`s, per this function's contract.
    let out = unsafe { buffer(buf, len, items.len(), what) }?;
    out.copy_from_slice(items);
    Ok(())
}

/// Every (from, to) pair of nodes with a positive share of keys, staying keys included (their
/// `moved` is false), sorted by position: `flows[0..*count]` receives them. `*count` receives
/// how many there are in any case (`kr_diff_summary` gives it too), so a first call with
/// `flows_len` 0 sizes the buffer.
///
/// Errors: `KR_BUFFER_TOO_SMALL` when `flows_len` is below the count (nothing is copied, and
/// `*count` holds the count), `KR_NULL_POINTER`.
///
/// # Safety
/// `diff` must be NULL or a live diff handle; `flows` must point to `flows_len` writable
/// `kr_flow`s (NULL only when `flows_len` is 0); `count` must be NULL or point to a writable
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_flows(
    diff: *const KrDiff,
    flows: *mut KrFlow,
    flows_len: usize,
    count: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `diff` is NULL or a live diff handle, as this function's `# Safety` requires.
        let d = unsafe { handle(diff) }?;
        // SAFETY: the buffer and the count, as this function's `# Safety` requires.
        unsafe { copy_out(&d.flows, flows, flows_len, count, "flows") }
    })
}

/// The change per node over both sides' nodes, as the table of `keyroute plan`: A's nodes in
/// A's order, then B's nodes that A lacks (by id); each with its index in A and in B
/// (`KR_NO_NODE` on the side it is absent from), its share before and after, and the share it
/// gains and loses. `*count` receives how many there are in any case.
///
/// Errors: `KR_BUFFER_TOO_SMALL` when `nodes_len` is below the count (nothing is copied),
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `diff` must be NULL or a live diff handle; `nodes` must point to `nodes_len` writable
/// `kr_node_change`s (NULL only when `nodes_len` is 0); `count` must be NULL or point to a
/// writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_nodes(
    diff: *const KrDiff,
    nodes: *mut KrNodeChange,
    nodes_len: usize,
    count: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `diff` is NULL or a live diff handle, as this function's `# Safety` requires.
        let d = unsafe { handle(diff) }?;
        // SAFETY: the buffer and the count, as this function's `# Safety` requires.
        unsafe { copy_out(&d.nodes, nodes, nodes_len, count, "nodes") }
    })
}

/// The moved pieces of the key-hash space, in hash order (exact diffs only: rings, Maglev and
/// slot tables; none otherwise), each with its first and last hash and its owners in A and B.
/// `*count` receives how many there are in any case.
///
/// Errors: `KR_BUFFER_TOO_SMALL` when `arcs_len` is below the count (nothing is copied),
/// `KR_NULL_POINTER`.
///
/// # Safety
/// `diff` must be NULL or a live diff handle; `arcs` must point to `arcs_len` writable
/// `kr_moved_arc`s (NULL only when `arcs_len` is 0); `count` must be NULL or point to a writable
/// `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_moved_arcs(
    diff: *const KrDiff,
    arcs: *mut KrMovedArc,
    arcs_len: usize,
    count: *mut usize,
) -> KrStatus {
    call(|| {
        // SAFETY: `diff` is NULL or a live diff handle, as this function's `# Safety` requires.
        let d = unsafe { handle(diff) }?;
        // SAFETY: the buffer and the count, as this function's `# Safety` requires.
        unsafe { copy_out(&d.arcs, arcs, arcs_len, count, "arcs") }
    })
}

/// Releases a diff. NULL is ignored.
///
/// # Safety
/// `diff` must be NULL or a diff handle not released yet, which no other thread is using; it
/// must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kr_diff_free(diff: *mut KrDiff) {
    if !diff.is_null() {
        // SAFETY: a live diff handle is `Box::into_raw` of a `Box<Diff>`.
        drop(unsafe { Box::from_raw(diff.cast::<Diff>()) });
    }
}
