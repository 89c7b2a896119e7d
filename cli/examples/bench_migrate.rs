//! The speed of `keyroute migrate`'s copy on loopback, against a naive copy measured in the
//! same run: one key at a time, a read then an add, each waiting for its reply (what a script
//! over a client library does). Run by `make bench-migrate` (scripts/bench-migrate.sh), which
//! installs the servers and builds this in release mode.
//!
//! For memcached and Redis: a source and a destination server, `KEYS` keys of `VALUE` bytes
//! on the source; each round copies every key to an emptied destination, the naive way and
//! with the migrator (pipelined batches, worker threads; `BATCH` and `CONCURRENCY` override
//! the defaults), alternately. Prints each median
//! (keys/s, MB/s), their ratio, and the share of the migrator's worker time spent in server
//! calls (writing requests and reading replies, against routing, pacing and bookkeeping).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

#[path = "../tests/common/servers.rs"]
mod servers;

use std::time::Instant;

use keyroute_fleet::Backend;
use keyroute_fleet::memcached::Memcached;
use keyroute_fleet::migrate::{self, Move, MovePlan, Options};
use keyroute_fleet::redis::Redis;
use servers::Server;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn load(backend: Backend, server: &Server, keys: &[Vec<u8>], value: &[u8]) {
    match backend {
        Backend::Memcached => {
            let items: Vec<(&[u8], &[u8])> = keys.iter().map(|k| (k.as_slice(), value)).collect();
            Memcached::connect(&server.addr()).unwrap().set_many(&items, 3600, 0).unwrap();
        }
        Backend::Redis => {
            let mut r = Redis::connect(&server.addr()).unwrap();
            let commands: Vec<Vec<&[u8]>> = keys.iter().map(|k| vec![&b"SET"[..], k, value, b"EX", b"3600"]).collect();
            for chunk in commands.chunks(256) {
                r.pipeline(chunk).unwrap();
            }
        }
    }
}

/// One key at a time: read it with its TTL, add it to the destination.
fn naive(backend: Backend, source: &Server, destination: &Server, keys: &[Vec<u8>]) -> (f64, u64) {
    let mut from = backend.connect(&source.addr()).unwrap();
    let mut to = backend.connect(&destination.addr()).unwrap();
    let start = Instant::now();
    let mut bytes = 0;
    for k in keys {
        if let Some(item) = from.fetch(&[k]).unwrap().pop().flatten() {
            bytes += item.value.len() as u64;
            to.add(&[(k, &item)]).unwrap();
        }
    }
    (start.elapsed().as_secs_f64(), bytes)
}

fn main() {
    let n = env_usize("KEYS", 50_000);
    // Not compressible: Redis compresses repetitive strings in its DUMP payloads.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let value: Vec<u8> = (0..env_usize("VALUE", 1000))
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b'a' + (state % 26) as u8
        })
        .collect();
    let rounds = env_usize("ROUNDS", 5);
    let keys: Vec<Vec<u8>> = (0..n).map(|i| format!("bench:{i}").into_bytes()).collect();
    println!("migrate bench: {n} keys of {} bytes, {rounds} rounds, medians", value.len());
    for backend in [Backend::Memcached, Backend::Redis] {
        let source = Server::start(backend);
        let mut destination = Server::start(backend);
        load(backend, &source, &keys, &value);
        let addrs = [source.addr(), destination.addr()];
        let plan = MovePlan {
            listed: n as u64,
            misplaced: 0,
            moves: vec![Move { from: 0, to: 1, keys: keys.iter().map(|k| (k.clone(), 0)).collect() }],
        };
        let (mut naive_rates, mut fast_rates, mut fast_mb, mut naive_mb, mut waiting) =
            (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..rounds {
            destination.kill();
            destination.restart();
            let (seconds, bytes) = naive(backend, &source, &destination, &keys);
            naive_rates.push(n as f64 / seconds);
            naive_mb.push(bytes as f64 / 1e6 / seconds);
            destination.kill();
            destination.restart();
            let options = Options {
                batch: env_usize("BATCH", Options::default().batch),
                concurrency: env_usize("CONCURRENCY", Options::default().concurrency),
                ..Options::default()
            };
            let report = migrate::run(backend, &addrs, &plan, &options, &|_| {}).unwrap();
            assert_eq!(report.copied, n as u64);
            fast_rates.push(n as f64 / report.seconds);
            fast_mb.push(report.bytes_copied as f64 / 1e6 / report.seconds);
            waiting.push(report.server_seconds / (report.seconds * options.concurrency as f64));
        }
        let (naive_rate, fast_rate) = (median(naive_rates), median(fast_rates));
        println!(
            "{:<9} naive get-then-add: {:>9.0} keys/s {:>7.1} MB/s | migrate (batch {}, {} workers): {:>9.0} keys/s {:>7.1} MB/s, {:.0}% of worker time in server calls | ratio {:.1}x",
            backend.name(),
            naive_rate,
            median(naive_mb),
            env_usize("BATCH", Options::default().batch),
            env_usize("CONCURRENCY", Options::default().concurrency),
            fast_rate,
            median(fast_mb),
            median(waiting) * 100.0,
            fast_rate / naive_rate
        );
    }
}
