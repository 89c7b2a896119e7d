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

/// Parses a spec document: TOML when the file name ends in `.toml`, JSON otherwise. Both are
/// checked as every surface checks a spec (size, then UTF-8, then syntax, then shape), so a
/// document gets the same code here as from the library; malformed TOML is `invalid_json`,
/// as malformed JSON is.
pub fn spec(path: &Path) -> Result<Spec> {
    let bytes = read_bytes(path)?;
    let name = path.display();
    let fail = |e: &keyroute_bindings::Error| CliError::from_bindings(&name, e);
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
        return Spec::from_bytes(&bytes, limits()).map_err(|e| fail(&e));
    }
    toml_spec(&bytes, limits()).map_err(|e| fail(&e))
}

/// Reads a TOML spec document under `limits`, with the checks a JSON spec gets before its
/// syntax, in the same order (size, UTF-8, syntax, shape).
pub fn toml_spec(bytes: &[u8], limits: &Limits) -> keyroute_bindings::Result<Spec> {
    use keyroute_bindings::Error;
    limits.check_spec_bytes(bytes.len(), "the spec")?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidUtf8, format!("the spec is not UTF-8: {e}")))?;
    let value: toml::Value = toml::from_str(text)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("not valid TOML: {}", e.message())))?;
    let json = serde_json::to_value(value).map_err(|e| Error::new(ErrorCode::InvalidSpec, e.to_string()))?;
    Spec::from_value(json, limits)
}

/// Builds the router a spec describes, under this run's limits.
pub fn build(spec: &Spec, context: impl std::fmt::Display) -> Result<Router> {
    Router::from_spec_with(spec, limits()).map_err(|e| CliError::from_bindings(context, &e))
}

/// Reads and builds the router a spec file describes.
pub fn router(path: &Path) -> Result<Router> {
    build(&spec(path)?, path.display())
}

/// Size of one read from a key stream; a longer line grows the buffer.
const BLOCK: usize = 1 << 20;

/// Streams the lines of `reader` in batches: `f(lines, first_line_number)`. A line is the bytes
/// before `\n`, less one trailing `\r`; a last line without `\n` counts; an empty stream has no
/// lines. Memory stays at one block (plus the longest line), whatever the stream's length.
pub fn for_each_batch<R: Read>(mut reader: R, mut f: impl FnMut(&[&[u8]], u64) -> Result<()>) -> Result<()> {
    let mut buf = vec![0u8; BLOCK];
    let mut filled = 0usize;
    let mut line = 1u64;
    let mut batch_len = 0usize;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
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
            continue;
        };
        let mut lines: Vec<&[u8]> = Vec::with_capacity(batch_len + 16);
        lines.extend(buf[..last].split(|&b| b == b'\n').map(strip_cr));
        batch_len = lines.len();
        f(&lines, line)?;
        line += lines.len() as u64;
        buf.copy_within(last + 1..filled, 0);
        filled -= last + 1;
    }
    if filled > 0 {
        f(&[strip_cr(&buf[..filled])], line)?;
    }
    Ok(())
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
        for_each_batch(Trickle(input, block_reads), |batch, first| {
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
}
