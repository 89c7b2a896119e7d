//! `keyroute audit` and `keyroute migrate` against real memcached and redis-server processes on
//! 127.0.0.1, with the faults of a real migration: the migrator killed with SIGKILL and run
//! again, the destination killed mid-run, clients writing during the run, keys expiring,
//! 1 MB values, binary keys, and keys that the old view would not place where they are.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

#[path = "common/servers.rs"]
mod servers;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use keyroute_bindings::Router;
use keyroute_fleet::audit::Inventory;
use keyroute_fleet::memcached::Memcached;
use keyroute_fleet::migrate::{self, MovePlan, Options};
use keyroute_fleet::redis::{Redis, Reply};
use keyroute_fleet::{Backend, Cache, Encoding};
use serde_json::Value;
use servers::{Server, spec};

fn keyroute(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyroute")).args(args).stdin(Stdio::null()).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-fleet-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// A fleet of memcached servers and the views A (the first `a` servers) and B (all of them).
struct Fleet {
    servers: Vec<Server>,
    a: Router,
    b: Router,
    a_path: PathBuf,
    b_path: PathBuf,
}

impl Fleet {
    fn new(backend: Backend, name: &str, a: usize, b: usize) -> Self {
        let servers: Vec<Server> = (0..b).map(|_| Server::start(backend)).collect();
        let refs: Vec<&Server> = servers.iter().collect();
        let (ja, jb) = (spec("ring", &refs[..a]), spec("ring", &refs));
        Self {
            a: Router::from_json(&ja).unwrap(),
            b: Router::from_json(&jb).unwrap(),
            a_path: scratch(&format!("{name}-a.json"), &ja),
            b_path: scratch(&format!("{name}-b.json"), &jb),
            servers,
        }
    }

    fn server(&self, id: &str) -> &Server {
        self.servers.iter().find(|s| s.id() == id).unwrap()
    }

    fn mc(&self, id: &str) -> Memcached {
        Memcached::connect(&self.server(id).addr()).unwrap()
    }

    fn cache(&self, id: &str) -> Box<dyn Cache> {
        let server = self.server(id);
        server.backend.connect(&server.addr()).unwrap()
    }

    fn a_owner(&self, key: &[u8]) -> String {
        self.a.route_id(key).unwrap().to_owned()
    }

    fn b_owner(&self, key: &[u8]) -> String {
        self.b.route_id(key).unwrap().to_owned()
    }

    fn moved(&self, keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
        keys.iter().filter(|k| self.a_owner(k) != self.b_owner(k)).cloned().collect()
    }

    /// Writes each key to its owner under A (memcached), with a TTL and flags.
    fn write_memcached(&self, keys: &[Vec<u8>], value: impl Fn(&[u8]) -> Vec<u8>, ttl: u64, flags: u32) {
        for k in keys {
            self.mc(&self.a_owner(k)).set(k, &value(k), ttl, flags).unwrap();
        }
    }
}

fn keys(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("{prefix}:{i}").into_bytes()).collect()
}

fn value_of(key: &[u8]) -> Vec<u8> {
    [b"value of ".as_slice(), key].concat()
}

#[test]
fn audit_counts_misplaced_keys_and_infers_the_writers_ring() {
    let fleet = Fleet::new(Backend::Memcached, "audit", 3, 3);
    let ks = keys("user", 1500);
    fleet.write_memcached(&ks, value_of, 600, 0);
    let clean = keyroute(&["audit", s(&fleet.a_path), "--json"]);
    assert_eq!(clean.status.code(), Some(0), "{}", String::from_utf8_lossy(&clean.stderr));
    let v = json_of(&clean);
    assert_eq!((v["keys"].as_u64(), v["misplaced"].as_u64()), (Some(1500), Some(0)));

    // 7 keys written where the ring would not put them, one of them binary.
    let mut stray: Vec<Vec<u8>> = keys("stray", 6);
    stray.push(b"bin\x00\xff key".to_vec());
    for k in &stray {
        let owner = fleet.a_owner(k);
        let other = fleet.servers.iter().map(Server::id).find(|id| *id != owner).unwrap();
        fleet.mc(&other).set(k, b"x", 600, 0).unwrap();
    }
    let out = keyroute(&["audit", s(&fleet.a_path), "--json", "--samples", "10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("7 of 1,507 keys are not where"), "{out:?}");
    let v = json_of(&out);
    assert_eq!(v["misplaced"].as_u64(), Some(7));
    let samples: Vec<String> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["samples"].as_array().unwrap().iter().map(|s| s["key"].as_str().unwrap().to_owned()))
        .collect();
    assert!(samples.contains(&"bin%00%FF%20key".to_owned()), "{samples:?}");

    // Written with modulo: --infer ranks modulo first, with every key placed.
    let modulo_fleet = Fleet::new(Backend::Memcached, "infer", 3, 3);
    let refs: Vec<&Server> = modulo_fleet.servers.iter().collect();
    let modulo = Router::from_json(&spec("modulo", &refs)).unwrap();
    for k in &ks {
        modulo_fleet.mc(modulo.route_id(k).unwrap()).set(k, b"v", 600, 0).unwrap();
    }
    let out = keyroute(&["audit", s(&modulo_fleet.a_path), "--infer", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["candidates"][0]["candidate"], "modulo");
    assert_eq!(v["candidates"][0]["share"].as_f64(), Some(1.0));
    let ring = v["candidates"].as_array().unwrap().iter().find(|c| c["candidate"] == "ring").unwrap();
    assert!(ring["share"].as_f64().unwrap() < 0.6, "{ring}");
}

#[test]
fn addresses_come_from_fields_ids_or_options() {
    let server = Server::start(Backend::Memcached);
    let spec = format!(
        r#"{{"algorithm": "ring", "nodes": [{{"id": "cache-a", "host": "127.0.0.1", "port": {}}}]}}"#,
        server.port
    );
    let path = scratch("fields.json", &spec);
    assert_eq!(keyroute(&["audit", s(&path)]).status.code(), Some(0));
    let bare = scratch("bare.json", r#"{"algorithm": "ring", "nodes": [{"id": "cache-a"}]}"#);
    let out = keyroute(&["audit", s(&bare)]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error invalid_spec (code 2)") && err.contains("--addr cache-a=HOST:PORT"), "{err}");
    let addr = format!("cache-a=127.0.0.1:{}", server.port);
    assert_eq!(keyroute(&["audit", s(&bare), "--addr", &addr]).status.code(), Some(0));
    let out = keyroute(&["audit", s(&bare), "--addr", "cache-a=127.0.0.1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error invalid_argument (code 26)"));
    // Nothing listens there: an I/O error naming the node.
    drop(server);
    let out = keyroute(&["audit", s(&bare), "--addr", &addr]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error io (code 23)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("node cache-a (127.0.0.1:"));
}

#[test]
fn memcached_migration_copies_exactly_the_moved_keys() {
    let fleet = Fleet::new(Backend::Memcached, "mc", 3, 4);
    let mut ks = keys("item", 3000);
    ks.extend([b"bin\x00\x01\xfe".to_vec(), b"sp ace".to_vec(), "caf\u{e9}".as_bytes().to_vec()]);
    fleet.write_memcached(&ks, value_of, 3600, 7);
    let moved = fleet.moved(&ks);
    // Two 1 MB values among the moved keys.
    let big: Vec<Vec<u8>> =
        keys("big", 40).into_iter().filter(|k| fleet.a_owner(k) != fleet.b_owner(k)).take(2).collect();
    assert_eq!(big.len(), 2);
    fleet.write_memcached(&big, |_| vec![b'z'; 1 << 20], 3600, 1);
    // Keys that expire before the run reads them.
    let short: Vec<Vec<u8>> = keys("short", 60).into_iter().filter(|k| fleet.a_owner(k) != fleet.b_owner(k)).collect();
    fleet.write_memcached(&short, value_of, 1, 0);
    // Clients already on B wrote some moved keys on their new owner: their values must win.
    let clients: Vec<Vec<u8>> = moved.iter().step_by(50).cloned().collect();
    for k in &clients {
        fleet.mc(&fleet.b_owner(k)).set(k, b"written by a client", 3600, 9).unwrap();
    }
    // Keys A would not place where they are: left alone.
    let stray = keys("stray", 10);
    for k in &stray {
        let wrong = fleet.servers.iter().take(3).map(Server::id).find(|id| *id != fleet.a_owner(k)).unwrap();
        fleet.mc(&wrong).set(k, b"stray", 3600, 0).unwrap();
    }
    // memcached's clock ticks once a second: a 1 s TTL ends within 2 s of the write.
    std::thread::sleep(Duration::from_millis(2500));

    let dry = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--dry-run", "--json"]);
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    let d = json_of(&dry);
    // memcached's metadump leaves out expired items.
    let expected_moved = (moved.len() + big.len()) as u64;
    assert_eq!(d["moved"].as_u64(), Some(expected_moved));
    assert_eq!(d["copied"].as_u64(), Some(0));
    assert!(d["listed_bytes"].as_u64().unwrap() > 2 << 20, "{d}");
    assert!(fleet.mc(&fleet.b_owner(&moved[1])).get(&moved[1]).unwrap().is_none(), "a dry run copied");

    let report = scratch("mc-report.json", "");
    let out =
        keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--json", "--report", s(&report), "--batch", "64"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    assert_eq!(r, serde_json::from_str::<Value>(&std::fs::read_to_string(&report).unwrap()).unwrap());
    assert_eq!(r["moved"].as_u64(), Some(expected_moved));
    assert_eq!(r["misplaced_left_alone"].as_u64(), Some(10));
    assert_eq!(r["expired"].as_u64(), Some(0));
    assert_eq!(r["already_present"].as_u64(), Some(clients.len() as u64));
    assert_eq!(r["copied"].as_u64(), Some(expected_moved - clients.len() as u64));
    assert_eq!(r["missing"].as_u64(), Some(0));
    // Every key A places where it is, checked against the plan's moved pieces of the hash space.
    assert_eq!(r["plan_check"]["checked"].as_u64(), Some(r["listed"].as_u64().unwrap() - 10), "{r}");
    assert_eq!(r["plan_check"]["disagree"].as_u64(), Some(0));
    let plan = r["plan_moved_share"].as_f64().unwrap();
    assert!((r["moved_share"].as_f64().unwrap() - plan).abs() < 0.05, "{r}");

    for k in moved.iter().chain(&big) {
        let got = fleet.cache(&fleet.b_owner(k)).fetch(&[k]).unwrap().pop().unwrap().unwrap();
        if clients.contains(k) {
            assert_eq!((got.value.as_slice(), got.flags), (&b"written by a client"[..], 9));
        } else if big.contains(k) {
            assert_eq!((got.value.len(), got.flags), (1 << 20, 1));
        } else {
            assert_eq!((got.value, got.flags), (value_of(k), 7), "{k:?}");
        }
        let ttl = got.ttl_ms.unwrap();
        assert!(ttl <= 3_600_000 && ttl > 3_000_000, "{ttl}");
    }
    for k in &short {
        assert!(fleet.mc(&fleet.b_owner(k)).get(k).unwrap().is_none(), "an expired key was revived");
    }
    for k in &stray {
        let b_owner = fleet.b_owner(k);
        if fleet.a_owner(k) != b_owner {
            assert!(fleet.mc(&b_owner).get(k).unwrap().is_none(), "a stray key was copied");
        }
    }
    // The old copies are still there without --delete-old; with it, they go (the key just
    // read is one memcached's `metadump all` would have missed: its LRU bump is pending).
    let k = &moved[1];
    assert!(fleet.mc(&fleet.a_owner(k)).get(k).unwrap().is_some());
    let out = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--json", "--delete-old"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    assert_eq!(r["copied"].as_u64(), Some(0));
    assert_eq!(r["deleted"].as_u64(), r["verified"].as_u64(), "{r}");
    let left: Vec<_> = moved.iter().filter(|k| fleet.mc(&fleet.a_owner(k)).get(k).unwrap().is_some()).collect();
    assert!(left.is_empty(), "{} old copies left: {r}", left.len());
    // The delete compares the CAS value: a value a client wrote after the read is kept.
    let mut old = fleet.cache(&fleet.a_owner(k));
    fleet.mc(&fleet.a_owner(k)).set(k, b"read", 60, 0).unwrap();
    let item = old.fetch(&[k]).unwrap().pop().unwrap().unwrap();
    fleet.mc(&fleet.a_owner(k)).set(k, b"written after the read", 60, 0).unwrap();
    assert_eq!(old.delete(&[(k, &item)]).unwrap(), [false]);
    assert_eq!(fleet.mc(&fleet.a_owner(k)).get(k).unwrap().as_deref(), Some(&b"written after the read"[..]));
    assert!(fleet.mc(&fleet.b_owner(k)).get(k).unwrap().is_some());
}

/// Starts a slow migration (rate-limited), for a fault to hit mid-run.
fn slow_migration(fleet: &Fleet) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_keyroute"))
        .args(["migrate", s(&fleet.a_path), s(&fleet.b_path), "--json", "--ops-per-sec", "1500", "--batch", "50"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until some moved keys are on their new owner (the run is under way).
fn wait_for_copies(fleet: &Fleet, moved: &[Vec<u8>]) {
    for _ in 0..500 {
        let on_b = moved.iter().take(400).filter(|k| fleet.mc(&fleet.b_owner(k)).get(k).unwrap().is_some()).count();
        if on_b > 20 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the migration copied nothing");
}

#[test]
fn a_migrator_killed_mid_run_resumes_on_a_rerun() {
    let fleet = Fleet::new(Backend::Memcached, "sigkill", 3, 4);
    let ks = keys("k", 8000);
    fleet.write_memcached(&ks, value_of, 3600, 3);
    let moved = fleet.moved(&ks);
    let mut child = slow_migration(&fleet);
    wait_for_copies(&fleet, &moved);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let copied_before = moved.iter().filter(|k| fleet.mc(&fleet.b_owner(k)).get(k).unwrap().is_some()).count();
    assert!(copied_before > 0 && copied_before < moved.len(), "{copied_before} of {}", moved.len());
    // A client rewrites one copied key on its new owner meanwhile: the rerun must keep it.
    let copied = moved.iter().find(|k| fleet.mc(&fleet.b_owner(k)).get(k).unwrap().is_some()).unwrap();
    fleet.mc(&fleet.b_owner(copied)).set(copied, b"newer", 3600, 0).unwrap();

    let out = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    assert_eq!(r["moved"].as_u64(), Some(moved.len() as u64));
    assert_eq!(r["already_present"].as_u64(), Some(copied_before as u64));
    assert_eq!(r["copied"].as_u64(), Some((moved.len() - copied_before) as u64));
    for k in &moved {
        let got = fleet.mc(&fleet.b_owner(k)).get(k).unwrap().unwrap();
        assert_eq!(got, if k == copied { b"newer".to_vec() } else { value_of(k) });
    }
}

#[test]
fn a_destination_killed_mid_run_is_named_and_the_run_resumes() {
    let mut fleet = Fleet::new(Backend::Memcached, "dstkill", 3, 4);
    let ks = keys("d", 8000);
    fleet.write_memcached(&ks, value_of, 3600, 0);
    let moved = fleet.moved(&ks);
    let new = fleet.servers[3].id();
    let child = slow_migration(&fleet);
    wait_for_copies(&fleet, &moved);
    fleet.servers[3].kill();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error io (code 23)") && err.contains(&format!("node {new} ({new})")), "{err}");

    fleet.servers[3].restart();
    let out = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json_of(&out)["moved"].as_u64(), Some(moved.len() as u64));
    for k in &moved {
        assert_eq!(fleet.mc(&fleet.b_owner(k)).get(k).unwrap(), Some(value_of(k)));
    }
}

#[test]
fn redis_migration_keeps_ttls_and_never_overwrites() {
    let fleet = Fleet::new(Backend::Redis, "redis", 3, 4);
    let ks = keys("r", 2000);
    let set = |k: &[u8], v: &[u8], ms: &str| {
        let mut r = Redis::connect(&fleet.server(&fleet.a_owner(k)).addr()).unwrap();
        assert_eq!(r.command(&[b"SET", k, v, b"PX", ms.as_bytes()]).unwrap(), Reply::Status(b"OK".to_vec()));
    };
    for k in &ks {
        set(k, &value_of(k), "3600000");
    }
    let moved = fleet.moved(&ks);
    // A hash, to show that DUMP/RESTORE carries any type.
    let hash_key = moved[0].clone();
    let mut r = Redis::connect(&fleet.server(&fleet.a_owner(&hash_key)).addr()).unwrap();
    r.command(&[b"DEL", &hash_key]).unwrap();
    r.command(&[b"HSET", &hash_key, b"f", b"v"]).unwrap();
    let short: Vec<Vec<u8>> = keys("short", 40).into_iter().filter(|k| fleet.a_owner(k) != fleet.b_owner(k)).collect();
    for k in &short {
        set(k, b"soon gone", "300");
    }
    let client = moved[5].clone();
    let mut on_b = Redis::connect(&fleet.server(&fleet.b_owner(&client)).addr()).unwrap();
    on_b.command(&[b"SET", &client, b"client value"]).unwrap();
    std::thread::sleep(Duration::from_millis(400));

    let dry = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--backend", "redis", "--dry-run", "--json"]);
    let d = json_of(&dry);
    // Sizes from MEMORY USAGE: more than the values themselves.
    let values: usize = moved.iter().map(|k| value_of(k).len()).sum();
    assert!(d["listed_bytes"].as_u64().unwrap() > values as u64, "{d}");
    assert_eq!((d["moved"].as_u64(), d["copied"].as_u64()), (Some(moved.len() as u64), Some(0)));

    let out = keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--backend", "redis", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    // SCAN leaves out expired keys.
    assert_eq!((r["moved"].as_u64(), r["expired"].as_u64()), (Some(moved.len() as u64), Some(0)));
    assert_eq!((r["already_present"].as_u64(), r["missing"].as_u64()), (Some(1), Some(0)));
    for k in &moved {
        let mut b = Redis::connect(&fleet.server(&fleet.b_owner(k)).addr()).unwrap();
        let ttl = match b.command(&[b"PTTL", k]).unwrap() {
            Reply::Int(t) => t,
            other => panic!("{other:?}"),
        };
        if *k == client {
            assert_eq!(ttl, -1);
            assert_eq!(b.command(&[b"GET", k]).unwrap(), Reply::Bulk(Some(b"client value".to_vec())));
        } else if *k == hash_key {
            assert_eq!(b.command(&[b"HGET", k, b"f"]).unwrap(), Reply::Bulk(Some(b"v".to_vec())));
        } else {
            assert!(ttl > 3_000_000 && ttl <= 3_600_000, "{ttl}");
            assert_eq!(b.command(&[b"GET", k]).unwrap(), Reply::Bulk(Some(value_of(k))));
        }
    }
    for k in &short {
        let mut b = Redis::connect(&fleet.server(&fleet.b_owner(k)).addr()).unwrap();
        assert_eq!(b.command(&[b"EXISTS", k]).unwrap(), Reply::Int(0), "an expired key was revived");
    }
    let audit = keyroute(&["audit", s(&fleet.b_path), "--backend", "redis", "--json"]);
    // Every moved key's old copy is still on A's nodes, which B routes elsewhere.
    assert_eq!(audit.status.code(), Some(1));
    assert_eq!(json_of(&audit)["misplaced"].as_u64(), Some(moved.len() as u64));

    // Deleting the old copies, then B's nodes hold every key where B places it.
    let out =
        keyroute(&["migrate", s(&fleet.a_path), s(&fleet.b_path), "--backend", "redis", "--json", "--delete-old"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    assert_eq!((r["copied"].as_u64(), r["deleted"].as_u64()), (Some(0), Some(moved.len() as u64)));
    let audit = keyroute(&["audit", s(&fleet.b_path), "--backend", "redis"]);
    assert_eq!(audit.status.code(), Some(0), "{}", String::from_utf8_lossy(&audit.stdout));
    // The delete compares what was read (a string's value, another type's DUMP payload): a
    // value a client wrote after the read is kept, as is a key that has become another type.
    let changed = moved[7].clone();
    let mut old = Redis::connect(&fleet.server(&fleet.a_owner(&changed)).addr()).unwrap();
    old.command(&[b"SET", &changed, b"read"]).unwrap();
    let item = fleet.cache(&fleet.a_owner(&changed)).fetch(&[&changed]).unwrap().pop().unwrap().unwrap();
    old.command(&[b"SET", &changed, b"written after the read"]).unwrap();
    assert_eq!(fleet.cache(&fleet.a_owner(&changed)).delete(&[(&changed, &item)]).unwrap(), [false]);
    assert_eq!(old.command(&[b"GET", &changed]).unwrap(), Reply::Bulk(Some(b"written after the read".to_vec())));
    old.command(&[b"DEL", &changed]).unwrap();
    old.command(&[b"HSET", &changed, b"f", b"read"]).unwrap();
    assert_eq!(fleet.cache(&fleet.a_owner(&changed)).delete(&[(&changed, &item)]).unwrap(), [false]);
    assert_eq!(old.command(&[b"HGET", &changed, b"f"]).unwrap(), Reply::Bulk(Some(b"read".to_vec())));
    old.command(&[b"DEL", &changed]).unwrap();
    old.command(&[b"SET", &changed, b"read"]).unwrap();
    assert_eq!(fleet.cache(&fleet.a_owner(&changed)).delete(&[(&changed, &item)]).unwrap(), [true]);
    // A hash is read as its DUMP payload and deleted only while that is unchanged.
    old.command(&[b"HSET", &changed, b"f", b"v"]).unwrap();
    let item = fleet.cache(&fleet.a_owner(&changed)).fetch(&[&changed]).unwrap().pop().unwrap().unwrap();
    assert_eq!(item.encoding, Encoding::Dump);
    old.command(&[b"HSET", &changed, b"g", b"w"]).unwrap();
    assert_eq!(fleet.cache(&fleet.a_owner(&changed)).delete(&[(&changed, &item)]).unwrap(), [false]);
    old.command(&[b"HDEL", &changed, b"g"]).unwrap();
    assert_eq!(fleet.cache(&fleet.a_owner(&changed)).delete(&[(&changed, &item)]).unwrap(), [true]);
}

/// Keys listed, then expired before the copy reads them: counted as expired, never revived.
fn expiring_mid_run(backend: Backend, write: impl Fn(&Fleet, &[u8], u64)) {
    let fleet = Fleet::new(backend, &format!("mid-{}", backend.name()), 2, 3);
    let ks = keys("m", 600);
    let moved = fleet.moved(&ks);
    let (short, long) = moved.split_at(moved.len() / 2);
    for k in &ks {
        write(&fleet, k, if short.contains(k) { 3 } else { 3600 });
    }
    let addrs: Vec<_> = fleet.servers.iter().map(Server::addr).collect();
    let inventory = Inventory::list(backend, &addrs[..2], false).unwrap();
    let plan = MovePlan::new(&inventory, &fleet.a, &fleet.b, &addrs).unwrap();
    assert_eq!(plan.moved(), moved.len() as u64);
    // memcached's clock ticks once a second: a 3 s TTL ends within 4 s of the write.
    std::thread::sleep(Duration::from_millis(4100));
    let report = migrate::run(backend, &addrs, &plan, &Options::default(), &|_| {}).unwrap();
    assert_eq!((report.expired, report.copied), (short.len() as u64, long.len() as u64));
    for k in short {
        assert_eq!(fleet.cache(&fleet.b_owner(k)).exists(&[k]).unwrap(), [false], "revived");
    }
    for k in long {
        assert_eq!(fleet.cache(&fleet.b_owner(k)).exists(&[k]).unwrap(), [true]);
    }
}

#[test]
fn keys_expiring_mid_run_are_not_revived() {
    expiring_mid_run(Backend::Memcached, |f, k, ttl| f.mc(&f.a_owner(k)).set(k, b"v", ttl, 0).unwrap());
    expiring_mid_run(Backend::Redis, |f, k, ttl| {
        let mut r = Redis::connect(&f.server(&f.a_owner(k)).addr()).unwrap();
        r.command(&[b"SET", k, b"v", b"EX", ttl.to_string().as_bytes()]).unwrap();
    });
}

#[test]
fn clients_writing_during_a_migration_win() {
    let fleet = Fleet::new(Backend::Memcached, "concurrent", 3, 4);
    let ks = keys("c", 6000);
    fleet.write_memcached(&ks, value_of, 3600, 0);
    let moved = fleet.moved(&ks);
    let child = slow_migration(&fleet);
    // A client already on B rewrites every third moved key on its new owner while the copy
    // runs, from the last key back, so some writes come before the copy and some after.
    let written: Vec<Vec<u8>> = moved.iter().rev().step_by(3).cloned().collect();
    for k in &written {
        fleet.mc(&fleet.b_owner(k)).set(k, b"client", 3600, 5).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json_of(&out);
    assert!(r["already_present"].as_u64().unwrap() > 0, "no client write came before its copy: {r}");
    for k in &moved {
        let got = fleet.cache(&fleet.b_owner(k)).fetch(&[k]).unwrap().pop().unwrap().unwrap();
        if written.contains(k) {
            assert_eq!((got.value.as_slice(), got.flags), (&b"client"[..], 5));
        } else {
            assert_eq!(got.value, value_of(k));
        }
    }
}

#[test]
fn memcached_keys_up_to_the_protocol_limits() {
    let server = Server::start(Backend::Memcached);
    let mut mc = Memcached::connect(&server.addr()).unwrap();
    // UTF-8 text travels as it is, up to memcached's 250 bytes; a key with a space travels
    // base64-encoded, which fits memcached's key token up to 186 bytes.
    let text = "caf\u{e9}".repeat(50).into_bytes();
    let spaced = [b"a key with spaces ".as_slice(), &[b'x'; 168]].concat();
    for key in [&text, &spaced] {
        mc.set(key, b"v", 60, 0).unwrap();
        assert_eq!(mc.get(key).unwrap().as_deref(), Some(&b"v"[..]), "{} bytes", key.len());
    }
    let listed = mc.list(false).unwrap();
    assert!(listed.iter().any(|l| l.key == text) && listed.iter().any(|l| l.key == spaced));
    let too_long = [spaced.as_slice(), b"y"].concat();
    let e = mc.fetch(&[b"fine", &too_long]).unwrap_err();
    assert_eq!(e.code(), keyroute_bindings::ErrorCode::Io);
    assert!(e.message().contains("(187 bytes) cannot be sent"), "{e:?}");
    // Refused before anything was written: the connection is still in step.
    assert_eq!(mc.get(&text).unwrap().as_deref(), Some(&b"v"[..]));
}

/// memcached runs one crawl at a time, and answers a dump asked for during another with `BUSY`
/// (ARCHITECTURE.md, "Listing memcached"): four audits of one server at once each list every key.
#[test]
fn audits_of_one_server_at_once_each_list_every_key() {
    let server = Server::start(Backend::Memcached);
    let ks = keys("crawl", 20_000);
    let items: Vec<(&[u8], &[u8])> = ks.iter().map(|k| (k.as_slice(), b"v".as_slice())).collect();
    Memcached::connect(&server.addr()).unwrap().set_many(&items, 600, 0).unwrap();
    let start = std::sync::Barrier::new(4);
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let lists: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let mut mc = Memcached::connect(&server.addr()).unwrap();
                    start.wait();
                    mc.list(false).unwrap().len()
                })
            })
            .collect();
        lists.into_iter().map(|l| l.join().unwrap()).collect()
    });
    assert_eq!(counts, [20_000; 4]);
}
