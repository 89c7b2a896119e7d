//! `keyroute`: the operator's command. See which node owns a key, what a membership change
//! moves before making it, how evenly a topology spreads keys, what a change costs a cache,
//! where a fleet's keys really are, and copy the moved keys before the switch.
//!
//! Every subcommand reads topology specs (the JSON every keyroute surface shares, or TOML) and
//! routes through `keyroute-bindings`, so its answers are the library's answers. Every failure
//! is one stderr line naming the error code, and each class of failure has its own exit status
//! (`error::EXIT_TABLE`).

// The workspace denies panicking constructs everywhere a library boundary could be crossed. This
// binary's reports index tables they sized themselves, and a panic here still ends as one line
// with code `internal` and exit status 5 (the hook in `main`), so indexing is allowed; unwrap and
// friends are not.
#![allow(clippy::indexing_slicing)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod audit;
mod balance;
mod conformance;
mod demo;
mod fleet;
mod generate;
mod input;
mod load;
mod migrate;
mod output;
mod plan;
mod plot;
mod report;
mod route;
mod simulate;
mod view;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use keyroute_bindings::ErrorCode;
// The error type and the readers of untrusted bytes are the library half of this crate
// (`lib.rs`), which the fuzz targets call too.
use keyroute_cli::error;

use crate::error::{EXIT_INTERNAL, EXIT_TABLE, EXIT_USAGE};

/// Consistent-hashing routes, and membership changes without surprises.
#[derive(Debug, Parser)]
#[command(name = "keyroute", version, about, long_about = None, after_help = after_help())]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Limits for reading and building specs, as JSON of the fields to change:
    /// '{"max_points": 8388608}' (see conformance/SPEC.md)
    #[arg(long, global = true, value_name = "JSON")]
    limits: Option<String>,
    /// The longest line a key stream may hold (route's stdin, plan --keys, simulate --trace),
    /// in bytes, not counting its line end; a longer line is refused with invalid_key
    /// [default: 4194304; at most 1073741824]
    #[arg(long, global = true, value_name = "BYTES",
          value_parser = clap::value_parser!(u64).range(1..=input::MAX_LINE_BYTES_CEILING))]
    max_line_bytes: Option<u64>,
}

/// The top-level help's epilogue: examples, the spec format and the exit status table.
fn after_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_TABLE}")
}

const EXAMPLES: &str = "\
Examples:
  keyroute demo                                     what adding a node costs, per algorithm
  keyroute route -t topo.json user:42               which node owns user:42
  keyroute plan before.json after.json              what a change moves, from where to where
  keyroute balance -t topo.json --plot balance.svg  how evenly a ring spreads keys
  keyroute simulate -t before.json --to after.json --zipf 1.0
                                                    cache hits kept across the change
  keyroute audit fleet.json                         keys the servers hold where the spec would not put them
  keyroute migrate before.json after.json           copy the moved keys to their new owners first

Topology specs are JSON (or TOML, by file extension), as in conformance/VECTORS.md:
  {\"algorithm\": \"ring\", \"params\": {\"points_per_weight\": 160}, \"version\": 7,
   \"nodes\": [{\"id\": \"cache-a\"}, {\"id\": \"cache-b\", \"weight\": 2}]}
Shell completions: keyroute completions bash|zsh|fish; manual pages: keyroute man.
Every failure prints one line naming the error code (error invalid_json (code 1): …).";

#[derive(Debug, Subcommand)]
enum Command {
    /// The scale-out comparison: what adding one node moves, per algorithm, exact and measured.
    Demo(demo::DemoArgs),
    /// Which node owns each key: `key<TAB>node` lines, keys from the arguments or stdin.
    Route(route::RouteArgs),
    /// What changing from topology A to topology B moves: share, from → to, per node, per key.
    Plan(plan::PlanArgs),
    /// How evenly a topology spreads keys (exact), per ring point count; optional SVG chart.
    Balance(balance::BalanceArgs),
    /// The share of cache hits a change keeps, for a key popularity, with and without dual reads.
    Simulate(simulate::SimulateArgs),
    /// Which keys the servers hold where the spec would not put them (memcached, Redis).
    Audit(audit::AuditArgs),
    /// Copy the keys whose owner changes to their new owner, before the traffic moves.
    Migrate(migrate::MigrateArgs),
    /// Run the conformance corpus through keyroute, or through another router (--exec).
    Conformance(conformance::ConformanceArgs),
    /// Versioned views in a source (a file): publish, show, history, rollback, rollout, watch, sync.
    View(view::ViewArgs),
    /// Which instances route with a source's view: the census, and a gate for rollout steps.
    Fleet(fleet::FleetArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(generate::CompletionsArgs),
    /// Print the manual page (roff) to stdout, or write one page per command into a folder.
    Man(generate::ManArgs),
}

fn main() -> ExitCode {
    // Nothing should panic; if something does, the operator still gets one line and status 2.
    std::panic::set_hook(Box::new(|info| {
        let what = info.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        let code = ErrorCode::Internal;
        let _ = writeln!(
            io::stderr().lock(),
            "keyroute: error {} (code {}): {what}; please report it",
            code.name(),
            code.code()
        );
        std::process::exit(i32::from(EXIT_INTERNAL));
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    input::set_max_line_bytes(cli.max_line_bytes);
    let result = input::set_limits(cli.limits.as_deref()).and_then(|()| match &cli.command {
        Command::Demo(a) => demo::run(a),
        Command::Route(a) => route::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Balance(a) => balance::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Audit(a) => audit::run(a),
        Command::Migrate(a) => migrate::run(a),
        Command::Conformance(a) => conformance::run(a),
        Command::View(a) => view::run(a),
        Command::Fleet(a) => fleet::run(a),
        Command::Completions(a) => generate::completions::<Cli>(a),
        Command::Man(a) => generate::man::<Cli>(a),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A broken pipe (whoever read our output stopped early, `| head`) exits 0, quietly.
            let status = e.exit_status();
            if status != 0 && !e.printed() {
                let _ = writeln!(io::stderr().lock(), "keyroute: {e}");
            }
            ExitCode::from(status)
        }
    }
}

/// Help and version go to stdout as clap prints them; a usage error is one line with its code,
/// like every other error, and exit status 2 (as clap's own).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(EXIT_USAGE)
        } else {
            ExitCode::SUCCESS
        };
    }
    let text = e.render().to_string();
    // clap's first line is the error; the rest is usage and a tip we replace with ours.
    let first = text.lines().next().unwrap_or("invalid arguments");
    let what = first.strip_prefix("error: ").unwrap_or(first);
    let code = ErrorCode::InvalidArgument;
    let _ = writeln!(
        io::stderr().lock(),
        "keyroute: error {} (code {}): {}; see keyroute --help",
        code.name(),
        code.code(),
        what.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    ExitCode::from(EXIT_USAGE)
}
