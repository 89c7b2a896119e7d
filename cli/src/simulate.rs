//! `keyroute simulate`: what a membership change costs a warm cache, for a key popularity
//! (with `--to`), or how a skewed workload loads one topology's nodes, with and without bounded
//! loads and hot-key spreading (without `--to`: the [`load`](crate::load) model).
//!
//! The membership-change model:
//! Model: `N` keys, `key:1 … key:N`, where `key:r` is the r-th most popular and receives a share
//! `p_r = r^-s / H` of requests (Zipf with exponent `s`; `s = 0` is uniform). Before the change
//! every key is cached on its owner in A. After it (at progress `P`), a request for a key that
//! has moved misses on its new owner; without dual reads it goes to the backend, with dual
//! reads it reads the previous owner (still warm), and either way the new owner is filled, so
//! a key misses at most once. Every key is weighted exactly, nothing is sampled:
//!
//! - right after the change, the share of requests that miss is `Σ p_r` over moved keys;
//! - over the next `R` requests, the expected misses are the moved keys requested at least
//!   once: `Σ (1 − (1 − p_r)^R)` over moved keys.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use keyroute_bindings::{ErrorCode, Router, Transition};
use serde_json::json;

use crate::error::{CliError, Result};
use crate::input;
use crate::load;
use crate::report::{algorithm, pct, pct2, thousands};

/// Simulate a change's cost to a cache (--to), or a skewed load on one topology.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute simulate -t cli/topologies/3-nodes.json --to cli/topologies/4-nodes.json
  keyroute simulate -t A.json --to B.json --keys 10000000 --zipf 1.0
  keyroute simulate -t A.json --to B.json --zipf 0.8 --progress 0.05 --requests 1000000
  keyroute simulate -t A.json --zipf 1.1 --bounded 1.25 --hot-spread 3 --plot load.svg
  keyroute simulate -t A.json --trace requests.txt --bounded 1.25

With --to (a membership change). Model: keys key:1 … key:N, key:r getting a share r^-s / H of requests (Zipf; uniform without
--zipf). Before the change every key is cached on its owner in A. A request for a moved key
misses on its new owner: without dual reads it goes to the backend, with dual reads it is read
from the previous owner; either way the new owner is filled, so a key misses once. Every key
is weighted exactly (nothing is sampled). A progress bar shows on long runs when stderr is a
terminal.

Without --to (load on one topology). Requests are drawn from the Zipf law with a seeded
generator (or read from --trace, one key per line) and replayed under each configuration:
plain, --bounded C (a key goes to the first node in its preference order below
ceil(C x (in-flight + 1) x weight / total weight)), --hot-spread R (a key whose share of recent
requests reaches --hot-share is read from one of its first R replicas at random, or one of R
split keys key#1..key#R for routers without replicas), and both. --in-flight requests are
outstanding at once; each node caches --cache keys (LRU). Reported per configuration: the
busiest node's load over its fair share (whole run, and per window of --window requests: p99
and max), the share served away from the key's owner, and the cache hit rate.")]
pub struct SimulateArgs {
    /// Topology before the change (view A).
    #[arg(short, long = "topology", value_name = "A")]
    topology: PathBuf,
    /// Topology after the change (view B); without it, the load model runs on A.
    #[arg(long, value_name = "B")]
    to: Option<PathBuf>,
    /// Number of distinct keys.
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    keys: u64,
    /// Zipf exponent of key popularity (0 = uniform; 0.8–1.2 is typical of caches).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    zipf: Option<f64>,
    /// Progress of a gradual rollout, in [0, 1].
    #[arg(long, default_value_t = 1.0, value_name = "P", allow_negative_numbers = true)]
    progress: f64,
    /// Requests in the window after the change (default: as many as keys), or requests replayed
    /// by the load model (default 1,000,000).
    #[arg(long, value_name = "R")]
    requests: Option<u64>,
    /// Load model: replay the keys of this file (one per line; `-` for stdin) instead of Zipf draws.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["to", "zipf", "keys"])]
    trace: Option<PathBuf>,
    /// Load model: add a configuration with bounded loads of balance factor C (e.g. 1.25).
    #[arg(long, value_name = "C", conflicts_with = "to")]
    bounded: Option<f64>,
    /// Load model: add a configuration that spreads hot keys' reads over R copies.
    #[arg(long, value_name = "R", conflicts_with = "to")]
    hot_spread: Option<usize>,
    /// Load model: a key is hot once its share of recent requests reaches this.
    #[arg(long, default_value_t = 0.001, value_name = "SHARE", conflicts_with = "to")]
    hot_share: f64,
    /// Load model: requests outstanding at once (what bounded loads count).
    #[arg(long, default_value_t = 64, value_name = "K", conflicts_with = "to")]
    in_flight: usize,
    /// Load model: requests per window for the per-window load figures and the plot.
    #[arg(long, default_value_t = 10_000, value_name = "W", conflicts_with = "to")]
    window: u64,
    /// Load model: keys each node's cache (LRU) holds.
    #[arg(long, default_value_t = 10_000, value_name = "KEYS", conflicts_with = "to")]
    cache: usize,
    /// Load model: seed of the Zipf draws and of the random read spreading.
    #[arg(long, default_value_t = 1, value_name = "SEED", conflicts_with = "to")]
    seed: u64,
    /// Load model: write the per-window load chart (SVG) here.
    #[arg(long, value_name = "SVG", conflicts_with = "to")]
    plot: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

/// Most keys a run may weigh (a run costs about 0.1 µs per key per core in release builds).
const MAX_KEYS: u64 = 1 << 34;
/// Keys per work unit; units are summed in order, so results do not depend on threads.
const CHUNK: u64 = 1 << 16;

/// Sums over keys, in units of "share of requests" (before dividing by the Zipf norm).
#[derive(Debug, Default, Clone, Copy)]
struct Sums {
    /// Σ r^-s over all keys: the normaliser H.
    weight: f64,
    /// Σ r^-s over moved keys.
    moved_weight: f64,
    /// Number of moved keys.
    moved_keys: u64,
}

pub fn run(args: &SimulateArgs) -> Result<()> {
    if let Some(plot) = &args.plot {
        let inputs: Vec<&std::path::Path> = [Some(&args.topology), args.to.as_ref(), args.trace.as_ref()]
            .into_iter()
            .flatten()
            .map(|p| p.as_path())
            .collect();
        crate::output::refuse_overwriting_input("--plot", plot, &inputs)?;
    }
    let s = args.zipf.unwrap_or(0.0);
    if !(0.0..=100.0).contains(&s) {
        return Err(CliError::usage(
            ErrorCode::InvalidParameter,
            format!("--zipf {s}: the exponent must be within [0, 100]"),
        ));
    }
    if args.keys == 0 || args.keys > MAX_KEYS {
        return Err(CliError::usage(ErrorCode::InvalidParameter, format!("--keys must be within 1..={MAX_KEYS}")));
    }
    let Some(to) = &args.to else {
        if args.progress != 1.0 {
            return Err(CliError::usage(ErrorCode::InvalidArgument, "--progress needs --to (a membership change)"));
        }
        return load::run(&load::LoadArgs {
            topology: &args.topology,
            trace: args.trace.as_deref(),
            keys: args.keys,
            zipf: s,
            requests: args.requests.unwrap_or(1_000_000),
            seed: args.seed,
            bounded: args.bounded,
            hot_spread: args.hot_spread,
            hot_share: args.hot_share,
            in_flight: args.in_flight,
            window: args.window,
            cache: args.cache,
            plot: args.plot.as_ref(),
            json: args.json,
        });
    };
    let requests = args.requests.unwrap_or(args.keys);
    let (a, b) = (input::router(&args.topology)?, input::router(to)?);
    let t = Transition::new(a, b, args.progress)
        .map_err(|e| CliError::from_bindings(format_args!("--progress {}", args.progress), &e).in_usage())?;

    // First pass: which keys moved, and the normaliser.
    let moved = sweep(args.keys, &t, s, |_, _| 0.0)?;
    let h = moved.weight;
    // Second pass, now that p_r is known: expected misses over the window.
    let r = requests as f64;
    let window =
        sweep(
            args.keys,
            &t,
            s,
            |w, was_moved| {
                if was_moved { -f64::exp_m1(r * f64::ln_1p(-(w / h).min(1.0))) } else { 0.0 }
            },
        )?;
    let misses_now = moved.moved_weight / h;
    let window_misses = window.extra / r.max(1.0);
    let hottest = 1.0 / h;
    let text = if args.json {
        format!(
            "{:#}\n",
            json!({
                "keys": args.keys,
                "zipf": s,
                "progress": args.progress,
                "requests": requests,
                "from": t.from().version(),
                "to": t.to().version(),
                "moved_keys": moved.sums.moved_keys as f64 / args.keys as f64,
                "moved_requests": misses_now,
                "right_after": {
                    "without_dual_reads": {"hits_kept": 1.0 - misses_now, "backend_misses": misses_now},
                    "with_dual_reads": {"hits_kept": 1.0, "second_reads": misses_now},
                },
                "window": {
                    "without_dual_reads": {"hits_kept": 1.0 - window_misses, "backend_misses": window_misses},
                    "with_dual_reads": {"hits_kept": 1.0, "second_reads": window_misses},
                },
            })
        )
    } else {
        let mut out = String::new();
        let popularity = match args.zipf {
            Some(s) => format!("Zipf s = {s} (the hottest key gets {} of requests)", pct2(hottest)),
            None => "uniform".to_owned(),
        };
        let side = |r: &Router| format!("{} · {} nodes · version {}", algorithm(r), r.len(), r.version());
        out += &format!("simulate  {} keys, popularity {popularity}\n", thousands(args.keys));
        out += &format!("change    {}\n       →  {}", side(t.from()), side(t.to()));
        out += &if args.progress < 1.0 { format!(", at progress {}\n\n", args.progress) } else { "\n\n".into() };
        out += &format!(
            "moved: {} of keys, carrying {} of requests\n\n",
            pct2(moved.sums.moved_keys as f64 / args.keys as f64),
            pct2(misses_now)
        );
        out += &format!("  {:<34} {:>10} {:>14} {:>15}\n", "", "hits kept", "second reads", "backend misses");
        let rows = [
            ("right after the change", misses_now),
            (&*format!("over the next {} requests", thousands(requests)), window_misses),
        ];
        for (title, miss) in rows {
            out += &format!("  {title}\n");
            out +=
                &format!("    {:<32} {:>10} {:>14} {:>15}\n", "without dual reads", pct(1.0 - miss), "—", pct2(miss));
            out += &format!("    {:<32} {:>10} {:>14} {:>15}\n", "with dual reads", pct(1.0), pct2(miss), pct2(0.0));
        }
        out += "\nshares are of requests. A moved key misses once: its new owner is filled on the first miss;\n";
        out += "with dual reads that first read is served by the previous owner instead of the backend.\n";
        out
    };
    let stdout = io::stdout();
    let mut w = stdout.lock();
    w.write_all(text.as_bytes())?;
    w.flush()?;
    Ok(())
}

/// One chunk's sums and its total of `extra`.
type ChunkResult = Result<(Sums, f64)>;

/// What a sweep returns: the sums, and the total of `extra` over keys.
struct Swept {
    sums: Sums,
    extra: f64,
}

impl std::ops::Deref for Swept {
    type Target = Sums;
    fn deref(&self) -> &Sums {
        &self.sums
    }
}

/// Routes every key once, in parallel chunks summed in order; `extra(weight, moved)` adds a
/// per-key figure.
fn sweep(keys: u64, t: &Transition, s: f64, extra: impl Fn(f64, bool) -> f64 + Sync) -> Result<Swept> {
    let chunks = keys.div_ceil(CHUNK) as usize;
    let next = AtomicUsize::new(0);
    let bar = if io::stderr().is_terminal() && keys >= 2_000_000 {
        let bar = ProgressBar::new(keys);
        bar.set_style(
            ProgressStyle::with_template("{spinner} routing keys {bar:40} {human_pos}/{human_len} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(chunks).max(1);
    let results: Vec<Vec<(usize, ChunkResult)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    let mut key = Vec::with_capacity(32);
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c >= chunks {
                            break;
                        }
                        let (start, end) = (c as u64 * CHUNK + 1, ((c as u64 + 1) * CHUNK).min(keys));
                        done.push((c, chunk(t, s, start, end, &mut key, &extra)));
                        bar.inc(end + 1 - start);
                    }
                    done
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_default()).collect()
    });
    bar.finish_and_clear();
    let mut ordered: Vec<Option<ChunkResult>> = (0..chunks).map(|_| None).collect();
    for (c, r) in results.into_iter().flatten() {
        if let Some(slot) = ordered.get_mut(c) {
            *slot = Some(r);
        }
    }
    let mut total = Swept { sums: Sums::default(), extra: 0.0 };
    for r in ordered {
        let (s, e) = r.ok_or_else(|| CliError::new(ErrorCode::Internal, "a worker thread failed"))??;
        total.sums.weight += s.weight;
        total.sums.moved_weight += s.moved_weight;
        total.sums.moved_keys += s.moved_keys;
        total.extra += e;
    }
    Ok(total)
}

fn chunk(
    t: &Transition,
    s: f64,
    start: u64,
    end: u64,
    key: &mut Vec<u8>,
    extra: &impl Fn(f64, bool) -> f64,
) -> ChunkResult {
    let mut sums = Sums::default();
    let mut more = 0.0;
    for r in start..=end {
        key.clear();
        key.extend_from_slice(b"key:");
        let _ = write!(key, "{r}");
        let w = if s == 0.0 { 1.0 } else { f64::exp(-s * (r as f64).ln()) };
        let placed = t.route_with_fallback(key).map_err(|e| CliError::from_bindings(format_args!("key:{r}"), &e))?;
        let moved = placed.previous.is_some();
        sums.weight += w;
        if moved {
            sums.moved_weight += w;
            sums.moved_keys += 1;
        }
        more += extra(w, moved);
    }
    Ok((sums, more))
}
