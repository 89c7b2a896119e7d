//! The reader of a `keyroute conformance --exec` adapter's stdout
//! (`keyroute_cli::adapter::read_lines`, conformance/PROTOCOL.md) on arbitrary bytes, under
//! small caps and a small read buffer.
//!
//! What it hands over equals a reference reading of the same bytes as one slice: each line
//! that is not blank without its `\n` and one `\r` before it, blank lines dropped but counted,
//! a fault (`Blanks`) once more than the cap of blank lines or of bytes came before a message,
//! `TooLong` for a message past the byte cap, the unterminated last bytes as a line, then the
//! end; nothing after a line that ends the reading; and when the receiver stops taking lines,
//! nothing more is read. No message (with the blank lines before it) holds more than the byte
//! cap and its newline.

#![no_main]

use std::io::{BufReader, Read};

use keyroute_cli::adapter::{Caps, Line, read_lines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run(data));

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The reader's lines for `data`, read as one slice.
fn reference(data: &[u8], caps: Caps) -> Vec<Line> {
    let mut out = Vec::new();
    let (mut pos, mut blank_lines, mut blank_bytes) = (0usize, 0u64, 0u64);
    loop {
        let rest = &data[pos..];
        if rest.is_empty() {
            out.push(Line::Eof);
            return out;
        }
        let budget = caps.max_line.saturating_sub(blank_bytes).saturating_add(1);
        let window = &rest[..rest.len().min(usize::try_from(budget).unwrap_or(usize::MAX))];
        match window.iter().position(|&b| b == b'\n') {
            Some(i) => {
                pos += i + 1;
                let line = &window[..i];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if blank(line) {
                    blank_lines += 1;
                    blank_bytes += i as u64 + 1;
                    if blank_lines > caps.max_blank_lines || blank_bytes > caps.max_line {
                        out.push(Line::Blanks(blank_lines, blank_bytes));
                        return out;
                    }
                } else {
                    (blank_lines, blank_bytes) = (0, 0);
                    out.push(Line::Text(line.to_vec()));
                }
            }
            None if window.len() as u64 >= budget => {
                out.push(if blank_lines > 0 {
                    Line::Blanks(blank_lines, blank_bytes + window.len() as u64)
                } else {
                    Line::TooLong
                });
                return out;
            }
            None => {
                pos += window.len();
                out.push(Line::Text(window.to_vec()));
            }
        }
    }
}

/// Counts the bytes read through it.
struct Counted<'a> {
    data: &'a [u8],
    given: usize,
}

impl Read for Counted<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.len().min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.given += n;
        Ok(n)
    }
}

fn run(data: &[u8]) {
    let [a, b, c, d, ref stream @ ..] = *data else { return };
    let caps = Caps { max_line: u64::from(a % 64), max_blank_lines: u64::from(b % 8) };
    let capacity = usize::from(c % 16) + 1;
    // Lines the receiver takes before it stops (255: all of them).
    let take = if d == 255 { usize::MAX } else { usize::from(d % 8) + 1 };

    let want = reference(stream, caps);
    let mut got = Vec::new();
    let mut counted = Counted { data: stream, given: 0 };
    read_lines(BufReader::with_capacity(capacity, &mut counted), caps, |line| {
        assert!(!got.last().is_some_and(Line::ends), "a line after the end: {line:?}");
        got.push(line);
        got.len() < take
    });
    assert!(got.len() <= take, "{} lines handed to a receiver that took {take}", got.len());
    assert_eq!(got[..], want[..got.len()], "caps {caps:?}");
    if take == usize::MAX {
        assert_eq!(got.len(), want.len());
    }
    // What was read: the lines handed over (each message with its blank lines within the cap
    // and its newline), plus one buffer of read-ahead.
    let per_message = usize::try_from(caps.max_line).unwrap_or(usize::MAX) + 1;
    assert!(counted.given <= got.len() * per_message + capacity, "read {} for {} lines", counted.given, got.len());
    for line in &got {
        if let Line::Text(text) = line {
            assert!(text.len() as u64 <= caps.max_line, "a message of {} bytes", text.len());
        }
    }
    // Only the last bytes of the stream, unterminated, may be a blank Text.
    if let Some(i) = got.iter().position(|l| matches!(l, Line::Text(t) if blank(t))) {
        assert!(matches!(got.get(i + 1), None | Some(Line::Eof)), "{got:?}");
    }
}
