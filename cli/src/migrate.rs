//! `keyroute migrate A B`: copy the keys whose owner changes to their new owner, before the
//! traffic moves (or one rollout step, `--step P1:P2`).

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use keyroute_bindings::analysis;
use keyroute_bindings::{ErrorCode, Transition};
use keyroute_fleet::addr::NodeAddr;
use keyroute_fleet::audit::{self, Placement};
use keyroute_fleet::migrate::{self, MovePlan, Options, Progress, Report};
use serde_json::{Value, json};

use crate::audit::{FleetArgs, list};
use crate::error::{CliError, Result};
use crate::input;
use crate::report::{pct2, thousands};

/// Move the data before the traffic.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute migrate 3-nodes.json 4-nodes.json --dry-run     keys and bytes that would move
  keyroute migrate 3-nodes.json 4-nodes.json --report migrate.json
  keyroute migrate A.json B.json --step 0.2:0.4             one step of a gradual rollout
  keyroute migrate A.json B.json --backend redis --ops-per-sec 20000 --delete-old

Every node of A is listed (memcached: lru_crawler metadump; Redis: SCAN). A key is copied when
A places it on the node that holds it and B places it elsewhere; keys A would not place there
are left alone and counted. Each copy keeps its remaining TTL and flags, never overwrites a
key already on the new owner (memcached ms … ME, Redis RESTORE without REPLACE), and a key
that expired meanwhile is not copied. A stopped run is resumed by running it again: copies
never overwrite, so keys copied before report as already present. Exit status 1 when a copied
key is not found on its new owner afterwards.")]
pub struct MigrateArgs {
    /// Topology before the change (view A).
    #[arg(value_name = "A")]
    from: PathBuf,
    /// Topology after the change (view B).
    #[arg(value_name = "B")]
    to: PathBuf,
    #[command(flatten)]
    fleet: FleetArgs,
    /// One step of the gradual change A → B: the keys that cut over between progress P1 and P2.
    #[arg(long, value_name = "P1:P2")]
    step: Option<String>,
    /// Count the keys and bytes that would move; copy nothing.
    #[arg(long)]
    dry_run: bool,
    /// Delete each key from its old owner once its copy is on the new one (and only while the
    /// old copy is unchanged).
    #[arg(long)]
    delete_old: bool,
    /// Keys read per second, at most.
    #[arg(long, value_name = "N")]
    ops_per_sec: Option<f64>,
    /// Value bytes copied per second, at most.
    #[arg(long, value_name = "N")]
    bytes_per_sec: Option<f64>,
    /// Worker threads, each with its own connections.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    concurrency: u16,
    /// Keys per pipelined batch.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Print the JSON report instead of the summary.
    #[arg(long)]
    json: bool,
    /// No progress bar (there is none when stderr is not a terminal).
    #[arg(long)]
    no_progress: bool,
}

pub fn run(args: &MigrateArgs) -> Result<()> {
    for (name, rate) in [("--ops-per-sec", args.ops_per_sec), ("--bytes-per-sec", args.bytes_per_sec)] {
        if let Some(r) = rate.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(CliError::usage(ErrorCode::InvalidArgument, format!("{name} {r}: a rate must be above 0")));
        }
    }
    let (spec_a, spec_b) = (input::spec(&args.from)?, input::spec(&args.to)?);
    let a = input::build(&spec_a, args.from.display())?;
    let b = input::build(&spec_b, args.to.display())?;
    let addrs = args.fleet.addresses(&[&spec_a, &spec_b])?;
    let (from, to, expected): (Box<dyn Placement>, Box<dyn Placement>, Option<f64>) = match &args.step {
        None => {
            let moved = analysis::diff(&a, &b).map_err(|e| CliError::from_bindings("diff", &e))?.moved;
            (Box::new(a.clone()), Box::new(b.clone()), Some(moved))
        }
        Some(step) => {
            let (p1, p2) = parse_step(step)?;
            let at = |p: f64| {
                Transition::new(a.clone(), b.clone(), p)
                    .map_err(|e| CliError::from_bindings(format_args!("--step {step}"), &e).in_usage())
            };
            (Box::new(at(p1)?), Box::new(at(p2)?), None)
        }
    };
    let sources = nodes_of(from.as_ref(), &addrs);
    let backend = args.fleet.backend();
    let inventory = list(backend, &sources, args.dry_run)?;
    let plan = MovePlan::new(&inventory, from.as_ref(), to.as_ref(), &addrs)
        .map_err(|e| CliError::from_bindings("planning", &e))?;
    let check = if args.step.is_none() { migrate::check_against_plan(&inventory, &a, &b) } else { None };
    if let Some(c) = check.filter(|c| c.disagree > 0) {
        return Err(CliError::new(
            ErrorCode::Internal,
            format!(
                "{} keys move by routing but not by the plan's moved pieces of the hash space (or back): nothing copied",
                c.disagree
            ),
        ));
    }
    let options = Options {
        dry_run: args.dry_run,
        delete_old: args.delete_old,
        batch: args.batch as usize,
        concurrency: usize::from(args.concurrency),
        ops_per_sec: args.ops_per_sec,
        bytes_per_sec: args.bytes_per_sec,
    };
    let bar = progress_bar(args, plan.moved());
    let tick = |p: Progress| {
        bar.set_position(p.keys_done);
        bar.set_message(format!("{:.1} MB", p.bytes_done as f64 / 1e6));
    };
    let result = migrate::run(backend, &addrs, &plan, &options, &tick);
    bar.finish_and_clear();
    let report = result.map_err(|e| CliError::from_bindings("migrate", &e))?;
    // The final check: B's nodes audited against B (or the step's end).
    let after = if args.dry_run {
        None
    } else {
        let targets = nodes_of(to.as_ref(), &addrs);
        Some(audit::audit(&list(backend, &targets, false)?, to.as_ref(), 0))
    };
    let mut json = report_json(&report, expected, after.as_ref());
    json["plan_check"] = check.map_or(Value::Null, |c| json!({"checked": c.checked, "disagree": c.disagree}));
    if let Some(path) = &args.report {
        crate::output::write_file(path, format!("{json:#}\n").as_bytes())?;
    }
    let outcome = (report.missing > 0).then(|| {
        CliError::finding(format!(
            "{} copied keys are not on their new owner after the copy (expired since, or evicted)",
            thousands(report.missing)
        ))
        .print_now()
    });
    let text = if args.json { format!("{json:#}\n") } else { summary(&report, expected, after.as_ref()) };
    crate::error::settled(outcome, io::stdout().lock().write_all(text.as_bytes()).map_err(CliError::from))
}

/// `P1:P2`, two progress values in [0, 1] with P1 ≤ P2.
fn parse_step(text: &str) -> Result<(f64, f64)> {
    let bad =
        || CliError::usage(ErrorCode::InvalidArgument, format!("--step {text}: write P1:P2 with 0 <= P1 <= P2 <= 1"));
    let (p1, p2) = text.split_once(':').ok_or_else(bad)?;
    let (p1, p2): (f64, f64) = (p1.parse().map_err(|_| bad())?, p2.parse().map_err(|_| bad())?);
    if !(0.0..=1.0).contains(&p1) || !(0.0..=1.0).contains(&p2) || p1 > p2 {
        return Err(bad());
    }
    Ok((p1 + 0.0, p2 + 0.0))
}

/// The addresses of the nodes a placement can put keys on.
fn nodes_of(placement: &dyn Placement, addrs: &[NodeAddr]) -> Vec<NodeAddr> {
    let ids = placement.node_ids();
    addrs.iter().filter(|a| ids.contains(&a.id.as_str())).cloned().collect()
}

fn progress_bar(args: &MigrateArgs, total: u64) -> ProgressBar {
    if args.no_progress || args.dry_run || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} migrating {bar:40} {human_pos}/{human_len} keys, {msg}, {per_sec}, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn report_json(r: &Report, expected: Option<f64>, after: Option<&audit::Audit>) -> Value {
    let placed = r.listed - r.misplaced;
    json!({
        "dry_run": r.dry_run,
        "listed": r.listed,
        "misplaced_left_alone": r.misplaced,
        "moved": r.moved,
        "moved_share": if placed == 0 { 0.0 } else { r.moved as f64 / placed as f64 },
        "plan_moved_share": expected,
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
        "after": after.map(|a| json!({
            "keys": a.keys(),
            "misplaced": a.misplaced(),
            "nodes": a.nodes.iter().map(|n| json!({"id": n.addr.id, "keys": n.keys, "misplaced": n.misplaced})).collect::<Vec<_>>(),
        })),
    })
}

fn summary(r: &Report, expected: Option<f64>, after: Option<&audit::Audit>) -> String {
    let mut out = String::new();
    let placed = r.listed - r.misplaced;
    let share = if placed == 0 { 0.0 } else { r.moved as f64 / placed as f64 };
    let _ = write!(out, "{} keys listed, {} move ({})", thousands(r.listed), thousands(r.moved), pct2(share));
    if let Some(e) = expected {
        let _ = write!(out, "; the plan moves {}", pct2(e));
    }
    let _ = writeln!(out, "\n{} keys not where A places them: left alone", thousands(r.misplaced));
    for f in &r.flows {
        let _ = writeln!(
            out,
            "  {} → {}: {} keys, {} bytes listed",
            f.from,
            f.to,
            thousands(f.keys),
            thousands(f.listed_bytes)
        );
    }
    if r.dry_run {
        let _ = writeln!(out, "dry run: nothing copied");
        return out;
    }
    let _ = writeln!(
        out,
        "copied {}, already present {}, expired {}; {} bytes in {:.2} s",
        thousands(r.copied),
        thousands(r.already_present),
        thousands(r.expired),
        thousands(r.bytes_copied),
        r.seconds
    );
    let _ = writeln!(out, "verified on the new owner {}, missing {}", thousands(r.verified), thousands(r.missing));
    if r.deleted + r.changed_on_source > 0 {
        let _ = writeln!(
            out,
            "deleted from the old owner {}, kept (changed since) {}",
            thousands(r.deleted),
            thousands(r.changed_on_source)
        );
    }
    if let Some(a) = after {
        let _ = writeln!(
            out,
            "after: {} keys on B's nodes, {} not where B places them",
            thousands(a.keys()),
            thousands(a.misplaced())
        );
    }
    out
}
