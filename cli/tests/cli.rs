//! The real `keyroute` binary, driven as an operator would: good files, stdin streams, keys in
//! every input mode, and bad input (malformed JSON, empty topologies, duplicate ids, huge
//! weights, bad hex, bad NDJSON), which must give one line naming the error code and the exit
//! status of its class (2 usage, 3 data, 4 I/O, 1 a finding), never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use keyroute_bindings::Router;
use serde_json::Value;

const THREE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/3-nodes.json");
const FOUR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/4-nodes.json");
const FIVE_TOML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/topologies/5-nodes.toml");

/// Starts keyroute with `args`, its stdin, stdout and stderr piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_keyroute"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn keyroute(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
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

/// Runs a command that must fail on bad data (status 3; status 4 for `io`, 2 for
/// `invalid_argument`): one stderr line naming `code`.
fn fails(args: &[&str], stdin: &[u8], code: &str) -> String {
    let status = if code.starts_with("error io ") {
        4
    } else if code.starts_with("error invalid_argument ") {
        2
    } else {
        3
    };
    fails_with(status, args, stdin, code)
}

/// Runs a command whose command line is wrong: status 2, one stderr line naming `code`.
fn fails_usage(args: &[&str], stdin: &[u8], code: &str) -> String {
    fails_with(2, args, stdin, code)
}

/// Runs a command that must fail with `status` and one stderr line naming `code`.
fn fails_with(status: i32, args: &[&str], stdin: &[u8], code: &str) -> String {
    let out = keyroute(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(status), "{args:?}: {err}");
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
    fails_usage(&["route", "-t", FOUR, "--replicas", "5", "k"], b"", "replicas_exceed_nodes (code 11)");
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
    fails_usage(&["balance", "-t", maglev.to_str().unwrap(), "--points", "10"], b"", "invalid_parameter (code 15)");
}

/// The `<text>` elements of an SVG: (x, text).
fn svg_texts(svg: &str) -> Vec<(f64, String)> {
    let doc = roxmltree::Document::parse(svg).expect("the plot is SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| (n.attribute("x").unwrap().parse().unwrap(), n.text().unwrap_or("").trim().to_owned()))
        .collect()
}

#[test]
fn balance_plot_labels_every_one_of_100_nodes_inside_the_picture() {
    let nodes: Vec<Value> =
        (0..100).map(|i| serde_json::json!({ "id": format!("memcached-prod-{i:03}.internal:11211") })).collect();
    let spec = scratch("hundred.json", &serde_json::json!({ "algorithm": "ring", "nodes": nodes }).to_string());
    let svg = scratch("hundred.svg", "");
    ok(&["balance", "-t", spec.to_str().unwrap(), "--points", "10,160", "--plot", svg.to_str().unwrap()], b"");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    let texts = svg_texts(&drawn);
    for i in 0..100 {
        // Ids past 28 characters end in an ellipsis; the number that tells nodes apart stays.
        let shown = format!("memcached-prod-{i:03}.intern");
        let (x, _) = texts.iter().find(|(_, t)| t.starts_with(&shown)).unwrap_or_else(|| panic!("{shown} is labelled"));
        assert!(*x > 0.0, "{shown} starts inside the picture, at x = {x}");
    }
    assert!(texts.iter().any(|(_, t)| t == "node"), "every node is labelled, so the axis says no more");
}

#[test]
fn plan_plot_draws_shares_and_flows() {
    let svg = scratch("plan.svg", "");
    ok(&["plan", THREE, FOUR, "--plot", svg.to_str().unwrap()], b"");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    let texts: Vec<String> = svg_texts(&drawn).into_iter().map(|(_, t)| t).collect();
    let (a, b) = (router(THREE), router(FOUR));
    let d = keyroute_bindings::analysis::diff(&a, &b).unwrap();
    let moved = format!("{:.1}% of keys move", d.moved * 100.0);
    assert!(texts.iter().any(|t| t.contains(&moved)), "{moved} in {texts:?}");
    for id in ["cache-a", "cache-b", "cache-c", "cache-d"] {
        assert!(texts.iter().any(|t| t == id), "{id} under its bars");
        assert!(texts.iter().any(|t| t.starts_with(&format!("{id} "))), "{id} beside its flow block");
    }
    assert!(!texts.iter().any(|t| t.starts_with("cache-d 0")), "cache-d has nothing before, so no block on the left");
    // One band per from → to pair with keys: three stay, three move to the new node.
    let pairs = d.flows.iter().filter(|f| f.share > 0.0).count();
    assert_eq!(drawn.matches("<polygon").count(), pairs, "{pairs} bands");
    // At progress 0.3, every old owner keeps part of what it will lose: still six bands, and
    // the new node's share is 0.3 of its final one.
    ok(&["plan", THREE, FOUR, "--progress", "0.3", "--plot", svg.to_str().unwrap()], b"");
    let texts: Vec<String> = svg_texts(&std::fs::read_to_string(&svg).unwrap()).into_iter().map(|(_, t)| t).collect();
    let gained: f64 = d.flows.iter().filter(|f| f.to == "cache-d").map(|f| f.share).sum();
    let want = format!("cache-d {:.1}%", 0.3 * gained * 100.0);
    assert!(texts.iter().any(|t| t == &want), "{want} in {texts:?}");
    // What a migration counted (its --report), drawn as a third panel, largest flow first.
    let report = scratch(
        "migrate-report.json",
        r#"{"flows":[{"from":"cache-a","to":"cache-d","keys":9000,"listed_bytes":900000},
                     {"from":"cache-b","to":"cache-d","keys":10700,"listed_bytes":1070000}]}"#,
    );
    ok(&["plan", THREE, FOUR, "--plot", svg.to_str().unwrap(), "--counted", report.to_str().unwrap()], b"");
    let texts: Vec<String> = svg_texts(&std::fs::read_to_string(&svg).unwrap()).into_iter().map(|(_, t)| t).collect();
    let at = |t: &str| texts.iter().position(|x| x == t).unwrap_or_else(|| panic!("{t} in {texts:?}"));
    at("Counted on the servers: 19,700 keys, 1,970,000 bytes move");
    assert!(at("cache-b → cache-d") < at("cache-a → cache-d"), "the largest flow first");
    at("10,700 keys, 1,070,000 bytes");
    let not_a_report = scratch("not-a-report.json", r#"{"moved": 3}"#);
    fails_usage(
        &["plan", THREE, FOUR, "--plot", svg.to_str().unwrap(), "--counted", not_a_report.to_str().unwrap()],
        b"",
        "invalid_argument",
    );
    fails_usage(&["plan", THREE, FOUR, "--counted", report.to_str().unwrap()], b"", "invalid_argument");
    fails_usage(
        &["plan", THREE, FOUR, "--plot", report.to_str().unwrap(), "--counted", report.to_str().unwrap()],
        b"",
        "invalid_argument",
    );
    fails_usage(&["plan", THREE, FOUR, "--plot", THREE], b"", "invalid_argument");
    fails_usage(&["plan", THREE, FOUR, "--plot", svg.to_str().unwrap(), "--keys", "-"], b"", "invalid_argument");
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
    fails_usage(&["simulate", "-t", THREE, "--to", FOUR, "--zipf", "-1"], b"", "invalid_parameter");
    fails_usage(&["simulate", "-t", THREE, "--to", FOUR, "--progress", "1.5"], b"", "invalid_parameter");
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
fn bad_input_is_one_line_with_a_code_and_the_status_of_its_class() {
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
        ("bad.toml", "algorithm = \n", "invalid_toml (code 27)"),
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
    fails_usage(
        &["route", "-t", FOUR, "--limits", "{\"max_node\": 3}", "k"],
        b"",
        "invalid_parameter (code 15): --limits",
    );
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

    fails_usage(&["simulate", "-t", ten, "--requests", "100", "--bounded", "0.5"], b"", "invalid_parameter");
    fails_usage(&["simulate", "-t", ten, "--requests", "100", "--hot-spread", "11"], b"", "invalid_parameter");
    fails_usage(&["simulate", "-t", ten, "--requests", "100", "--hot-share", "0"], b"", "invalid_parameter");
    fails_usage(&["simulate", "-t", ten, "--requests", "0"], b"", "invalid_parameter");
    fails_usage(&["simulate", "-t", ten, "--progress", "0.5"], b"", "invalid_argument");
    fails_usage(&["simulate", "-t", ten, "--trace", "-", "--zipf", "1"], b"", "invalid_argument");
    fails(&["simulate", "-t", ten, "--trace", "-"], b"", "invalid_key");
    fails(
        &["simulate", "-t", jump.to_str().unwrap(), "--requests", "10", "--bounded", "1.25"],
        b"",
        "replicas_unsupported",
    );
}

/// Every key as a line for `--input hex`.
fn hex_lines(keys: &[Vec<u8>]) -> String {
    keys.iter().map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n").collect()
}

#[test]
fn route_hex_input_takes_any_bytes() {
    let four = router(FOUR);
    let keys: Vec<Vec<u8>> =
        vec![b"user:42".to_vec(), b"line one\nline two".to_vec(), b"".to_vec(), vec![0xff, 0, b'\r'], b"a\tb".to_vec()];
    let out = ok(&["route", "-t", FOUR, "--input", "hex"], hex_lines(&keys).as_bytes());
    let want: String = keys
        .iter()
        .map(|k| {
            format!("{}\t{}\n", k.iter().map(|b| format!("{b:02x}")).collect::<String>(), four.route_id(k).unwrap())
        })
        .collect();
    assert_eq!(out, want);
    // Upper case, CRLF, arguments; JSON output names the key as text or hex.
    assert_eq!(
        ok(&["route", "-t", FOUR, "--input", "hex"], b"FF000D\r\n"),
        want.lines().nth(3).unwrap().to_string() + "\n"
    );
    let args =
        ok(&["route", "-t", FOUR, "--input", "hex", "757365723a3432", "6c696e65206f6e650a6c696e652074776f"], b"");
    assert_eq!(args, want.lines().take(2).map(|l| format!("{l}\n")).collect::<String>());
    let json = ok(&["route", "-t", FOUR, "--input", "hex", "--json"], hex_lines(&keys).as_bytes());
    let rows: Vec<Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[1]["key"], "line one\nline two");
    assert_eq!(rows[3]["key_hex"], "ff000d");
    assert_eq!(rows[3]["node"], four.route_id(&keys[3]).unwrap());
    // Replicas, in preference order.
    let mut want = [0u32; 2];
    four.replicas(&keys[1], &mut want).unwrap();
    let line = ok(&["route", "-t", FOUR, "--input", "hex", "-r", "2", "6c696e65206f6e650a6c696e652074776f"], b"");
    let ids: Vec<&str> = want.iter().map(|&i| four.node_id(i).unwrap()).collect();
    assert_eq!(line, format!("6c696e65206f6e650a6c696e652074776f\t{}\n", ids.join("\t")));
}

#[test]
fn route_hex_input_refuses_what_is_not_hex() {
    let err = fails(&["route", "-t", FOUR, "--input", "hex"], b"6b31\nabc\n6b32\n", "error invalid_key (code 16)");
    assert!(err.contains("line 2") && err.contains("odd number of digits"), "{err}");
    let err = fails(&["route", "-t", FOUR, "--input", "hex"], b"6b31\n0x31\n", "error invalid_key (code 16)");
    assert!(err.contains("line 2") && err.contains("byte 1 is not a hex digit"), "{err}");
    let err = fails(&["route", "-t", FOUR, "--input", "hex", "6b 31"], b"", "error invalid_key (code 16)");
    assert!(err.contains("argument 1"), "{err}");
    fails(&["route", "-t", FOUR, "--input", "hex", "6b3é"], b"", "error invalid_key (code 16)");
}

#[test]
fn route_ndjson_input_takes_strings_and_hex_objects() {
    let four = router(FOUR);
    let stdin = concat!(
        "\"user:42\"\n",
        "\"line one\\nline two\"\n",
        "{\"key_hex\":\"ff0a\"}\n",
        "{\"key\":\"é\\u0000\",\"node\":\"ignored\"}\n",
        "\"\"\r\n",
    );
    let keys: Vec<Vec<u8>> = vec![
        b"user:42".to_vec(),
        b"line one\nline two".to_vec(),
        vec![0xff, b'\n'],
        "é\0".as_bytes().to_vec(),
        b"".to_vec(),
    ];
    let out = ok(&["route", "-t", FOUR, "--input", "ndjson"], stdin.as_bytes());
    let firsts = ["\"user:42\"", "\"line one\\nline two\"", "{\"key_hex\":\"ff0a\"}", "\"é\\u0000\"", "\"\""];
    let want: String = keys.iter().zip(firsts).map(|(k, f)| format!("{f}\t{}\n", four.route_id(k).unwrap())).collect();
    assert_eq!(out, want);
    // The first column is input for the same mode: it routes to the same nodes again.
    let firsts: String = out.lines().map(|l| l.split('\t').next().unwrap().to_string() + "\n").collect();
    assert_eq!(ok(&["route", "-t", FOUR, "--input", "ndjson"], firsts.as_bytes()), out);
    // --json output is ndjson input too.
    let json = ok(&["route", "-t", FOUR, "--input", "ndjson", "--json"], stdin.as_bytes());
    assert_eq!(ok(&["route", "-t", FOUR, "--input", "ndjson", "--json"], json.as_bytes()), json);
    let rows: Vec<Value> = json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[1]["key"], "line one\nline two");
    assert_eq!(rows[2]["key_hex"], "ff0a");
    // Arguments are JSON values too.
    assert_eq!(
        ok(&["route", "-t", FOUR, "--input", "ndjson", "\"user:42\""], b""),
        want.lines().next().unwrap().to_string() + "\n"
    );
}

#[test]
fn route_ndjson_input_refuses_what_is_not_a_key() {
    let cases: [(&[u8], &str, &str); 9] = [
        (b"\"ok\"\nuser:1\n", "error invalid_json (code 1)", "line 2"),
        (b"\"ok\"\n\n", "error invalid_json (code 1)", "line 2"),
        (b"\"a\" \"b\"\n", "error invalid_json (code 1)", "line 1"),
        (b"\"\\ud800\"\n", "error invalid_json (code 1)", "line 1"),
        (b"42\n", "error invalid_type (code 22)", "a number"),
        (b"[\"k\"]\n", "error invalid_type (code 22)", "an array"),
        (b"{\"id\":\"k\"}\n", "error invalid_type (code 22)", "without"),
        (b"{\"key\":\"k\",\"key_hex\":\"6b\"}\n", "error invalid_type (code 22)", "both"),
        (b"{\"key_hex\":\"6\"}\n", "error invalid_key (code 16)", "odd number"),
    ];
    for (stdin, code, detail) in cases {
        let err = fails(&["route", "-t", FOUR, "--input", "ndjson"], stdin, code);
        assert!(err.contains(detail), "{stdin:?}: {err}");
    }
    // Invalid UTF-8 inside a JSON string is not JSON either.
    fails(&["route", "-t", FOUR, "--input", "ndjson"], b"\"\xff\"\n", "error invalid_json (code 1)");
    fails_usage(&["route", "-t", FOUR, "--input", "yaml", "k"], b"", "error invalid_argument (code 26)");
}

#[test]
fn route_prints_the_slot_of_slot_based_algorithms_in_every_format() {
    let spec = scratch(
        "redis.json",
        r#"{"algorithm":"redis-cluster","nodes":[{"id":"a","slots":[[0,5460]]},{"id":"b","slots":[[5461,10922]]},{"id":"c","slots":[[10923,16383]]}]}"#,
    );
    let p = spec.to_str().unwrap();
    // Redis Cluster's own slots: CLUSTER KEYSLOT foo = 12182, {user1000}.following = 3443.
    let text = ok(&["route", "-t", p, "foo", "{user1000}.following"], b"");
    assert_eq!(text, "foo\t12182\tc\n{user1000}.following\t3443\ta\n");
    assert_eq!(ok(&["route", "-t", p, "--input", "hex", "666f6f"], b""), "666f6f\t12182\tc\n");
    assert_eq!(ok(&["route", "-t", p, "--input", "ndjson"], b"\"foo\"\n"), "\"foo\"\t12182\tc\n");
    let json: Value = serde_json::from_str(&ok(&["route", "-t", p, "--json", "foo"], b"")).unwrap();
    assert_eq!(json, serde_json::json!({"key": "foo", "slot": 12182, "node": "c"}));
    // Native slot tables too, with replicas; other algorithms print no slot.
    let slots = scratch(
        "slots.json",
        r#"{"algorithm":"slots","params":{"count":64},"nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
    );
    let r = router(slots.to_str().unwrap());
    let slot = r.slot(b"k").unwrap();
    let mut two = [0u32; 2];
    r.replicas(b"k", &mut two).unwrap();
    let line = ok(&["route", "-t", slots.to_str().unwrap(), "-r", "2", "--json", "k"], b"");
    let json: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(json["slot"], slot);
    assert_eq!(json["replicas"], serde_json::json!([r.node_id(two[0]).unwrap(), r.node_id(two[1]).unwrap()]));
    let line = ok(&["route", "-t", slots.to_str().unwrap(), "-r", "2", "k"], b"");
    assert_eq!(line, format!("k\t{slot}\t{}\t{}\n", r.node_id(two[0]).unwrap(), r.node_id(two[1]).unwrap()));
    assert_eq!(ok(&["route", "-t", FOUR, "k"], b"").split('\t').count(), 2);
}

#[test]
fn demo_json_has_its_documented_shape() {
    let doc: Value = serde_json::from_str(&ok(&["demo", "--keys", "2000", "--json"], b"")).unwrap();
    assert_eq!(doc["keys"], 2000);
    let scenarios = doc["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 3);
    assert_eq!(scenarios[0]["title"], "3 → 4 nodes");
    assert_eq!(scenarios[0]["from"].as_array().unwrap().len(), 3);
    assert_eq!(scenarios[0]["to"][3], serde_json::json!({"id": "cache-3", "weight": 1}));
    assert_eq!(scenarios[0]["ideal_moved"], 0.25);
    let mut refused = 0;
    for s in scenarios {
        let rows = s["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 8);
        for row in rows {
            assert!(row["label"].is_string() && row["algorithm"].is_string() && row["params"].is_object(), "{row}");
            if let Some(r) = row.get("refused") {
                refused += 1;
                assert_eq!(r["error"], "weights_unsupported");
                assert_eq!(r["code"], 10);
                continue;
            }
            for field in ["moved", "measured_moved", "max_over_mean", "cv", "measured_cv"] {
                let v = row[field].as_f64().unwrap_or_else(|| panic!("{field}: {row}"));
                assert!(v >= 0.0 && v.is_finite(), "{field}: {row}");
            }
            assert!(["exact", "expected", "slot_share", "sampled"].contains(&row["method"].as_str().unwrap()), "{row}");
        }
    }
    assert!(refused > 0, "the weighted add is refused by an algorithm that cannot weigh nodes");
    let modulo = &scenarios[0]["rows"][0];
    assert_eq!(modulo["algorithm"], "modulo");
    assert_eq!(modulo["moved"], 0.75);
    // The text report shows the same exact figure.
    let text = ok(&["demo", "--keys", "2000"], b"");
    let ring = &scenarios[0]["rows"][2];
    assert!(text.contains(&format!("{:.1}%", ring["moved"].as_f64().unwrap() * 100.0)), "{text}");
}

#[test]
fn each_exit_status_class() {
    // 0: success.
    assert_eq!(keyroute(&["route", "-t", FOUR, "k"], b"").status.code(), Some(0));
    // 1: a finding, after the whole report. 3 → 4 nodes on this ring moves about a quarter of
    // the keys.
    for json in [false, true] {
        let mut args = vec!["plan", THREE, FOUR, "--max-moved", "0.1"];
        args.extend(json.then_some("--json"));
        let out = keyroute(&args, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("keyroute: finding: the change moves ") && err.contains("more than --max-moved 10.00%")
        );
        let report = String::from_utf8(out.stdout).unwrap();
        if json {
            assert!(serde_json::from_str::<Value>(&report).unwrap()["moved"].as_f64().unwrap() > 0.1);
        } else {
            assert!(report.contains("moved: "), "{report}");
        }
    }
    assert!(ok(&["plan", THREE, FOUR, "--max-moved", "0.5"], b"").contains("moved: "));
    assert!(ok(&["plan", THREE, FOUR, "--max-moved", "0.1", "--progress", "0.1"], b"").contains("moved: "));
    // 2: usage.
    fails_usage(&["plan", THREE, FOUR, "--max-moved", "1.5"], b"", "error invalid_parameter (code 15)");
    fails_usage(&["plan", THREE, FOUR, "--max-moved", "0.5", "--keys", "-"], b"", "error invalid_argument (code 26)");
    fails_usage(&["demo", "--keys", "0"], b"", "error invalid_parameter (code 15)");
    fails_usage(&["nonsense"], b"", "error invalid_argument (code 26)");
    // 3: bad data.
    let bad = scratch("bad-data.json", "{\"algorithm\": 7}");
    fails_with(3, &["route", "-t", bad.to_str().unwrap(), "k"], b"", "error invalid_spec (code 2)");
    fails_with(3, &["route", "-t", FOUR, "--input", "hex", "z"], b"", "error invalid_key (code 16)");
    // 4: I/O: a missing file, a folder read as a file, a plot that cannot be written.
    fails_with(4, &["route", "-t", "/nonexistent/topo.json", "k"], b"", "error io (code 23)");
    fails_with(4, &["plan", env!("CARGO_MANIFEST_DIR"), FOUR], b"", "error io (code 23)");
    fails_with(4, &["balance", "-t", FOUR, "--plot", "/nonexistent/dir/b.svg"], b"", "error io (code 23)");
    fails_with(4, &["man", "--dir", "/proc/keyroute-man"], b"", "error io (code 23)");
}

#[test]
fn the_exit_status_table_is_in_the_help_and_the_readme() {
    let help = ok(&["--help"], b"");
    let table: Vec<&str> =
        help.lines().skip_while(|l| *l != "Exit status:").skip(1).take_while(|l| l.starts_with("  ")).collect();
    assert_eq!(table.len(), 6, "{help}");
    for name in ["cli/README.md", "README.md"] {
        let readme = std::fs::read_to_string(format!("{}/../{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for (status, line) in table.iter().enumerate() {
            let line = line.trim_start();
            assert!(line.starts_with(&format!("{status}  ")), "{line}");
            let meaning = line.split_once("  ").unwrap().1.trim();
            let row = format!("| {status} | {meaning} |");
            assert!(readme.contains(&row), "{name} lacks the row {row:?}");
        }
    }
}

#[test]
fn completions_and_man_pages() {
    let bash = ok(&["completions", "bash"], b"");
    assert!(
        bash.contains("_keyroute()") && bash.contains("complete -F _keyroute") && bash.contains("--input"),
        "{bash}"
    );
    let zsh = ok(&["completions", "zsh"], b"");
    assert!(zsh.starts_with("#compdef keyroute") && zsh.contains("--max-moved"), "{zsh}");
    let fish = ok(&["completions", "fish"], b"");
    assert!(fish.contains("complete -c keyroute") && fish.contains("ndjson"), "{fish}");
    fails_usage(&["completions", "tcsh"], b"", "error invalid_argument (code 26)");
    let man = ok(&["man"], b"");
    assert!(man.starts_with(".ie \\n(.g .ds Aq") || man.contains(".TH keyroute 1"), "{man}");
    assert!(man.contains(".TH keyroute 1") && man.contains("route") && man.contains("completions"), "{man}");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-tests").join("man");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ok(&["man", "--dir", dir.to_str().unwrap()], b""), "");
    for page in ["keyroute.1", "keyroute-route.1", "keyroute-plan.1", "keyroute-demo.1", "keyroute-completions.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH "), "{page}");
    }
    let route = std::fs::read_to_string(dir.join("keyroute-route.1")).unwrap();
    assert!(route.contains("ndjson") && route.contains("hex"), "{route}");
}

/// Runs `args` with `len` bytes of `fill` and no newline on stdin, written by a thread that
/// stops when the command stops reading; returns the output and how long it took.
fn with_one_long_line(args: &[&str], fill: u8, len: usize) -> (Output, std::time::Duration) {
    let start = std::time::Instant::now();
    let mut child = spawn(args);
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![fill; 1 << 16];
        let mut left = len;
        while left > 0 {
            let n = left.min(block.len());
            if input.write_all(&block[..n]).is_err() {
                break;
            }
            left -= n;
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out, start.elapsed())
}

#[test]
fn a_key_line_longer_than_the_limit_is_refused_at_once() {
    // 64 MiB without a newline: before the limit every mode buffered it all (and `</dev/zero`
    // grew until the allocator aborted); now each stops after the first 4 MiB and a block.
    let (a, b) = (THREE, FOUR);
    let cases: [(Vec<&str>, u8); 6] = [
        (vec!["route", "-t", b], b'k'),
        (vec!["route", "-t", b, "--input", "hex"], b'0'),
        (vec!["route", "-t", b, "--input", "ndjson"], b' '),
        (vec!["simulate", "-t", a, "--trace", "-"], b'k'),
        (vec!["plan", a, b, "--keys", "-"], b'k'),
        (vec!["route", "-t", b, "--max-line-bytes", "4096"], b'k'),
    ];
    for (args, fill) in cases {
        let (out, took) = with_one_long_line(&args, fill, 64 << 20);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        let limit = if args.contains(&"--max-line-bytes") { "4096" } else { "4194304" };
        assert!(
            err.starts_with("keyroute: error invalid_key (code 16): line 1 is longer than ")
                && err.contains(&format!("longer than {limit} bytes"))
                && err.contains("--max-line-bytes"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(took.as_secs() < 10, "{args:?} took {took:?}");
    }
    // Keys before the long line are routed; the error names the long line.
    let mut input = b"first\nsecond\n".to_vec();
    input.extend(std::iter::repeat_n(b'k', (4 << 20) + 1));
    let out = keyroute(&["route", "-t", FOUR], &input);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("line 3 is longer than 4194304 bytes"), "{err}");
    // A line of exactly the limit, with or without \r, is a key; raising the limit takes longer.
    let mut at_limit = vec![b'k'; 4 << 20];
    at_limit.extend_from_slice(b"\r\n");
    let routed = ok(&["route", "-t", FOUR], &at_limit);
    assert!(routed.starts_with(&"k".repeat(4 << 20)) && routed[4 << 20..].starts_with('\t'));
    let eight_mib = vec![b'k'; 8 << 20];
    let routed = ok(&["route", "-t", FOUR, "--max-line-bytes", "16777216"], &eight_mib);
    assert!(routed.starts_with(&"k".repeat(8 << 20)) && routed[8 << 20..].starts_with('\t'));
    fails_usage(&["route", "-t", FOUR, "--max-line-bytes", "0", "k"], b"", "error invalid_argument (code 26)");
    fails_usage(&["route", "-t", FOUR, "--max-line-bytes", "1073741825", "k"], b"", "error invalid_argument (code 26)");
}

#[test]
fn a_finding_keeps_its_status_when_the_reader_of_stdout_stops_early() {
    // `plan a b --max-moved 0.1 --arcs | head -1` exited 0 (1 without the pipe): the report
    // (here 650 KB, more than a pipe holds) failed with EPIPE before the finding was printed.
    use std::io::{BufRead, BufReader};
    let nodes = |p: &str| {
        let ids: Vec<String> = (0..50).map(|i| format!("{{\"id\":\"{p}{i}\"}}")).collect();
        format!("{{\"algorithm\":\"ring\",\"nodes\":[{}]}}", ids.join(","))
    };
    let (a, b) = (scratch("head-a.json", &nodes("a")), scratch("head-b.json", &nodes("b")));
    let mut child = spawn(&["plan", a.to_str().unwrap(), b.to_str().unwrap(), "--max-moved", "0.1", "--arcs"]);
    drop(child.stdin.take());
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("plan  from ring"), "{first}");
    // The reader is dropped here: the rest of the report meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err, "keyroute: finding: the change moves 100.00% of keys, more than --max-moved 10.00% allows\n");
    // Without a finding, a reader that stops early is still not an error.
    let mut child = spawn(&["plan", a.to_str().unwrap(), b.to_str().unwrap(), "--arcs"]);
    drop(child.stdin.take());
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
}

/// Runs keyroute with a file-size limit of 2 blocks (1-2 KiB) and SIGXFSZ ignored, so a write
/// past the limit fails with EFBIG as a full disk would fail it.
fn with_file_size_limit(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_keyroute"))
        .args(args)
        .output()
        .unwrap()
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// `--plot`, `--junit` and `man --dir` write a temporary file and rename it into place: a write
/// that fails leaves the old file whole and no temporary file (issue 22, finding 8: they wrote
/// in place and left a truncated file).
#[test]
fn a_failed_write_leaves_the_old_file_not_a_truncated_one() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("keyroute-cli-tests").join("atomic");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("b.svg");
    let junit = dir.join("report.xml");
    std::fs::write(&plot, "old").unwrap();
    std::fs::write(&junit, "old").unwrap();
    let runs: [&[&str]; 3] = [
        &["balance", "-t", FOUR, "--plot", plot.to_str().unwrap()],
        &["simulate", "-t", THREE, "--keys", "1000", "--zipf", "1.1", "--plot", plot.to_str().unwrap()],
        &["conformance", "--file", "native-*", "--junit", junit.to_str().unwrap()],
    ];
    for args in runs {
        let out = with_file_size_limit(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(err.contains("error io (code 23)"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), "old");
    assert_eq!(std::fs::read_to_string(&junit).unwrap(), "old");
    let man = dir.join("man");
    std::fs::create_dir_all(&man).unwrap();
    std::fs::write(man.join("keyroute-route.1"), "old").unwrap();
    let out = with_file_size_limit(&["man", "--dir", man.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(man.join("keyroute-route.1")).unwrap(), "old");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
    assert_eq!(leftovers(&man), Vec::<String>::new());
    // Without the limit the same writes replace the files whole.
    ok(&["balance", "-t", FOUR, "--plot", plot.to_str().unwrap()], b"");
    assert!(std::fs::read_to_string(&plot).unwrap().trim_end().ends_with("</svg>"));
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

/// An output file that is one of the command's inputs, by any name, is refused (usage, status 2)
/// before any work, and the input stays as it was (issue 22, finding 8:
/// `balance -t topo.json --plot topo.json` replaced the topology with the chart).
#[test]
fn an_output_file_that_is_an_input_is_refused() {
    let topo = scratch("own-plot.json", &std::fs::read_to_string(FOUR).unwrap());
    let before = std::fs::read(&topo).unwrap();
    let other_name = topo.parent().unwrap().join(".").join("own-plot.json");
    let err = fails_usage(
        &["balance", "-t", topo.to_str().unwrap(), "--plot", other_name.to_str().unwrap()],
        b"",
        "error invalid_argument (code 26)",
    );
    assert!(err.contains("refusing to overwrite it"), "{err}");
    fails_usage(
        &["simulate", "-t", THREE, "--to", topo.to_str().unwrap(), "--plot", topo.to_str().unwrap()],
        b"",
        "error invalid_argument (code 26)",
    );
    assert_eq!(std::fs::read(&topo).unwrap(), before);
    let vectors = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/vectors/v1");
    let first = std::fs::read_dir(vectors)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .min()
        .unwrap();
    let before = std::fs::read(&first).unwrap();
    fails_usage(&["conformance", vectors, "--junit", first.to_str().unwrap()], b"", "error invalid_argument (code 26)");
    assert_eq!(std::fs::read(&first).unwrap(), before);
}
