//! `keyroute demo`: what adding one node does to a cache, per algorithm.
//!
//! For 3 → 4 and 10 → 11 equal nodes, and for a weighted add, every algorithm's topology is
//! built from a spec (as any user's would be) before and after the change. Each row shows the
//! moved share and the balance after the change computed from the structure itself
//! (`keyroute::analysis`: exact for rings, Maglev and slot tables, closed form for modulo, jump
//! and rendezvous), and the same figures measured by routing real keys (1,000,000 by default)
//! through both topologies. Nothing is typed in: the seeds' headline (modulo moves about 75% of
//! keys on 3 → 4, a ring about 25%) comes out of the routers.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;
use keyroute_bindings::core as kr;
use keyroute_bindings::core::analysis::{self, Method};
use keyroute_bindings::{ErrorCode, NodeSpec, Router, Spec};
use serde_json::{Value, json};

use crate::error::{CliError, Result};
use crate::report::{pct, thousands};

/// Run the scale-out comparison.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute demo
  keyroute demo --keys 10000000      measure over more keys (the exact figures do not change)

Rows: modulo (the baseline), rings with 10, 150 and 500 points per node, jump, rendezvous,
Maglev and 1024 hash slots rebalanced moving the fewest slots. `exact` figures come from the
structure itself (rings, Maglev, slots: the hash space measured; modulo, jump, rendezvous:
closed form); `measured` ones from routing the keys through both topologies.

With --json, one JSON document (a stable shape; fields may be added, none removed):
  {\"keys\": N, \"scenarios\": [{\"title\": \"3 → 4 nodes\", \"from\": [{\"id\", \"weight\"}…],
   \"to\": […], \"ideal_moved\": 0.25, \"rows\": [{\"label\", \"algorithm\", \"params\": {…},
   \"moved\", \"measured_moved\", \"max_over_mean\", \"cv\", \"measured_cv\",
   \"method\": \"exact\"|\"expected\"|\"slot_share\"|\"sampled\"} …]}…]}
Shares are fractions in [0, 1] (0.25 is 25%). A row whose algorithm cannot make the change
has \"refused\": {\"error\": name, \"code\": n, \"message\"} instead of the figures.")]
pub struct DemoArgs {
    /// Keys routed through each topology for the measured figures.
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    keys: u32,
    /// One JSON document instead of the tables (its shape is in this help).
    #[arg(long)]
    json: bool,
}

/// One membership change.
struct Scenario {
    title: String,
    from: Vec<NodeSpec>,
    to: Vec<NodeSpec>,
}

/// One algorithm in one scenario: a spec algorithm and its parameters.
struct Algorithm {
    label: &'static str,
    algorithm: &'static str,
    params: &'static str,
    /// Slot tables: B is A's table rebalanced (fewest slots moved), not a fresh table.
    rebalance: bool,
}

const ALGORITHMS: [Algorithm; 8] = [
    Algorithm { label: "modulo (hash % n)", algorithm: "modulo", params: "{}", rebalance: false },
    Algorithm {
        label: "ring-v1, 10 points/node",
        algorithm: "ring",
        params: r#"{"points_per_weight":10}"#,
        rebalance: false,
    },
    Algorithm {
        label: "ring-v1, 150 points/node",
        algorithm: "ring",
        params: r#"{"points_per_weight":150}"#,
        rebalance: false,
    },
    Algorithm {
        label: "ring-v1, 500 points/node",
        algorithm: "ring",
        params: r#"{"points_per_weight":500}"#,
        rebalance: false,
    },
    Algorithm { label: "jump", algorithm: "jump", params: "{}", rebalance: false },
    Algorithm { label: "rendezvous (HRW)", algorithm: "rendezvous", params: "{}", rebalance: false },
    Algorithm { label: "maglev, M = 65537", algorithm: "maglev", params: r#"{"table_size":65537}"#, rebalance: false },
    Algorithm { label: "slots, 1024, fewest moved", algorithm: "slots", params: r#"{"count":1024}"#, rebalance: true },
];

/// A row's figures, or why the algorithm cannot make this change.
enum Outcome {
    Figures(Figures),
    Refused(ErrorCode, String),
}

struct Figures {
    moved: f64,
    ideal_moved: f64,
    method: Method,
    measured_moved: f64,
    max_over_mean: f64,
    cv: f64,
    measured_cv: f64,
}

fn nodes(n: usize, weight_of_last: u32) -> Vec<NodeSpec> {
    (0..n)
        .map(|i| NodeSpec {
            weight: if i + 1 == n { weight_of_last } else { 1 },
            ..NodeSpec::new(format!("cache-{i}"))
        })
        .collect()
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario { title: "3 → 4 nodes".into(), from: nodes(3, 1), to: nodes(4, 1) },
        Scenario { title: "10 → 11 nodes".into(), from: nodes(10, 1), to: nodes(11, 1) },
        Scenario { title: "3 → 4 nodes, the new node of weight 2".into(), from: nodes(3, 1), to: nodes(4, 2) },
    ]
}

pub fn run(args: &DemoArgs) -> Result<()> {
    if args.keys == 0 {
        return Err(CliError::usage(ErrorCode::InvalidParameter, "--keys must be at least 1"));
    }
    let keys: Vec<Vec<u8>> = (0..args.keys).map(|i| format!("key:{i}").into_bytes()).collect();
    if args.json {
        return json(args, &keys);
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "keyroute demo: what adding one node does to a cache, per algorithm\n\
         (moved keys are cache misses after the change; exact figures from the topology itself, measured ones\n\
         from routing {} keys before and after)\n",
        thousands(u64::from(args.keys))
    )?;
    let mut headline: Option<(f64, f64)> = None;
    for scenario in scenarios() {
        let outcomes = run_scenario(&scenario, &keys)?;
        let ideal = ideal_moved(&outcomes);
        let mut s = String::new();
        let _ = writeln!(s, "{}: ideally {} of keys move, all onto the new node", scenario.title, pct(ideal));
        let _ = writeln!(s, "  {:<27} {:>17}   {:>26}", "", "keys moved", "balance after the change");
        let _ = writeln!(
            s,
            "  {:<27} {:>8} {:>8}   {:>8} {:>7} {:>9}   exact figures",
            "algorithm", "exact", "measured", "max/mean", "CV", "measured"
        );
        for (alg, outcome) in ALGORITHMS.iter().zip(&outcomes) {
            match outcome {
                Outcome::Figures(f) => {
                    let _ = writeln!(
                        s,
                        "  {:<27} {:>8} {:>8}   {:>8.3} {:>7} {:>9}   {}",
                        alg.label,
                        pct(f.moved),
                        pct(f.measured_moved),
                        f.max_over_mean,
                        pct(f.cv),
                        pct(f.measured_cv),
                        method_short(f.method)
                    );
                }
                Outcome::Refused(code, why) => {
                    let _ = writeln!(s, "  {:<27} {why} (error {})", alg.label, code.name());
                }
            }
        }
        if headline.is_none()
            && let (Some(Outcome::Figures(m)), Some(Outcome::Figures(r))) = (outcomes.first(), outcomes.get(2))
        {
            headline = Some((m.measured_moved, r.measured_moved));
        }
        writeln!(out, "{s}")?;
    }
    if let Some((modulo, ring)) = headline {
        writeln!(
            out,
            "Measured on 3 → 4 nodes: modulo routing moved {} of the keys (a cache loses three quarters of its hits),\n\
             a ring with 150 points per node {}: about the quarter that must move to the new node.\n",
            pct(modulo),
            pct(ring)
        )?;
    }
    writeln!(
        out,
        "max/mean, CV: each node's share of keys over its fair share (weight / total) after the change;\n\
         1.000 and 0.0% are perfectly even. exact figures: \"hash space\" measures the key-hash space\n\
         itself (no key sampled), \"closed form\" is the algorithm's expected figure for hashed keys.\n\
         Your own change: keyroute plan A.json B.json; a ring's balance: keyroute balance -t topo.json --plot b.svg"
    )?;
    out.flush()?;
    Ok(())
}

/// The share an ideal scheme moves, from the first row that has figures.
fn ideal_moved(outcomes: &[Outcome]) -> f64 {
    let ideal = outcomes.iter().find_map(|o| match o {
        Outcome::Figures(f) => Some(f.ideal_moved),
        Outcome::Refused(..) => None,
    });
    ideal.unwrap_or_default()
}

/// `keyroute demo --json`: every scenario's rows as one document (shape in the help).
fn json(args: &DemoArgs, keys: &[Vec<u8>]) -> Result<()> {
    let nodes =
        |list: &[NodeSpec]| -> Vec<Value> { list.iter().map(|n| json!({ "id": n.id, "weight": n.weight })).collect() };
    let mut done = Vec::new();
    for scenario in scenarios() {
        let outcomes = run_scenario(&scenario, keys)?;
        let rows: Vec<Value> = ALGORITHMS
            .iter()
            .zip(&outcomes)
            .map(|(alg, outcome)| {
                let params: Value = serde_json::from_str(alg.params).unwrap_or(Value::Null);
                let mut row = json!({ "label": alg.label, "algorithm": alg.algorithm, "params": params });
                let fields = match outcome {
                    Outcome::Figures(f) => json!({
                        "moved": f.moved,
                        "measured_moved": f.measured_moved,
                        "max_over_mean": f.max_over_mean,
                        "cv": f.cv,
                        "measured_cv": f.measured_cv,
                        "method": f.method.name(),
                    }),
                    Outcome::Refused(code, why) => json!({
                        "refused": { "error": code.name(), "code": code.code(), "message": why },
                    }),
                };
                if let (Some(row), Value::Object(fields)) = (row.as_object_mut(), fields) {
                    row.extend(fields);
                }
                row
            })
            .collect();
        done.push(json!({
            "title": scenario.title,
            "from": nodes(&scenario.from),
            "to": nodes(&scenario.to),
            "ideal_moved": ideal_moved(&outcomes),
            "rows": rows,
        }));
    }
    let doc = json!({ "keys": args.keys, "scenarios": done });
    let mut text = serde_json::to_string_pretty(&doc)
        .map_err(|e| CliError::new(ErrorCode::Internal, format!("writing the JSON: {e}")))?;
    text.push('\n');
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// How a row's exact figures were obtained, in the table's few words.
fn method_short(m: Method) -> &'static str {
    match m.name() {
        "exact" => "hash space",
        "slot_share" => "per slot",
        "expected" => "closed form",
        _ => "sampled",
    }
}

fn spec(alg: &Algorithm, nodes: &[NodeSpec]) -> Result<Spec> {
    let mut spec = Spec::new(alg.algorithm);
    spec.set_params_json(alg.params).map_err(|e| CliError::from_bindings(alg.label, &e))?;
    spec.nodes = nodes.to_vec();
    Ok(spec)
}

/// Builds every algorithm's pair and measures the rows on all cores, one row at a time each.
fn run_scenario(s: &Scenario, keys: &[Vec<u8>]) -> Result<Vec<Outcome>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Outcome>>>> = Mutex::new((0..ALGORITHMS.len()).map(|_| None).collect());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(ALGORITHMS.len());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(alg) = ALGORITHMS.get(i) else { break };
                    let outcome = row(alg, s, keys);
                    if let Ok(mut r) = results.lock()
                        && let Some(slot) = r.get_mut(i)
                    {
                        *slot = Some(outcome);
                    }
                }
            });
        }
    });
    let results = results.into_inner().map_err(|_| CliError::new(ErrorCode::Internal, "a demo thread failed"))?;
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(CliError::new(ErrorCode::Internal, "a row was not run"))))
        .collect()
}

fn row(alg: &Algorithm, s: &Scenario, keys: &[Vec<u8>]) -> Result<Outcome> {
    let a = match Router::from_spec(&spec(alg, &s.from)?) {
        Ok(r) => r,
        Err(e) => return Err(CliError::from_bindings(alg.label, &e)),
    };
    let rebalanced = || -> Result<Option<kr::Router>> {
        if !alg.rebalance {
            return Ok(None);
        }
        let to = Router::from_spec(&spec(alg, &s.to)?).map_err(|e| CliError::from_bindings(alg.label, &e))?;
        a.core()
            .rebalance(to.core().topology().clone())
            .transpose()
            .map_err(|e| CliError::from_bindings(alg.label, &keyroute_bindings::Error::from(e)))
    };
    let b: kr::Router = match rebalanced()? {
        Some(rebalanced) => rebalanced,
        None => match Router::from_spec(&spec(alg, &s.to)?) {
            Ok(r) => r.core().clone(),
            Err(e) if e.code() == ErrorCode::WeightsUnsupported => {
                return Ok(Outcome::Refused(
                    e.code(),
                    "cannot weigh nodes: every node gets one equal share".to_string(),
                ));
            }
            Err(e) => return Err(CliError::from_bindings(alg.label, &e)),
        },
    };
    let a = a.core();
    let d =
        analysis::diff(a, &b).map_err(|e| CliError::from_bindings(alg.label, &keyroute_bindings::Error::from(e)))?;
    let own = analysis::ownership(&b);
    let balance = own.balance(b.topology());
    let (measured_moved, measured_cv) =
        measure(a, &b, keys).map_err(|e| CliError::from_bindings(alg.label, &keyroute_bindings::Error::from(e)))?;
    Ok(Outcome::Figures(Figures {
        moved: d.moved,
        ideal_moved: analysis::ideal_moved(a.topology(), b.topology()),
        method: d.method,
        measured_moved,
        max_over_mean: balance.max_over_mean,
        cv: balance.cv,
        measured_cv,
    }))
}

/// Routes every key through both routers: the moved share (owners compared by id) and the
/// balance of the keys each node got, after the change (the same figure as the exact one,
/// from counted keys).
fn measure(a: &kr::Router, b: &kr::Router, keys: &[Vec<u8>]) -> std::result::Result<(f64, f64), kr::BatchError> {
    let (ta, tb) = (a.topology(), b.topology());
    let to_b: Vec<Option<u32>> = ta.nodes().iter().map(|n| tb.position(n.id())).collect();
    let mut counts = vec![0u64; tb.len()];
    let mut moved = 0u64;
    let (mut oa, mut ob) = (vec![0u32; 4096], vec![0u32; 4096]);
    for batch in keys.chunks(4096) {
        a.route_batch(batch, &mut oa)?;
        b.route_batch(batch, &mut ob)?;
        for (&x, &y) in oa.iter().zip(&ob).take(batch.len()) {
            moved += u64::from(to_b.get(x as usize).copied().flatten() != Some(y));
            if let Some(c) = counts.get_mut(y as usize) {
                *c += 1;
            }
        }
    }
    let n = keys.len() as f64;
    let shares: Vec<f64> = counts.iter().map(|&c| c as f64 / n).collect();
    Ok((moved as f64 / n, analysis::balance(tb, &shares).cv))
}
