//! Key streams: the line reader every command that reads keys uses (`route`'s stdin in each
//! `--input` mode, `plan --keys`, `simulate --trace`), and the decoders of `route --input hex`
//! and `--input ndjson` lines.
//!
//! Nothing here holds more than one block and the longest line allowed, whatever the stream:
//! a line is refused when its first byte past the limit is read, before the rest of it.

use std::io::{self, Read};

use keyroute_bindings::ErrorCode;
use serde_json::Value;

use crate::error::{CliError, Result};

/// Size of one read from a key stream; a longer line grows the buffer, up to the line limit.
pub const BLOCK: usize = 1 << 20;

/// The longest line a key stream may hold by default (`--max-line-bytes`): 4 MiB, not counting
/// its `\n` and a trailing `\r`, so a 1 MiB key fits in every input mode (hex and NDJSON's
/// `key_hex` double it). A longer line is refused with `invalid_key` (exit status 3) as soon as
/// its first byte past the limit is read, so a stream without newlines (`</dev/zero`) holds at
/// most about twice the limit, never the whole stream.
pub const MAX_LINE_BYTES: u64 = 4 << 20;

/// The most `--max-line-bytes` can be raised to: 1 GiB (the spec size ceiling).
pub const MAX_LINE_BYTES_CEILING: u64 = 1 << 30;

/// Streams the lines of `reader` in batches: `f(lines, first_line_number)`. A line is the bytes
/// before `\n`, less one trailing `\r`; a last line without `\n` counts; an empty stream has no
/// lines. Reads are `block` bytes (at least 1); memory stays at one block plus the longest line,
/// whatever the stream's length, and no line may be longer than `max` bytes: a longer one is
/// refused with `invalid_key` and its line number, after at most one block past the limit is
/// read, and the lines of its batch before it are not handed to `f`.
pub fn for_each_batch<R: Read>(
    mut reader: R,
    max: usize,
    block: usize,
    mut f: impl FnMut(&[&[u8]], u64) -> Result<()>,
) -> Result<()> {
    let mut buf = vec![0u8; block.max(1)];
    let mut filled = 0usize;
    let mut line = 1u64;
    let mut batch_len = 0usize;
    // The unfinished line may hold `max` bytes and a `\r` that its `\n` will drop.
    let pending_max = max.saturating_add(1);
    loop {
        if filled == buf.len() {
            // Only an unfinished line fills the buffer, and it is within `pending_max` (checked
            // below), so the buffer grows to hold one more byte than that, never further.
            let grown = buf.len().saturating_mul(2).min(pending_max.saturating_add(1)).max(buf.len() + 1);
            buf.try_reserve_exact(grown - buf.len()).map_err(|_| {
                CliError::new(ErrorCode::OutOfMemory, format!("line {line}: no memory for a line of {grown} bytes"))
            })?;
            buf.resize(grown, 0);
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CliError::io("reading keys", &e)),
        };
        if n == 0 {
            break;
        }
        let scanned = filled;
        filled += n;
        // Only the new bytes can hold the last newline of the block.
        let Some(last) = buf[scanned..filled].iter().rposition(|&b| b == b'\n').map(|i| scanned + i) else {
            if filled > pending_max {
                return Err(too_long(line, max));
            }
            continue;
        };
        let mut lines: Vec<&[u8]> = Vec::with_capacity(batch_len + 16);
        lines.extend(buf[..last].split(|&b| b == b'\n').map(strip_cr));
        if let Some(i) = lines.iter().position(|l| l.len() > max) {
            return Err(too_long(line + i as u64, max));
        }
        batch_len = lines.len();
        f(&lines, line)?;
        line += lines.len() as u64;
        buf.copy_within(last + 1..filled, 0);
        filled -= last + 1;
        if filled > pending_max {
            return Err(too_long(line, max));
        }
    }
    if filled > 0 {
        let last = strip_cr(&buf[..filled]);
        if last.len() > max {
            return Err(too_long(line, max));
        }
        f(&[last], line)?;
    }
    Ok(())
}

/// The error for a line over the limit.
fn too_long(line: u64, max: usize) -> CliError {
    CliError::new(
        ErrorCode::InvalidKey,
        format!(
            "line {line} is longer than {max} bytes (raise it with --max-line-bytes, up to {MAX_LINE_BYTES_CEILING})"
        ),
    )
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `simulate --trace`: at most `limit` keys of a stream, one per line, read with
/// [`for_each_batch`] under the line limit `max` (the whole stream is read, so every line of it
/// is checked). A trace without keys is `invalid_key`, naming `name`.
pub fn read_keys<R: Read>(reader: R, max: usize, block: usize, limit: u64, name: &str) -> Result<Vec<Box<[u8]>>> {
    let mut keys = Vec::new();
    for_each_batch(reader, max, block, |lines, _| {
        let room = usize::try_from(limit).unwrap_or(usize::MAX).saturating_sub(keys.len());
        keys.extend(lines.iter().take(room).map(|l| Box::<[u8]>::from(*l)));
        Ok(())
    })?;
    if keys.is_empty() {
        return Err(CliError::new(ErrorCode::InvalidKey, format!("{name}: the trace holds no keys")));
    }
    Ok(keys)
}

/// Why a key line could not be decoded: the error kind and why.
pub type DecodeError = (ErrorCode, String);

/// `route --input hex`: hex digits (either case, nothing else) into bytes, appended to `out`
/// (which may hold part of the key when the line is refused).
pub fn unhex(text: &[u8], out: &mut Vec<u8>) -> std::result::Result<(), DecodeError> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    if !text.len().is_multiple_of(2) {
        return Err((ErrorCode::InvalidKey, format!("not hex: an odd number of digits ({})", text.len())));
    }
    out.reserve(text.len() / 2);
    for (i, pair) in text.chunks_exact(2).enumerate() {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(hi), Some(lo)) => out.push(hi << 4 | lo),
            _ => {
                let at = if digit(pair[0]).is_none() { 2 * i } else { 2 * i + 1 };
                return Err((ErrorCode::InvalidKey, format!("not hex: byte {at} is not a hex digit")));
            }
        }
    }
    Ok(())
}

/// `route --input ndjson`: one line, a JSON string or an object with `key` (a string) or
/// `key_hex` (hex digits), into the key's bytes, appended to `out`.
pub fn from_json_line(line: &[u8], out: &mut Vec<u8>) -> std::result::Result<(), DecodeError> {
    let value: Value =
        serde_json::from_slice(line).map_err(|e| (ErrorCode::InvalidJson, format!("not one JSON value ({e})")))?;
    let wrong = |what: &str| {
        (ErrorCode::InvalidType, format!("{what}, not a key (a JSON string, or an object with \"key\" or \"key_hex\")"))
    };
    match value {
        Value::String(text) => out.extend_from_slice(text.as_bytes()),
        Value::Object(map) => match (map.get("key"), map.get("key_hex")) {
            (Some(Value::String(text)), None) => out.extend_from_slice(text.as_bytes()),
            (None, Some(Value::String(hex))) => unhex(hex.as_bytes(), out)?,
            (Some(_), Some(_)) => return Err(wrong("an object with both \"key\" and \"key_hex\"")),
            (Some(_), None) | (None, Some(_)) => return Err(wrong("an object whose key is not a string")),
            (None, None) => return Err(wrong("an object without \"key\" or \"key_hex\"")),
        },
        Value::Null => return Err(wrong("null")),
        Value::Bool(_) => return Err(wrong("a boolean")),
        Value::Number(_) => return Err(wrong("a number")),
        Value::Array(_) => return Err(wrong("an array")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out at most `n` bytes per read, to cross block boundaries.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(out.len()).min(self.1);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn lines(input: &[u8], block_reads: usize) -> Vec<(Vec<u8>, u64)> {
        let mut got = Vec::new();
        for_each_batch(Trickle(input, block_reads), BLOCK * 4, BLOCK, |batch, first| {
            got.extend(batch.iter().enumerate().map(|(i, l)| (l.to_vec(), first + i as u64)));
            Ok(())
        })
        .unwrap();
        got
    }

    #[test]
    fn lines_across_reads_with_crlf_and_no_final_newline() {
        for step in [1, 2, 3, 7, 1 << 20] {
            let got = lines(b"a\r\nbb\n\nlast", step);
            let want: Vec<(Vec<u8>, u64)> =
                [(&b"a"[..], 1), (b"bb", 2), (b"", 3), (b"last", 4)].iter().map(|(l, n)| (l.to_vec(), *n)).collect();
            assert_eq!(got, want, "step {step}");
        }
        assert!(lines(b"", 5).is_empty());
        assert_eq!(lines(b"x\n", 5), [(b"x".to_vec(), 1)]);
    }

    #[test]
    fn a_line_longer_than_a_block_grows_the_buffer() {
        let mut long = vec![b'k'; BLOCK * 2 + 5];
        long.extend_from_slice(b"\nshort\n");
        let got = lines(&long, usize::MAX);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), BLOCK * 2 + 5);
        assert_eq!(got[1], (b"short".to_vec(), 2));
        // The same with a block of one byte.
        let mut got = Vec::new();
        for_each_batch(&long[..], BLOCK * 4, 1, |batch, _| {
            got.extend(batch.iter().map(|l| l.len()));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, [BLOCK * 2 + 5, 5]);
    }

    /// Reads `len` bytes of `b'k'` and no newline, then a newline and more, counting reads.
    struct Endless {
        given: usize,
    }
    impl Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            out.fill(b'k');
            self.given += out.len();
            Ok(out.len())
        }
    }

    #[test]
    fn a_line_over_the_limit_is_refused_before_the_rest_is_read() {
        for max in [1, 100, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK] {
            let mut endless = Endless { given: 0 };
            let e = for_each_batch(&mut endless, max, BLOCK, |_, _| Ok(())).unwrap_err();
            assert_eq!(e.exit_status(), crate::error::EXIT_DATA, "{max}");
            let text = e.to_string();
            assert!(text.starts_with("error invalid_key (code 16): line 1 is longer than"), "{text}");
            // At most one block past the limit was read.
            assert!(endless.given <= max + 1 + BLOCK, "{max}: read {}", endless.given);
        }
    }

    #[test]
    fn the_line_limit_counts_the_key_not_its_line_end() {
        let max = 5;
        let run = |input: &[u8]| {
            let mut got = Vec::new();
            for_each_batch(input, max, BLOCK, |batch, _| {
                got.extend(batch.iter().map(|l| l.to_vec()));
                Ok(())
            })
            .map(|()| got)
        };
        assert_eq!(run(b"12345\r\n12345\n12345\r").unwrap().len(), 3);
        assert_eq!(run(b"12345").unwrap(), [b"12345".to_vec()]);
        for bad in [&b"123456"[..], b"ok\n123456\n", b"ok\n123456\r\n", b"ok\r\n1234567"] {
            let e = run(bad).unwrap_err().to_string();
            assert!(e.contains("invalid_key") && e.contains("longer than 5 bytes"), "{e}");
        }
        let e = run(b"a\nb\n1234567\n").unwrap_err().to_string();
        assert!(e.contains("line 3 is longer"), "{e}");
    }

    #[test]
    fn a_trace_keeps_at_most_its_limit_and_checks_every_line() {
        let keys = read_keys(&b"a\nb\nc\n"[..], 4, 2, 2, "t").unwrap();
        assert_eq!(keys, [Box::from(&b"a"[..]), Box::from(&b"b"[..])]);
        // A line past the limit of keys kept is still checked.
        let e = read_keys(&b"a\nb\n123456\n"[..], 4, 2, 1, "t").unwrap_err().to_string();
        assert!(e.contains("line 3 is longer than 4 bytes"), "{e}");
        let e = read_keys(&b""[..], 4, 2, 1, "t").unwrap_err().to_string();
        assert!(e.contains("invalid_key") && e.contains("t: the trace holds no keys"), "{e}");
    }

    #[test]
    fn hex_and_ndjson_lines_decode_or_say_why() {
        let mut out = Vec::new();
        unhex(b"00fFa0", &mut out).unwrap();
        assert_eq!(out, [0, 0xff, 0xa0]);
        assert_eq!(unhex(b"abc", &mut Vec::new()).unwrap_err().0, ErrorCode::InvalidKey);
        assert!(unhex(b"0g", &mut Vec::new()).unwrap_err().1.contains("byte 1 is not"));
        let mut out = Vec::new();
        from_json_line(br#"{"key_hex":"0a"}"#, &mut out).unwrap();
        from_json_line(br#""x""#, &mut out).unwrap();
        assert_eq!(out, b"\nx");
        assert_eq!(from_json_line(b"{", &mut Vec::new()).unwrap_err().0, ErrorCode::InvalidJson);
        assert_eq!(from_json_line(b"[1]", &mut Vec::new()).unwrap_err().0, ErrorCode::InvalidType);
    }
}
