//! `keyroute balance`: how evenly a topology spreads keys, exactly, per ring point count.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use keyroute_bindings::{ErrorCode, Router, Spec};
use serde_json::{Value, json};

use crate::error::{CliError, Result};
use crate::report::{Report, Row, algorithm, hex, method, pct, pct2};
use crate::{input, plot};

/// Measure balance.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute balance -t cli/topologies/5-nodes.toml
  keyroute balance -t topo.json --points 10,50,150,500 --plot balance.svg
  keyroute balance -t topo.json --json

For a native ring, each point count rebuilds the ring with that many points per unit of weight
(default: 10, 50, 150, 500 and the spec's own). Shares are exact for rings, Maglev and slot
tables (the hash space is measured), the expected w/Σw for jump, modulo and rendezvous, and
sampled otherwise. CV is the coefficient of variation of share / fair share over the nodes,
where a node's fair share is its weight / the total weight.")]
pub struct BalanceArgs {
    /// Topology spec (JSON, or TOML when the name ends in .toml; `-` for stdin).
    #[arg(short, long, value_name = "FILE")]
    topology: PathBuf,
    /// Ring points per unit of weight to compare, comma-separated (native rings only).
    #[arg(long, value_name = "LIST", value_delimiter = ',', num_args = 1..)]
    points: Option<Vec<u32>>,
    /// Write a bar chart of ownership per node to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

/// Point counts compared when none are given.
const DEFAULT_POINTS: [u32; 4] = [10, 50, 150, 500];

pub fn run(args: &BalanceArgs) -> Result<()> {
    if let Some(plot) = &args.plot {
        crate::output::refuse_overwriting_input("--plot", plot, &[&args.topology])?;
    }
    let spec = input::spec(&args.topology)?;
    let router = input::build(&spec, args.topology.display())?;
    let report = measure(&spec, &router, args.points.as_deref())?;
    if let Some(path) = &args.plot {
        plot::balance_svg(&report, path)?;
    }
    let text = if args.json { json(&report, &router) } else { text(&report, &router, args.plot.as_ref()) };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn measure(spec: &Spec, router: &Router, points: Option<&[u32]>) -> Result<Report> {
    let topology = router.core().topology();
    let total = topology.total_weight() as f64;
    let ids: Vec<String> = (0..router.len() as u32).filter_map(|i| router.node_id(i)).map(str::to_owned).collect();
    let fair: Vec<f64> = topology.nodes().iter().map(|n| f64::from(n.weight()) / total).collect();
    let row = |r: &Router, label: String, points: Option<u32>, own: bool| {
        let o = keyroute_bindings::analysis::ownership(r);
        Row {
            label,
            points,
            shares: o.shares.iter().map(|s| s.share).collect(),
            balance: o.balance,
            method: o.method,
            own,
        }
    };
    let own_points = router.capabilities().points_per_weight;
    let rows = match (own_points, points) {
        (None, Some(_)) => {
            return Err(CliError::usage(
                ErrorCode::InvalidParameter,
                format!("--points applies to the native ring; algorithm {:?} has no points per weight", spec.algorithm),
            ));
        }
        (None, None) => vec![row(router, algorithm(router), None, true)],
        (Some(own), list) => {
            let mut list: Vec<u32> = list.map_or_else(|| [&DEFAULT_POINTS[..], &[own]].concat(), <[u32]>::to_vec);
            list.sort_unstable();
            list.dedup();
            let mut rows = Vec::with_capacity(list.len());
            for p in list {
                let mut s = spec.clone();
                s.set_points_per_weight(p);
                let r = input::build(&s, format_args!("--points {p}")).map_err(CliError::in_usage)?;
                rows.push(row(&r, format!("{p} points/node"), Some(p), p == own && points.is_none()));
            }
            rows
        }
    };
    let title = match own_points {
        Some(_) => format!("{} · {} nodes", router.algorithm(), ids.len()),
        None => format!("{} · {} nodes", algorithm(router), ids.len()),
    };
    Ok(Report { title, ids, fair, rows })
}

fn text(report: &Report, router: &Router, plot: Option<&PathBuf>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "balance  {} · version {} · fingerprint {}",
        report.title,
        router.version(),
        hex(router.fingerprint())
    );
    if let Some(first) = report.rows.first() {
        let _ = writeln!(s, "method: {}", method(first.method));
    }
    let _ = writeln!(s);
    let label_width = report.rows.iter().map(|r| r.label.len() + 1).max().unwrap_or(10).max(12);
    let _ = writeln!(s, "  {:>label_width$} {:>8} {:>10} {:>10}", "", "CV", "max/mean", "min/mean");
    for r in &report.rows {
        let label = if r.own { format!("{}*", r.label) } else { format!("{} ", r.label) };
        let b = r.balance;
        let _ =
            writeln!(s, "  {label:>label_width$} {:>8} {:>10.3} {:>10.3}", pct(b.cv), b.max_over_mean, b.min_over_mean);
    }
    if report.rows.iter().any(|r| r.own) && report.rows.len() > 1 {
        let _ = writeln!(s, "  (* the spec's own)");
    }
    let _ = writeln!(s);
    let width = report.ids.iter().map(|id| id.chars().count()).max().unwrap_or(4).clamp(4, 40);
    let _ = writeln!(s, "ownership, % of keys");
    let _ = write!(s, "  {:width$} {:>9}", "node", "fair");
    for r in &report.rows {
        let head = r.points.map_or_else(|| "share".to_owned(), |p| p.to_string());
        let _ = write!(s, " {head:>9}");
    }
    let _ = writeln!(s);
    for (i, id) in report.ids.iter().enumerate() {
        let _ = write!(s, "  {id:width$} {:>9}", pct2(report.fair[i]));
        for r in &report.rows {
            let _ = write!(s, " {:>9}", pct2(r.shares.get(i).copied().unwrap_or(0.0)));
        }
        let _ = writeln!(s);
    }
    if let Some(path) = plot {
        let _ = writeln!(s, "\nchart written to {}", path.display());
    }
    s
}

fn json(report: &Report, router: &Router) -> String {
    let rows: Vec<Value> = report
        .rows
        .iter()
        .map(|r| {
            json!({
                "points_per_weight": r.points,
                "method": r.method.name(),
                "cv": r.balance.cv,
                "max_over_mean": r.balance.max_over_mean,
                "min_over_mean": r.balance.min_over_mean,
                "shares": report.ids.iter().zip(&r.shares).map(|(id, s)| json!({"id": id, "share": s})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "algorithm": algorithm(router),
        "version": router.version(),
        "fingerprint": hex(router.fingerprint()),
        "fair": report.ids.iter().zip(&report.fair).map(|(id, f)| json!({"id": id, "share": f})).collect::<Vec<_>>(),
        "rows": rows,
    });
    format!("{doc:#}\n")
}
