//! `conformance --exec`: reading the adapter's stdout into protocol lines
//! (`conformance/PROTOCOL.md`). Blank lines are dropped here, counted, and what one answer can
//! make the runner read is bounded: at most [`Caps::max_blank_lines`] blank lines before a
//! message, and [`Caps::max_line`] bytes for the message with the blank lines before it.

use std::io::{BufRead, Read};

/// What the reader saw on the adapter's stdout.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its `\n` and a `\r` before it) that is not blank, or the stream's last
    /// bytes, without a newline (blank or not).
    Text(Vec<u8>),
    /// A line longer than the message limit.
    TooLong,
    /// More blank lines, or more bytes of them, before a message than the protocol allows:
    /// how many lines and bytes were read.
    Blanks(u64, u64),
    /// The end of the stream.
    Eof,
    /// A read failed: why.
    Failed(String),
}

impl Line {
    /// Whether the reader stops after this line.
    pub fn ends(&self) -> bool {
        matches!(self, Self::Eof | Self::TooLong | Self::Blanks(..) | Self::Failed(_))
    }
}

/// The reader's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// The most bytes of one message with the blank lines before it, line ends included.
    pub max_line: u64,
    /// The most blank lines (empty, or only whitespace) before a message.
    pub max_blank_lines: u64,
}

impl Caps {
    /// The runner's bounds: 64 MiB, and 1,024 blank lines. PROTOCOL.md says blank lines are
    /// ignored; more than this in a row is a protocol fault (exit status 4), so an adapter that
    /// writes only blank lines (`yes ""`) is stopped at once, not read until the runner runs out
    /// of memory or time.
    pub const PROTOCOL: Self = Self { max_line: 64 << 20, max_blank_lines: 1024 };
}

/// Reads `reader` into protocol lines, handing each to `send`, until the end, an error or a
/// fault (the last line handed over is then one that [`Line::ends`]), or until `send` returns
/// false. At most `caps.max_line + 1` bytes are read for one message with the blank lines before
/// it, and no line longer than that is held.
pub fn read_lines(mut reader: impl BufRead, caps: Caps, mut send: impl FnMut(Line) -> bool) {
    let (mut blank_lines, mut blank_bytes) = (0u64, 0u64);
    loop {
        let mut buf = Vec::new();
        // What is left of this message's bytes, and one more to tell a longer line.
        let budget = caps.max_line.saturating_sub(blank_bytes).saturating_add(1);
        let line = match (&mut reader).take(budget).read_until(b'\n', &mut buf) {
            Ok(0) => Line::Eof,
            Ok(n) if buf.last() == Some(&b'\n') => {
                buf.pop();
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                if buf.iter().all(u8::is_ascii_whitespace) {
                    blank_lines += 1;
                    blank_bytes = blank_bytes.saturating_add(n as u64);
                    if blank_lines <= caps.max_blank_lines && blank_bytes <= caps.max_line {
                        continue;
                    }
                    Line::Blanks(blank_lines, blank_bytes)
                } else {
                    (blank_lines, blank_bytes) = (0, 0);
                    Line::Text(buf)
                }
            }
            Ok(n) if n as u64 >= budget && blank_lines > 0 => {
                Line::Blanks(blank_lines, blank_bytes.saturating_add(n as u64))
            }
            Ok(n) if n as u64 >= budget => Line::TooLong,
            // A last line without a newline, then the end.
            Ok(_) => Line::Text(buf),
            Err(e) => Line::Failed(e.to_string()),
        };
        let stop = line.ends();
        if !send(line) || stop {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::BufReader;

    use super::*;

    const CAPS: Caps = Caps::PROTOCOL;

    /// What [`read_lines`] hands over for `input`, up to `n` lines.
    fn lines(input: impl BufRead, n: usize) -> Vec<Line> {
        let mut got = Vec::new();
        read_lines(input, CAPS, |line| {
            got.push(line);
            got.len() < n
        });
        got
    }

    /// `line` forever (until the reader stops reading).
    struct Forever(&'static [u8], usize);
    impl Read for Forever {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let mut n = 0;
            while n < out.len() {
                out[n] = self.0[self.1];
                self.1 = (self.1 + 1) % self.0.len();
                n += 1;
            }
            Ok(n)
        }
    }

    #[test]
    fn blank_lines_are_dropped_up_to_the_cap() {
        let mut input = b" \r\n\n\t\n".repeat(100);
        input.extend_from_slice(b"{\"type\":\"x\"}\n\n");
        let got = lines(std::io::Cursor::new(input), 10);
        assert_eq!(got, [Line::Text(b"{\"type\":\"x\"}".to_vec()), Line::Eof]);
        // The count starts again after each message.
        let mut input = Vec::new();
        for _ in 0..3 {
            input.extend_from_slice(&b"\n".repeat(CAPS.max_blank_lines as usize));
            input.extend_from_slice(b"m\n");
        }
        let got = lines(std::io::Cursor::new(input), 10);
        assert_eq!(got.iter().filter(|l| matches!(l, Line::Text(t) if t == b"m")).count(), 3);
    }

    #[test]
    fn endless_blank_lines_are_a_fault_at_once() {
        let n = CAPS.max_blank_lines + 1;
        assert_eq!(lines(BufReader::new(Forever(b"\n", 0)), 10), [Line::Blanks(n, n)]);
        let got = lines(BufReader::new(Forever(b"  \r\n", 0)), 10);
        assert!(matches!(got[..], [Line::Blanks(n, _)] if n == CAPS.max_blank_lines + 1));
    }

    #[test]
    fn blank_bytes_count_toward_the_message_limit() {
        // Long lines of spaces: the byte cap stops them long before the line count would.
        let mut line = vec![b' '; 4 << 20];
        line.push(b'\n');
        let line: &'static [u8] = line.leak();
        let got = lines(BufReader::new(Forever(line, 0)), 10);
        let max = CAPS.max_line;
        assert!(matches!(got[..], [Line::Blanks(n, bytes)] if n <= 17 && bytes > max && bytes <= max + 1 + (4 << 20)));
        // Endless spaces without a newline: too many bytes before a message.
        assert_eq!(lines(BufReader::new(Forever(b" ", 0)), 10), [Line::TooLong]);
    }

    #[test]
    fn small_caps_bound_a_message_and_its_blank_lines_together() {
        let caps = Caps { max_line: 6, max_blank_lines: 2 };
        let run = |input: &[u8]| {
            let mut got = Vec::new();
            read_lines(input, caps, |l| {
                got.push(l);
                true
            });
            got
        };
        assert_eq!(run(b"12345\n"), [Line::Text(b"12345".to_vec()), Line::Eof]);
        assert_eq!(run(b"123456\n"), [Line::Text(b"123456".to_vec()), Line::Eof]);
        assert_eq!(run(b"1234567\n"), [Line::TooLong]);
        // Two blank lines (2 bytes) leave 4 for the message and its newline.
        assert_eq!(run(b"\n\n123\n"), [Line::Text(b"123".to_vec()), Line::Eof]);
        assert_eq!(run(b"\n\n12345\n"), [Line::Blanks(2, 7)]);
        assert_eq!(run(b"\n\n\nx\n"), [Line::Blanks(3, 3)]);
        assert_eq!(run(b"x\n \n"), [Line::Text(b"x".to_vec()), Line::Eof]);
        assert_eq!(run(b"x\n  "), [Line::Text(b"x".to_vec()), Line::Text(b"  ".to_vec()), Line::Eof]);
    }
}
