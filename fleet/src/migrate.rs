//! Copying the keys whose owner changes to their new owner, before the traffic moves.
//!
//! The keys are the servers' own: every node of the `from` placement is listed, and a key is
//! copied when it sits on its `from` owner and its `to` owner is another node. A key that is
//! not where `from` puts it (written by a client with another ring) is left alone and counted.
//!
//! Each copy is read with its remaining TTL and flags and added without overwriting
//! (memcached `ms … ME`, Redis `RESTORE` without `REPLACE`): a value a client already wrote on
//! the new owner wins, and a key that expired since it was listed is absent when read, so it
//! is never brought back, nor given a fresh TTL. Because a copy never overwrites, a run
//! stopped at any point (SIGKILL, a node down) is resumed by running it again: what was
//! copied reports as already there, and the rest is copied.
//!
//! With `delete_old`, a key is deleted from its old owner only once its copy is seen on the
//! new owner, and only while the old copy is unchanged (memcached's CAS value; Redis compares
//! the `DUMP` payload in a script).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use keyroute_bindings::analysis;
use keyroute_bindings::{Error, ErrorCode, Result, Router, Transition};
use serde_json::{Value, json};

use crate::addr::NodeAddr;
use crate::audit::{self, Audit, Inventory, Placement};
use crate::cache::{Added, Backend, Cache, Item};

/// How a migration runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Count the keys and bytes to move; copy nothing.
    pub dry_run: bool,
    /// Delete each key from its old owner once its copy is verified.
    pub delete_old: bool,
    /// Keys per pipelined batch (at least 1).
    pub batch: usize,
    /// Worker threads, each with its own connections (at least 1).
    pub concurrency: usize,
    /// At most this many keys read per second, over the run.
    pub ops_per_sec: Option<f64>,
    /// At most this many value bytes copied per second, over the run.
    pub bytes_per_sec: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Self { dry_run: false, delete_old: false, batch: 256, concurrency: 4, ops_per_sec: None, bytes_per_sec: None }
    }
}

/// Where a run is, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Moved keys handled so far.
    pub keys_done: u64,
    /// Moved keys in all.
    pub keys_total: u64,
    /// Value bytes copied so far.
    pub bytes_done: u64,
}

/// Keys and bytes from one node to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowReport {
    /// The old owner.
    pub from: String,
    /// The new owner.
    pub to: String,
    /// Moved keys.
    pub keys: u64,
    /// Their sizes as listed (memcached item sizes, Redis `MEMORY USAGE` in a dry run).
    pub listed_bytes: u64,
}

/// What a migration did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// Nothing was copied.
    pub dry_run: bool,
    /// Keys listed on the nodes of `from`.
    pub listed: u64,
    /// Keys not where `from` places them: left alone.
    pub misplaced: u64,
    /// Keys whose owner changes: the moved set.
    pub moved: u64,
    /// Moved keys copied by this run.
    pub copied: u64,
    /// Moved keys the new owner held already (a client's write, or an earlier run's copy).
    pub already_present: u64,
    /// Moved keys gone or expired when read: not copied, not revived.
    pub expired: u64,
    /// Moved keys seen on the new owner after the copy.
    pub verified: u64,
    /// Moved keys copied or present but not seen on the new owner after (expired since).
    pub missing: u64,
    /// Old copies deleted (`delete_old`).
    pub deleted: u64,
    /// Old copies kept because a client changed them since they were read (`delete_old`).
    pub changed_on_source: u64,
    /// Value bytes copied (memcached values; Redis `DUMP` payloads).
    pub bytes_copied: u64,
    /// Per (old owner, new owner).
    pub flows: Vec<FlowReport>,
    /// Wall time of the copy, seconds.
    pub seconds: f64,
    /// Time the workers spent in server calls (writing requests, reading replies), summed over
    /// the workers, seconds.
    pub server_seconds: f64,
}

/// The moved set, found from the servers' listings.
#[derive(Debug, Clone, Default)]
pub struct MovePlan {
    /// Keys listed.
    pub listed: u64,
    /// Keys not where `from` places them.
    pub misplaced: u64,
    /// The keys, grouped by (old owner, new owner), in that order.
    pub moves: Vec<Move>,
}

/// The moved keys of one (old owner, new owner) pair.
#[derive(Debug, Clone, Default)]
pub struct Move {
    /// The old owner, an index into the address list.
    pub from: usize,
    /// The new owner, an index into the address list.
    pub to: usize,
    /// The keys with their listed sizes.
    pub keys: Vec<SizedKey>,
}

/// A key and the size its listing gave.
pub type SizedKey = (Vec<u8>, u64);

impl MovePlan {
    /// Compares each listed key's owner under `from` and `to`. `addrs` must hold every node of
    /// both placements.
    ///
    /// # Errors
    /// `invalid_spec` when a node of `to` has no address in `addrs`.
    pub fn new(inventory: &Inventory, from: &dyn Placement, to: &dyn Placement, addrs: &[NodeAddr]) -> Result<Self> {
        let index = |id: &str| {
            addrs
                .iter()
                .position(|a| a.id == id)
                .ok_or_else(|| Error::new(ErrorCode::InvalidSpec, format!("node {id:?} has no address")))
        };
        let mut plan = Self::default();
        let mut groups: HashMap<(usize, usize), Vec<SizedKey>> = HashMap::new();
        for (addr, listed) in &inventory.nodes {
            let here = index(&addr.id)?;
            for l in listed {
                plan.listed += 1;
                if from.owner(&l.key).ok() != Some(addr.id.as_str()) {
                    plan.misplaced += 1;
                    continue;
                }
                // A key `to` cannot route stays where it is (and is counted as misplaced).
                let Ok(owner) = to.owner(&l.key) else {
                    plan.misplaced += 1;
                    continue;
                };
                if owner != addr.id {
                    groups.entry((here, index(owner)?)).or_default().push((l.key.clone(), l.size));
                }
            }
        }
        let mut moves: Vec<Move> = groups.into_iter().map(|((from, to), keys)| Move { from, to, keys }).collect();
        moves.sort_by_key(|m| (m.from, m.to));
        plan.moves = moves;
        Ok(plan)
    }

    /// Keys to move.
    #[must_use]
    pub fn moved(&self) -> u64 {
        self.moves.iter().map(|m| m.keys.len() as u64).sum()
    }

    fn flows(&self, addrs: &[NodeAddr]) -> Vec<FlowReport> {
        let id = |i: usize| addrs.get(i).map(|a| a.id.clone()).unwrap_or_default();
        self.moves
            .iter()
            .map(|m| FlowReport {
                from: id(m.from),
                to: id(m.to),
                keys: m.keys.len() as u64,
                listed_bytes: m.keys.iter().map(|(_, s)| s).sum(),
            })
            .collect()
    }
}

/// The moved set checked against the plan's own figures, key by key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanCheck {
    /// Keys checked: every listed key that A places where it is.
    pub checked: u64,
    /// Keys where routing A and B and the plan's moved pieces of the hash space disagree on
    /// whether the key moves (0 unless something is wrong).
    pub disagree: u64,
}

/// Checks each listed key that `a` places where it is: it moves (its `b` owner is another
/// node) exactly when its key hash falls in one of the moved pieces of the hash space that
/// `keyroute plan` reports ([`analysis::diff`]'s `moved_arcs`), an answer computed from the
/// topologies alone. `None` where that diff is not exact (no pieces), or where A and B do not
/// hash keys alike.
#[must_use]
pub fn check_against_plan(inventory: &Inventory, a: &Router, b: &Router) -> Option<PlanCheck> {
    let diff = analysis::diff(a, b).ok()?;
    let (ha, hb) = (a.key_hasher().ok()?, b.key_hasher().ok()?);
    if diff.moved_arcs.is_empty() && diff.moved > 0.0 {
        return None;
    }
    let in_arc = |h: u64| {
        let i = diff.moved_arcs.partition_point(|arc| arc.start <= h);
        i.checked_sub(1).and_then(|i| diff.moved_arcs.get(i)).is_some_and(|arc| h <= arc.end)
    };
    let mut check = PlanCheck { checked: 0, disagree: 0 };
    for (addr, listed) in &inventory.nodes {
        for l in listed {
            if a.route_id(&l.key).ok() != Some(addr.id.as_str()) {
                continue;
            }
            let hash = ha.hash(&l.key).ok()?;
            if hb.hash(&l.key).ok()? != hash {
                return None;
            }
            let moves = b.route_id(&l.key).ok() != Some(addr.id.as_str());
            check.checked += 1;
            check.disagree += u64::from(moves != in_arc(hash));
        }
    }
    Some(check)
}

/// Paces a run to its rates: before each step, waits until the totals so far fit the rates.
struct Pacer {
    start: Instant,
    ops_per_sec: Option<f64>,
    bytes_per_sec: Option<f64>,
    ops: AtomicU64,
    bytes: AtomicU64,
}

impl Pacer {
    fn take(&self, ops: u64, bytes: u64) {
        let ops = self.ops.fetch_add(ops, Ordering::Relaxed) + ops;
        let bytes = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let due = |n: u64, rate: Option<f64>| rate.filter(|r| *r > 0.0).map_or(0.0, |r| n as f64 / r);
        let at = due(ops, self.ops_per_sec).max(due(bytes, self.bytes_per_sec));
        let wait = at - self.start.elapsed().as_secs_f64();
        if wait > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(wait));
        }
    }
}

#[derive(Default)]
struct Counters {
    done: AtomicU64,
    copied: AtomicU64,
    already: AtomicU64,
    expired: AtomicU64,
    verified: AtomicU64,
    missing: AtomicU64,
    deleted: AtomicU64,
    changed: AtomicU64,
    bytes: AtomicU64,
    server_nanos: AtomicU64,
}

/// Runs `plan`: copies each batch from its old owner to its new one, with `options`' rates,
/// workers and batch size, calling `progress` after each batch.
///
/// # Errors
/// The first error of any worker (`io` naming the node), after the other workers stopped: a
/// re-run resumes.
pub fn run(
    backend: Backend,
    addrs: &[NodeAddr],
    plan: &MovePlan,
    options: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Report> {
    let mut report = Report {
        dry_run: options.dry_run,
        listed: plan.listed,
        misplaced: plan.misplaced,
        moved: plan.moved(),
        flows: plan.flows(addrs),
        ..Report::default()
    };
    if options.dry_run {
        return Ok(report);
    }
    let batch = options.batch.max(1);
    let tasks: Vec<(usize, usize, &[SizedKey])> =
        plan.moves.iter().flat_map(|m| m.keys.chunks(batch).map(move |c| (m.from, m.to, c))).collect();
    let pacer = Pacer {
        start: Instant::now(),
        ops_per_sec: options.ops_per_sec,
        bytes_per_sec: options.bytes_per_sec,
        ops: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
    };
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let counters = Counters::default();
    let total = report.moved;
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..options.concurrency.max(1) {
            scope.spawn(|| {
                let mut conns: HashMap<usize, Box<dyn Cache>> = HashMap::new();
                while !stop.load(Ordering::Relaxed) {
                    let Some(&(from, to, keys)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let step = Step { backend, addrs, options, pacer: &pacer, counters: &counters };
                    if let Err(e) = step.copy(&mut conns, from, to, keys) {
                        stop.store(true, Ordering::Relaxed);
                        if let Ok(mut slot) = failure.lock() {
                            slot.get_or_insert(e);
                        }
                        break;
                    }
                    progress(Progress {
                        keys_done: counters.done.load(Ordering::Relaxed),
                        keys_total: total,
                        bytes_done: counters.bytes.load(Ordering::Relaxed),
                    });
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    report.copied = get(&counters.copied);
    report.already_present = get(&counters.already);
    report.expired = get(&counters.expired);
    report.verified = get(&counters.verified);
    report.missing = get(&counters.missing);
    report.deleted = get(&counters.deleted);
    report.changed_on_source = get(&counters.changed);
    report.bytes_copied = get(&counters.bytes);
    report.seconds = started.elapsed().as_secs_f64();
    report.server_seconds = get(&counters.server_nanos) as f64 / 1e9;
    Ok(report)
}

/// One worker's view of the run.
struct Step<'a> {
    backend: Backend,
    addrs: &'a [NodeAddr],
    options: &'a Options,
    pacer: &'a Pacer,
    counters: &'a Counters,
}

impl Step<'_> {
    fn conn<'c>(&self, conns: &'c mut HashMap<usize, Box<dyn Cache>>, node: usize) -> Result<&'c mut Box<dyn Cache>> {
        if let std::collections::hash_map::Entry::Vacant(slot) = conns.entry(node) {
            let addr =
                self.addrs.get(node).ok_or_else(|| Error::new(ErrorCode::Internal, "a node index out of range"))?;
            slot.insert(self.backend.connect(addr)?);
        }
        conns.get_mut(&node).ok_or_else(|| Error::new(ErrorCode::Internal, "a connection went missing"))
    }

    /// Times a server call. A failed call drops the connection, so the next run of this worker
    /// reconnects.
    fn timed<T>(
        &self,
        conns: &mut HashMap<usize, Box<dyn Cache>>,
        node: usize,
        call: impl FnOnce(&mut dyn Cache) -> Result<T>,
    ) -> Result<T> {
        let start = Instant::now();
        let conn = self.conn(conns, node)?;
        let result = call(conn.as_mut());
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.counters.server_nanos.fetch_add(nanos, Ordering::Relaxed);
        if result.is_err() {
            conns.remove(&node);
        }
        result
    }

    fn copy(
        &self,
        conns: &mut HashMap<usize, Box<dyn Cache>>,
        from: usize,
        to: usize,
        keys: &[SizedKey],
    ) -> Result<()> {
        let c = self.counters;
        self.pacer.take(keys.len() as u64, 0);
        let names: Vec<&[u8]> = keys.iter().map(|(k, _)| k.as_slice()).collect();
        let items = self.timed(conns, from, |s| s.fetch(&names))?;
        let live: Vec<(&[u8], &Item)> =
            names.iter().zip(&items).filter_map(|(&k, item)| item.as_ref().map(|i| (k, i))).collect();
        c.expired.fetch_add((names.len() - live.len()) as u64, Ordering::Relaxed);
        let bytes: u64 = live.iter().map(|(_, i)| i.value.len() as u64).sum();
        self.pacer.take(0, bytes);
        let added = self.timed(conns, to, |d| d.add(&live))?;
        for (&(_, item), outcome) in live.iter().zip(&added) {
            match outcome {
                Added::Stored => {
                    c.copied.fetch_add(1, Ordering::Relaxed);
                    c.bytes.fetch_add(item.value.len() as u64, Ordering::Relaxed);
                }
                Added::Exists => {
                    c.already.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let live_keys: Vec<&[u8]> = live.iter().map(|&(k, _)| k).collect();
        let present = self.timed(conns, to, |d| d.exists(&live_keys))?;
        let seen = present.iter().filter(|&&p| p).count() as u64;
        c.verified.fetch_add(seen, Ordering::Relaxed);
        c.missing.fetch_add(live.len() as u64 - seen, Ordering::Relaxed);
        if self.options.delete_old {
            let verified: Vec<(&[u8], &Item)> =
                live.iter().zip(&present).filter(|&(_, &p)| p).map(|(&pair, _)| pair).collect();
            let deleted = self.timed(conns, from, |s| s.delete(&verified))?;
            let n = deleted.iter().filter(|&&d| d).count() as u64;
            c.deleted.fetch_add(n, Ordering::Relaxed);
            c.changed.fetch_add(verified.len() as u64 - n, Ordering::Relaxed);
        }
        c.done.fetch_add(keys.len() as u64, Ordering::Relaxed);
        Ok(())
    }
}

/// A whole `keyroute migrate` run: the plan from the servers' listings, the copy, and the audit
/// of the new owners after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    /// What the copy did.
    pub report: Report,
    /// The share of keys the change moves by the topologies alone (a whole change, not a step).
    pub plan_moved_share: Option<f64>,
    /// The moved set checked key by key against the plan's moved pieces ([`check_against_plan`]).
    pub plan_check: Option<PlanCheck>,
    /// The new owners audited against B (or the step's end) after the copy; `None` in a dry run.
    pub after: Option<Audit>,
}

/// The addresses of the nodes a placement can put keys on.
#[must_use]
pub fn nodes_of(placement: &dyn Placement, addrs: &[NodeAddr]) -> Vec<NodeAddr> {
    let ids = placement.node_ids();
    addrs.iter().filter(|a| ids.contains(&a.id.as_str())).cloned().collect()
}

/// Migrates from `a` to `b` (or, with `step = (p1, p2)`, the keys that cut over between those
/// progress values of the gradual change): lists the nodes of the start, plans the moved set,
/// checks it against the plan's figures, copies, and audits the new owners.
///
/// # Errors
/// `invalid_argument` for a step outside 0 ≤ P1 ≤ P2 ≤ 1; any error of listing (`io` naming
/// the node), planning, or [`run`]; `internal` when the moved set and the plan disagree (nothing
/// is copied then).
pub fn migrate(
    a: &Router,
    b: &Router,
    step: Option<(f64, f64)>,
    backend: Backend,
    addrs: &[NodeAddr],
    options: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Migration> {
    let context = |what: &str, e: Error| Error::new(e.code(), format!("{what}: {}", e.message()));
    let (from, to, plan_moved_share): (Box<dyn Placement>, Box<dyn Placement>, Option<f64>) = match step {
        None => (Box::new(a.clone()), Box::new(b.clone()), Some(analysis::diff(a, b)?.moved)),
        Some((p1, p2)) => {
            if !(0.0..=1.0).contains(&p1) || !(0.0..=1.0).contains(&p2) || p1 > p2 {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    format!("step {p1}:{p2}: write P1:P2 with 0 <= P1 <= P2 <= 1"),
                ));
            }
            let at = |p: f64| Transition::new(a.clone(), b.clone(), p);
            (Box::new(at(p1)?), Box::new(at(p2)?), None)
        }
    };
    let inventory = Inventory::list(backend, &nodes_of(from.as_ref(), addrs), options.dry_run)
        .map_err(|e| context("listing keys", e))?;
    let plan = MovePlan::new(&inventory, from.as_ref(), to.as_ref(), addrs).map_err(|e| context("planning", e))?;
    let plan_check = if step.is_none() { check_against_plan(&inventory, a, b) } else { None };
    if let Some(c) = plan_check.filter(|c| c.disagree > 0) {
        return Err(Error::new(
            ErrorCode::Internal,
            format!(
                "{} keys move by routing but not by the plan's moved pieces of the hash space (or back): nothing copied",
                c.disagree
            ),
        ));
    }
    let report = run(backend, addrs, &plan, options, progress).map_err(|e| context("migrate", e))?;
    let after = if options.dry_run {
        None
    } else {
        let listed =
            Inventory::list(backend, &nodes_of(to.as_ref(), addrs), false).map_err(|e| context("listing keys", e))?;
        Some(audit::audit(&listed, to.as_ref(), 0))
    };
    Ok(Migration { report, plan_moved_share, plan_check, after })
}

impl Migration {
    /// The report as JSON (`keyroute migrate --json`, `--report FILE`).
    #[must_use]
    pub fn to_json(&self) -> Value {
        let r = &self.report;
        let placed = r.listed - r.misplaced;
        json!({
            "dry_run": r.dry_run,
            "listed": r.listed,
            "misplaced_left_alone": r.misplaced,
            "moved": r.moved,
            "moved_share": if placed == 0 { 0.0 } else { r.moved as f64 / placed as f64 },
            "plan_moved_share": self.plan_moved_share,
            "copied": r.copied,
            "already_present": r.already_present,
            "expired": r.expired,
            "verified": r.verified,
            "missing": r.missing,
            "deleted": r.deleted,
            "changed_on_source": r.changed_on_source,
            "bytes_copied": r.bytes_copied,
            "listed_bytes": r.flows.iter().map(|f| f.listed_bytes).sum::<u64>(),
            "seconds": r.seconds,
            "server_seconds": r.server_seconds,
            "flows": r.flows.iter().map(|f| json!({"from": f.from, "to": f.to, "keys": f.keys, "listed_bytes": f.listed_bytes})).collect::<Vec<_>>(),
            "after": self.after.as_ref().map(|a| json!({
                "keys": a.keys(),
                "misplaced": a.misplaced(),
                "nodes": a.nodes.iter().map(|n| json!({"id": n.addr.id, "keys": n.keys, "misplaced": n.misplaced})).collect::<Vec<_>>(),
            })),
            "plan_check": self.plan_check.map(|c| json!({"checked": c.checked, "disagree": c.disagree})),
        })
    }
}
