//! The CLI's key-stream reader (`keyroute_cli::lines`: `route`'s stdin in every `--input` mode,
//! `plan --keys`, `simulate --trace`) and the decoders of `route --input hex` and
//! `--input ndjson` lines, on arbitrary bytes under a small line limit and block size, read in
//! arbitrary pieces.
//!
//! The lines handed over are exactly the stream split at `\n` with one trailing `\r` dropped
//! (an unterminated last line counts, an empty stream has none), numbered from 1, when no line
//! is longer than the limit; otherwise the first such line is refused with `invalid_key`
//! (exit status 3) and its number, after only lines before it were handed over, and no more
//! than one buffer past that line's start was read. `simulate --trace`'s reader keeps the
//! first `limit` of those lines. A hex line decodes exactly when it is an even number of hex
//! digits, to those bytes; an NDJSON line exactly when it is a JSON string, or an object with
//! exactly one of `key` (a string) and `key_hex` (a hex string).

#![no_main]

use std::io::{self, Read};

use keyroute_bindings::ErrorCode;
use keyroute_cli::lines::{for_each_batch, from_json_line, read_keys, unhex};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| run(data));

/// Hands out at most `step` bytes per read, counting what it gave.
struct Pieces<'a> {
    data: &'a [u8],
    step: usize,
    given: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.data.len().min(out.len()).min(self.step);
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.given += n;
        Ok(n)
    }
}

/// The stream's lines, each with the offset where it starts.
fn reference_lines(data: &[u8]) -> Vec<(&[u8], usize)> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let end = data[start..].iter().position(|&b| b == b'\n').map_or(data.len(), |i| start + i);
        let line = &data[start..end];
        lines.push((line.strip_suffix(b"\r").unwrap_or(line), start));
        start = end + 1;
    }
    lines
}

fn run(data: &[u8]) {
    let [a, b, c, d, ref stream @ ..] = *data else { return };
    let max = usize::from(a % 64) + 1;
    let block = usize::from(b % 32) + 1;
    let step = if c == 0 { usize::MAX } else { usize::from(c % 48) + 1 };
    let limit = u64::from(d % 16);

    let want = reference_lines(stream);
    let first_long = want.iter().position(|(l, _)| l.len() > max);

    let mut got: Vec<(Vec<u8>, u64)> = Vec::new();
    let mut reader = Pieces { data: stream, step, given: 0 };
    let result = for_each_batch(&mut reader, max, block, |batch, first| {
        assert!(!batch.is_empty(), "an empty batch");
        assert_eq!(first, got.len() as u64 + 1, "batches are numbered in order");
        got.extend(batch.iter().enumerate().map(|(i, l)| (l.to_vec(), first + i as u64)));
        Ok(())
    });
    for (i, (line, number)) in got.iter().enumerate() {
        assert_eq!(*number, i as u64 + 1);
        assert_eq!(line.as_slice(), want[i].0, "line {number}");
        assert!(line.len() <= max);
    }
    match (first_long, result) {
        (None, Ok(())) => assert_eq!(got.len(), want.len(), "every line is handed over"),
        (Some(i), Err(e)) => {
            assert!(invalid_key(&e), "{e}");
            assert_eq!(e.exit_status(), 3);
            let text = e.to_string();
            assert!(text.contains(&format!("line {} is longer than {max} bytes", i + 1)), "{text}");
            assert!(got.len() <= i, "lines from the long one on were handed over");
            // At most one buffer (the larger of a block and the longest line allowed, with its
            // `\r` and one byte more) past the long line's start was read.
            let start = want[i].1;
            assert!(reader.given <= start + block.max(max + 2), "read {} of a line at {start}", reader.given);
        }
        (want, got) => panic!("first long line {want:?}, result {got:?}"),
    }

    // simulate --trace: the first `limit` lines, or why not.
    let trace = read_keys(stream, max, block, limit, "trace");
    match (first_long, trace) {
        (None, Ok(keys)) => {
            assert!(!keys.is_empty());
            assert_eq!(keys.len() as u64, limit.min(want.len() as u64));
            for (k, (w, _)) in keys.iter().zip(&want) {
                assert_eq!(&k[..], *w);
            }
        }
        (None, Err(e)) => {
            assert!(limit == 0 || want.is_empty(), "{e}");
            assert!(invalid_key(&e), "{e}");
        }
        (Some(_), Err(e)) => assert!(invalid_key(&e), "{e}"),
        (Some(i), Ok(_)) => panic!("line {} is too long, yet the trace was read", i + 1),
    }

    // route --input hex and --input ndjson, line by line.
    for (line, _) in want.iter().take(32) {
        check_hex(line);
        check_ndjson(line);
    }
}

/// The error is `invalid_key` (code 16), as its one line says.
fn invalid_key(e: &keyroute_cli::error::CliError) -> bool {
    e.to_string().starts_with("error invalid_key (code 16): ")
}

fn hex_digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// The bytes `text` spells in hex, if it is an even number of hex digits.
fn reference_unhex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.chunks(2).map(|p| Some(hex_digit(p[0])? * 16 + hex_digit(p[1])?)).collect()
}

fn check_hex(line: &[u8]) {
    let mut out = b"prefix".to_vec();
    let got = unhex(line, &mut out);
    match (reference_unhex(line), got) {
        (Some(bytes), Ok(())) => assert_eq!(&out[6..], bytes.as_slice()),
        (None, Err((code, _))) => assert_eq!(code, ErrorCode::InvalidKey),
        (want, got) => panic!("hex {line:?}: want {want:?}, got {got:?}"),
    }
    assert!(out.starts_with(b"prefix"), "a decoder only appends");
}

fn check_ndjson(line: &[u8]) {
    let mut out = Vec::new();
    let got = from_json_line(line, &mut out);
    let want: Result<Vec<u8>, ErrorCode> = match serde_json::from_slice::<Value>(line) {
        Err(_) => Err(ErrorCode::InvalidJson),
        Ok(Value::String(s)) => Ok(s.into_bytes()),
        Ok(Value::Object(map)) => match (map.get("key"), map.get("key_hex")) {
            (Some(Value::String(s)), None) => Ok(s.clone().into_bytes()),
            (None, Some(Value::String(h))) => reference_unhex(h.as_bytes()).ok_or(ErrorCode::InvalidKey),
            _ => Err(ErrorCode::InvalidType),
        },
        Ok(_) => Err(ErrorCode::InvalidType),
    };
    match (want, got) {
        (Ok(bytes), Ok(())) => assert_eq!(out, bytes),
        (Err(code), Err((got, _))) => assert_eq!(code, got, "ndjson {line:?}"),
        (want, got) => panic!("ndjson {line:?}: want {want:?}, got {got:?}"),
    }
}
