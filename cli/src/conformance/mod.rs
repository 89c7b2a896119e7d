//! `keyroute conformance`: runs the conformance corpus (the one compiled into the binary, or a
//! folder) through keyroute itself, or through any other router driven over the JSON-lines
//! protocol of `conformance/PROTOCOL.md` (`--exec`). Prints a summary, a diagnosis hint when
//! mismatches follow a pattern, optionally a JUnit XML report, and exits 1 on any mismatch.
//!
//! Vector files are read by `keyroute_bindings::conformance`, the reading every Rust runner
//! shares; keyroute's own answers are checked by its `check_case`.

mod diagnose;
mod exec;
mod group;
mod junit;

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use keyroute_bindings::conformance::{self as corpus, CaseKey, Outcome};
use keyroute_bindings::registry::{self, Kind as AlgorithmKind};
use keyroute_bindings::{ErrorCode, Limits, Router, Spec};
use serde_json::Value;

use crate::error::{CliError, Result};

mod compiled {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

/// Arguments of `keyroute conformance`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute conformance                                  the corpus compiled into keyroute
  keyroute conformance conformance/vectors/v1 --preset libmemcached --junit report.xml
  keyroute conformance --exec 'java -cp adapter.jar Adapter' --preset spymemcached

Exit status: 0 when every case matches, 1 on any mismatch, 2 on bad arguments or a filter that
selects nothing, 3 on a vector file that is not valid, 4 on a corpus that cannot be read or an
adapter that breaks the protocol (crash, timeout, a line that is not a protocol message: error
`io`). The protocol for --exec is conformance/PROTOCOL.md.")]
pub struct ConformanceArgs {
    /// A corpus folder (vector files as in conformance/vectors/v1) instead of the corpus
    /// compiled into keyroute.
    #[arg(value_name = "VECTORS_DIR")]
    vectors_dir: Option<PathBuf>,
    /// Only files (or cases) whose spec uses this native algorithm (ring, jump, …); repeatable.
    #[arg(long, value_name = "NAME")]
    algorithm: Vec<String>,
    /// Only files (or cases) whose spec uses this peer preset (libmemcached, guava, …);
    /// repeatable.
    #[arg(long, value_name = "NAME")]
    preset: Vec<String>,
    /// Only this vector file: its id or file name, `*` matching any text; repeatable.
    #[arg(long, value_name = "PATTERN")]
    file: Vec<String>,
    /// Also write a JUnit XML report: a testsuite per vector file, a testcase per case.
    #[arg(long, value_name = "PATH")]
    junit: Option<PathBuf>,
    /// Check another router instead of keyroute: run CMD (split into words as a shell would,
    /// no shell features) and talk to it over conformance/PROTOCOL.md on its stdin and stdout.
    #[arg(long, value_name = "CMD")]
    exec: Option<String>,
    /// With --exec: seconds to wait for each answer before the adapter is stopped.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
    /// With --exec: keys per route message.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    batch: u32,
    /// A line for every vector file, not only for those that differ.
    #[arg(long, short)]
    verbose: bool,
}

/// One vector file, parsed, with the cases the filters keep.
struct Selected {
    /// The file name (`spymemcached-ketama-3.json`).
    name: String,
    /// The file's `id`.
    id: String,
    /// The file's spec, when it has one.
    spec: Option<Value>,
    /// The kept cases.
    cases: Vec<Value>,
}

impl Selected {
    fn algorithm(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| s.get("algorithm")).and_then(Value::as_str)
    }
}

/// What a case gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseResult {
    /// As expected.
    Pass,
    /// Not run, and why.
    Skip(String),
    /// Different: how, and the node answered if one was.
    Fail { message: String, got_node: Option<String> },
}

/// One case's report.
#[derive(Debug, Clone)]
pub struct CaseReport {
    /// The case id.
    pub id: String,
    /// The key's bytes, when the case has a key that is bytes.
    pub key: Option<Vec<u8>>,
    /// The node the case expects, when it expects one.
    pub want_node: Option<String>,
    /// The result.
    pub result: CaseResult,
}

/// One vector file's report.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The file name.
    pub name: String,
    /// The file id (the JUnit suite name).
    pub id: String,
    /// The file spec, when it has one.
    pub spec: Option<Value>,
    /// Every kept case, in file order.
    pub cases: Vec<CaseReport>,
    /// Seconds spent on the file.
    pub seconds: f64,
}

impl FileReport {
    fn count(&self, f: impl Fn(&CaseResult) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.result)).count()
    }

    fn failed(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Fail { .. }))
    }

    fn skipped(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Skip(_)))
    }

    /// The spec's `algorithm`.
    pub fn algorithm(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| s.get("algorithm")).and_then(Value::as_str)
    }
}

/// Runs `keyroute conformance`.
pub fn run(args: &ConformanceArgs) -> Result<()> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(CliError::new(ErrorCode::InvalidArgument, "--timeout must be a positive number of seconds"));
    }
    let filter = Filter::new(args)?;
    if let (Some(junit), Some(dir)) = (&args.junit, &args.vectors_dir) {
        // A listing that fails is reported by `load`.
        let inputs = corpus::vector_files(dir).unwrap_or_default();
        let inputs: Vec<&std::path::Path> = inputs.iter().map(|p| p.as_path()).collect();
        crate::output::refuse_overwriting_input("--junit", junit, &inputs)?;
    }
    let (source, files) = load(args.vectors_dir.as_ref())?;
    let selected = select(files, &filter)?;
    let started = Instant::now();
    let mut not_sent = Vec::new();
    let (runner, reports, fatal) = match &args.exec {
        None => ("keyroute itself".to_string(), run_local(&selected), None),
        Some(cmd) => {
            let options =
                exec::Options { timeout: Duration::from_secs_f64(args.timeout.min(1e6)), batch: args.batch as usize };
            match exec::run(cmd, &selected, &options) {
                Ok((name, reports, unsent)) => {
                    not_sent = unsent;
                    (name, reports, None)
                }
                Err((e, partial)) => (format!("`{cmd}`"), partial, Some(e)),
            }
        }
    };
    let hints = diagnose::hints(&reports);
    let elapsed = started.elapsed();
    if let Some(path) = &args.junit {
        junit::write(path, &reports, fatal.as_ref().map(ToString::to_string).as_deref(), elapsed)?;
    }
    // The outcome is settled, and its line printed on stderr, before the report is written, so
    // a reader that stops early (`-v | head -1`) cannot turn a mismatch into status 0.
    let failed: usize = reports.iter().map(FileReport::failed).sum();
    let ran: usize = reports.iter().map(|f| f.cases.len() - f.skipped()).sum();
    let outcome = if let Some(e) = fatal {
        Some(e)
    } else if failed > 0 {
        Some(CliError::finding(format!("{failed} of {ran} cases differ")))
    } else if ran == 0 {
        Some(CliError::new(ErrorCode::InvalidArgument, "no case ran: every selected case was skipped"))
    } else {
        None
    };
    let outcome = outcome.map(CliError::print_now);
    let written = print_report(&source, &runner, &reports, &not_sent, &hints, args.verbose, elapsed);
    crate::error::settled(outcome, written)
}

/// The filters of the command line.
struct Filter {
    /// Algorithm or preset names (empty: all).
    algorithms: Vec<String>,
    files: Vec<String>,
}

impl Filter {
    fn new(args: &ConformanceArgs) -> Result<Self> {
        let mut algorithms = Vec::new();
        for (names, want_preset, option) in [(&args.algorithm, false, "--algorithm"), (&args.preset, true, "--preset")]
        {
            for name in names {
                let is_preset = match registry::find(name).map(|a| a.kind) {
                    Some(AlgorithmKind::Preset { .. }) => true,
                    Some(AlgorithmKind::Native { .. }) => false,
                    None => {
                        let known: Vec<&str> = registry::algorithms()
                            .filter(|a| matches!(a.kind, AlgorithmKind::Preset { .. }) == want_preset)
                            .map(|a| a.name)
                            .collect();
                        return Err(CliError::new(
                            ErrorCode::InvalidArgument,
                            format!("{option} {name}: no such name; one of {}", known.join(", ")),
                        ));
                    }
                };
                if is_preset != want_preset {
                    let other = if is_preset { "--preset" } else { "--algorithm" };
                    return Err(CliError::new(
                        ErrorCode::InvalidArgument,
                        format!("{option} {name}: use {other} {name}"),
                    ));
                }
                algorithms.push(name.clone());
            }
        }
        Ok(Self { algorithms, files: args.file.clone() })
    }

    fn file(&self, name: &str, id: &str) -> bool {
        self.files.is_empty() || self.files.iter().any(|p| glob(p, id) || glob(p, name))
    }

    /// Whether a case is kept: its spec's algorithm (its own spec, or the file's) is one of
    /// the filter's. A case whose spec is raw text has no known algorithm.
    fn case(&self, file_algorithm: Option<&str>, case: &Value) -> bool {
        if self.algorithms.is_empty() {
            return true;
        }
        let own = ["spec_json", "spec_hex", "spec_repeat", "spec_toml"].iter().any(|k| case.get(k).is_some());
        let algorithm = match case.get("spec") {
            Some(spec) => spec.get("algorithm").and_then(Value::as_str),
            None if own => None,
            None => file_algorithm,
        };
        algorithm.is_some_and(|a| self.algorithms.iter().any(|n| n == a))
    }
}

/// `pattern` matches `text`, where `*` in the pattern matches any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Vector files: (file name, contents).
type Files = Vec<(String, Vec<u8>)>;

/// The corpus: a description of where it came from and its files.
fn load(dir: Option<&PathBuf>) -> Result<(String, Files)> {
    let Some(dir) = dir else {
        if compiled::FILES.is_empty() {
            return Err(CliError::usage(
                ErrorCode::InvalidArgument,
                "this keyroute was built without the conformance corpus (from the published crate): \
                 give the corpus folder, keyroute conformance DIR (conformance/vectors/v1 of the repository, \
                 or share/keyroute/vectors of the C install)",
            ));
        }
        let files = compiled::FILES.iter().map(|(name, bytes)| ((*name).to_string(), bytes.to_vec())).collect();
        let source = format!(
            "the corpus compiled into keyroute {} ({} files)",
            env!("CARGO_PKG_VERSION"),
            compiled::FILES.len()
        );
        return Ok((source, files));
    };
    let paths = corpus::vector_files(dir).map_err(|e| CliError::from_bindings("the corpus", &e))?;
    let mut files = Vec::with_capacity(paths.len());
    for path in &paths {
        let bytes = std::fs::read(path).map_err(|e| CliError::io(format_args!("reading {}", path.display()), &e))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        files.push((name, bytes));
    }
    if files.is_empty() {
        return Err(CliError::new(ErrorCode::Io, format!("{}: no vector files (*.json) in the folder", dir.display())));
    }
    Ok((format!("{} ({} files)", dir.display(), files.len()), files))
}

/// Parses the files and keeps what the filters select; a file that is not a vector file is an
/// error (bad data, exit 3); a selection with nothing in it is a usage error (exit 2).
fn select(files: Files, filter: &Filter) -> Result<Vec<Selected>> {
    let mut out = Vec::new();
    for (name, bytes) in files {
        let doc: Value = serde_json::from_slice(&bytes)
            .map_err(|e| CliError::new(ErrorCode::InvalidJson, format!("{name}: not a vector file: {e}")))?;
        let id = doc.get("id").and_then(Value::as_str).unwrap_or(name.trim_end_matches(".json")).to_string();
        if !filter.file(&name, &id) {
            continue;
        }
        let Some(cases) = doc.get("cases").and_then(Value::as_array) else {
            return Err(CliError::new(ErrorCode::InvalidSpec, format!("{name}: not a vector file: no cases array")));
        };
        let spec = doc.get("spec").cloned();
        let file_algorithm = spec.as_ref().and_then(|s| s.get("algorithm")).and_then(Value::as_str);
        let cases: Vec<Value> = cases.iter().filter(|c| filter.case(file_algorithm, c)).cloned().collect();
        if cases.is_empty() {
            continue;
        }
        for case in &cases {
            if case.get("id").and_then(Value::as_str).is_none() {
                return Err(CliError::new(ErrorCode::InvalidSpec, format!("{name}: a case has no id")));
            }
        }
        out.push(Selected { name, id, spec, cases });
    }
    if out.is_empty() {
        return Err(CliError::new(ErrorCode::InvalidArgument, "no vector file matches the filters"));
    }
    Ok(out)
}

/// A case's id (checked present by `select`).
fn case_id(case: &Value) -> String {
    case.get("id").and_then(Value::as_str).unwrap_or("?").to_string()
}

/// The key bytes of a case, when it has bytes.
fn key_bytes(case: &Value) -> Option<Vec<u8>> {
    match corpus::case_key(case) {
        CaseKey::Bytes(bytes) => Some(bytes),
        _ => None,
    }
}

/// Runs the selection through keyroute itself.
fn run_local(selected: &[Selected]) -> Vec<FileReport> {
    let toml = |bytes: &[u8], limits: &Limits| Spec::from_toml(bytes, limits);
    selected
        .iter()
        .map(|file| {
            let started = Instant::now();
            let router = file
                .spec
                .as_ref()
                .map(|spec| Spec::from_value(spec.clone(), &Limits::DEFAULT).and_then(|s| Router::from_spec(&s)));
            let cases = file
                .cases
                .iter()
                .map(|case| {
                    let result = match &router {
                        Some(Err(e)) => CaseResult::Fail {
                            message: format!(
                                "the file's spec does not build: error {} ({})",
                                e.code().name(),
                                e.code().code()
                            ),
                            got_node: None,
                        },
                        Some(Ok(r)) => from_outcome(corpus::check_case(Some(r), case, Some(&toml))),
                        None => from_outcome(corpus::check_case(None, case, Some(&toml))),
                    };
                    CaseReport {
                        id: case_id(case),
                        key: key_bytes(case),
                        want_node: case.get("node").and_then(Value::as_str).map(str::to_string),
                        result,
                    }
                })
                .collect();
            FileReport {
                name: file.name.clone(),
                id: file.id.clone(),
                spec: file.spec.clone(),
                cases,
                seconds: started.elapsed().as_secs_f64(),
            }
        })
        .collect()
}

fn from_outcome(outcome: Outcome) -> CaseResult {
    match outcome {
        Outcome::Pass => CaseResult::Pass,
        Outcome::Skip(why) => CaseResult::Skip(why.to_string()),
        Outcome::Fail(m) => CaseResult::Fail { message: m.message, got_node: m.got_node },
    }
}

/// A key for a report line: its text when printable, with its hex.
pub(crate) fn show_key(key: &[u8]) -> String {
    const MAX: usize = 40;
    let cut = &key[..key.len().min(MAX)];
    let more = if key.len() > MAX { format!("… ({} bytes)", key.len()) } else { String::new() };
    if cut.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        format!("{:?}{more}", String::from_utf8_lossy(cut))
    } else {
        format!("hex {}{more}", corpus::hex(cut))
    }
}

/// Mismatches listed per file.
const SHOWN_PER_FILE: usize = 5;

fn print_report(
    source: &str,
    runner: &str,
    reports: &[FileReport],
    not_sent: &[(String, &'static str)],
    hints: &[diagnose::Hint],
    verbose: bool,
    elapsed: Duration,
) -> Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "conformance: {source}, answered by {runner}")?;
    let mut skip_reasons: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for file in reports {
        let (failed, skipped) = (file.failed(), file.skipped());
        let ran = file.cases.len() - skipped;
        for case in &file.cases {
            if let CaseResult::Skip(why) = &case.result {
                *skip_reasons.entry(why.as_str()).or_default() += 1;
            }
        }
        if failed == 0 && !verbose {
            continue;
        }
        let status = if failed > 0 {
            "FAIL"
        } else if ran == 0 {
            "skip"
        } else {
            "ok"
        };
        let skipped_note = if skipped > 0 { format!(", {skipped} skipped") } else { String::new() };
        writeln!(out, "{status:4} {}: {}/{ran} cases match{skipped_note}", file.name, ran - failed)?;
        for case in file.cases.iter().filter(|c| matches!(c.result, CaseResult::Fail { .. })).take(SHOWN_PER_FILE) {
            if let CaseResult::Fail { message, .. } = &case.result {
                let key = case.key.as_deref().map(|k| format!(" (key {})", show_key(k))).unwrap_or_default();
                writeln!(out, "       {}: {message}{key}", case.id)?;
            }
        }
        if failed > SHOWN_PER_FILE {
            writeln!(out, "       … and {} more", failed - SHOWN_PER_FILE)?;
        }
    }
    let total: usize = reports.iter().map(|f| f.cases.len()).sum();
    let failed: usize = reports.iter().map(FileReport::failed).sum();
    let skipped: usize = reports.iter().map(FileReport::skipped).sum();
    let failed_files = reports.iter().filter(|f| f.failed() > 0).count();
    writeln!(
        out,
        "{} files, {total} cases: {} passed, {failed} failed ({failed_files} files), {skipped} skipped, in {:.2} s",
        reports.len(),
        total - failed - skipped,
        elapsed.as_secs_f64()
    )?;
    let mut why_not_sent: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (_, why) in not_sent {
        *why_not_sent.entry(why).or_default() += 1;
    }
    for (why, n) in why_not_sent {
        writeln!(out, "  not sent: {n} {why}")?;
    }
    for (why, n) in skip_reasons {
        writeln!(out, "  skipped {n}: {why}")?;
    }
    for hint in hints {
        writeln!(out, "hint ({}): {}", hint.id, hint.text)?;
    }
    if failed > 0 && hints.is_empty() {
        writeln!(
            out,
            "hint: the mismatches follow none of the patterns keyroute knows; start from the first ones above"
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_stars_and_whole_names() {
        assert!(glob("guava-*", "guava-consistenthash-u64be-3"));
        assert!(glob("*-3", "guava-consistenthash-u64be-3"));
        assert!(glob("*u64be*", "guava-consistenthash-u64be-3"));
        assert!(glob("native-ring-3", "native-ring-3"));
        assert!(!glob("native-ring-3", "native-ring-30"));
        assert!(!glob("a*b*c", "abx"));
        assert!(glob("a*a", "aa"));
        assert!(!glob("a*a", "a"));
    }

    #[test]
    fn the_compiled_corpus_is_the_repository_corpus() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/v1");
        let on_disk = corpus::vector_files(&dir).unwrap();
        assert_eq!(on_disk.len(), compiled::FILES.len());
        for (path, (name, bytes)) in on_disk.iter().zip(compiled::FILES) {
            assert_eq!(path.file_name().unwrap().to_str().unwrap(), *name);
            assert_eq!(std::fs::read(path).unwrap(), *bytes, "{name}");
        }
    }
}
