//! Reading topology specs (JSON, or TOML by extension) and streams of keys.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::OnceLock;

use keyroute_bindings::{ErrorCode, Limits, Router, Spec};

use crate::error::{CliError, Result};

/// The limits every spec of this run is read and built under (`--limits`).
static LIMITS: OnceLock<Limits> = OnceLock::new();

/// Sets the limits from `--limits` JSON (the fields to change); once, before any spec is read.
pub fn set_limits(json: Option<&str>) -> Result<()> {
    let limits = match json {
        Some(text) => Limits::from_json(text).map_err(|e| CliError::from_bindings("--limits", &e).in_usage())?,
        None => Limits::DEFAULT,
    };
    let _ = LIMITS.set(limits);
    Ok(())
}

/// The limits of this run.
pub fn limits() -> &'static Limits {
    LIMITS.get_or_init(|| Limits::DEFAULT)
}

/// Reads `path` (`-` for stdin), at most one byte past the spec size limit: a larger document
/// is refused without being read whole.
fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let name = path.display();
    let mut bytes = Vec::new();
    let limit = limits().max_spec_bytes.saturating_add(1);
    if path == Path::new("-") {
        io::stdin().lock().take(limit).read_to_end(&mut bytes).map_err(|e| CliError::io("reading stdin", &e))?;
    } else {
        let file = File::open(path).map_err(|e| CliError::io(format_args!("cannot open {name}"), &e))?;
        file.take(limit).read_to_end(&mut bytes).map_err(|e| CliError::io(format_args!("reading {name}"), &e))?;
    }
    Ok(bytes)
}

/// Parses a spec document: TOML when the file name ends in `.toml`, JSON otherwise
/// ([`Spec::from_file`]'s rule, which the libraries follow too). Both are checked as every
/// surface checks a spec (size, then UTF-8, then syntax, then shape), so a document gets the
/// same code here as from the library.
pub fn spec(path: &Path) -> Result<Spec> {
    let bytes = read_bytes(path)?;
    let name = path.display();
    let fail = |e: &keyroute_bindings::Error| CliError::from_bindings(&name, e);
    if keyroute_bindings::is_toml(path) {
        Spec::from_toml(&bytes, limits())
    } else {
        Spec::from_bytes(&bytes, limits())
    }
    .map_err(|e| fail(&e))
}

/// Builds the router a spec describes, under this run's limits.
pub fn build(spec: &Spec, context: impl std::fmt::Display) -> Result<Router> {
    Router::from_spec_with(spec, limits()).map_err(|e| CliError::from_bindings(context, &e))
}

/// Reads and builds the router a spec file describes.
pub fn router(path: &Path) -> Result<Router> {
    build(&spec(path)?, path.display())
}

/// Size of one read from a key stream; a longer line grows the buffer, up to the line limit.
const BLOCK: usize = 1 << 20;

/// The longest line a key stream may hold by default (`--max-line-bytes`): 4 MiB, not counting
/// its `\n` and a trailing `\r`, so a 1 MiB key fits in every input mode (hex and NDJSON's
/// `key_hex` double it). A longer line is refused with `invalid_key` (exit status 3) as soon as
/// its first byte past the limit is read, so a stream without newlines (`</dev/zero`) holds at
/// most about twice the limit, never the whole stream.
pub const MAX_LINE_BYTES: u64 = 4 << 20;

/// The most `--max-line-bytes` can be raised to: 1 GiB (the spec size ceiling).
pub const MAX_LINE_BYTES_CEILING: u64 = 1 << 30;

/// The line limit of this run (`--max-line-bytes`).
static MAX_LINE: OnceLock<usize> = OnceLock::new();

/// Sets the line limit from `--max-line-bytes`; once, before any stream is read. The value is
/// within `1..=MAX_LINE_BYTES_CEILING` (clap checks the range).
pub fn set_max_line_bytes(bytes: Option<u64>) {
    let bytes = bytes.unwrap_or(MAX_LINE_BYTES).clamp(1, MAX_LINE_BYTES_CEILING);
    let _ = MAX_LINE.set(usize::try_from(bytes).unwrap_or(usize::MAX));
}

/// The line limit of this run.
fn max_line_bytes() -> usize {
    *MAX_LINE.get_or_init(|| usize::try_from(MAX_LINE_BYTES).unwrap_or(usize::MAX))
}

/// Streams the lines of `reader` in batches: `f(lines, first_line_number)`. A line is the bytes
/// before `\n`, less one trailing `\r`; a last line without `\n` counts; an empty stream has no
/// lines. Memory stays at one block (plus the longest line), whatever the stream's length, and
/// no line may be longer than this run's line limit (`--max-line-bytes`): a longer one is
/// refused with `invalid_key` and its line number, before more of it is read.
pub fn for_each_batch<R: Read>(reader: R, f: impl FnMut(&[&[u8]], u64) -> Result<()>) -> Result<()> {
    for_each_batch_within(reader, max_line_bytes(), f)
}

/// [`for_each_batch`] under a line limit of `max` bytes.
fn for_each_batch_within<R: Read>(
    mut reader: R,
    max: usize,
    mut f: impl FnMut(&[&[u8]], u64) -> Result<()>,
) -> Result<()> {
    let mut buf = vec![0u8; BLOCK];
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

/// Opens a key stream: a file, or stdin for `-`.
pub fn key_source(path: &Path) -> Result<Box<dyn Read>> {
    if path == Path::new("-") {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path).map_err(|e| CliError::io(format_args!("cannot open {}", path.display()), &e))?;
    Ok(Box::new(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], block_reads: usize) -> Vec<(Vec<u8>, u64)> {
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
        let mut got = Vec::new();
        for_each_batch_within(Trickle(input, block_reads), BLOCK * 4, |batch, first| {
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
            let e = for_each_batch_within(&mut endless, max, |_, _| Ok(())).unwrap_err();
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
            for_each_batch_within(input, max, |batch, _| {
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
}
