//! `keyroute fleet status SOURCE`: the census of a view source against the view it holds —
//! which instances route with it, which are behind, stale, refused it or diverged — and an
//! exit status a rollout script can gate on.

use std::io::{self, Write};
use std::time::{Duration, Instant, SystemTime};

use clap::{Args, Subcommand};
use keyroute_bindings::view::unix_ms;
use keyroute_fleet::census::{self, InstanceStatus, Standing, Status};

use crate::error::{CliError, Result};
use crate::input;

#[derive(Debug, Args)]
#[command(after_help = "\
SOURCE is a view source's URL or path, as for `keyroute view`. Instances register in its census
when they watch it (`keyroute view watch` does over etcd, or with --census).

Exit status: 0 when every registered instance routes with the source's view; 1 when any is
behind, stale, refused it or diverged, or none is registered. So a rollout waits for its last
step before the next:
  keyroute fleet status etcd://10.0.0.5:2379/keyroute/cache --wait 60 &&
    keyroute view rollout etcd://10.0.0.5:2379/keyroute/cache --progress 0.2")]
pub struct FleetArgs {
    #[command(subcommand)]
    command: FleetCommand,
}

#[derive(Debug, Subcommand)]
enum FleetCommand {
    /// The instances registered in a source's census, grouped by where they stand.
    Status(StatusArgs),
}

#[derive(Debug, Args)]
struct StatusArgs {
    /// The source (a URL or a path).
    source: String,
    /// Seconds an instance may be behind the source's view before it counts as stale.
    #[arg(long, value_name = "SECONDS", default_value_t = census::DEFAULT_DEADLINE.as_secs_f64(), value_parser = seconds)]
    deadline: f64,
    /// Wait up to this many seconds for every instance to be in sync (reading the census
    /// again every 100 ms); stop early when one is stale, refused or diverged.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    wait: Option<f64>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

fn seconds(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=keyroute_fleet::source::MAX_SECONDS).contains(&s) => Ok(s),
        _ => Err(format!("{text:?} is not a number of seconds from 0 to a year")),
    }
}

pub fn run(args: &FleetArgs) -> Result<()> {
    match &args.command {
        FleetCommand::Status(a) => status(a),
    }
}

fn status(args: &StatusArgs) -> Result<()> {
    let source =
        keyroute_fleet::source::open(&args.source).map_err(|e| CliError::from_bindings(&args.source, &e).in_usage())?;
    let deadline = Duration::from_secs_f64(args.deadline);
    let until = Instant::now() + Duration::from_secs_f64(args.wait.unwrap_or(0.0));
    let status = loop {
        let status = census::status(source.as_ref(), input::limits(), deadline, SystemTime::now())
            .map_err(|e| CliError::from_bindings(source.url(), &e))?;
        if status.converged() || status.failed() || Instant::now() >= until {
            break status;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let outcome = (!status.converged()).then(|| CliError::finding(verdict(&status)).print_now());
    let text = if args.json { format!("{:#}\n", serde_json::json!(status)) } else { text(&status) };
    crate::error::settled(outcome, io::stdout().lock().write_all(text.as_bytes()).map_err(CliError::from))
}

/// Why the fleet is not in sync, in one line.
fn verdict(status: &Status) -> String {
    if let Some(p) = &status.problem {
        return format!("the view in {} does not build: error {} (code {})", status.source, p.error, p.code);
    }
    if status.instances.is_empty() && status.unreadable.is_empty() {
        return format!("no instance is registered in the census of {}", status.source);
    }
    format!("{} of {} instances do not route with the source's view", not_in_sync(status), total(status))
}

fn total(status: &Status) -> usize {
    status.instances.len() + status.unreadable.len()
}

fn not_in_sync(status: &Status) -> usize {
    total(status) - status.count(Standing::Sync)
}

const STANDINGS: [Standing; 5] =
    [Standing::Sync, Standing::Behind, Standing::Stale, Standing::Refused, Standing::Diverged];

fn text(status: &Status) -> String {
    let mut out = String::new();
    let view = match (status.version, &status.fingerprint) {
        (Some(v), Some(f)) => format!("version {v} (fingerprint {f})"),
        (Some(v), None) => format!("version {v}"),
        (None, _) if status.problem.is_some() => "a document with no readable version".to_owned(),
        (None, _) => "no view".to_owned(),
    };
    let published = status
        .published_unix_ms
        .map(|p| format!(", published {} ago", ago(unix_ms(SystemTime::now()).saturating_sub(p))))
        .unwrap_or_default();
    out.push_str(&format!("{}: {view}{published}\n", status.source));
    if let Some(p) = &status.problem {
        out.push_str(&format!(
            "the source's view does not build (no instance can apply it): error {} (code {}): {}\n",
            p.error, p.code, p.message
        ));
    }
    let counts: Vec<String> = STANDINGS.iter().map(|s| format!("{} {}", status.count(*s), s.name())).collect();
    let unreadable =
        if status.unreadable.is_empty() { String::new() } else { format!(", {} unreadable", status.unreadable.len()) };
    let plural = if total(status) == 1 { "" } else { "s" };
    out.push_str(&format!("{} instance{plural}: {}{unreadable}\n", total(status), counts.join(", ")));
    let width = status.instances.iter().map(|i| i.entry.instance.len()).max().unwrap_or(0);
    for standing in STANDINGS {
        for i in status.instances.iter().filter(|i| i.standing == standing) {
            out.push_str(&format!("  {:<8}  {:<width$}  {}\n", standing.name(), i.entry.instance, detail(i, status)));
        }
    }
    for u in &status.unreadable {
        out.push_str(&format!("  {:<8}  {:<width$}  {}\n", "unread", u.instance, u.message));
    }
    out
}

/// What one instance routes with, and why it stands where it does.
fn detail(i: &InstanceStatus, status: &Status) -> String {
    let e = &i.entry;
    let view = match (e.view_version, &e.fingerprint) {
        (Some(v), Some(f)) => format!("version {v} ({f})"),
        _ => "no view yet".to_owned(),
    };
    let mut text = format!("{view}, {} {} on {} pid {}", e.surface, e.keyroute_version, e.host, e.pid);
    match i.standing {
        Standing::Behind | Standing::Stale => {
            let behind =
                i.behind_ms.map_or_else(|| "since an unknown time".to_owned(), |ms| format!("for {}", ago(ms)));
            text.push_str(&format!(", behind {behind} (deadline {})", ago(status.deadline_ms)));
        }
        Standing::Refused => {
            if let Some(r) = &e.refusal {
                let what = r.version.map_or_else(|| "a document".to_owned(), |v| format!("version {v}"));
                text.push_str(&format!(", refused {what}: error {} (code {}): {}", r.error, r.code, r.message));
            }
        }
        Standing::Diverged => text.push_str(&format!(
            ", but the source's version {} has fingerprint {}",
            status.version.map_or_else(|| "(none)".to_owned(), |v| v.to_string()),
            status.fingerprint.as_deref().unwrap_or("(none)")
        )),
        Standing::Sync => {}
    }
    text
}

/// Milliseconds as people read them: `850 ms`, `12.3 s`, `4 min 10 s`.
fn ago(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000),
    }
}
