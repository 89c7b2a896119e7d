//! The real `keyroute` binary, driven as an operator would: good files, stdin streams, and
//! bad input (malformed JSON, empty topologies, duplicate ids, huge weights), which must give
//! one line naming the error code and exit status 2, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use keyroute_bindings::Router;
use serde_json::Value;

const THREE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/3-nodes.json");
const FOUR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/4-nodes.json");
const FIVE_TOML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/5-nodes.toml");

fn keyroute(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_keyroute"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = keyroute(args, stdin);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A file in this test binary's scratch directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Runs a command that must fail on bad input: status 2, one stderr line naming `code`.
fn fails(args: &[&str], stdin: &[u8], code: &str) -> String {
    let out = keyroute(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("keyroute: error ") && err.contains(code), "{args:?}: wanted {code}: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    err
}

fn router(path: &str) -> Router {
    Router::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn route_from_arguments_and_stdin_agrees_with_the_library() {
    let four = router(FOUR);
    let keys: Vec<String> = (0..2000).map(|i| format!("user:{i}")).collect();
    let stdin = keys.join("\n") + "\n";
    let streamed = ok(&["route", "-t", FOUR], stdin.as_bytes());
    let lines: Vec<&str> = streamed.lines().collect();
    assert_eq!(lines.len(), keys.len());
    for (line, key) in lines.iter().zip(&keys) {
        assert_eq!(*line, format!("{key}\t{}", four.route_id(key.as_bytes()).unwrap()));
    }
    let args = ok(&["route", "-t", FOUR, "user:1", "user:2"], b"");
    assert_eq!(args, lines[1..3].join("\n") + "\n");
}

#[test]
fn route_lines_crlf_empty_and_unterminated() {
    let out = ok(&["route", "-t", FOUR], b"a\r\n\nlast");
    let four = router(FOUR);
    let want: String =
        ["a", "", "last"].iter().map(|k| format!("{k}\t{}\n", four.route_id(k.as_bytes()).unwrap())).collect();
    assert_eq!(out, want);
    assert_eq!(ok(&["route", "-t", FOUR], b""), "");
}

#[test]
fn route_replicas_and_json() {
    let four = router(FOUR);
    let mut want = [0u32; 3];
    four.replicas(b"user:42", &mut want).unwrap();
    let ids: Vec<&str> = want.iter().map(|&i| four.node_id(i).unwrap()).collect();
    assert_eq!(ok(&["route", "-t", FOUR, "--replicas", "3", "user:42"], b""), format!("user:42\t{}\n", ids.join("\t")));
    let json: Value =
        serde_json::from_str(&ok(&["route", "-t", FOUR, "--json", "--replicas", "3", "user:42"], b"")).unwrap();
    assert_eq!(json["key"], "user:42");
    assert_eq!(json["replicas"], serde_json::json!(ids));
    let line = ok(&["route", "-t", FOUR, "--json"], b"\xff\xfe\n\"quoted\"\n");
    let rows: Vec<Value> = line.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[0]["key_hex"], "fffe");
    assert_eq!(rows[1]["key"], "\"quoted\"");
    assert_eq!(rows[1]["node"], four.route_id(b"\"quoted\"").unwrap());
    fails(&["route", "-t", FOUR, "--replicas", "5", "k"], b"", "replicas_exceed_nodes (code 11)");
}

#[test]
fn toml_specs_route_like_their_json() {
    let json = scratch(
        "five.json",
        r#"{"algorithm":"ring","params":{"points_per_weight":160},"version":1,
            "nodes":[{"id":"cache-0"},{"id":"cache-1"},{"id":"cache-2"},{"id":"cache-3"},{"id":"cache-4"}]}"#,
    );
    let keys = "a\nb\nc\nd\ne\nf\n";
    assert_eq!(
        ok(&["route", "-t", FIVE_TOML], keys.as_bytes()),
        ok(&["route", "-t", json.to_str().unwrap()], keys.as_bytes())
    );
}

#[test]
fn plan_reports_the_exact_diff() {
    let text = ok(&["plan", THREE, FOUR], b"");
    assert!(text.contains("method: exact"), "{text}");
    assert!(text.contains("fingerprint") && text.contains("version 7") && text.contains("version 8"), "{text}");
    let json: Value = serde_json::from_str(&ok(&["plan", THREE, FOUR, "--json"], b"")).unwrap();
    let d = keyroute_bindings::core::analysis::diff(router(THREE).core(), router(FOUR).core()).unwrap();
    assert_eq!(json["moved"].as_f64().unwrap(), d.moved);
    assert_eq!(json["method"], "exact");
    assert_eq!(json["from"]["fingerprint"], format!("{:016x}", router(THREE).fingerprint()));
    // Adding a node: every moved flow goes to it, and it gains exactly the moved share.
    for f in json["flows"].as_array().unwrap() {
        assert!(!f["moved"].as_bool().unwrap() || f["to"] == "cache-d", "{f}");
    }
    let d_node = json["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "cache-d").unwrap();
    assert!((d_node["gained"].as_f64().unwrap() - d.moved).abs() < 1e-12);
    // Part way: moves scale with progress.
    let part: Value = serde_json::from_str(&ok(&["plan", THREE, FOUR, "--json", "--progress", "0.25"], b"")).unwrap();
    assert!((part["moved_now"].as_f64().unwrap() - 0.25 * d.moved).abs() < 1e-12);
    let arcs = ok(&["plan", THREE, FOUR, "--arcs"], b"");
    assert!(arcs.lines().filter(|l| l.ends_with("\tcache-d")).count() > 10);
}

#[test]
fn plan_lists_moved_keys_streaming() {
    let (a, b) = (router(THREE), router(FOUR));
    let keys: Vec<String> = (0..3000).map(|i| format!("k{i}")).collect();
    let file = scratch("plan-keys.txt", &(keys.join("\n") + "\n"));
    let out = keyroute(&["plan", THREE, FOUR, "--keys", file.to_str().unwrap()], b"");
    assert!(out.status.success());
    let listed = String::from_utf8(out.stdout).unwrap();
    let want: String = keys
        .iter()
        .filter_map(|k| {
            let (x, y) = (a.route_id(k.as_bytes()).unwrap(), b.route_id(k.as_bytes()).unwrap());
            (x != y).then(|| format!("{k}\t{x}\t{y}\n"))
        })
        .collect();
    assert_eq!(listed, want);
    assert!(String::from_utf8_lossy(&out.stderr).contains("of 3,000 keys move"));
    // `--progress -0` is progress 0, printed as such.
    let zero = ok(&["plan", THREE, FOUR, "--progress", "-0"], b"");
    assert!(zero.contains("at progress 0: 0.00% of keys") && !zero.contains("-0"), "{zero}");
    // At progress 0.3 the listed keys are a subset, from stdin this time.
    let part = ok(&["plan", THREE, FOUR, "--keys", "-", "--progress", "0.3"], (keys.join("\n") + "\n").as_bytes());
    assert!(part.lines().count() < listed.lines().count() && !part.is_empty());
    assert!(part.lines().all(|l| listed.contains(&format!("{l}\n"))));
}

#[test]
fn plan_json_gives_long_keys_that_are_not_utf8_in_full_hex() {
    let (a, b) = (router(THREE), router(FOUR));
    // 40 bytes, not UTF-8: longer than a message shows a key (it once came out cut, with "…").
    let keys: Vec<Vec<u8>> = (0..=255u8)
        .filter(|&i| i != b'\n' && i != b'\r')
        .map(|i| {
            let mut k = vec![0xff; 39];
            k.push(i);
            k
        })
        .collect();
    let mut stdin = Vec::new();
    for k in &keys {
        stdin.extend_from_slice(k);
        stdin.push(b'\n');
    }
    let out = ok(&["plan", THREE, FOUR, "--keys", "-", "--json"], &stdin);
    let rows: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let want: Vec<Value> = keys
        .iter()
        .filter_map(|k| {
            let (x, y) = (a.route_id(k).unwrap(), b.route_id(k).unwrap());
            let hex: String = k.iter().map(|b| format!("{b:02x}")).collect();
            (x != y).then(|| serde_json::json!({ "key_hex": hex, "from": x, "to": y }))
        })
        .collect();
    assert!(!want.is_empty());
    assert_eq!(rows, want);
}

#[test]
fn balance_is_exact_per_point_count_and_plots() {
    let json: Value =
        serde_json::from_str(&ok(&["balance", "-t", FIVE_TOML, "--points", "10,500", "--json"], b"")).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["points_per_weight"], 10);
    assert_eq!(rows[0]["method"], "exact");
    let cv = |r: &Value| r["cv"].as_f64().unwrap();
    assert!(cv(&rows[0]) > cv(&rows[1]), "more points, more even");
    let svg = scratch("balance.svg", "");
    let text = ok(&["balance", "-t", FIVE_TOML, "--plot", svg.to_str().unwrap()], b"");
    assert!(text.contains("10 points/node") && text.contains("160 points/node*"), "{text}");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.starts_with("<svg") && drawn.contains("Key ownership per node"));
    assert!(drawn.contains("cache-4") && drawn.contains("fair share") && drawn.contains("share of keys (%)"));
    // Not a ring: one row, and --points refused.
    let maglev = scratch(
        "maglev.json",
        r#"{"algorithm":"maglev","params":{"table_size":251},"nodes":[{"id":"a"},{"id":"b","weight":3}]}"#,
    );
    let out = ok(&["balance", "-t", maglev.to_str().unwrap()], b"");
    assert!(out.contains("maglev"), "{out}");
    fails(&["balance", "-t", maglev.to_str().unwrap(), "--points", "10"], b"", "invalid_parameter (code 15)");
}

#[test]
fn simulate_weighs_every_key() {
    let json: Value =
        serde_json::from_str(&ok(&["simulate", "-t", THREE, "--to", FOUR, "--keys", "20000", "--json"], b"")).unwrap();
    let d = keyroute_bindings::core::analysis::diff(router(THREE).core(), router(FOUR).core()).unwrap();
    let moved = json["moved_keys"].as_f64().unwrap();
    assert!((moved - d.moved).abs() < 6.0 * (d.moved * (1.0 - d.moved) / 20_000.0).sqrt(), "{moved} vs {}", d.moved);
    // Uniform popularity: the requests that miss are the keys that moved.
    assert!((json["moved_requests"].as_f64().unwrap() - moved).abs() < 1e-9);
    assert_eq!(json["right_after"]["with_dual_reads"]["hits_kept"], 1.0);
    let zipf: Value = serde_json::from_str(&ok(
        &["simulate", "-t", THREE, "--to", FOUR, "--keys", "20000", "--zipf", "1.1", "--progress", "0.5", "--json"],
        b"",
    ))
    .unwrap();
    let window = zipf["window"]["without_dual_reads"]["backend_misses"].as_f64().unwrap();
    let now = zipf["right_after"]["without_dual_reads"]["backend_misses"].as_f64().unwrap();
    assert!(window < now, "a hot key misses once, then hits: {window} < {now}");
    let text = ok(&["simulate", "-t", THREE, "--to", FOUR, "--keys", "5000", "--zipf", "0.9"], b"");
    assert!(text.contains("with dual reads") && text.contains("hits kept"), "{text}");
    fails(&["simulate", "-t", THREE, "--to", FOUR, "--zipf", "-1"], b"", "invalid_parameter");
    fails(&["simulate", "-t", THREE, "--to", FOUR, "--progress", "1.5"], b"", "invalid_parameter");
}

#[test]
fn demo_measures_the_headline() {
    let out = ok(&["demo", "--keys", "20000"], b"");
    assert!(out.contains("3 → 4 nodes") && out.contains("10 → 11 nodes") && out.contains("weight 2"), "{out}");
    let modulo = out.lines().find(|l| l.trim_start().starts_with("modulo")).unwrap();
    assert!(modulo.contains("75.0%"), "{modulo}");
    assert!(out.contains("Measured on 3 → 4 nodes: modulo routing moved"), "{out}");
}

#[test]
fn bad_input_is_one_line_with_a_code_and_status_2() {
    let cases: [(&str, &str, &str); 8] = [
        ("malformed.json", "{\"algorithm\": \"ring\", \"nodes\": [", "invalid_json (code 1)"),
        ("empty.json", r#"{"algorithm":"ring","nodes":[]}"#, "empty_topology (code 4)"),
        (
            "duplicate.json",
            r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"a"}]}"#,
            "duplicate_node_id (code 5)",
        ),
        ("huge.json", r#"{"algorithm":"ring","nodes":[{"id":"a","weight":4294967295}]}"#, "too_many_points (code 8)"),
        ("huger.json", r#"{"algorithm":"ring","nodes":[{"id":"a","weight":99999999999999}]}"#, "invalid_spec (code 2)"),
        ("unknown.json", r#"{"algorithm":"ketchup","nodes":[{"id":"a"}]}"#, "unknown_algorithm (code 3)"),
        // Malformed TOML is malformed like malformed JSON; a well-formed one of the wrong shape
        // is a spec error like the same JSON.
        ("bad.toml", "algorithm = \n", "invalid_json (code 1)"),
        ("shape.toml", "algorithm = \"ring\"\nnodes = 3\n", "invalid_spec (code 2)"),
    ];
    for (name, contents, code) in cases {
        let path = scratch(name, contents);
        let p = path.to_str().unwrap();
        fails(&["route", "-t", p, "k"], b"", code);
        fails(&["plan", p, FOUR], b"", code);
        fails(&["plan", FOUR, p], b"", code);
        fails(&["balance", "-t", p], b"", code);
        fails(&["simulate", "-t", p, "--to", FOUR, "--keys", "10"], b"", code);
    }
    fails(&["route", "-t", "/nonexistent/topo.json", "k"], b"", "error io (code 23): cannot open");
    // Usage errors are one line with a code too, not clap's usage block.
    fails(&["route", "--bogus"], b"", "error invalid_argument (code 26): unexpected argument '--bogus'");
    fails(&["plan", FOUR], b"", "error invalid_argument (code 26)");
    fails(&["route", "-t", FOUR, "--limits", "{\"max_nodes\": 3}", "k"], b"", "too_many_nodes (code 7)");
    fails(&["route", "-t", FOUR, "--limits", "{\"max_node\": 3}", "k"], b"", "invalid_parameter (code 15): --limits");
    assert!(ok(&["route", "-t", FOUR, "--limits", "{\"max_nodes\": 4}", "k"], b"").starts_with("k\t"));
    // A key the algorithm cannot take names its line.
    let u64be =
        scratch("u64be.json", r#"{"algorithm":"jump","params":{"key_hash":"u64be"},"nodes":[{"id":"a"},{"id":"b"}]}"#);
    let err = fails(&["route", "-t", u64be.to_str().unwrap()], b"12345678\nshort\n", "invalid_key (code 16)");
    assert!(err.contains("line 2"), "{err}");
    fails(
        &["route", "-t", u64be.to_str().unwrap(), "--replicas", "1", "12345678"],
        b"",
        "replicas_unsupported (code 12)",
    );
    // Huge but valid weights are fine where the algorithm takes them.
    let heavy = scratch(
        "heavy.json",
        r#"{"algorithm":"rendezvous","nodes":[{"id":"a","weight":4294967295},{"id":"b","weight":1}]}"#,
    );
    assert!(ok(&["route", "-t", heavy.to_str().unwrap(), "k"], b"").starts_with("k\t"));
    assert!(ok(&["balance", "-t", heavy.to_str().unwrap()], b"").contains("closed form"));
}

#[test]
fn help_shows_examples() {
    for sub in [&[][..], &["demo"], &["route"], &["plan"], &["balance"], &["simulate"]] {
        let mut args = sub.to_vec();
        args.push("--help");
        let out = ok(&args, b"");
        assert!(out.contains("Examples:"), "{args:?}: {out}");
    }
    let out = keyroute(&["route"], b"");
    assert_eq!(out.status.code(), Some(2), "a usage error exits 2 too");
}

/// A ring of `n` equal nodes, as a spec file.
fn equal_ring(n: usize) -> PathBuf {
    let nodes: Vec<_> = (0..n).map(|i| serde_json::json!({ "id": format!("cache-{i}") })).collect();
    scratch(&format!("ring-{n}.json"), &serde_json::json!({ "algorithm": "ring", "nodes": nodes }).to_string())
}

#[test]
fn simulate_load_bounds_the_busiest_node_and_spreads_hot_keys() {
    let ten = equal_ring(10);
    let ten = ten.to_str().unwrap();
    let plot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-tests/load.svg");
    let _ = std::fs::remove_file(&plot);
    let args = [
        "simulate",
        "-t",
        ten,
        "--zipf",
        "1.1",
        "--keys",
        "100000",
        "--requests",
        "60000",
        "--bounded",
        "1.25",
        "--hot-spread",
        "3",
        "--window",
        "5000",
        "--cache",
        "2000",
        "--json",
        "--plot",
        plot.to_str().unwrap(),
    ];
    let run = ok(&args, b"");
    assert_eq!(run, ok(&args, b""), "a seeded run is repeatable");
    let json: Value = serde_json::from_str(&run).unwrap();
    let configs = json["configurations"].as_array().unwrap();
    let labels: Vec<_> = configs.iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["plain", "bounded 1.25", "hot-spread 3", "bounded 1.25 + hot-spread 3"]);
    let f = |i: usize, k: &str| configs[i][k].as_f64().unwrap();
    let p99 = |i: usize| configs[i]["window_busiest_over_fair"]["p99"].as_f64().unwrap();
    // Zipf 1.1: the hottest key alone is several times a node's fair share, so the plain ring
    // overloads its owner; bounded loads hold every node near c, spreading divides the hot keys.
    assert!(f(0, "busiest_over_fair") > 2.0, "{run}");
    assert_eq!(f(0, "away_from_home"), 0.0);
    assert!(f(1, "busiest_over_fair") < 1.4 && p99(1) < 1.4, "{run}");
    assert!(f(2, "busiest_over_fair") < f(0, "busiest_over_fair") * 0.75, "{run}");
    assert!(f(3, "busiest_over_fair") <= f(1, "busiest_over_fair") + 0.05, "{run}");
    for i in 1..4 {
        assert!(f(i, "away_from_home") > 0.0 && f(i, "away_from_home") < 0.7, "{run}");
    }
    assert!(f(2, "hot_requests") > 0.2 && f(1, "hot_requests") == 0.0, "{run}");
    // Every request is counted on some node.
    for c in configs {
        let per_node: u64 = c["requests_per_node"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(per_node, 60_000);
    }
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("hot-spread 3: p99 window"),
        "the chart has a line per configuration"
    );

    // A trace file replays its keys; a router without replicas spreads by split keys.
    let trace: String =
        (0..3000).map(|i| if i % 2 == 0 { "hot\n".to_owned() } else { format!("cold:{i}\n") }).collect();
    let trace = scratch("trace.txt", &trace);
    let jump = scratch("jump-4.json", r#"{"algorithm":"jump","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#);
    let json: Value = serde_json::from_str(&ok(
        &["simulate", "-t", jump.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--hot-spread", "4", "--json"],
        b"",
    ))
    .unwrap();
    assert_eq!(json["requests"], 3000);
    let spread = &json["configurations"][1];
    assert!(spread["hot_requests"].as_f64().unwrap() > 0.45, "{json}");
    assert!(
        spread["busiest_over_fair"].as_f64().unwrap()
            < json["configurations"][0]["busiest_over_fair"].as_f64().unwrap()
    );
    let text = ok(&["simulate", "-t", ten, "--keys", "1000", "--requests", "2000", "--bounded", "1.5"], b"");
    assert!(text.contains("busiest node / fair") && text.contains("bounded 1.5"), "{text}");

    fails(&["simulate", "-t", ten, "--requests", "100", "--bounded", "0.5"], b"", "invalid_parameter");
    fails(&["simulate", "-t", ten, "--requests", "100", "--hot-spread", "11"], b"", "invalid_parameter");
    fails(&["simulate", "-t", ten, "--requests", "100", "--hot-share", "0"], b"", "invalid_parameter");
    fails(&["simulate", "-t", ten, "--requests", "0"], b"", "invalid_parameter");
    fails(&["simulate", "-t", ten, "--progress", "0.5"], b"", "invalid_argument");
    fails(&["simulate", "-t", ten, "--trace", "-", "--zipf", "1"], b"", "invalid_argument");
    fails(&["simulate", "-t", ten, "--trace", "-"], b"", "invalid_key");
    fails(
        &["simulate", "-t", jump.to_str().unwrap(), "--requests", "10", "--bounded", "1.25"],
        b"",
        "replicas_unsupported",
    );
}
