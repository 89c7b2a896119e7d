//! The 3 → 4 node cache incident, replayed with real servers: a cache of 3 nodes, keys with
//! TTLs written through keyroute, Zipf reads, then a fourth node added four ways (modulo; a
//! ring with no migration; a ring with `keyroute migrate` before the switch; a ring rolled out
//! in five steps with `keyroute migrate --step` before each). Readers are cache-aside: a miss
//! is a database read, and the value is written back to the node that missed.
//!
//! `make incident` runs it at full size (100,000 keys, 200,000 reads per scenario) and writes
//! the table and the plot the README shows; `cargo test` runs it small, with the shape of the
//! result checked (about 75% and 25% of the keys lost for modulo and a plain ring, none with a
//! migration). Sizes and the output folder come from `KEYROUTE_INCIDENT_KEYS`,
//! `KEYROUTE_INCIDENT_READS` and `KEYROUTE_INCIDENT_OUT`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

#[path = "common/servers.rs"]
mod servers;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use keyroute_bindings::{Router, Transition};
use keyroute_fleet::Backend;
use keyroute_fleet::memcached::Memcached;
use keyroute_fleet::redis::{Redis, Reply};
use plotters::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, Zipf};
use serde_json::{Value, json};
use servers::{Server, named_spec};

/// TTL of every key: long enough to outlive the replay.
const TTL_S: u64 = 3600;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A client of one node, either kind.
enum Client {
    Memcached(Memcached),
    Redis(Redis),
}

impl Client {
    fn get(&mut self, key: &[u8]) -> bool {
        match self {
            Self::Memcached(m) => m.get(key).unwrap().is_some(),
            Self::Redis(r) => matches!(r.command(&[b"GET", key]).unwrap(), Reply::Bulk(Some(_))),
        }
    }

    fn set_many(&mut self, items: &[(&[u8], &[u8])]) {
        match self {
            Self::Memcached(m) => m.set_many(items, TTL_S, 0).unwrap(),
            Self::Redis(r) => {
                let ttl = TTL_S.to_string();
                let commands: Vec<Vec<&[u8]>> =
                    items.iter().map(|(k, v)| vec![&b"SET"[..], k, v, b"EX", ttl.as_bytes()]).collect();
                for chunk in commands.chunks(256) {
                    assert!(r.pipeline(chunk).unwrap().iter().all(|x| *x == Reply::Status(b"OK".to_vec())));
                }
            }
        }
    }
}

struct Scenario {
    name: &'static str,
    from: &'static str,
    /// Rollout steps (1: switch at once); before each, a migration (or none).
    steps: usize,
    migrate: bool,
}

const SCENARIOS: [Scenario; 4] = [
    Scenario { name: "modulo, 3 → 4", from: "modulo", steps: 1, migrate: false },
    Scenario { name: "ring, no migration", from: "ring", steps: 1, migrate: false },
    Scenario { name: "ring, migrate first", from: "ring", steps: 1, migrate: true },
    Scenario { name: "ring, 5 steps, migrate before each", from: "ring", steps: 5, migrate: true },
];

/// One scenario's figures.
struct Outcome {
    name: &'static str,
    hit_before: f64,
    /// Hit rate over the first window of reads after the (first) switch.
    hit_first: f64,
    /// Share of the keys read after the switch whose first read missed: the keys lost.
    lost: f64,
    /// Hit rate over every read after the switch.
    hit_after: f64,
    /// Database reads after the switch.
    misses: u64,
    bytes_moved: u64,
    keys_moved: u64,
    migrate_seconds: f64,
    /// Hit rate per window of reads after the switch.
    windows: Vec<f64>,
}

struct Replay {
    backend: Backend,
    keys: usize,
    reads: usize,
    ranks: Vec<usize>,
    dir: PathBuf,
}

impl Replay {
    fn new(backend: Backend, keys: usize, reads: usize) -> Self {
        let law = Zipf::new(keys as f64, 1.0).unwrap();
        let mut rng = StdRng::seed_from_u64(24);
        // Before the switch and after it: two runs of `reads`.
        let ranks = (0..2 * reads).map(|_| law.sample(&mut rng) as usize - 1).collect();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("keyroute-incident-{}", backend.name()));
        std::fs::create_dir_all(&dir).unwrap();
        Self { backend, keys, reads, ranks, dir }
    }

    fn key(i: usize) -> Vec<u8> {
        format!("user:{i}").into_bytes()
    }

    fn run(&self, scenario: &Scenario) -> Outcome {
        let servers: Vec<Server> = (0..4).map(|_| Server::start(self.backend)).collect();
        let refs: Vec<&Server> = servers.iter().collect();
        let (ja, jb) = (named_spec(scenario.from, &refs[..3]), named_spec(scenario.from, &refs));
        let (a, b) = (Router::from_json(&ja).unwrap(), Router::from_json(&jb).unwrap());
        let slug = scenario.name.split(',').next().unwrap_or("x").replace(' ', "-");
        let (pa, pb) =
            (self.dir.join(format!("{slug}-{}-a.json", scenario.steps)), self.dir.join(format!("{slug}-b.json")));
        std::fs::write(&pa, &ja).unwrap();
        std::fs::write(&pb, &jb).unwrap();
        let mut clients: Vec<(String, Client)> = servers
            .iter()
            .zip(b'a'..)
            .map(|(s, c)| {
                let client = match self.backend {
                    Backend::Memcached => Client::Memcached(Memcached::connect(&s.addr()).unwrap()),
                    Backend::Redis => Client::Redis(Redis::connect(&s.addr()).unwrap()),
                };
                (format!("cache-{}", char::from(c)), client)
            })
            .collect();

        // Every key written through A, 100 bytes each (not compressible: Redis compresses
        // repetitive values in its DUMP payloads).
        let keys: Vec<Vec<u8>> = (0..self.keys).map(Self::key).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut noise = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            b'a' + (state >> 59) as u8
        };
        let values: Vec<Vec<u8>> = (0..self.keys).map(|_| (0..100).map(|_| noise()).collect()).collect();
        for (id, client) in &mut clients {
            let mine: Vec<(&[u8], &[u8])> = keys
                .iter()
                .zip(&values)
                .filter(|(k, _)| a.route_id(k).unwrap() == id)
                .map(|(k, v)| (k.as_slice(), v.as_slice()))
                .collect();
            client.set_many(&mine);
        }
        let (before, after) = self.ranks.split_at(self.reads);
        // Reads route through the transition A → B: progress 0 is A exactly, 1 is B exactly.
        let view_a = Transition::new(a.clone(), b.clone(), 0.0).unwrap();
        let mut seen = vec![false; self.keys];
        let hit_before =
            read(&mut clients, &view_a, before, &values, self.window(), &mut seen).hits as f64 / before.len() as f64;
        seen.fill(false);
        let (mut first_reads, mut lost) = (0, 0);

        let mut windows = Vec::new();
        let (mut misses, mut reads_after, mut bytes, mut moved, mut seconds) = (0, 0, 0, 0, 0.0);
        let per_step = after.len() / scenario.steps;
        for step in 0..scenario.steps {
            let (p0, p1) = (step as f64 / scenario.steps as f64, (step + 1) as f64 / scenario.steps as f64);
            if scenario.migrate {
                let mut args = vec!["migrate".to_owned(), path(&pa), path(&pb), "--json".into(), "--backend".into()];
                args.push(self.backend.name().into());
                if scenario.steps > 1 {
                    args.extend(["--step".into(), format!("{p0}:{p1}")]);
                }
                let started = Instant::now();
                let out = Command::new(env!("CARGO_BIN_EXE_keyroute")).args(&args).output().unwrap();
                seconds += started.elapsed().as_secs_f64();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                let r: Value = serde_json::from_slice(&out.stdout).unwrap();
                bytes += r["bytes_copied"].as_u64().unwrap();
                moved += r["copied"].as_u64().unwrap();
            }
            let view = Transition::new(a.clone(), b.clone(), p1).unwrap();
            let reads = after.get(step * per_step..(step + 1) * per_step).unwrap();
            let r = read(&mut clients, &view, reads, &values, self.window(), &mut seen);
            misses += reads.len() as u64 - r.hits;
            reads_after += reads.len();
            first_reads += r.first_reads;
            lost += r.lost;
            windows.extend(r.windows);
        }
        let hit_after = 1.0 - misses as f64 / reads_after as f64;
        Outcome {
            name: scenario.name,
            hit_before,
            hit_first: windows.first().copied().unwrap_or(0.0),
            lost: lost as f64 / first_reads as f64,
            hit_after,
            misses,
            bytes_moved: bytes,
            keys_moved: moved,
            migrate_seconds: seconds,
            windows,
        }
    }

    /// Reads per window of the hit-rate series.
    fn window(&self) -> usize {
        (self.reads / 50).max(1)
    }
}

fn path(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

/// What a run of reads found.
#[derive(Default)]
struct Reads {
    hits: u64,
    /// Hit rate per window.
    windows: Vec<f64>,
    /// Keys read for the first time in this run (`first`).
    first_reads: u64,
    /// Of those, the ones that missed: keys the cache had lost.
    lost: u64,
}

/// Cache-aside reads of `ranks`. A miss writes the value back to the owner that missed (the
/// database read). `seen` marks the keys read since the switch.
fn read(
    clients: &mut [(String, Client)],
    view: &Transition,
    ranks: &[usize],
    values: &[Vec<u8>],
    window: usize,
    seen: &mut [bool],
) -> Reads {
    let mut r = Reads::default();
    let mut in_window = 0u64;
    for (i, &rank) in ranks.iter().enumerate() {
        let key = Replay::key(rank);
        let owner = view.route_id(&key).unwrap().to_owned();
        let client = &mut clients.iter_mut().find(|(id, _)| *id == owner).unwrap().1;
        let hit = client.get(&key);
        if !seen[rank] {
            seen[rank] = true;
            r.first_reads += 1;
            r.lost += u64::from(!hit);
        }
        if hit {
            r.hits += 1;
            in_window += 1;
        } else {
            client.set_many(&[(&key, &values[rank])]);
        }
        if (i + 1) % window == 0 {
            r.windows.push(in_window as f64 / window as f64);
            in_window = 0;
        }
    }
    r
}

fn replay(backend: Backend, keys: usize, reads: usize) -> Vec<Outcome> {
    let r = Replay::new(backend, keys, reads);
    SCENARIOS.iter().map(|s| r.run(s)).collect()
}

fn table(backend: Backend, keys: usize, reads: usize, outcomes: &[Outcome]) -> String {
    let mut out = format!(
        "{} — {} keys written with 3 nodes, {} Zipf(1.0) reads before and after adding the 4th\n\n",
        backend.name(),
        keys,
        reads
    );
    out.push_str("| scenario | hit rate before | keys lost | hit rate, first reads after | all reads after | database reads | keys moved | bytes moved | migrate time |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for o in outcomes {
        let _ = writeln!(
            out,
            "| {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {} | {} | {:.1} MB | {:.2} s |",
            o.name,
            o.hit_before * 100.0,
            o.lost * 100.0,
            o.hit_first * 100.0,
            o.hit_after * 100.0,
            o.misses,
            o.keys_moved,
            o.bytes_moved as f64 / 1e6,
            o.migrate_seconds
        );
    }
    out
}

fn plot(outcomes: &[Outcome], window: usize, title: &str, file: &Path) {
    let root = SVGBackend::new(file, (900, 460)).into_drawing_area();
    root.fill(&WHITE).unwrap();
    let n = outcomes.iter().map(|o| o.windows.len()).max().unwrap_or(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..n as f64, 0f64..1.05)
        .unwrap();
    chart
        .configure_mesh()
        .x_desc(format!("reads after adding the node (hit rate per {window} reads)"))
        .x_label_formatter(&|x| format!("{:.0}k", x * window as f64 / 1000.0))
        .y_desc("hit rate")
        .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
        .draw()
        .unwrap();
    let colours = [RGBColor(214, 39, 40), RGBColor(255, 127, 14), RGBColor(31, 119, 180), RGBColor(44, 160, 44)];
    // The two migrated lines coincide at 100%: the first is drawn wide, under the second.
    for ((o, colour), width) in outcomes.iter().zip(colours).zip([2, 2, 7, 2]) {
        let style = ShapeStyle::from(&colour).stroke_width(width);
        chart
            .draw_series(LineSeries::new(o.windows.iter().enumerate().map(|(i, &h)| (i as f64 + 0.5, h)), style))
            .unwrap()
            .label(o.name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .unwrap();
    root.present().unwrap();
}

#[test]
fn the_incident_replayed_on_memcached_and_redis() {
    let keys = env_usize("KEYROUTE_INCIDENT_KEYS", 4000);
    let reads = env_usize("KEYROUTE_INCIDENT_READS", 8000);
    let mut report = String::new();
    let mut all = serde_json::Map::new();
    for backend in [Backend::Memcached, Backend::Redis] {
        let outcomes = replay(backend, keys, reads);
        report.push_str(&table(backend, keys, reads, &outcomes));
        report.push('\n');
        let [modulo, ring, migrated, stepped] = &outcomes[..] else { panic!("four scenarios") };
        // Nothing is lost before the switch (no evictions, no expiry).
        assert!(outcomes.iter().all(|o| o.hit_before > 0.999), "{report}");
        // The incident's shape: modulo loses about 3/4 of the keys, a ring about
        // 1/4; a migration loses none.
        assert!(modulo.lost > 0.65 && modulo.lost < 0.85, "{report}");
        assert!(ring.lost > 0.15 && ring.lost < 0.35, "{report}");
        assert!(modulo.hit_first < ring.hit_first, "{report}");
        assert!(migrated.hit_after > 0.999 && stepped.hit_after > 0.999, "{report}");
        assert!(migrated.misses == 0 && stepped.misses == 0, "{report}");
        // The five steps together move what the one migration moves.
        assert_eq!(migrated.keys_moved, stepped.keys_moved, "{report}");
        assert!(modulo.misses > ring.misses, "{report}");
        all.insert(
            backend.name().into(),
            json!(outcomes.iter().map(|o| json!({
                "scenario": o.name, "hit_before": o.hit_before, "keys_lost": o.lost, "hit_first": o.hit_first, "hit_after": o.hit_after,
                "misses": o.misses, "keys_moved": o.keys_moved, "bytes_moved": o.bytes_moved,
                "migrate_seconds": o.migrate_seconds, "windows": o.windows,
            })).collect::<Vec<_>>()),
        );
        if let Ok(out) = std::env::var("KEYROUTE_INCIDENT_OUT") {
            std::fs::create_dir_all(&out).unwrap();
            let title = format!("{}: hit rate after adding a 4th node to 3 ({} keys)", backend.name(), keys);
            let file = Path::new(&out).join(format!("incident-{}.svg", backend.name()));
            plot(&outcomes, (reads / 50).max(1), &title, &file);
        }
    }
    println!("{report}");
    if let Ok(out) = std::env::var("KEYROUTE_INCIDENT_OUT") {
        std::fs::write(Path::new(&out).join("incident.md"), &report).unwrap();
        std::fs::write(Path::new(&out).join("incident.json"), format!("{:#}\n", Value::Object(all))).unwrap();
    }
}
