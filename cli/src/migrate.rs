//! `keyroute migrate A B`: copy the keys whose owner changes to their new owner, before the
//! traffic moves (or one rollout step, `--step P1:P2`).

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use keyroute_bindings::ErrorCode;
use keyroute_fleet::audit;
use keyroute_fleet::migrate::{self, Options, Progress, Report};

use crate::audit::FleetArgs;
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
    let step = args.step.as_deref().map(parse_step).transpose()?;
    let options = Options {
        dry_run: args.dry_run,
        delete_old: args.delete_old,
        batch: args.batch as usize,
        concurrency: usize::from(args.concurrency),
        ops_per_sec: args.ops_per_sec,
        bytes_per_sec: args.bytes_per_sec,
    };
    let bar = progress_bar(args);
    let tick = |p: Progress| {
        bar.set_length(p.keys_total);
        bar.set_position(p.keys_done);
        bar.set_message(format!("{:.1} MB", p.bytes_done as f64 / 1e6));
    };
    let result = migrate::migrate(&a, &b, step, args.fleet.backend(), &addrs, &options, &tick);
    bar.finish_and_clear();
    let migration = result.map_err(|e| CliError::new(e.code(), e.message().to_owned()))?;
    let json = migration.to_json();
    if let Some(path) = &args.report {
        crate::output::write_file(path, format!("{json:#}\n").as_bytes())?;
    }
    let (report, expected, after) = (&migration.report, migration.plan_moved_share, migration.after.as_ref());
    let outcome = (report.missing > 0).then(|| {
        CliError::finding(format!(
            "{} copied keys are not on their new owner after the copy (expired since, or evicted)",
            thousands(report.missing)
        ))
        .print_now()
    });
    let text = if args.json { format!("{json:#}\n") } else { summary(report, expected, after) };
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

fn progress_bar(args: &MigrateArgs) -> ProgressBar {
    if args.no_progress || args.dry_run || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} migrating {bar:40} {human_pos}/{human_len} keys, {msg}, {per_sec}, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
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
