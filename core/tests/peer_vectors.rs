//! The Rust runner for the real-peer vectors: every file in `conformance/vectors/v1/` whose
//! `provenance.kind` is `"peer"` is built into the matching `keyroute::presets` router from its
//! `spec`, and every case must route to the node the real peer chose (and, where recorded, to
//! the same Redis slot). A missing or empty corpus fails; so does a spec this runner cannot
//! translate, so a newly captured peer cannot be skipped silently.
//!
//! `cargo test -p keyroute --test peer_vectors -- --nocapture` prints a line per file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use keyroute::presets::{
    self, GuavaKey, HashTagRule, LibmemcachedDistribution, LibmemcachedHash, LibmemcachedOptions, MemcachedServer,
    NpmHashringOptions, PymemcacheOptions, RedisClusterOptions, RedisNode, SpymemcachedHash, SpymemcachedNodeKey,
    SpymemcachedOptions, TwemproxyHash, TwemproxyOptions, UhashringOptions,
};
use keyroute::{Node, Router, Topology, redis_slot};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct VectorFile {
    id: String,
    provenance: Provenance,
    spec: Spec,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Provenance {
    #[serde(default)]
    peer: String,
    #[serde(default)]
    version: String,
}

#[derive(Deserialize)]
struct Spec {
    algorithm: String,
    #[serde(default)]
    params: Value,
    nodes: Vec<NodeSpec>,
}

#[derive(Deserialize)]
struct NodeSpec {
    id: String,
    host: Option<String>,
    port: Option<u16>,
    weight: Option<u32>,
    name: Option<String>,
    zone: Option<String>,
    slots: Option<Vec<(u16, u16)>>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    key: Option<String>,
    key_hex: Option<String>,
    node: Option<String>,
    slot: Option<u32>,
    replicas: Option<Vec<String>>,
    error: Option<String>,
}

/// A router built from a spec, with the slot rule to check `slot` against (Redis specs only).
struct Built {
    router: Router,
    slot_rule: Option<HashTagRule>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/v1")
}

fn param<'a>(spec: &'a Spec, name: &str) -> Option<&'a Value> {
    spec.params.get(name).filter(|v| !v.is_null())
}

fn param_str<'a>(spec: &'a Spec, name: &str) -> Option<&'a str> {
    param(spec, name).map(|v| v.as_str().unwrap_or_else(|| panic!("param {name} is not a string: {v}")))
}

fn param_u64(spec: &Spec, name: &str) -> Option<u64> {
    param(spec, name).map(|v| v.as_u64().unwrap_or_else(|| panic!("param {name} is not an integer: {v}")))
}

fn param_bool(spec: &Spec, name: &str) -> Option<bool> {
    param(spec, name).map(|v| v.as_bool().unwrap_or_else(|| panic!("param {name} is not a boolean: {v}")))
}

/// The nodes as a topology (id, weight, zone).
fn topology(spec: &Spec) -> Topology {
    let nodes: Vec<Node> = spec
        .nodes
        .iter()
        .map(|n| {
            let node = Node::new(&n.id).with_weight(n.weight.unwrap_or(1));
            match &n.zone {
                Some(z) => node.with_zone(z),
                None => node,
            }
        })
        .collect();
    Topology::new(nodes).expect("valid topology")
}

/// The nodes as memcached servers (host, port, weight, optional name).
fn servers(spec: &Spec) -> Vec<MemcachedServer<'_>> {
    spec.nodes
        .iter()
        .map(|n| {
            let host = n.host.as_deref().unwrap_or_else(|| panic!("node {} has no host", n.id));
            let port = n.port.unwrap_or_else(|| panic!("node {} has no port", n.id));
            let server = MemcachedServer::new(&n.id, host, port).with_weight(n.weight.unwrap_or(1));
            match n.name.as_deref() {
                Some(name) => server.with_name(name),
                None => server,
            }
        })
        .collect()
}

fn libmemcached(spec: &Spec) -> Router {
    let distribution = match param_str(spec, "distribution").expect("distribution") {
        "ketama" => LibmemcachedDistribution::Ketama,
        "ketama_weighted" => LibmemcachedDistribution::KetamaWeighted,
        "ketama_spy" => LibmemcachedDistribution::KetamaSpy,
        other => panic!("libmemcached distribution {other}"),
    };
    let hash = match param_str(spec, "hash").unwrap_or("one_at_a_time") {
        "one_at_a_time" | "default" => LibmemcachedHash::OneAtATime,
        "md5" => LibmemcachedHash::Md5,
        "crc" => LibmemcachedHash::Crc,
        "fnv1_64" => LibmemcachedHash::Fnv1_64,
        "fnv1a_64" => LibmemcachedHash::Fnv1a64,
        "fnv1_32" => LibmemcachedHash::Fnv1_32,
        "fnv1a_32" => LibmemcachedHash::Fnv1a32,
        "hsieh" => LibmemcachedHash::Hsieh,
        "murmur" => LibmemcachedHash::Murmur,
        "jenkins" => LibmemcachedHash::Jenkins,
        other => panic!("libmemcached hash {other}"),
    };
    let weighted = param_bool(spec, "weighted").expect("weighted");
    presets::libmemcached(&servers(spec), LibmemcachedOptions { distribution, hash, weighted }).expect("libmemcached")
}

fn spymemcached(spec: &Spec) -> Router {
    let format = match param_str(spec, "format").unwrap_or("spymemcached") {
        "spymemcached" => SpymemcachedNodeKey::Spymemcached,
        "libmemcached" => SpymemcachedNodeKey::Libmemcached,
        other => panic!("spymemcached format {other}"),
    };
    let hash = match param_str(spec, "hash").unwrap_or("ketama") {
        "ketama" => SpymemcachedHash::Ketama,
        "native" => SpymemcachedHash::Native,
        "crc" => SpymemcachedHash::Crc,
        "fnv1_64" => SpymemcachedHash::Fnv1_64,
        "fnv1a_64" => SpymemcachedHash::Fnv1a64,
        "fnv1_32" => SpymemcachedHash::Fnv1_32,
        "fnv1a_32" => SpymemcachedHash::Fnv1a32,
        other => panic!("spymemcached hash {other}"),
    };
    let weighted = param_bool(spec, "weighted").unwrap_or(false);
    presets::spymemcached(&servers(spec), SpymemcachedOptions { format, hash, weighted }).expect("spymemcached")
}

fn uhashring(spec: &Spec) -> Router {
    let options = match param_str(spec, "mode").unwrap_or("default") {
        "ketama" => UhashringOptions::Ketama {
            vnodes: param_u64(spec, "vnodes").unwrap_or(40) as u32,
            replicas: param_u64(spec, "replicas").unwrap_or(4) as u8,
        },
        "default" => UhashringOptions::Meta { vnodes: param_u64(spec, "vnodes").unwrap_or(160) as u32 },
        other => panic!("uhashring mode {other}"),
    };
    presets::uhashring(topology(spec), options).expect("uhashring")
}

fn npm_hashring(spec: &Spec) -> Router {
    let options = NpmHashringOptions {
        vnode_count: param_u64(spec, "vnode_count").unwrap_or(40) as u32,
        replicas: param_u64(spec, "replicas").unwrap_or(4) as u8,
        default_port: param_u64(spec, "default_port").map(|p| p as u32),
    };
    presets::npm_hashring(topology(spec), options).expect("npm hashring")
}

fn twemproxy(spec: &Spec) -> Router {
    let hash = match param_str(spec, "hash").unwrap_or("fnv1a_64") {
        "one_at_a_time" => TwemproxyHash::OneAtATime,
        "md5" => TwemproxyHash::Md5,
        "crc16" => TwemproxyHash::Crc16,
        "crc32" => TwemproxyHash::Crc32,
        "crc32a" => TwemproxyHash::Crc32a,
        "fnv1_64" => TwemproxyHash::Fnv1_64,
        "fnv1a_64" => TwemproxyHash::Fnv1a64,
        "fnv1_32" => TwemproxyHash::Fnv1_32,
        "fnv1a_32" => TwemproxyHash::Fnv1a32,
        "hsieh" => TwemproxyHash::Hsieh,
        "murmur" => TwemproxyHash::Murmur,
        "jenkins" => TwemproxyHash::Jenkins,
        other => panic!("twemproxy hash {other}"),
    };
    let hash_tag = param_str(spec, "hash_tag")
        .map(|t| <[u8; 2]>::try_from(t.as_bytes()).unwrap_or_else(|_| panic!("hash_tag {t:?} is not two bytes")));
    presets::twemproxy(&servers(spec), TwemproxyOptions { hash, hash_tag }).expect("twemproxy")
}

fn guava(spec: &Spec) -> Router {
    let key = match param_str(spec, "key_hash").expect("key_hash") {
        "u64be" => GuavaKey::U64Be,
        "murmur3_128" => GuavaKey::Murmur3_128,
        other => panic!("guava key_hash {other}"),
    };
    presets::guava(topology(spec), key).expect("guava")
}

fn jump(spec: &Spec) -> Router {
    match param_str(spec, "key_hash").unwrap_or("xxh3") {
        "u64be" => presets::jump(topology(spec)).expect("jump"),
        other => panic!("jump key_hash {other} is not a peer preset"),
    }
}

/// The slot rule of a Redis Cluster capture. Files captured from the npm `cluster-key-slot`
/// package record that package's own rule (it differs from redis-server on `foo{}{bar}`), so
/// they are routed with [`HashTagRule::ClusterKeySlot`]; an explicit `tag_rule` param wins.
fn redis_tag_rule(file: &VectorFile) -> HashTagRule {
    match param_str(&file.spec, "tag_rule") {
        Some("redis") => HashTagRule::Redis,
        Some("cluster-key-slot") => HashTagRule::ClusterKeySlot,
        Some(other) => panic!("redis-cluster tag_rule {other}"),
        None if file.provenance.peer == "cluster-key-slot" => HashTagRule::ClusterKeySlot,
        None => HashTagRule::Redis,
    }
}

fn redis_cluster(file: &VectorFile, tag_rule: HashTagRule) -> Router {
    let nodes: Vec<RedisNode<'_>> = file
        .spec
        .nodes
        .iter()
        .map(|n| RedisNode {
            id: &n.id,
            slots: n.slots.as_deref().unwrap_or_else(|| panic!("node {} has no slots", n.id)),
        })
        .collect();
    presets::redis_cluster(&nodes, RedisClusterOptions { tag_rule }).expect("redis cluster")
}

fn build(file: &VectorFile) -> Built {
    let spec = &file.spec;
    let router = match spec.algorithm.as_str() {
        "libmemcached" => libmemcached(spec),
        "spymemcached" => spymemcached(spec),
        "uhashring" => uhashring(spec),
        "npm-hashring" => npm_hashring(spec),
        "python-hash-ring" => presets::python_hash_ring(topology(spec)).expect("python hash_ring"),
        "nginx" => presets::nginx(topology(spec)).expect("nginx"),
        "twemproxy" => twemproxy(spec),
        "guava" => guava(spec),
        "jump" => jump(spec),
        "pymemcache-rendezvous" => presets::pymemcache_rendezvous(
            topology(spec),
            PymemcacheOptions { seed: param_u64(spec, "seed").unwrap_or(0) as u32 },
        )
        .expect("pymemcache"),
        "redis-cluster" => {
            let rule = redis_tag_rule(file);
            return Built { router: redis_cluster(file, rule), slot_rule: Some(rule) };
        }
        other => panic!("{}: no preset for algorithm {other:?}", file.id),
    };
    Built { router, slot_rule: None }
}

fn unhex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

fn case_key(case: &Case) -> Vec<u8> {
    match (&case.key, &case.key_hex) {
        (Some(k), None) => k.clone().into_bytes(),
        (None, Some(h)) => unhex(h),
        _ => panic!("case {} needs exactly one of key and key_hex", case.id),
    }
}

/// Routes every case; returns the number that matched and the first few mismatches.
fn run(file: &VectorFile) -> (usize, Vec<String>) {
    let built = build(file);
    let ids: Vec<&str> = file.spec.nodes.iter().map(|n| n.id.as_str()).collect();
    let mut matched = 0;
    let mut failures = Vec::new();
    for case in &file.cases {
        let key = case_key(case);
        let mut problems = Vec::new();
        match (&case.error, built.router.route(&key)) {
            (Some(_), Ok(got)) => problems.push(format!("routed to {} but an error was expected", ids[got as usize])),
            (Some(_), Err(_)) => {}
            (None, Err(e)) => problems.push(format!("error {e}")),
            (None, Ok(got)) => {
                let got_id = ids[got as usize];
                if let Some(want) = &case.node
                    && want != got_id
                {
                    problems.push(format!("node {got_id}, peer said {want}"));
                }
            }
        }
        if let Some(want) = case.slot {
            let rule = built.slot_rule.unwrap_or_else(|| panic!("{}: slot on a non-Redis spec", file.id));
            let got = match rule {
                HashTagRule::Redis => redis_slot(&key),
                other => other.slot(&key),
            };
            if got != want {
                problems.push(format!("slot {got}, peer said {want}"));
            }
        }
        if let Some(want) = &case.replicas {
            let mut out = vec![0u32; want.len()];
            match built.router.replicas(&key, &mut out) {
                Ok(()) => {
                    let got: Vec<&str> = out.iter().map(|&i| ids[i as usize]).collect();
                    if got != *want {
                        problems.push(format!("replicas {got:?}, peer said {want:?}"));
                    }
                }
                Err(e) => problems.push(format!("replicas error {e}")),
            }
        }
        if problems.is_empty() {
            matched += 1;
        } else if failures.len() < 10 {
            failures.push(format!("  {} {}: {}", file.id, case.id, problems.join("; ")));
        }
    }
    (matched, failures)
}

#[test]
fn every_peer_vector_file_routes_like_its_peer() {
    let dir = corpus_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the vector corpus {} is missing: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();

    let mut per_peer: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut files = 0;
    let mut total_cases = 0;
    let mut failures = Vec::new();
    println!("{:<48} {:>9}  peer", "file", "matched");
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable vector file");
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        // Native (generator) files have their own runner; only peer captures are read here.
        if value.pointer("/provenance/kind").and_then(Value::as_str) != Some("peer") {
            continue;
        }
        let file: VectorFile =
            serde_json::from_value(value).unwrap_or_else(|e| panic!("{}: not a peer vector file: {e}", path.display()));
        assert!(!file.cases.is_empty(), "{}: a peer vector file with no cases", file.id);
        let (matched, mut bad) = run(&file);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        println!(
            "{name:<48} {:>9}  {} {}",
            format!("{matched}/{}", file.cases.len()),
            file.provenance.peer,
            file.provenance.version.split(' ').next().unwrap_or("")
        );
        let entry = per_peer.entry(file.spec.algorithm.clone()).or_default();
        entry.0 += matched;
        entry.1 += file.cases.len();
        files += 1;
        total_cases += file.cases.len();
        failures.append(&mut bad);
    }
    println!();
    for (algorithm, (matched, cases)) in &per_peer {
        println!("{algorithm:<24} {matched}/{cases}");
    }
    println!("{files} peer files, {total_cases} cases");

    assert!(files > 0, "no peer vector files in {}", dir.display());
    assert!(failures.is_empty(), "cases that differ from the real peer:\n{}", failures.join("\n"));
}
