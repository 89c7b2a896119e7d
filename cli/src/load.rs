//! `keyroute simulate` without `--to`: how a skewed workload loads the nodes of one topology, and
//! what bounded loads and hot-key read spreading change — each configuration replayed over the
//! same requests.
//!
//! Model:
//! - **Requests** come from a trace file (one key per line) or are drawn from a Zipf law over
//!   `key:1 … key:N` with a seeded generator, so a run is repeatable.
//! - **Concurrency**: `in_flight` requests are outstanding at once; each request holds its node
//!   from its arrival until `in_flight` later requests have arrived (a fixed service time in
//!   arrivals). Bounded loads place each arrival against these live loads.
//! - **Bounded loads** ([`BoundedLoad`](keyroute_bindings::core::BoundedLoad)): a key goes to
//!   the first node in its preference order whose load is below its capacity.
//! - **Hot-key spreading**: a streaming detector ([`HotKeys`], decayed by halves every
//!   [`DECAY_EVERY`] requests) marks a key hot once its share of recent traffic reaches
//!   `hot_share`; a hot key's read goes to one of its first `r` replicas at random
//!   (`Router::spread`), or, for routers without replicas, to one of `r` split keys `key#i`.
//!   With bounded loads as well, a hot key is split (each copy has its own preference order)
//!   and the copy's placement is bounded.
//! - **Caches**: each node keeps an LRU of `cache` keys; a request hits when its node holds the
//!   key (or the split copy), and misses fill it. Serving a key away from its home, or from
//!   several copies, costs hits: the hit rate shows how much.
//!
//! Figures per configuration: the busiest node's requests over its fair share across the whole
//! run (max/mean, weighted), the same per window of `window` requests (its 99th percentile and
//! maximum over windows), the share of requests served away from home (not by the key's
//! owner), and the hit rate.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use keyroute_bindings::core::{BoundedLoad, HotKeys, spread};
use keyroute_bindings::{Error, ErrorCode, Router};
use lru::LruCache;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use serde_json::json;

use crate::error::{CliError, Result};
use crate::input;
use crate::report::{algorithm, pct, pct2, thousands};

/// The detector's counters halve every this many requests, so "hot" means hot recently.
pub const DECAY_EVERY: u64 = 100_000;
/// The detector's sketch width and candidate table (about 185 KB; see the core's `HotKeys`).
const SKETCH_WIDTH: usize = 16_384;
const SKETCH_CANDIDATES: usize = 1_024;
/// Most requests one run may replay (each configuration keeps a per-window series).
pub const MAX_REQUESTS: u64 = 100_000_000;

/// What to replay and how.
#[derive(Debug)]
pub struct LoadArgs<'a> {
    pub topology: &'a Path,
    pub trace: Option<&'a Path>,
    pub keys: u64,
    pub zipf: f64,
    pub requests: u64,
    pub seed: u64,
    pub bounded: Option<f64>,
    pub hot_spread: Option<usize>,
    pub hot_share: f64,
    pub in_flight: usize,
    pub window: u64,
    pub cache: usize,
    pub plot: Option<&'a PathBuf>,
    pub json: bool,
}

/// One configuration: which remedies are on.
#[derive(Debug, Clone, Copy)]
struct Config {
    bounded: Option<f64>,
    spread: Option<usize>,
}

impl Config {
    fn label(&self) -> String {
        match (self.bounded, self.spread) {
            (None, None) => "plain".into(),
            (Some(c), None) => format!("bounded {c}"),
            (None, Some(r)) => format!("hot-spread {r}"),
            (Some(c), Some(r)) => format!("bounded {c} + hot-spread {r}"),
        }
    }
}

/// What one configuration measured.
#[derive(Debug, Clone)]
struct Outcome {
    label: String,
    /// Busiest node's requests over its fair share, over the whole run.
    max_over_mean: f64,
    /// Per window, the busiest node's requests over its fair share.
    windows: Vec<f64>,
    p99_window: f64,
    max_window: f64,
    away: f64,
    hit_rate: f64,
    hot_requests: f64,
    /// Whether hot-key spreading was on.
    spreads: bool,
    requests_per_node: Vec<u64>,
}

/// The requests of a run, each a key.
enum Requests {
    /// Zipf ranks: request `i` is the key `key:{rank}`.
    Zipf(Vec<u32>),
    /// Keys read from a trace.
    Trace(Vec<Box<[u8]>>),
}

impl Requests {
    fn len(&self) -> usize {
        match self {
            Self::Zipf(r) => r.len(),
            Self::Trace(k) => k.len(),
        }
    }

    /// Request `i`'s key, written into `buf`.
    fn key<'b>(&'b self, i: usize, buf: &'b mut Vec<u8>) -> &'b [u8] {
        match self {
            Self::Zipf(ranks) => {
                buf.clear();
                buf.extend_from_slice(b"key:");
                let _ = write!(buf, "{}", ranks[i]);
                buf
            }
            Self::Trace(keys) => &keys[i],
        }
    }
}

/// An option's value out of its range (exit status 2, as a usage error).
fn invalid(what: impl Into<String>) -> CliError {
    CliError::usage(ErrorCode::InvalidParameter, what)
}

pub fn run(args: &LoadArgs<'_>) -> Result<()> {
    if let Some(c) = args.bounded
        && !(1.0..=keyroute_bindings::core::MAX_BALANCE_FACTOR).contains(&c)
    {
        return Err(invalid(format!("--bounded {c}: the balance factor must be within [1, 1000]")));
    }
    if args.hot_spread == Some(0) {
        return Err(invalid("--hot-spread 0: spread hot keys over at least one copy"));
    }
    if !(args.hot_share > 0.0 && args.hot_share <= 1.0) {
        return Err(invalid(format!("--hot-share {}: a share must be within (0, 1]", args.hot_share)));
    }
    if args.in_flight == 0 || args.window == 0 || args.cache == 0 {
        return Err(invalid("--in-flight, --window and --cache must be at least 1"));
    }
    if args.requests == 0 || args.requests > MAX_REQUESTS {
        return Err(invalid(format!("--requests must be within 1..={MAX_REQUESTS}")));
    }
    let router = input::router(args.topology)?;
    let requests = match args.trace {
        Some(path) => read_trace(path, args.requests)?,
        None => zipf_requests(args)?,
    };
    let mut configs = vec![Config { bounded: None, spread: None }];
    if let Some(c) = args.bounded {
        configs.push(Config { bounded: Some(c), spread: None });
    }
    if let Some(r) = args.hot_spread {
        configs.push(Config { bounded: None, spread: Some(r) });
    }
    if let (Some(c), Some(r)) = (args.bounded, args.hot_spread) {
        configs.push(Config { bounded: Some(c), spread: Some(r) });
    }
    let outcomes = configs.iter().map(|c| replay(&router, &requests, *c, args)).collect::<Result<Vec<_>>>()?;
    if let Some(path) = args.plot {
        crate::plot::load_svg(&title(args, &router, &requests), args.window, &outcomes_for_plot(&outcomes), path)?;
    }
    let text = if args.json {
        json_report(args, &router, &requests, &outcomes)
    } else {
        text_report(args, &router, &requests, &outcomes)
    };
    let stdout = io::stdout();
    let mut w = stdout.lock();
    w.write_all(text.as_bytes())?;
    w.flush()?;
    Ok(())
}

/// Zipf ranks from a seeded generator.
fn zipf_requests(args: &LoadArgs<'_>) -> Result<Requests> {
    if args.keys == 0 || args.keys > u64::from(u32::MAX) {
        return Err(invalid(format!("--keys must be within 1..={}", u32::MAX)));
    }
    // A Zipf law of exponent 0 is uniform; rand_distr takes any exponent ≥ 0.
    let law = Zipf::new(args.keys as f64, args.zipf).map_err(|e| invalid(format!("--zipf {}: {e}", args.zipf)))?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let ranks = (0..args.requests).map(|_| law.sample(&mut rng) as u32).collect();
    Ok(Requests::Zipf(ranks))
}

/// At most `limit` keys of a trace file (`-` for stdin), one per line, under this run's line
/// limit.
fn read_trace(path: &Path, limit: u64) -> Result<Requests> {
    let source = input::key_source(path)?;
    let name = path.display().to_string();
    let keys =
        keyroute_cli::lines::read_keys(source, input::max_line_bytes(), keyroute_cli::lines::BLOCK, limit, &name)?;
    Ok(Requests::Trace(keys))
}

/// Replays every request under one configuration.
fn replay(router: &Router, requests: &Requests, config: Config, args: &LoadArgs<'_>) -> Result<Outcome> {
    let core = router.core();
    let nodes = router.len();
    let weights: Vec<f64> = core.topology().nodes().iter().map(|n| f64::from(n.weight())).collect();
    let total_weight: f64 = weights.iter().sum::<f64>().max(1.0);
    let bounded = match config.bounded {
        Some(c) => Some(BoundedLoad::new(core, c).map_err(|e| from_core("--bounded", e))?),
        None => None,
    };
    let mut detector = match config.spread {
        Some(_) => {
            Some(HotKeys::new(SKETCH_WIDTH, SKETCH_CANDIDATES).map_err(|e| from_core("the hot-key detector", e))?)
        }
        None => None,
    };
    // Split keys when the router keeps no replicas, or when bounded loads place the copies.
    let split = config.spread.is_some() && (bounded.is_some() || core.replicas(b"", &mut [0u32; 1]).is_err());
    if let Some(r) = config.spread
        && !split
        && r > core.topology().eligible()
    {
        return Err(invalid(format!(
            "--hot-spread {r}: more copies than the {} nodes that can hold a key",
            core.topology().eligible()
        )));
    }
    let mut rng = StdRng::seed_from_u64(args.seed ^ 0x9e37_79b9_7f4a_7c15);
    let capacity = NonZeroUsize::new(args.cache).unwrap_or(NonZeroUsize::MIN);
    let mut caches: Vec<LruCache<u64, ()>> = (0..nodes).map(|_| LruCache::new(capacity)).collect();
    let mut in_flight: VecDeque<u32> = VecDeque::with_capacity(args.in_flight);
    let mut per_node = vec![0u64; nodes];
    let mut window = vec![0u64; nodes];
    let mut windows = Vec::new();
    let (mut away, mut hits, mut hot) = (0u64, 0u64, 0u64);
    let mut buf = Vec::with_capacity(32);
    let n = requests.len();
    for i in 0..n {
        let key = requests.key(i, &mut buf);
        let owner = router.route(key).map_err(|e| CliError::from_bindings("routing", &e))?;
        // A hot key's split copy, or where spreading sent it.
        let mut copy: Option<Vec<u8>> = None;
        let mut node = None;
        if let (Some(r), Some(d)) = (config.spread, detector.as_mut()) {
            d.observe(key).map_err(|e| from_core("the hot-key detector", e))?;
            if (i as u64 + 1).is_multiple_of(DECAY_EVERY) {
                d.decay();
            }
            if d.is_hot_share(key, args.hot_share) {
                hot += 1;
                let selector = rng.next_u64();
                if split {
                    let index = spread::split_index(r, selector).map_err(|e| from_core("--hot-spread", e))?;
                    copy = Some(spread::split_key(key, index).map_err(|e| from_core("--hot-spread", e))?);
                } else {
                    node =
                        Some(router.spread(key, r, selector).map_err(|e| CliError::from_bindings("--hot-spread", &e))?);
                }
            }
        }
        // The key the request is placed and cached under.
        let placed_key = copy.as_deref().unwrap_or(key);
        let node = match (&bounded, node) {
            (Some(b), _) => {
                if in_flight.len() == args.in_flight
                    && let Some(done) = in_flight.pop_front()
                {
                    b.release(done).map_err(|e| from_core("releasing a load", e))?;
                }
                let pick = b.acquire_raw(placed_key).map_err(|e| from_core("--bounded", e))?;
                in_flight.push_back(pick.node);
                pick.node
            }
            (None, Some(node)) => node,
            (None, None) if copy.is_some() => {
                router.route(placed_key).map_err(|e| CliError::from_bindings("routing", &e))?
            }
            (None, None) => owner,
        };
        let slot = node as usize;
        if node != owner {
            away += 1;
        }
        per_node[slot] += 1;
        window[slot] += 1;
        let cache_key = keyroute_bindings::core::hash::xxh3_64(placed_key);
        if caches[slot].get(&cache_key).is_some() {
            hits += 1;
        } else {
            caches[slot].put(cache_key, ());
        }
        if (i as u64 + 1).is_multiple_of(args.window) || i + 1 == n {
            windows.push(busiest(&window, &weights, total_weight));
            window.iter_mut().for_each(|c| *c = 0);
        }
    }
    let mut sorted = windows.clone();
    sorted.sort_by(f64::total_cmp);
    let p99 = sorted.get(((sorted.len() as f64 * 0.99).ceil() as usize).saturating_sub(1)).copied().unwrap_or(0.0);
    let requests_total = n.max(1) as f64;
    Ok(Outcome {
        label: config.label(),
        max_over_mean: busiest(&per_node, &weights, total_weight),
        p99_window: p99,
        max_window: sorted.last().copied().unwrap_or(0.0),
        windows,
        away: away as f64 / requests_total,
        hit_rate: hits as f64 / requests_total,
        hot_requests: hot as f64 / requests_total,
        spreads: config.spread.is_some(),
        requests_per_node: per_node,
    })
}

fn from_core(what: &str, e: keyroute_bindings::core::Error) -> CliError {
    CliError::from_bindings(what, &Error::from(e))
}

/// The busiest node's count over its fair share (`count × W / (w × total)`); nodes of weight 0
/// get no fair share and are left out.
fn busiest(counts: &[u64], weights: &[f64], total_weight: f64) -> f64 {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return 0.0;
    }
    counts
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(&c, &w)| c as f64 / (total as f64 * w / total_weight))
        .fold(0.0, f64::max)
}

fn source(args: &LoadArgs<'_>, requests: &Requests) -> String {
    match args.trace {
        Some(path) => format!("{} requests from {}", thousands(requests.len() as u64), path.display()),
        None => format!(
            "{} requests over {} keys, Zipf s = {} (seed {})",
            thousands(requests.len() as u64),
            thousands(args.keys),
            args.zipf,
            args.seed
        ),
    }
}

fn title(args: &LoadArgs<'_>, router: &Router, requests: &Requests) -> String {
    format!("{} · {} nodes ({})", source(args, requests), router.len(), algorithm(router))
}

fn outcomes_for_plot(outcomes: &[Outcome]) -> Vec<(String, Vec<f64>)> {
    outcomes.iter().map(|o| (format!("{}: p99 window {:.2}", o.label, o.p99_window), o.windows.clone())).collect()
}

/// A row of the text report: its name and how to print a configuration's figure.
type Row<'a> = (&'a str, &'a dyn Fn(&Outcome) -> String);

fn text_report(args: &LoadArgs<'_>, router: &Router, requests: &Requests, outcomes: &[Outcome]) -> String {
    let mut out = format!("simulate  {}\n", source(args, requests));
    out += &format!(
        "topology  {} · {} nodes · version {}\nmodel     {} requests in flight, windows of {}, an LRU of {} keys per node",
        algorithm(router),
        router.len(),
        router.version(),
        args.in_flight,
        thousands(args.window),
        thousands(args.cache as u64),
    );
    if args.hot_spread.is_some() {
        out += &format!(", hot = {} of recent requests", pct2(args.hot_share));
    }
    out += "\n\n";
    let widths: Vec<usize> = outcomes.iter().map(|o| o.label.chars().count().max(8)).collect();
    out += &format!("  {:<22}", "");
    for (o, width) in outcomes.iter().zip(&widths) {
        out += &format!("  {:>width$}", o.label);
    }
    out += "\n";
    let rows: [Row<'_>; 6] = [
        ("busiest node / fair", &|o| format!("{:.2}", o.max_over_mean)),
        ("  per window, p99", &|o| format!("{:.2}", o.p99_window)),
        ("  per window, max", &|o| format!("{:.2}", o.max_window)),
        ("served away from home", &|o| pct2(o.away)),
        ("hot-key requests", &|o| if o.spreads { pct2(o.hot_requests) } else { "—".into() }),
        ("cache hit rate", &|o| pct(o.hit_rate)),
    ];
    for (name, f) in rows {
        out += &format!("  {name:<22}");
        for (o, width) in outcomes.iter().zip(&widths) {
            out += &format!("  {:>width$}", f(o));
        }
        out += "\n";
    }
    out += "\nbusiest node / fair: the most loaded node's requests over its fair share (weight / total);\n";
    out += "1.00 is perfect balance. Away from home: requests not served by the key's owner.\n";
    if let Some(path) = args.plot {
        out += &format!("plot: {}\n", path.display());
    }
    out
}

fn json_report(args: &LoadArgs<'_>, router: &Router, requests: &Requests, outcomes: &[Outcome]) -> String {
    let configs: Vec<_> = outcomes
        .iter()
        .map(|o| {
            json!({
                "label": o.label,
                "busiest_over_fair": o.max_over_mean,
                "window_busiest_over_fair": {"p99": o.p99_window, "max": o.max_window},
                "away_from_home": o.away,
                "hot_requests": o.hot_requests,
                "hit_rate": o.hit_rate,
                "requests_per_node": router_counts(router, &o.requests_per_node),
            })
        })
        .collect();
    format!(
        "{:#}\n",
        json!({
            "requests": requests.len(),
            "trace": args.trace.map(|p| p.display().to_string()),
            "keys": if args.trace.is_some() { None } else { Some(args.keys) },
            "zipf": if args.trace.is_some() { None } else { Some(args.zipf) },
            "seed": args.seed,
            "nodes": router.len(),
            "version": router.version(),
            "in_flight": args.in_flight,
            "window": args.window,
            "cache_per_node": args.cache,
            "hot_share": args.hot_share,
            "configurations": configs,
        })
    )
}

fn router_counts(router: &Router, counts: &[u64]) -> serde_json::Map<String, serde_json::Value> {
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (router.node_id(i as u32).unwrap_or_default().to_owned(), json!(c)))
        .collect()
}
