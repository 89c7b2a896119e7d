//! `keyroute view`: the operator's commands over a view source (a file now; a URL names it):
//! publish a spec as a new version (a compare-and-swap on the version), show it, list its
//! history, roll back, step a rollout, watch it as an instance does, and mirror it into a
//! local folder (the per-host daemon).

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use clap::{Args, Subcommand};
use keyroute_bindings::view::{Progress, Rollout, fingerprint_text, now_unix_ms, unix_ms};
use keyroute_bindings::{ErrorCode, LiveView, Router, Spec, ViewDocument, ViewState};
use keyroute_fleet::census::{self, Instance};
use keyroute_fleet::source::{self, Event, Source, WatchOptions};
use serde_json::{Value, json};

use crate::error::{CliError, Result};
use crate::input;

#[derive(Debug, Args)]
#[command(after_help = "\
SOURCE is a URL (file:///etc/keyroute/cache.json) or a plain path; a directory stands for the
view.json in it. Every change is a new version, published only if the source still holds the
version it was based on (--expect-version, or the version read at the start), so two operators
racing get one success and one version_conflict, never a lost update.

Examples:
  keyroute view publish /etc/keyroute/cache.json topo.json --expect-version 0
  keyroute view rollout /etc/keyroute/cache.json --to bigger.json --progress 0.05
  keyroute view rollout /etc/keyroute/cache.json --progress 0.5
  keyroute view rollout /etc/keyroute/cache.json --finish
  keyroute view rollback /etc/keyroute/cache.json --to 1
  keyroute view watch /etc/keyroute/cache.json --json
  keyroute view watch etcd://10.0.0.5:2379/keyroute/cache --instance web-7
  keyroute fleet status etcd://10.0.0.5:2379/keyroute/cache")]
pub struct ViewArgs {
    #[command(subcommand)]
    command: ViewCommand,
}

#[derive(Debug, Subcommand)]
enum ViewCommand {
    /// Publish a topology spec as the next version, if the source holds --expect-version.
    Publish(PublishArgs),
    /// The view a source holds: version, fingerprint, nodes, rollout.
    Show(ShowArgs),
    /// The last versions published, newest first.
    History(ShowArgs),
    /// Publish an earlier version's view again, as a new version.
    Rollback(RollbackArgs),
    /// Start, advance, finish or abort a rollout to another spec; each step is a new version.
    Rollout(RolloutArgs),
    /// Watch a source as an instance does: print each version applied and each refusal.
    Watch(WatchArgs),
    /// Mirror a source into a folder (DIR/view.json, replaced atomically), views that build only.
    Sync(SyncArgs),
}

#[derive(Debug, Args)]
struct PublishArgs {
    /// The source (a URL or a path).
    source: String,
    /// The topology spec (JSON, or TOML by extension).
    spec: PathBuf,
    /// The version the source must hold now (0 for a source that holds none yet).
    #[arg(long, value_name = "N")]
    expect_version: u64,
    /// The new version [default: the expected one + 1].
    #[arg(long, value_name = "N")]
    version: Option<u64>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// The source (a URL or a path).
    source: String,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RollbackArgs {
    /// The source (a URL or a path).
    source: String,
    /// The version whose view to publish again (from `keyroute view history`).
    #[arg(long, value_name = "N")]
    to: u64,
    /// The version the source must hold now [default: the version read at the start].
    #[arg(long, value_name = "N")]
    expect_version: Option<u64>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("step").required(true).args(["progress", "over", "finish", "abort"]))]
struct RolloutArgs {
    /// The source (a URL or a path).
    source: String,
    /// The spec to roll out to (JSON or TOML); needed to start, optional after.
    #[arg(long, value_name = "SPEC")]
    to: Option<PathBuf>,
    /// Set the progress, in [0, 1] (the share of keys on the new spec).
    #[arg(long, value_name = "P")]
    progress: Option<f64>,
    /// Move from 0 to 1 over this many seconds from now, on every instance's clock, without
    /// a publish per step.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=9_007_199_254_740))]
    over: Option<u64>,
    /// Finish: publish the new spec alone.
    #[arg(long)]
    finish: bool,
    /// Abort: publish the old spec alone (every key back on its old node).
    #[arg(long)]
    abort: bool,
    /// The version the source must hold now [default: the version read at the start].
    #[arg(long, value_name = "N")]
    expect_version: Option<u64>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct WatchArgs {
    /// The source (a URL or a path).
    source: String,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Exit (status 0) once this version or a later one is applied.
    #[arg(long, value_name = "N")]
    until_version: Option<u64>,
    /// Read the source again every this many milliseconds without a change notification.
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    poll_ms: u64,
    /// Poll only (no change notifications).
    #[arg(long)]
    poll_only: bool,
    /// Register in the source's census (the default over etcd; `keyroute fleet status` reads it).
    #[arg(long, overrides_with = "no_census")]
    census: bool,
    /// Do not register in the census.
    #[arg(long)]
    no_census: bool,
    /// The id to register as [default: HOST-PID].
    #[arg(long, value_name = "ID")]
    instance: Option<String>,
    /// Seconds the census entry outlives this process's last heartbeat (it beats every third).
    #[arg(long, value_name = "SECONDS", default_value_t = census::DEFAULT_TTL.as_secs(), value_parser = clap::value_parser!(u64).range(2..=86_400))]
    census_ttl: u64,
}

#[derive(Debug, Args)]
struct SyncArgs {
    /// The source to mirror (a URL or a path).
    source: String,
    /// The folder to mirror into: DIR/view.json, replaced by an atomic rename at each version.
    #[arg(long, value_name = "DIR")]
    to_dir: PathBuf,
    /// Exit (status 0) once this version or a later one is mirrored.
    #[arg(long, value_name = "N")]
    until_version: Option<u64>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Read the source again every this many milliseconds without a change notification.
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    poll_ms: u64,
}

pub fn run(args: &ViewArgs) -> Result<()> {
    match &args.command {
        ViewCommand::Publish(a) => publish(a),
        ViewCommand::Show(a) => show(a),
        ViewCommand::History(a) => history(a),
        ViewCommand::Rollback(a) => rollback(a),
        ViewCommand::Rollout(a) => rollout(a),
        ViewCommand::Watch(a) => watch(a),
        ViewCommand::Sync(a) => sync(a),
    }
}

fn open(url: &str) -> Result<Box<dyn Source>> {
    source::open(url).map_err(|e| CliError::from_bindings(url, &e).in_usage())
}

/// The view `source` holds now.
fn current(source: &dyn Source) -> Result<Option<ViewState>> {
    source::current(source, input::limits()).map_err(|e| CliError::from_bindings(source.url(), &e))
}

fn current_or_fail(source: &dyn Source) -> Result<ViewState> {
    current(source)?.ok_or_else(|| {
        CliError::new(
            ErrorCode::NoView,
            format!("{}: no view published yet (keyroute view publish SOURCE SPEC --expect-version 0)", source.url()),
        )
    })
}

/// Publishes `document` at `expect + 1` and prints what was published.
fn step(source: &dyn Source, mut document: ViewDocument, expect: u64, json: bool) -> Result<()> {
    document.version = expect.saturating_add(1);
    document.fingerprint = None;
    publish_document(source, &document, expect, json)
}

fn publish_document(source: &dyn Source, document: &ViewDocument, expect: u64, json: bool) -> Result<()> {
    let view = source::publish(source, document, expect, input::limits())
        .map_err(|e| CliError::from_bindings(source.url(), &e))?;
    let mut out = io::stdout().lock();
    if json {
        writeln!(out, "{}", summary(&view, Some(&source.url())))?;
    } else {
        writeln!(out, "published version {} ({}) to {}", view.version(), describe(&view), source.url())?;
    }
    Ok(())
}

fn publish(args: &PublishArgs) -> Result<()> {
    let source = open(&args.source)?;
    let spec = input::spec(&args.spec)?;
    let version = args.version.unwrap_or(args.expect_version.saturating_add(1));
    publish_document(source.as_ref(), &ViewDocument::new(version, spec), args.expect_version, args.json)
}

/// One line about a view: its version's fingerprint, spec and rollout.
fn describe(view: &ViewState) -> String {
    let router = |r: &Router| format!("{}, {} nodes", r.algorithm(), r.len());
    let mut text = format!("fingerprint {}, {}", fingerprint_text(view.fingerprint()), router(view.router()));
    if let (Some(to), Some(p)) = (view.rollout_target(), view.progress()) {
        text.push_str(&format!(", rolling out to {} at progress {p}", router(to)));
        if let Some(Rollout { progress: Progress::Scheduled { start_unix_ms, duration_ms }, .. }) =
            &view.document().rollout
        {
            text.push_str(&format!(" (scheduled: {} s from {start_unix_ms} ms since the epoch)", duration_ms / 1000));
        }
    }
    text
}

/// A view as JSON: version, fingerprint (text), both specs' fingerprints and node ids, progress.
fn summary(view: &ViewState, source: Option<&str>) -> Value {
    let router = |r: &Router| json!({"algorithm": r.algorithm(), "fingerprint": fingerprint_text(r.fingerprint()), "nodes": ids(r)});
    let rollout = view.rollout_target().map(|to| {
        let mut r = json!({"to": router(to), "progress": view.progress()});
        if let Some(Rollout { progress: Progress::Scheduled { start_unix_ms, duration_ms }, .. }) =
            &view.document().rollout
        {
            r["schedule"] = json!({"start_unix_ms": start_unix_ms, "duration_ms": duration_ms});
        }
        r
    });
    let mut v = json!({
        "version": view.version(),
        "fingerprint": fingerprint_text(view.fingerprint()),
        "spec": router(view.router()),
        "rollout": rollout,
    });
    if let Some(url) = source {
        v["source"] = Value::from(url);
    }
    v
}

fn ids(r: &Router) -> Vec<&str> {
    (0..r.len() as u32).filter_map(|i| r.node_id(i)).collect()
}

fn show(args: &ShowArgs) -> Result<()> {
    let source = open(&args.source)?;
    let view = current_or_fail(source.as_ref())?;
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", summary(&view, Some(&source.url())))?;
        return Ok(());
    }
    writeln!(out, "source       {}", source.url())?;
    writeln!(out, "version      {}", view.version())?;
    writeln!(out, "fingerprint  {}", fingerprint_text(view.fingerprint()))?;
    let r = view.router();
    writeln!(out, "spec         {}, {} nodes: {}", r.algorithm(), r.len(), ids(r).join(", "))?;
    if let (Some(to), Some(p)) = (view.rollout_target(), view.progress()) {
        writeln!(out, "rollout to   {}, {} nodes: {}", to.algorithm(), to.len(), ids(to).join(", "))?;
        writeln!(out, "progress     {p}")?;
    }
    Ok(())
}

fn history(args: &ShowArgs) -> Result<()> {
    let source = open(&args.source)?;
    let entries = source.history().map_err(|e| CliError::from_bindings(source.url(), &e))?;
    let mut out = io::stdout().lock();
    for entry in entries {
        let built = ViewDocument::from_bytes(&entry.bytes, input::limits()).and_then(|d| d.build(input::limits()));
        match (built, args.json) {
            (Ok(view), true) => writeln!(out, "{}", summary(&view, None))?,
            (Ok(view), false) => writeln!(out, "{:>6}  {}", view.version(), describe(&view))?,
            (Err(e), true) => {
                writeln!(
                    out,
                    "{}",
                    json!({"version": entry.version, "error": e.code().name(), "message": e.message()})
                )?;
            }
            (Err(e), false) => writeln!(out, "{:>6}  unreadable: {e}", entry.version)?,
        }
    }
    Ok(())
}

fn rollback(args: &RollbackArgs) -> Result<()> {
    let source = open(&args.source)?;
    let now = current_or_fail(source.as_ref())?;
    let entries = source.history().map_err(|e| CliError::from_bindings(source.url(), &e))?;
    let entry = entries.iter().find(|s| s.version == args.to).ok_or_else(|| {
        let kept: Vec<String> = entries.iter().map(|s| s.version.to_string()).collect();
        CliError::usage(
            ErrorCode::InvalidArgument,
            format!("--to {}: not in the history of {} (it holds {})", args.to, source.url(), kept.join(", ")),
        )
    })?;
    let document = ViewDocument::from_bytes(&entry.bytes, input::limits())
        .map_err(|e| CliError::from_bindings(format_args!("version {} in the history", args.to), &e))?;
    step(source.as_ref(), document, args.expect_version.unwrap_or(now.version()), args.json)
}

fn rollout(args: &RolloutArgs) -> Result<()> {
    let source = open(&args.source)?;
    let now = current_or_fail(source.as_ref())?;
    let expect = args.expect_version.unwrap_or(now.version());
    let doc = now.document();
    let under_way = doc.rollout.as_ref().map(|r| r.to.clone());
    let usage = |m: String| CliError::usage(ErrorCode::InvalidArgument, m);
    if args.finish || args.abort {
        let Some(to) = under_way else {
            return Err(usage(format!("{}: no rollout under way to finish or abort", source.url())));
        };
        let spec = if args.finish { to } else { doc.spec.clone() };
        return step(source.as_ref(), ViewDocument::new(0, spec), expect, args.json);
    }
    let target: Spec = match (&args.to, under_way) {
        (Some(path), under_way) => {
            let target = input::spec(path)?;
            if under_way.as_ref().is_some_and(|u| *u != target) {
                return Err(usage(format!(
                    "--to {}: a rollout to another spec is under way in {}; finish or abort it first",
                    path.display(),
                    source.url()
                )));
            }
            target
        }
        (None, Some(under_way)) => under_way,
        (None, None) => return Err(usage(format!("{}: no rollout under way; start one with --to SPEC", source.url()))),
    };
    let progress = match (args.progress, args.over) {
        (Some(p), _) if (0.0..=1.0).contains(&(p + 0.0)) => Progress::Fixed(p + 0.0),
        (Some(p), _) => return Err(usage(format!("--progress {p}: a progress is within [0, 1]"))),
        (None, Some(seconds)) => Progress::Scheduled { start_unix_ms: now_unix_ms(), duration_ms: seconds * 1000 },
        (None, None) => return Err(usage("one of --progress, --over, --finish, --abort".into())),
    };
    let document = ViewDocument {
        version: 0,
        spec: doc.spec.clone(),
        rollout: Some(Rollout { to: target, progress }),
        fingerprint: None,
    };
    step(source.as_ref(), document, expect, args.json)
}

/// Runs a watch of `url`, calling `each` on every event in this thread until it returns true;
/// a `member` of the source's census records each event.
fn run_watch(
    url: &str,
    options: WatchOptions,
    member: Option<&Instance>,
    ttl: Duration,
    mut each: impl FnMut(&Event) -> Result<bool>,
) -> Result<()> {
    let source: Arc<dyn Source> = Arc::from(open(url)?);
    let view = Arc::new(LiveView::new(*input::limits()));
    let member = match member {
        Some(instance) => {
            let m = census::Member::join(Arc::clone(&source), instance, ttl)
                .map_err(|e| CliError::from_bindings(url, &e).in_usage())?;
            if !m.registered() {
                eprintln!(
                    "keyroute: cannot register {} in the census of {url} yet; trying again every {} ms",
                    m.id(),
                    ttl.as_millis() / 3
                );
            }
            Some(m)
        }
        None => None,
    };
    let (tx, rx) = mpsc::channel();
    let mut sink: keyroute_fleet::source::Sink = Box::new(move |e| {
        let _ = tx.send(e.clone());
    });
    if let Some(m) = member {
        sink = census::recording(Arc::new(m), Arc::clone(&view), sink);
    }
    let _watch = source.watch(view, options, sink).map_err(|e| CliError::from_bindings(url, &e))?;
    for event in rx {
        if each(&event)? {
            return Ok(());
        }
    }
    Ok(())
}

fn refusal_line(r: &keyroute_bindings::Refusal) -> String {
    let version = r.version.map_or_else(|| "a document".to_owned(), |v| format!("version {v}"));
    format!("refused {version}: error {} (code {}): {}", r.code.name(), r.code.code(), r.message)
}

fn event_json(event: &Event) -> String {
    match event {
        Event::Applied(v) => {
            let mut s = summary(v, None);
            s["event"] = Value::from("applied");
            s["applied_at_unix_ms"] = Value::from(unix_ms(v.applied_at()));
            s.to_string()
        }
        Event::Refused(r) => {
            let mut s: Value = serde_json::from_str(&r.to_json()).unwrap_or(Value::Null);
            s["event"] = Value::from("refused");
            s.to_string()
        }
    }
}

fn options(poll_ms: u64, poll_only: bool) -> WatchOptions {
    WatchOptions { poll_interval: Duration::from_millis(poll_ms), poll_only, ..WatchOptions::default() }
}

fn watch(args: &WatchArgs) -> Result<()> {
    let register = args.census || (!args.no_census && args.source.starts_with("etcd://"));
    let instance = match (&args.instance, register) {
        (_, false) => None,
        (Some(id), true) => {
            Some(Instance::new(id, "cli").map_err(|e| CliError::from_bindings("--instance", &e).in_usage())?)
        }
        (None, true) => Some(Instance::this_process("cli")),
    };
    let ttl = Duration::from_secs(args.census_ttl);
    run_watch(&args.source, options(args.poll_ms, args.poll_only), instance.as_ref(), ttl, |event| {
        let mut out = io::stdout().lock();
        match (event, args.json) {
            (e, true) => writeln!(out, "{}", event_json(e))?,
            (Event::Applied(v), false) => writeln!(out, "applied version {} ({})", v.version(), describe(v))?,
            (Event::Refused(r), false) => writeln!(out, "{}", refusal_line(r))?,
        }
        out.flush()?;
        Ok(matches!(event, Event::Applied(v) if args.until_version.is_some_and(|u| v.version() >= u)))
    })
}

fn sync(args: &SyncArgs) -> Result<()> {
    std::fs::create_dir_all(&args.to_dir)
        .map_err(|e| CliError::io(format_args!("cannot create {}", args.to_dir.display()), &e))?;
    let target = args.to_dir.join(keyroute_fleet::file::DIRECTORY_DOCUMENT);
    run_watch(&args.source, options(args.poll_ms, false), None, Duration::ZERO, |event| {
        let mut out = io::stdout().lock();
        match event {
            Event::Applied(v) => {
                keyroute_fleet::file::write_atomically(&target, v.document_json().as_bytes())
                    .map_err(|e| CliError::from_bindings(target.display(), &e))?;
                if args.json {
                    writeln!(out, "{}", event_json(event))?;
                } else {
                    writeln!(out, "mirrored version {} ({}) into {}", v.version(), describe(v), target.display())?;
                }
            }
            Event::Refused(r) if args.json => writeln!(out, "{}", event_json(&Event::Refused(r.clone())))?,
            Event::Refused(r) => writeln!(out, "{} (the mirror keeps the last good view)", refusal_line(r))?,
        }
        out.flush()?;
        Ok(matches!(event, Event::Applied(v) if args.until_version.is_some_and(|u| v.version() >= u)))
    })
}
