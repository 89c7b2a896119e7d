//! `keyroute route`: one `key<TAB>node` line per key, streamed.
//!
//! The hot path reads stdin in 1 MiB blocks, routes each block's lines with one batch call,
//! and appends `key`, then a precomputed `\t<id>\n`, to an output block written with one
//! locked `write_all` per MiB: no allocation and no formatting per key.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use keyroute_bindings::{ErrorCode, Router};

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

Output: one line per key, `key<TAB>node` (with --replicas N: `key<TAB>node1<TAB>…<TAB>nodeN`,
in preference order); with --json, one JSON object per line: {\"key\":…,\"node\":…} or
{\"key\":…,\"replicas\":[…]}, keys that are not UTF-8 as \"key_hex\".
Keys from stdin are lines: a trailing \\r is dropped, and a last line without \\n counts.")]
pub struct RouteArgs {
    /// Topology spec (JSON, or TOML when the name ends in .toml; `-` for stdin).
    #[arg(short, long, value_name = "FILE")]
    topology: PathBuf,
    /// Keys to route; when none are given, one key per line from stdin.
    keys: Vec<String>,
    /// List N distinct nodes per key, in preference order, instead of the owner alone.
    #[arg(short, long, value_name = "N")]
    replicas: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

/// Flush the output block once it holds this much.
const OUT_BLOCK: usize = 1 << 20;

pub fn run(args: &RouteArgs) -> Result<()> {
    if args.keys.is_empty() && args.topology.as_os_str() == "-" {
        return Err(CliError::new(
            ErrorCode::InvalidParameter,
            "the topology and the keys cannot both come from stdin",
        ));
    }
    let router = input::router(&args.topology)?;
    if let Some(n) = args.replicas
        && n > router.len()
    {
        return Err(CliError::new(
            ErrorCode::ReplicasExceedNodes,
            format!("{n} replicas requested but the topology has {} nodes", router.len()),
        ));
    }
    let mut out = Output::new(&router, args);
    let stdout = io::stdout();
    let mut sink = stdout.lock();
    if args.keys.is_empty() {
        input::for_each_batch(io::stdin().lock(), |keys, first| {
            out.batch(&router, keys, first)?;
            out.flush_if_full(&mut sink)
        })?;
    } else {
        let keys: Vec<&[u8]> = args.keys.iter().map(String::as_bytes).collect();
        out.batch(&router, &keys, 1)?;
    }
    out.flush(&mut sink)?;
    sink.flush()?;
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
        }
    }

    fn batch(&mut self, router: &Router, keys: &[&[u8]], first_line: u64) -> Result<()> {
        if let Some(n) = self.replicas {
            return self.replica_batch(router, keys, first_line, n);
        }
        if self.owners.len() < keys.len() {
            self.owners.resize(keys.len(), 0);
        }
        if let Err(e) = router.route_batch(keys, &mut self.owners) {
            return Err(locate(keys, first_line, &e));
        }
        let Self { buf, owners, suffix, json, .. } = self;
        for (key, &owner) in keys.iter().zip(owners.iter()) {
            let suffix = suffix.get(owner as usize).map_or(&b"\t?\n"[..], Vec::as_slice);
            if *json {
                json_key(buf, key);
            } else {
                buf.extend_from_slice(key);
            }
            buf.extend_from_slice(suffix);
        }
        Ok(())
    }

    fn replica_batch(&mut self, router: &Router, keys: &[&[u8]], first_line: u64, n: usize) -> Result<()> {
        let mut nodes = vec![0u32; n];
        for (i, key) in keys.iter().enumerate() {
            router.replicas(key, &mut nodes).map_err(|e| {
                CliError::from_bindings(format_args!("key {} (line {})", show(key), first_line + i as u64), &e)
            })?;
            if self.json {
                json_key(&mut self.buf, key);
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
                self.buf.extend_from_slice(key);
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
            for b in key {
                let _ = write!(buf, "{b:02x}");
            }
            buf.push(b'"');
        }
    }
}

/// A batch failed: name the key that failed and its line.
fn locate(keys: &[&[u8]], first_line: u64, e: &keyroute_bindings::Error) -> CliError {
    match e.key_index().and_then(|i| Some((i, keys.get(i)?))) {
        Some((i, key)) => {
            CliError::from_bindings(format_args!("key {} (line {})", show(key), first_line + i as u64), e)
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
