//! `keyroute audit SPEC`: which keys the servers of a fleet hold where the spec would not put
//! them, and (`--infer`) which spec the writers really use.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use keyroute_bindings::registry::{self, Kind};
use keyroute_bindings::{ErrorCode, Router, Spec};
use keyroute_fleet::Backend;
use keyroute_fleet::addr::{self, NodeAddr};
use keyroute_fleet::audit::{self, Audit, Inventory, Ranked};
use serde_json::{Value, json};

use crate::error::{CliError, Result};
use crate::input;
use crate::report::{pct2, thousands};

/// Where the servers are and what they run: the options `audit` and `migrate` share.
#[derive(Debug, Args)]
pub struct FleetArgs {
    /// The servers' kind.
    #[arg(long, default_value = "memcached", value_parser = ["memcached", "redis"])]
    backend: String,
    /// A node's address, over its spec's host/port fields and its id (repeatable).
    #[arg(long = "addr", value_name = "ID=HOST:PORT")]
    addrs: Vec<String>,
}

impl FleetArgs {
    /// The backend named by `--backend` (clap allows only the two names).
    pub fn backend(&self) -> Backend {
        Backend::from_name(&self.backend).unwrap_or(Backend::Memcached)
    }

    /// The `--addr` options, parsed.
    pub fn overrides(&self) -> Result<Vec<NodeAddr>> {
        self.addrs
            .iter()
            .map(|a| addr::parse_override(a).map_err(|e| CliError::from_bindings("--addr", &e).in_usage()))
            .collect()
    }

    /// The address of every node of `specs` (each id once).
    pub fn addresses(&self, specs: &[&Spec]) -> Result<Vec<NodeAddr>> {
        let overrides = self.overrides()?;
        addr::union(specs, &overrides, self.backend().default_port()).map_err(|e| {
            let usage = e.code() == ErrorCode::InvalidArgument;
            let e = CliError::from_bindings("node addresses", &e);
            if usage { e.in_usage() } else { e }
        })
    }
}

/// Check where a fleet's keys really are.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute audit fleet.json                       keys per node, and the misplaced ones
  keyroute audit fleet.json --backend redis --addr cache-a=10.0.0.1:6379
  keyroute audit fleet.json --infer               which preset the writers use
  keyroute audit fleet.json --infer --candidate old.json --candidate new.json

memcached nodes are listed with `lru_crawler metadump hash`, Redis nodes with SCAN. A key is
misplaced when the spec routes it to another node than the one holding it. Exit status 1
when any key is misplaced (not with --infer, which ranks instead).")]
pub struct AuditArgs {
    /// The fleet's topology spec.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    #[command(flatten)]
    fleet: FleetArgs,
    /// Misplaced keys shown per node.
    #[arg(long, default_value_t = 5, value_name = "N")]
    samples: usize,
    /// Rank candidate specs by the share of keys each places where they are.
    #[arg(long)]
    infer: bool,
    /// A candidate for --infer (repeatable); without one, every algorithm and preset over the
    /// spec's nodes, and the spec itself.
    #[arg(long, value_name = "SPEC", requires = "infer")]
    candidate: Vec<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &AuditArgs) -> Result<()> {
    let spec = input::spec(&args.spec)?;
    let router = input::build(&spec, args.spec.display())?;
    let addrs = args.fleet.addresses(&[&spec])?;
    let inventory = list(args.fleet.backend(), &addrs, false)?;
    if args.infer {
        let candidates = candidates(args, &spec, router)?;
        let ranked = audit::rank(&inventory, &candidates.0);
        return write_ranking(args, &inventory, &ranked, candidates.1);
    }
    let audit = audit::audit(&inventory, &router, args.samples);
    let outcome = (audit.misplaced() > 0).then(|| {
        CliError::finding(format!(
            "{} of {} keys are not where {} places them",
            thousands(audit.misplaced()),
            thousands(audit.keys()),
            args.spec.display()
        ))
        .print_now()
    });
    let text = if args.json { format!("{:#}\n", audit.to_json()) } else { audit_text(&audit) };
    crate::error::settled(outcome, io::stdout().lock().write_all(text.as_bytes()).map_err(CliError::from))
}

/// Lists every node, in parallel.
pub fn list(backend: Backend, addrs: &[NodeAddr], sizes: bool) -> Result<Inventory> {
    Inventory::list(backend, addrs, sizes).map_err(|e| CliError::from_bindings("listing keys", &e))
}

/// The candidates: the given files, or every algorithm and preset over the spec's nodes (and
/// the spec itself); with the count of algorithms that cannot take these nodes.
fn candidates(args: &AuditArgs, spec: &Spec, router: Router) -> Result<(Vec<(String, Router)>, usize)> {
    if !args.candidate.is_empty() {
        let list =
            args.candidate.iter().map(|p| Ok((p.display().to_string(), input::router(p)?))).collect::<Result<_>>()?;
        return Ok((list, 0));
    }
    let mut list = vec![(format!("{} (the spec)", args.spec.display()), router)];
    let mut skipped = 0;
    for algorithm in registry::algorithms() {
        let mut candidate = spec.clone();
        candidate.algorithm = algorithm.name.to_owned();
        candidate.params = serde_json::Map::new();
        // Presets that read host and port get them from the addresses when the ids are
        // addresses; others ignore them.
        match Router::from_spec_with(&candidate, input::limits()) {
            Ok(r) => list.push((algorithm_label(algorithm), r)),
            Err(_) => skipped += 1,
        }
    }
    Ok((list, skipped))
}

fn algorithm_label(a: &registry::Algorithm) -> String {
    match a.kind {
        Kind::Native { .. } => a.name.to_owned(),
        Kind::Preset { .. } => format!("{} (preset)", a.name),
    }
}

fn audit_text(audit: &Audit) -> String {
    let mut out = String::new();
    let width = audit.nodes.iter().map(|n| n.addr.id.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(out, "{:<width$}  {:>21}  {:>10}  {:>10}", "node", "address", "keys", "misplaced");
    for n in &audit.nodes {
        let _ = writeln!(
            out,
            "{:<width$}  {:>21}  {:>10}  {:>10}",
            n.addr.id,
            n.addr.socket_text(),
            thousands(n.keys),
            thousands(n.misplaced)
        );
    }
    let _ = writeln!(
        out,
        "{:<width$}  {:>21}  {:>10}  {:>10}",
        "all",
        "",
        thousands(audit.keys()),
        thousands(audit.misplaced())
    );
    for n in audit.nodes.iter().filter(|n| !n.samples.is_empty()) {
        let shown = if n.samples.len() as u64 == n.misplaced {
            String::new()
        } else {
            format!(", the first {}", n.samples.len())
        };
        let _ = writeln!(
            out,
            "\nmisplaced on {} ({} keys{shown}): key → its owner by the spec",
            n.addr.id,
            thousands(n.misplaced)
        );
        for s in &n.samples {
            let _ =
                writeln!(out, "  {}  → {}", audit::key_text(&s.key), s.owner.as_deref().unwrap_or("(cannot route)"));
        }
    }
    out
}

fn write_ranking(args: &AuditArgs, inventory: &Inventory, ranked: &[Ranked], skipped: usize) -> Result<()> {
    let text = if args.json {
        let list: Vec<Value> =
            ranked.iter().map(|r| json!({"candidate": r.name, "placed": r.placed, "share": r.share})).collect();
        format!("{:#}\n", json!({"keys": inventory.keys(), "candidates": list, "not_applicable": skipped}))
    } else {
        let mut out = format!(
            "{} keys on {} nodes; candidates by the share of keys they place where they are:\n",
            thousands(inventory.keys()),
            inventory.nodes.len()
        );
        for r in ranked {
            let _ = writeln!(out, "  {:>8}  {:>10}  {}", pct2(r.share), thousands(r.placed), r.name);
        }
        if skipped > 0 {
            let _ = writeln!(out, "({skipped} algorithms cannot take these nodes without parameters)");
        }
        out
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}
