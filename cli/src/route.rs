//! `keyroute route`: one `key<TAB>node` line per key, streamed.
//!
//! The hot path (`--input lines`) reads stdin in 1 MiB blocks, routes each block's lines with
//! one batch call, and appends `key`, then a precomputed `\t<id>\n`, to an output block written
//! with one locked `write_all` per MiB: no allocation and no formatting per key. `--input hex`
//! and `--input ndjson` decode each line into the key's bytes first, so any bytes can be a key
//! (a newline too).

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use keyroute_bindings::{ErrorCode, Router};
use keyroute_cli::lines::{from_json_line, unhex};

use crate::error::{CliError, Result};
use crate::input;

/// Route keys through a topology.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute route -t cli/topologies/4-nodes.json user:42 user:43
  seq 1 1000000 | keyroute route -t cli/topologies/4-nodes.json > owners.tsv
  keyroute route -t cli/topologies/4-nodes.json --replicas 2 user:42
  keyroute route -t cli/topologies/4-nodes.json --json user:42
  keyroute route -t cli/topologies/4-nodes.json --input hex 757365723a3432 ff00
  printf '\"line one\\\\nline two\"\\n{\"key_hex\":\"fffe\"}\\n' | keyroute route -t topo.json --input ndjson

Input (--input; the same for keys given as arguments and on stdin, one key per line):
  lines   each line is a key, as bytes: a trailing \\r is dropped, a last line without \\n
          counts (the default; a key cannot hold \\n)
  hex     each line is the key's bytes in hex (upper or lower case; an empty line is the
          empty key): any bytes, a newline or invalid UTF-8 too
  ndjson  each line is one JSON value: a string (the key's UTF-8), or an object with
          \"key\" (a string) or \"key_hex\" (hex bytes, for keys that are not UTF-8); other
          fields are ignored, so --json output can be routed again

Output: one line per key, `key<TAB>node` (with --replicas N: `key<TAB>node1<TAB>…<TAB>nodeN`,
in preference order); the key is written as the input mode writes it (raw, hex, or one JSON
value), so the first column is input for the same mode. Slot-based algorithms (slots,
redis-cluster) print the key's slot after it: `key<TAB>slot<TAB>node`. With --json, one JSON
object per line: {\"key\":…,\"node\":…} or {\"key\":…,\"replicas\":[…]}, with \"slot\":N
after the key for slot-based algorithms, and keys that are not UTF-8 as \"key_hex\".
A key that cannot be decoded is refused with its line: invalid_key (bad hex), invalid_json (a
line that is not JSON), invalid_type (JSON that is not a string or a key object).")]
pub struct RouteArgs {
    /// Topology spec (JSON, or TOML when the name ends in .toml; `-` for stdin).
    #[arg(short, long, value_name = "FILE")]
    topology: PathBuf,
    /// Keys to route (written as --input says); when none are given, one key per line from stdin.
    keys: Vec<String>,
    /// List N distinct nodes per key, in preference order, instead of the owner alone.
    #[arg(short, long, value_name = "N")]
    replicas: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// How each key is written: raw lines, hex bytes, or one JSON value per line.
    #[arg(long, value_enum, default_value_t = InputMode::Lines, value_name = "MODE")]
    input: InputMode,
}

/// How keys are written in the arguments and on stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputMode {
    /// Each line is a key (bytes; no newline in a key).
    Lines,
    /// Each line is a key's bytes in hex.
    Hex,
    /// Each line is a JSON string, or {"key": …} / {"key_hex": …}.
    Ndjson,
}

/// Flush the output block once it holds this much.
const OUT_BLOCK: usize = 1 << 20;

pub fn run(args: &RouteArgs) -> Result<()> {
    if args.keys.is_empty() && args.topology.as_os_str() == "-" {
        return Err(CliError::usage(
            ErrorCode::InvalidParameter,
            "the topology and the keys cannot both come from stdin",
        ));
    }
    let router = input::router(&args.topology)?;
    if let Some(n) = args.replicas
        && n > router.len()
    {
        return Err(CliError::usage(
            ErrorCode::ReplicasExceedNodes,
            format!("{n} replicas requested but the topology has {} nodes", router.len()),
        ));
    }
    let mut out = Output::new(&router, args);
    let stdout = io::stdout();
    let mut sink = stdout.lock();
    if args.keys.is_empty() {
        let mut decoded = Decoded::default();
        input::for_each_batch(io::stdin().lock(), |lines, first| {
            if args.input == InputMode::Lines {
                out.batch(&router, lines, first, "line")?;
            } else {
                decode_all(args.input, lines, first, "line", &mut decoded)?;
                let keys = decoded.keys();
                out.batch(&router, &keys, first, "line")?;
            }
            out.flush_if_full(&mut sink)
        })?;
    } else {
        let lines: Vec<&[u8]> = args.keys.iter().map(String::as_bytes).collect();
        if args.input == InputMode::Lines {
            out.batch(&router, &lines, 1, "argument")?;
        } else {
            let mut decoded = Decoded::default();
            decode_all(args.input, &lines, 1, "argument", &mut decoded)?;
            let keys = decoded.keys();
            out.batch(&router, &keys, 1, "argument")?;
        }
    }
    out.flush(&mut sink)?;
    sink.flush()?;
    Ok(())
}

/// A batch of decoded keys, back to back in one buffer (reused from batch to batch).
#[derive(Default)]
struct Decoded {
    bytes: Vec<u8>,
    /// Where each key ends in `bytes`.
    ends: Vec<usize>,
}

impl Decoded {
    /// The keys, in order.
    fn keys(&self) -> Vec<&[u8]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let key = self.bytes.get(start..end).unwrap_or_default();
                start = end;
                key
            })
            .collect()
    }
}

/// Decodes a batch of hex or NDJSON lines into `out`.
fn decode_all(mode: InputMode, lines: &[&[u8]], first: u64, origin: &str, out: &mut Decoded) -> Result<()> {
    out.bytes.clear();
    out.ends.clear();
    for (i, line) in lines.iter().enumerate() {
        let decoded = match mode {
            InputMode::Hex => unhex(line, &mut out.bytes),
            InputMode::Ndjson => from_json_line(line, &mut out.bytes),
            InputMode::Lines => {
                out.bytes.extend_from_slice(line);
                Ok(())
            }
        };
        decoded.map_err(|(code, why)| {
            CliError::new(code, format!("{origin} {}: {why}: {}", first + i as u64, show(line)))
        })?;
        out.ends.push(out.bytes.len());
    }
    Ok(())
}

struct Output {
    buf: Vec<u8>,
    owners: Vec<u32>,
    /// Per node: `\t<id>\n` (text) or `,"node":"<id>"}\n` (JSON).
    suffix: Vec<Vec<u8>>,
    /// Per node: the id as a JSON string, for replica lists.
    quoted: Vec<String>,
    replicas: Option<usize>,
    json: bool,
    input: InputMode,
    /// The router places keys in slots (slots, redis-cluster): print each key's slot.
    slots: bool,
}

impl Output {
    fn new(router: &Router, args: &RouteArgs) -> Self {
        let ids = (0..router.len() as u32).map(|i| router.node_id(i).unwrap_or_default());
        let quoted: Vec<String> = ids.clone().map(|id| serde_json::Value::from(id).to_string()).collect();
        let suffix = if args.json {
            quoted.iter().map(|q| format!(",\"node\":{q}}}\n").into_bytes()).collect()
        } else {
            ids.map(|id| format!("\t{id}\n").into_bytes()).collect()
        };
        Self {
            buf: Vec::with_capacity(OUT_BLOCK + (1 << 16)),
            owners: Vec::new(),
            suffix,
            quoted,
            replicas: args.replicas,
            json: args.json,
            input: args.input,
            slots: router.slot(b"").is_some(),
        }
    }

    /// The key as this output writes it, then its slot when the router has slots.
    fn key(&mut self, router: &Router, key: &[u8]) {
        let buf = &mut self.buf;
        match (self.json, self.input) {
            (true, _) => json_key(buf, key),
            (false, InputMode::Lines) => buf.extend_from_slice(key),
            (false, InputMode::Hex) => push_hex(buf, key),
            (false, InputMode::Ndjson) => match std::str::from_utf8(key) {
                // Writing into a Vec cannot fail.
                Ok(text) => drop(serde_json::to_writer(&mut *buf, text)),
                Err(_) => {
                    buf.extend_from_slice(b"{\"key_hex\":\"");
                    push_hex(buf, key);
                    buf.extend_from_slice(b"\"}");
                }
            },
        }
        if self.slots
            && let Some(slot) = router.slot(key)
        {
            let _ = if self.json { write!(buf, ",\"slot\":{slot}") } else { write!(buf, "\t{slot}") };
        }
    }

    fn batch(&mut self, router: &Router, keys: &[&[u8]], first_line: u64, origin: &str) -> Result<()> {
        if let Some(n) = self.replicas {
            return self.replica_batch(router, keys, first_line, origin, n);
        }
        if self.owners.len() < keys.len() {
            self.owners.resize(keys.len(), 0);
        }
        if let Err(e) = router.route_batch(keys, &mut self.owners) {
            return Err(locate(keys, first_line, origin, &e));
        }
        if self.json || self.slots || self.input != InputMode::Lines {
            for (i, key) in keys.iter().enumerate() {
                self.key(router, key);
                let owner = self.owners[i] as usize;
                let suffix = self.suffix.get(owner).map_or(&b"\t?\n"[..], Vec::as_slice);
                self.buf.extend_from_slice(suffix);
            }
            return Ok(());
        }
        // The hot path: raw key, then the node's precomputed suffix.
        let Self { buf, owners, suffix, .. } = self;
        for (key, &owner) in keys.iter().zip(owners.iter()) {
            let suffix = suffix.get(owner as usize).map_or(&b"\t?\n"[..], Vec::as_slice);
            buf.extend_from_slice(key);
            buf.extend_from_slice(suffix);
        }
        Ok(())
    }

    fn replica_batch(
        &mut self,
        router: &Router,
        keys: &[&[u8]],
        first_line: u64,
        origin: &str,
        n: usize,
    ) -> Result<()> {
        let mut nodes = vec![0u32; n];
        for (i, key) in keys.iter().enumerate() {
            router.replicas(key, &mut nodes).map_err(|e| {
                CliError::from_bindings(format_args!("key {} ({origin} {})", show(key), first_line + i as u64), &e)
            })?;
            self.key(router, key);
            if self.json {
                self.buf.extend_from_slice(b",\"replicas\":[");
                for (j, &node) in nodes.iter().enumerate() {
                    if j > 0 {
                        self.buf.push(b',');
                    }
                    self.buf
                        .extend_from_slice(self.quoted.get(node as usize).map_or("null", String::as_str).as_bytes());
                }
                self.buf.extend_from_slice(b"]}\n");
            } else {
                for &node in &nodes {
                    // `\t<id>` of the node's `\t<id>\n`.
                    let s = self.suffix.get(node as usize).map_or(&b"\t?\n"[..], Vec::as_slice);
                    self.buf.extend_from_slice(&s[..s.len() - 1]);
                }
                self.buf.push(b'\n');
            }
        }
        Ok(())
    }

    fn flush_if_full(&mut self, sink: &mut impl Write) -> Result<()> {
        if self.buf.len() >= OUT_BLOCK { self.flush(sink) } else { Ok(()) }
    }

    fn flush(&mut self, sink: &mut impl Write) -> Result<()> {
        sink.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

/// `{"key":"…"` (or `{"key_hex":"…"` for bytes that are not UTF-8).
fn json_key(buf: &mut Vec<u8>, key: &[u8]) {
    match std::str::from_utf8(key) {
        Ok(text) => {
            buf.extend_from_slice(b"{\"key\":");
            // Writing into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *buf, text);
        }
        Err(_) => {
            buf.extend_from_slice(b"{\"key_hex\":\"");
            push_hex(buf, key);
            buf.push(b'"');
        }
    }
}

/// Appends `bytes` as lowercase hex.
fn push_hex(buf: &mut Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        buf.push(DIGITS[usize::from(b >> 4)]);
        buf.push(DIGITS[usize::from(b & 15)]);
    }
}

/// A batch failed: name the key that failed and its line.
fn locate(keys: &[&[u8]], first_line: u64, origin: &str, e: &keyroute_bindings::Error) -> CliError {
    match e.key_index().and_then(|i| Some((i, keys.get(i)?))) {
        Some((i, key)) => {
            CliError::from_bindings(format_args!("key {} ({origin} {})", show(key), first_line + i as u64), e)
        }
        None => CliError::from_bindings("routing", e),
    }
}

/// Characters of a key shown in a message.
const SHOWN: usize = 60;

/// A key for a message: its text, shortened, or hex when it is not UTF-8. Only the start of a
/// long key is formatted, so naming a hostile line of a gigabyte costs what naming `k` does.
pub fn show(key: &[u8]) -> String {
    let s = match std::str::from_utf8(key) {
        // SHOWN + 1 characters quote to more than SHOWN: the cut below falls where it would
        // on the whole key.
        Ok(t) => format!("{:?}", t.char_indices().nth(SHOWN + 1).map_or(t, |(i, _)| &t[..i])),
        Err(_) => hex(&key[..key.len().min(SHOWN / 2 + 1)]),
    };
    if s.chars().count() > SHOWN { format!("{}…", s.chars().take(SHOWN).collect::<String>()) } else { s }
}

/// Bytes as lowercase hex, whole.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `show` printed when it formatted the whole key.
    fn whole(key: &[u8]) -> String {
        let s = match std::str::from_utf8(key) {
            Ok(t) => format!("{t:?}"),
            Err(_) => key.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        };
        if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
    }

    #[test]
    fn show_formats_only_the_start_and_shows_the_same() {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for n in [0, 1, 29, 30, 31, 32, 58, 59, 60, 61, 62, 63, 200] {
            keys.push(vec![b'k'; n]);
            keys.push(vec![0xff; n]);
            keys.push("é\"\n".repeat(n).into_bytes());
            keys.push(vec![b'\t'; n]);
            let mut odd = vec![b'a'; n];
            odd.push(0xc3);
            keys.push(odd);
        }
        for key in &keys {
            assert_eq!(show(key), whole(key), "{key:?}");
        }
        assert_eq!(hex(&[0, 0xab, 0xff]), "00abff");
        assert_eq!(show(&vec![0xff; 1 << 20]).chars().count(), SHOWN + 1);
    }
}
