//! `keyroute conformance --exec CMD`: drives another router (an adapter) over the JSON-lines
//! protocol of `conformance/PROTOCOL.md` on its stdin and stdout, and compares its answers with
//! the vectors. The adapter's stderr passes through; a crash, a timeout, or a line that is not a
//! protocol message stops the run (error `io`, exit 4) with what happened.
//!
//! The adapter runs in a process group of its own (on Unix), and the run ends that group when
//! it ends: after `bye`, on a fault or a timeout, and when keyroute itself gets SIGINT, SIGTERM
//! or SIGHUP ([`group`]), so nothing the adapter started outlives the run.

use std::io::{BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use keyroute_bindings::ErrorCode;
use keyroute_bindings::conformance::{self as corpus, CaseKey};
use keyroute_cli::adapter::{Caps, Line, read_lines};
use serde_json::{Value, json};

use super::{CaseReport, CaseResult, FileReport, Selected, case_id, group};
use crate::error::CliError;

/// The protocol versions this runner speaks.
pub const PROTOCOLS: &[u64] = &[1];

/// The runner's bounds on what it reads before each message.
const CAPS: Caps = Caps::PROTOCOL;
/// The longest message (with the blank lines before it) an adapter may write: 64 MiB.
const MAX_LINE: u64 = CAPS.max_line;
/// The most blank lines an adapter may write before a message.
const MAX_BLANK_LINES: u64 = CAPS.max_blank_lines;

/// How often a runner waiting for an answer checks whether the adapter has exited: an adapter
/// that exits while something it started still holds its stdout open (so no end of stream
/// comes) is reported as exited within this, not after the whole `--timeout`.
const EXIT_POLL: Duration = Duration::from_millis(20);

/// After the adapter has exited, how long the runner still waits for lines it wrote before it
/// exited (and that the reader thread has not handed over yet).
const AFTER_EXIT: Duration = Duration::from_millis(200);

/// Lines read ahead of the runner: an adapter that writes faster than the runner reads waits
/// on its pipe instead of filling the runner's memory.
const LINES_AHEAD: usize = 16;

/// How the adapter is driven.
pub struct Options {
    /// How long to wait for each answer (and for the exit after `bye`).
    pub timeout: Duration,
    /// Keys per `route` message.
    pub batch: usize,
}

/// What the adapter said about itself.
struct Hello {
    name: String,
    algorithms: Vec<String>,
    replicas: bool,
    slot: bool,
}

/// A running adapter.
struct Adapter {
    cmd: String,
    child: Child,
    /// Lines for the adapter's stdin, written by a thread of their own, so an adapter that
    /// stops reading cannot block the runner past its timeout; `None` closes stdin.
    stdin: Option<Sender<Vec<u8>>>,
    lines: Receiver<Line>,
    timeout: Duration,
}

/// Why a file is not sent: it has no spec of its own (only cases with their own specs, which
/// test keyroute's spec reader).
pub const NO_SPEC: &str = "files without a spec of their own (cases that test keyroute's spec reader)";
/// Why a file is not sent: the adapter does not implement its algorithm.
pub const NOT_IMPLEMENTED: &str = "files whose algorithm the adapter does not implement";

/// The result of a run: the adapter's name, the reports, and the files not sent with why; or the error that stopped the run with the reports
/// of the files finished before it.
pub type RunResult = Result<(String, Vec<FileReport>, Vec<(String, &'static str)>), (CliError, Vec<FileReport>)>;

/// Runs the selection through the adapter `cmd`.
pub fn run(cmd: &str, selected: &[Selected], options: &Options) -> RunResult {
    let mut reports = Vec::new();
    let mut adapter = match Adapter::start(cmd, options.timeout) {
        Ok(a) => a,
        Err(e) => return Err((e, reports)),
    };
    let hello = match adapter.handshake() {
        Ok(h) => h,
        Err(e) => return Err((e, reports)),
    };
    let mut not_sent = Vec::new();
    for file in selected {
        let Some(algorithm) = file.algorithm() else {
            not_sent.push((file.name.clone(), NO_SPEC));
            continue;
        };
        if !hello.algorithms.iter().any(|a| a == algorithm) {
            not_sent.push((file.name.clone(), NOT_IMPLEMENTED));
            continue;
        }
        match adapter.run_file(file, &hello, options.batch) {
            Ok(report) => reports.push(report),
            Err(e) => return Err((e, reports)),
        }
    }
    if let Err(e) = adapter.finish() {
        return Err((e, reports));
    }
    if reports.is_empty() {
        let e = CliError::new(
            ErrorCode::InvalidArgument,
            format!(
                "the adapter implements none of the selected files' algorithms (it implements: {})",
                hello.algorithms.join(", ")
            ),
        );
        return Err((e, reports));
    }
    Ok((format!("{} over `{cmd}`", hello.name), reports, not_sent))
}

/// A file none of whose cases is sent.
fn skipped(file: &Selected, why: &str) -> FileReport {
    FileReport {
        name: file.name.clone(),
        id: file.id.clone(),
        spec: file.spec.clone(),
        cases: file
            .cases
            .iter()
            .map(|c| CaseReport {
                id: case_id(c),
                key: None,
                want_node: None,
                result: CaseResult::Skip(why.to_string()),
            })
            .collect(),
        seconds: 0.0,
    }
}

/// Why a case cannot go over the protocol, or its key.
fn sendable(case: &Value) -> Result<Vec<u8>, &'static str> {
    const OWN: [&str; 5] = ["spec", "spec_json", "spec_hex", "spec_repeat", "spec_toml"];
    if OWN.iter().any(|k| case.get(k).is_some()) {
        return Err("a case with its own spec (a test of keyroute's spec reader): not sent by --exec");
    }
    if case.get("limits").is_some() || case.get("replicas_count").is_some() {
        return Err("a test of keyroute's limits or replica counts: not sent by --exec");
    }
    match corpus::case_key(case) {
        CaseKey::Bytes(key) => Ok(key),
        CaseKey::Refused(_) => Err("key_utf16 with a lone surrogate: no bytes to send"),
        CaseKey::None => Err("a key that is not bytes (key_type): not sent by --exec"),
        CaseKey::Malformed(_) => Err("a malformed key in the vector file"),
    }
}

impl Adapter {
    fn start(cmd: &str, timeout: Duration) -> Result<Self, CliError> {
        let words = shlex::split(cmd).filter(|w| !w.is_empty()).ok_or_else(|| {
            CliError::new(
                ErrorCode::InvalidArgument,
                format!("--exec {cmd:?}: not a command (empty, or unbalanced quotes)"),
            )
        })?;
        let (program, args) =
            words.split_first().ok_or_else(|| CliError::new(ErrorCode::InvalidArgument, "--exec: empty command"))?;
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = group::spawn(&mut command)
            .map_err(|e| CliError::io(format_args!("cannot start the adapter `{cmd}`"), &e))?;
        let mut pipe = child.stdin.take().ok_or_else(|| CliError::new(ErrorCode::Internal, "the adapter's stdin"))?;
        let (stdin, to_write) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            for line in to_write {
                if pipe.write_all(&line).and_then(|()| pipe.flush()).is_err() {
                    return;
                }
            }
        });
        let stdout = child.stdout.take().ok_or_else(|| CliError::new(ErrorCode::Internal, "the adapter's stdout"))?;
        let (tx, rx) = mpsc::sync_channel(LINES_AHEAD);
        std::thread::spawn(move || read_lines(BufReader::new(stdout), CAPS, |line| tx.send(line).is_ok()));
        Ok(Self { cmd: cmd.to_string(), child, stdin: Some(stdin), lines: rx, timeout })
    }

    /// Stops the adapter (a process this run started) and what it started (its process
    /// group), and reaps it.
    fn stop(&mut self) {
        self.stdin = None;
        group::end(&self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits up to the timeout for the adapter to exit by itself.
    fn wait_exit(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + self.timeout.min(Duration::from_secs(10));
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// The adapter went away while `what` was pending.
    fn gone(&mut self, what: &str) -> CliError {
        self.stdin = None;
        let status = match self.wait_exit() {
            Some(status) => format!("exited ({status})"),
            None => {
                self.stop();
                "closed its stdout".to_string()
            }
        };
        CliError::new(ErrorCode::Io, format!("the adapter `{}` {status} {what}", self.cmd))
    }

    fn send(&mut self, message: &Value, what: &str) -> Result<(), CliError> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        // A write that fails (the adapter is gone) shows as the end of its stdout.
        match self.stdin.as_ref().map(|stdin| stdin.send(line)) {
            Some(Ok(())) => Ok(()),
            _ => Err(self.gone(&format!("before it read {what}"))),
        }
    }

    /// The next protocol message, answering `what`.
    fn recv(&mut self, what: &str) -> Result<Value, CliError> {
        loop {
            let line = match self.next_line() {
                Next::Line(line) => line,
                Next::Exited => return Err(self.gone(&format!("without answering {what}"))),
                Next::Timeout => {
                    self.stop();
                    return Err(CliError::new(
                        ErrorCode::Io,
                        format!(
                            "the adapter `{}` did not answer {what} within {} s; it was stopped",
                            self.cmd,
                            self.timeout.as_secs_f64()
                        ),
                    ));
                }
            };
            let text = match line {
                Line::Text(text) => text,
                Line::Eof => return Err(self.gone(&format!("without answering {what}"))),
                Line::Failed(e) => {
                    self.stop();
                    return Err(CliError::new(ErrorCode::Io, format!("reading the adapter's stdout: {e}")));
                }
                Line::TooLong => {
                    self.stop();
                    return Err(garbage(&self.cmd, what, &format!("a line longer than {MAX_LINE} bytes")));
                }
                Line::Blanks(lines, bytes) => {
                    self.stop();
                    return Err(garbage(
                        &self.cmd,
                        what,
                        &format!(
                            "{lines} blank lines ({bytes} bytes) and no message (at most {MAX_BLANK_LINES} blank \
                             lines and {MAX_LINE} bytes are read before a message)"
                        ),
                    ));
                }
            };
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return match serde_json::from_slice::<Value>(&text) {
                Ok(v) if v.get("type").and_then(Value::as_str).is_some() => Ok(v),
                _ => {
                    self.stop();
                    let shown = String::from_utf8_lossy(&text[..text.len().min(200)]).into_owned();
                    Err(garbage(&self.cmd, what, &format!("{shown:?}")))
                }
            };
        }
    }

    /// The adapter's next line within the timeout. The adapter's exit is watched beside its
    /// stdout: once it has exited, lines it wrote before are still taken for [`AFTER_EXIT`], and
    /// then the answer is [`Next::Exited`], even when what it started keeps its stdout open.
    fn next_line(&mut self) -> Next {
        let deadline = Instant::now() + self.timeout;
        let mut exited: Option<Instant> = None;
        loop {
            let until = exited.map_or(deadline, |at| (at + AFTER_EXIT).min(deadline));
            let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
                return if exited.is_some() { Next::Exited } else { Next::Timeout };
            };
            match self.lines.recv_timeout(left.min(EXIT_POLL)) {
                Ok(line) => return Next::Line(line),
                Err(RecvTimeoutError::Disconnected) => return Next::Line(Line::Eof),
                Err(RecvTimeoutError::Timeout) => {
                    if exited.is_none() && matches!(self.child.try_wait(), Ok(Some(_))) {
                        exited = Some(Instant::now());
                    }
                }
            }
        }
    }

    /// Says goodbye with a reason, closes stdin and lets the adapter exit.
    fn refuse(&mut self, reason: &str) {
        let _ = self.send(&json!({"type": "bye", "reason": reason}), "bye");
        self.stdin = None;
        if self.wait_exit().is_none() {
            self.stop();
        }
    }

    fn handshake(&mut self) -> Result<Hello, CliError> {
        let runner = format!("keyroute {}", env!("CARGO_PKG_VERSION"));
        self.send(&json!({"type": "hello", "protocol": PROTOCOLS, "runner": runner}), "hello")?;
        let answer = self.recv("hello")?;
        match answer.get("type").and_then(Value::as_str) {
            Some("hello") => {}
            Some("refuse") => {
                let reason = answer.get("reason").and_then(Value::as_str).unwrap_or("no reason given").to_string();
                self.stdin = None;
                if self.wait_exit().is_none() {
                    self.stop();
                }
                return Err(CliError::new(
                    ErrorCode::Io,
                    format!("the adapter `{}` refused the session: {reason}", self.cmd),
                ));
            }
            _ => return Err(self.unexpected(&answer, "hello")),
        }
        let version = answer.get("protocol").and_then(Value::as_u64);
        if !version.is_some_and(|v| PROTOCOLS.contains(&v)) {
            let said = answer.get("protocol").map_or_else(|| "no protocol".to_string(), |v| format!("protocol {v}"));
            let reason = format!("this runner speaks protocol {PROTOCOLS:?}; the adapter answered {said}");
            self.refuse(&reason);
            return Err(CliError::new(ErrorCode::Io, format!("the adapter `{}` cannot be used: {reason}", self.cmd)));
        }
        let Some(algorithms) = answer.get("algorithms").and_then(Value::as_array) else {
            self.refuse("the hello has no algorithms list");
            return Err(CliError::new(
                ErrorCode::Io,
                format!("the adapter `{}` named no algorithms in its hello (\"algorithms\": [...])", self.cmd),
            ));
        };
        let algorithms = algorithms.iter().filter_map(Value::as_str).map(str::to_string).collect();
        let supports: Vec<&str> = answer
            .get("supports")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let name = answer.get("adapter").and_then(Value::as_str).unwrap_or("an unnamed adapter").to_string();
        Ok(Hello { name, algorithms, replicas: supports.contains(&"replicas"), slot: supports.contains(&"slot") })
    }

    /// An answer of the wrong type: the adapter is stopped.
    fn unexpected(&mut self, answer: &Value, what: &str) -> CliError {
        self.stop();
        let shown: String = answer.to_string().chars().take(200).collect();
        garbage(&self.cmd, what, &shown)
    }

    fn run_file(&mut self, file: &Selected, hello: &Hello, batch: usize) -> Result<FileReport, CliError> {
        let started = Instant::now();
        let what = format!("the spec of {}", file.name);
        self.send(&json!({"type": "spec", "id": file.id, "spec": file.spec}), &what)?;
        let answer = self.recv(&what)?;
        let refused = match answer.get("type").and_then(Value::as_str) {
            Some("ready") => None,
            Some("unsupported") => {
                let reason = answer.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
                let mut report = skipped(file, &format!("the adapter does not support this spec: {reason}"));
                report.seconds = started.elapsed().as_secs_f64();
                return Ok(report);
            }
            Some("error") => Some(format!("the adapter refused the spec: {}", describe_error(&answer))),
            _ => return Err(self.unexpected(&answer, &what)),
        };
        let mut cases: Vec<CaseReport> = Vec::with_capacity(file.cases.len());
        let mut pending: Vec<(usize, Vec<u8>)> = Vec::new();
        for case in &file.cases {
            let index = cases.len();
            let want_node = case.get("node").and_then(Value::as_str).map(str::to_string);
            let (key, result) = match (sendable(case), &refused) {
                (Err(why), _) => (None, CaseResult::Skip(why.to_string())),
                (Ok(key), Some(message)) => (Some(key), CaseResult::Fail { message: message.clone(), got_node: None }),
                (Ok(key), None) => {
                    pending.push((index, key.clone()));
                    (Some(key), CaseResult::Pass)
                }
            };
            cases.push(CaseReport { id: case_id(case), key, want_node, result });
        }
        for (n, chunk) in pending.chunks(batch.max(1)).enumerate() {
            let keys: Vec<Value> = chunk
                .iter()
                .map(|(index, key)| {
                    let case = file.cases.get(*index);
                    let mut entry = serde_json::Map::new();
                    entry.insert("hex".into(), corpus::hex(key).into());
                    if let Ok(text) = std::str::from_utf8(key) {
                        entry.insert("utf8".into(), text.into());
                    }
                    if let Some(replicas) = case.and_then(|c| c.get("replicas")).and_then(Value::as_array)
                        && hello.replicas
                    {
                        entry.insert("replicas".into(), replicas.len().into());
                    }
                    if case.and_then(|c| c.get("slot")).is_some() && hello.slot {
                        entry.insert("slot".into(), true.into());
                    }
                    Value::Object(entry)
                })
                .collect();
            let what = format!("route message {} of {} ({} keys)", n + 1, file.name, keys.len());
            self.send(&json!({"type": "route", "keys": keys}), &what)?;
            let answer = self.recv(&what)?;
            let results =
                match (answer.get("type").and_then(Value::as_str), answer.get("results").and_then(Value::as_array)) {
                    (Some("routed"), Some(results)) if results.len() == chunk.len() => results,
                    (Some("routed"), Some(results)) => {
                        let got = results.len();
                        self.stop();
                        return Err(CliError::new(
                            ErrorCode::Io,
                            format!(
                                "the adapter `{}` answered {what} with {got} results for {} keys",
                                self.cmd,
                                chunk.len()
                            ),
                        ));
                    }
                    _ => return Err(self.unexpected(&answer, &what)),
                };
            for ((index, _), result) in chunk.iter().zip(results) {
                let Some(case) = file.cases.get(*index) else { continue };
                let verdict = match compare(case, result, hello) {
                    Ok(verdict) => verdict,
                    Err(why) => {
                        self.stop();
                        return Err(garbage(&self.cmd, &what, &why));
                    }
                };
                if let Some(report) = cases.get_mut(*index) {
                    report.result = verdict;
                }
            }
        }
        Ok(FileReport {
            name: file.name.clone(),
            id: file.id.clone(),
            spec: file.spec.clone(),
            cases,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Says goodbye and checks that the adapter exits cleanly.
    fn finish(&mut self) -> Result<(), CliError> {
        self.send(&json!({"type": "bye"}), "bye")?;
        self.stdin = None;
        match self.wait_exit() {
            Some(status) if status.success() => Ok(()),
            Some(status) => {
                Err(CliError::new(ErrorCode::Io, format!("the adapter `{}` exited ({status}) after bye", self.cmd)))
            }
            None => {
                self.stop();
                Err(CliError::new(
                    ErrorCode::Io,
                    format!("the adapter `{}` did not exit after bye; it was stopped", self.cmd),
                ))
            }
        }
    }
}

impl Drop for Adapter {
    /// Ends the adapter's process group whatever became of the adapter: what it started may
    /// still run after it exited.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.stop();
        } else {
            group::end(&self.child);
        }
    }
}

/// What waiting for the adapter's next line gave.
enum Next {
    Line(Line),
    /// The adapter exited and wrote nothing more.
    Exited,
    Timeout,
}

fn garbage(cmd: &str, what: &str, shown: &str) -> CliError {
    CliError::new(
        ErrorCode::Io,
        format!("the adapter `{cmd}` answered {what} with something that is not the protocol's answer: {shown}"),
    )
}

/// `error` (and `code`) of an error answer, for people.
fn describe_error(answer: &Value) -> String {
    let name = answer.get("error").and_then(Value::as_str).unwrap_or("?");
    match answer.get("code").and_then(Value::as_u64) {
        Some(code) => format!("error {name} ({code})"),
        None => format!("error {name}"),
    }
}

/// Compares one result with its case (its replicas and slot when the adapter supports them,
/// as it was then asked for them); `Err` when the result is not a result at all.
fn compare(case: &Value, result: &Value, hello: &Hello) -> Result<CaseResult, String> {
    let fail = |message: String, got_node: Option<String>| Ok(CaseResult::Fail { message, got_node });
    let got_node = result.get("node").and_then(Value::as_str);
    let got_error = result.get("error").and_then(Value::as_str);
    match (got_node, got_error) {
        (None, None) | (Some(_), Some(_)) => {
            return Err(format!("a result with neither or both of node and error: {result}"));
        }
        _ => {}
    }
    if let Some(want) = case.get("error").and_then(Value::as_str) {
        return match got_error {
            Some(name) if name == want => {
                match (result.get("code").and_then(Value::as_u64), ErrorCode::from_name(want)) {
                    (Some(code), Some(kind)) if code != u64::from(kind.code()) => {
                        fail(format!("error {name} with code {code}, expected code {}", kind.code()), None)
                    }
                    _ => Ok(CaseResult::Pass),
                }
            }
            Some(_) => fail(format!("{}, expected error {want}", describe_error(result)), None),
            None => {
                fail(format!("node {}, expected error {want}", got_node.unwrap_or("?")), got_node.map(str::to_string))
            }
        };
    }
    let want = case.get("node").and_then(Value::as_str).unwrap_or("?");
    let Some(node) = got_node else {
        return fail(format!("{}, expected node {want}", describe_error(result)), None);
    };
    if node != want {
        return fail(format!("node {node}, expected {want}"), Some(node.to_string()));
    }
    if let Some(want) = case.get("replicas").and_then(Value::as_array)
        && hello.replicas
    {
        let got = result.get("replicas").unwrap_or(&Value::Null);
        if got.as_array() != Some(want) {
            return fail(format!("replicas {got}, expected {}", Value::Array(want.clone())), Some(node.to_string()));
        }
    }
    if let Some(want) = case.get("slot").and_then(Value::as_u64)
        && hello.slot
    {
        let got = result.get("slot").unwrap_or(&Value::Null);
        if got.as_u64() != Some(want) {
            return fail(format!("slot {got}, expected {want}"), Some(node.to_string()));
        }
    }
    Ok(CaseResult::Pass)
}
