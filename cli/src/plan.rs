//! `keyroute plan A B`: what changing from topology A to topology B moves, before doing it.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use keyroute_bindings::analysis::{self, Diff};
use keyroute_bindings::{ErrorCode, Router, Transition};
use serde_json::{Value, json};

use crate::error::{CliError, Result};
use crate::report::{algorithm, hex, method, pct2, thousands};
use crate::{input, route};

/// Plan a membership change.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute plan cli/topologies/3-nodes.json cli/topologies/4-nodes.json
  keyroute plan A.json B.json --progress 0.05        what a 5% rollout has moved
  keyroute plan A.json B.json --keys keys.txt > moves.tsv
  keyroute plan A.json B.json --json
  keyroute plan A.json B.json --max-moved 0.3        exit status 1 if it moves over 30% of keys
  keyroute plan A.json B.json --plot change.svg      draw the shares before and after, and the flows

The moved share and the from → to matrix are exact for rings, Maglev and hash slots (the
hash space itself is measured, no key is sampled), in closed form for jump, modulo and
rendezvous, and estimated from sample keys otherwise; the report says which.
With --keys, stdout gets one `key<TAB>from<TAB>to` line per key that moves (in constant
memory, whatever the file's size) and stderr a one-line summary.")]
pub struct PlanArgs {
    /// Topology before the change (view A).
    #[arg(value_name = "A")]
    from: PathBuf,
    /// Topology after the change (view B).
    #[arg(value_name = "B")]
    to: PathBuf,
    /// List the keys of FILE (one per line; `-` for stdin) that move, instead of the summary.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Progress of a gradual rollout, in [0, 1]: report what has moved so far.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    progress: Option<f64>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    /// With more than 12 nodes, list this many of the largest moves instead of a matrix.
    #[arg(long, default_value_t = 20, value_name = "N")]
    top: usize,
    /// Also list the moved pieces of the hash space (rings, Maglev, slot tables).
    #[arg(long)]
    arcs: bool,
    /// A check, in [0, 1]: after the report, exit with status 1 if the change (at --progress)
    /// moves more than this share of keys.
    #[arg(long, value_name = "SHARE", conflicts_with = "keys")]
    max_moved: Option<f64>,
    /// Draw the change as SVG into FILE: each node's share before and after, and the keys
    /// flowing from each old owner to each new one.
    #[arg(long, value_name = "FILE", conflicts_with = "keys")]
    plot: Option<PathBuf>,
    /// With --plot: also draw the moved keys and bytes a `keyroute migrate --report` (or
    /// `--dry-run --report`) counted on the servers, per from → to.
    #[arg(long, value_name = "REPORT", requires = "plot")]
    counted: Option<PathBuf>,
}

/// Largest node count shown as a full from → to matrix.
const MATRIX_NODES: usize = 12;

pub fn run(args: &PlanArgs) -> Result<()> {
    let (a, b) = (input::router(&args.from)?, input::router(&args.to)?);
    // `+ 0.0` turns `-0` into 0, so `--progress -0` reads as the 0 it is.
    let progress = args.progress.unwrap_or(1.0) + 0.0;
    let transition = Transition::new(a.clone(), b.clone(), progress)
        .map_err(|e| CliError::from_bindings(format_args!("--progress {progress}"), &e).in_usage())?;
    if let Some(max) = args.max_moved
        && !(0.0..=1.0).contains(&max)
    {
        return Err(CliError::usage(
            ErrorCode::InvalidParameter,
            format!("--max-moved {max}: a share of keys must be within [0, 1]"),
        ));
    }
    if let Some(keys) = &args.keys {
        return key_plan(args, &transition, keys);
    }
    if let Some(plot) = &args.plot {
        let mut inputs = vec![args.from.as_path(), args.to.as_path()];
        inputs.extend(args.counted.as_deref());
        crate::output::refuse_overwriting_input("--plot", plot, &inputs)?;
    }
    let d = analysis::diff(&a, &b).map_err(|e| CliError::from_bindings("diff", &e))?;
    let summary = Summary::new(&a, &b, &d, progress);
    if let Some(path) = &args.plot {
        let mut picture = summary.picture(&transition, &d);
        if let Some(report) = &args.counted {
            picture.counted = counted(report)?;
        }
        crate::plot::plan_svg(&picture, path)?;
    }
    let text = if args.json { summary.json(&transition, &d) } else { summary.text(args, &transition, &d) };
    // The finding is settled before the report is written, and its line goes to stderr first,
    // so a reader that stops early (`| head -1`) cannot turn a failed check into status 0.
    let moved_now = progress * d.moved;
    let finding = match args.max_moved {
        Some(max) if moved_now > max => Some(
            CliError::finding(format!(
                "finding: the change moves {} of keys, more than --max-moved {} allows",
                pct2(moved_now),
                pct2(max)
            ))
            .print_now(),
        ),
        _ => None,
    };
    let written = (|| -> Result<()> {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        out.write_all(text.as_bytes())?;
        if args.arcs {
            for arc in &d.moved_arcs {
                writeln!(out, "{:016x}\t{:016x}\t{}\t{}", arc.start, arc.end, arc.from, arc.to)?;
            }
        }
        out.flush()?;
        Ok(())
    })();
    crate::error::settled(finding, written)
}

/// The change per node id, over both sides' nodes.
struct Summary {
    /// A's ids, then B's ids that A lacks.
    ids: Vec<String>,
    a_index: Vec<usize>,
    b_index: Vec<usize>,
    /// Shares by union index: before, and gained and lost at progress 1.
    before: Vec<f64>,
    gained: Vec<f64>,
    lost: Vec<f64>,
    /// `[from][to]` over union indices, at progress 1.
    matrix: Vec<Vec<f64>>,
    progress: f64,
}

impl Summary {
    fn new(a: &Router, b: &Router, d: &Diff, progress: f64) -> Self {
        let mut ids: Vec<String> = (0..a.len() as u32).filter_map(|i| a.node_id(i)).map(str::to_owned).collect();
        let a_index: Vec<usize> = (0..ids.len()).collect();
        let b_index: Vec<usize> = (0..b.len() as u32)
            .map(|j| {
                let id = b.node_id(j).unwrap_or_default();
                ids.iter().position(|x| x == id).unwrap_or_else(|| {
                    ids.push(id.to_owned());
                    ids.len() - 1
                })
            })
            .collect();
        let n = ids.len();
        let (mut before, mut gained, mut lost) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut matrix = if n <= MATRIX_NODES { vec![vec![0.0; n]; n] } else { Vec::new() };
        for f in &d.flows {
            let (Some(&i), Some(&j)) = (a_index.get(f.from_index as usize), b_index.get(f.to_index as usize)) else {
                continue;
            };
            before[i] += f.share;
            if i != j {
                gained[j] += f.share;
                lost[i] += f.share;
            }
            if let Some(cell) = matrix.get_mut(i).and_then(|row| row.get_mut(j)) {
                *cell += f.share;
            }
        }
        Self { ids, a_index, b_index, before, gained, lost, matrix, progress }
    }

    /// Share of keys on node `u` at the current progress.
    fn now(&self, u: usize) -> f64 {
        self.before[u] + self.progress * (self.gained[u] - self.lost[u])
    }

    /// The from → to share at the current progress: moves scale with progress, and what has
    /// not moved yet stays on its A-owner.
    fn cell(&self, i: usize, j: usize) -> f64 {
        let m = self.matrix[i][j];
        if i == j { m + (1.0 - self.progress) * self.lost[i] } else { self.progress * m }
    }

    /// What `--plot` draws: the shares before and after, and every from → to share at the
    /// current progress (what has not moved yet counted as staying).
    fn picture(&self, t: &Transition, d: &Diff) -> crate::plot::PlanPicture {
        let mut flows: std::collections::BTreeMap<(usize, usize), f64> = std::collections::BTreeMap::new();
        for f in &d.flows {
            let (Some(&i), Some(&j)) = (self.a_index.get(f.from_index as usize), self.b_index.get(f.to_index as usize))
            else {
                continue;
            };
            if i == j {
                *flows.entry((i, i)).or_default() += f.share;
            } else {
                *flows.entry((i, j)).or_default() += self.progress * f.share;
                *flows.entry((i, i)).or_default() += (1.0 - self.progress) * f.share;
            }
        }
        let side = |r: &Router| format!("{}, {} nodes", algorithm(r), r.len());
        crate::plot::PlanPicture {
            title: format!("{} → {}", side(t.from()), side(t.to())),
            ids: self.ids.clone(),
            before: self.before.clone(),
            after: (0..self.ids.len()).map(|u| self.now(u)).collect(),
            flows: flows.into_iter().filter(|&(_, s)| s > 0.0).map(|((i, j), s)| (i, j, s)).collect(),
            moved: self.progress * d.moved,
            counted: Vec::new(),
        }
    }

    fn text(&self, args: &PlanArgs, t: &Transition, d: &Diff) -> String {
        let mut s = String::new();
        let side = |r: &Router| {
            format!(
                "{} · {} nodes · version {} · fingerprint {}",
                algorithm(r),
                r.len(),
                r.version(),
                hex(r.fingerprint())
            )
        };
        let _ = writeln!(s, "plan  from {}", side(t.from()));
        let _ = writeln!(s, "        to {}", side(t.to()));
        let _ = writeln!(s, "method: {}", method(d.method));
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "moved: {} of keys  (a perfectly balanced scheme must move at least {})",
            pct2(d.moved),
            pct2(d.ideal_moved)
        );
        if args.progress.is_some() {
            let _ = writeln!(
                s,
                "at progress {}: {} of keys have moved so far (each still readable from its previous owner); \
                 {} move as progress reaches 1",
                self.progress,
                pct2(self.progress * d.moved),
                pct2((1.0 - self.progress) * d.moved)
            );
        }
        if !d.moved_arcs.is_empty() {
            let _ = writeln!(
                s,
                "moved hash space: {} pieces (list them with --arcs)",
                thousands(d.moved_arcs.len() as u64)
            );
        }
        let _ = writeln!(s);
        let n = self.ids.len();
        let width = self.ids.iter().map(|id| id.chars().count()).max().unwrap_or(4).clamp(4, 40);
        if n <= MATRIX_NODES {
            let _ = writeln!(s, "from → to, % of all keys (rows: owner before, columns: owner after)");
            let col = width.max(7);
            let _ = write!(s, "  {:width$}", "");
            for &j in &self.b_index {
                let _ = write!(s, " {:>col$}", self.ids[j]);
            }
            let _ = writeln!(s);
            for &i in &self.a_index {
                let _ = write!(s, "  {:width$}", self.ids[i]);
                for &j in &self.b_index {
                    let v = self.cell(i, j);
                    let cell = if v > 0.0 { format!("{:.2}", v * 100.0) } else { "·".into() };
                    let _ = write!(s, " {cell:>col$}");
                }
                let _ = writeln!(s);
            }
        } else {
            let mut moves: Vec<(usize, usize, f64)> = d
                .flows
                .iter()
                .filter_map(|f| {
                    Some((*self.a_index.get(f.from_index as usize)?, *self.b_index.get(f.to_index as usize)?, f.share))
                })
                .filter(|&(i, j, _)| i != j)
                .collect();
            moves.sort_by(|x, y| y.2.total_cmp(&x.2));
            let _ = writeln!(
                s,
                "largest moves ({} of {} from → to pairs), % of all keys",
                args.top.min(moves.len()),
                moves.len()
            );
            for &(i, j, share) in moves.iter().take(args.top) {
                let _ =
                    writeln!(s, "  {:>width$} → {:width$}  {}", self.ids[i], self.ids[j], pct2(self.progress * share));
            }
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  {:width$} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "node", "before", "after", "gained", "lost", "net"
        );
        for u in 0..n {
            let (g, l) = (self.progress * self.gained[u], self.progress * self.lost[u]);
            let net = format!("{:+.2}%", (g - l) * 100.0);
            let _ = writeln!(
                s,
                "  {:width$} {:>9} {:>9} {:>9} {:>9} {:>9}",
                self.ids[u],
                pct2(self.before[u]),
                pct2(self.now(u)),
                pct2(g),
                pct2(l),
                net
            );
        }
        s
    }

    fn json(&self, t: &Transition, d: &Diff) -> String {
        let side = |r: &Router| {
            json!({
                "algorithm": algorithm(r),
                "nodes": r.len(),
                "version": r.version(),
                "fingerprint": hex(r.fingerprint()),
            })
        };
        let flows: Vec<Value> = d
            .flows
            .iter()
            .map(|f| {
                json!({
                    "from": f.from,
                    "to": f.to,
                    "share": f.share,
                    "moved": f.from != f.to,
                })
            })
            .collect();
        let nodes: Vec<Value> = (0..self.ids.len())
            .map(|u| {
                json!({
                    "id": self.ids[u],
                    "before": self.before[u],
                    "after": self.now(u),
                    "gained": self.progress * self.gained[u],
                    "lost": self.progress * self.lost[u],
                })
            })
            .collect();
        let doc = json!({
            "from": side(t.from()),
            "to": side(t.to()),
            "method": d.method.name(),
            "moved": d.moved,
            "minimum_balanced": d.ideal_moved,
            "progress": self.progress,
            "moved_now": self.progress * d.moved,
            "moved_arcs": d.moved_arcs.len(),
            "flows": flows,
            "nodes": nodes,
        });
        format!("{doc:#}\n")
    }
}

/// The per-flow counts of a `keyroute migrate --report` file: `(from, to, keys, bytes)`.
fn counted(path: &Path) -> Result<Vec<(String, String, u64, u64)>> {
    let bad = |what: &str| {
        CliError::usage(
            ErrorCode::InvalidArgument,
            format!(
                "--counted {}: {what} (write it with `keyroute migrate A B --dry-run --report FILE`)",
                path.display()
            ),
        )
    };
    let text =
        std::fs::read(path).map_err(|e| CliError::new(ErrorCode::Io, format!("--counted {}: {e}", path.display())))?;
    let doc: Value = serde_json::from_slice(&text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let flows = doc.get("flows").and_then(Value::as_array).ok_or_else(|| bad("no \"flows\" list"))?;
    flows
        .iter()
        .map(|f| {
            let text = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_owned);
            let count = |k: &str| f.get(k).and_then(Value::as_u64);
            match (text("from"), text("to"), count("keys"), count("listed_bytes")) {
                (Some(from), Some(to), Some(keys), Some(bytes)) => Ok((from, to, keys, bytes)),
                _ => Err(bad("a flow without from, to, keys and listed_bytes")),
            }
        })
        .collect()
}

/// The key-level plan: every key of the file that has moved (at the given progress).
fn key_plan(args: &PlanArgs, t: &Transition, path: &Path) -> Result<()> {
    let source = input::key_source(path)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let (mut seen, mut moved) = (0u64, 0u64);
    let (a, b) = (t.from(), t.to());
    let full = args.progress.is_none();
    input::for_each_batch(source, |keys, first| {
        let mut emit = |key: &[u8], from: &str, to: &str| {
            moved += 1;
            if args.json {
                let k = match std::str::from_utf8(key) {
                    Ok(text) => json!({ "key": text, "from": from, "to": to }),
                    Err(_) => json!({ "key_hex": route::hex(key), "from": from, "to": to }),
                };
                let _ = writeln!(buf, "{k}");
            } else {
                buf.extend_from_slice(key);
                let _ = writeln!(buf, "\t{from}\t{to}");
            }
        };
        if full {
            // The core's streaming plan: only moved keys come out.
            for (i, m) in keyroute_bindings::core::analysis::plan(a.core(), b.core(), keys.iter().copied()).enumerate()
            {
                let m = m.map_err(|e| {
                    CliError::from_bindings(
                        format_args!("keys line {}", first + i as u64),
                        &keyroute_bindings::Error::from(e),
                    )
                })?;
                emit(m.key, a.node_id(m.from).unwrap_or("?"), b.node_id(m.to).unwrap_or("?"));
            }
        } else {
            for (i, key) in keys.iter().enumerate() {
                let placed = t.route_with_fallback(key).map_err(|e| {
                    CliError::from_bindings(format_args!("key {} (line {})", route::show(key), first + i as u64), &e)
                })?;
                if let Some(prev) = placed.previous {
                    emit(key, t.node_id(prev).unwrap_or("?"), t.node_id(placed.owner).unwrap_or("?"));
                }
            }
        }
        seen += keys.len() as u64;
        if buf.len() >= 1 << 20 {
            out.write_all(&buf)?;
            buf.clear();
        }
        Ok(())
    })?;
    out.write_all(&buf)?;
    out.flush()?;
    let share = if seen > 0 { moved as f64 / seen as f64 } else { 0.0 };
    let at = if full { String::new() } else { format!(" at progress {}", t.progress()) };
    let _ = writeln!(
        io::stderr().lock(),
        "keyroute: {} of {} keys move{at} ({})",
        thousands(moved),
        thousands(seen),
        pct2(share)
    );
    Ok(())
}
