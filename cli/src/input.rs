//! Reading topology specs (JSON, or TOML by extension) and streams of keys.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::OnceLock;

use keyroute_bindings::{Limits, Router, Spec};

use keyroute_cli::lines;

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

/// The longest line a key stream may hold by default (`--max-line-bytes`); see [`lines`].
pub use keyroute_cli::lines::{MAX_LINE_BYTES, MAX_LINE_BYTES_CEILING};

/// The line limit of this run (`--max-line-bytes`).
static MAX_LINE: OnceLock<usize> = OnceLock::new();

/// Sets the line limit from `--max-line-bytes`; once, before any stream is read. The value is
/// within `1..=MAX_LINE_BYTES_CEILING` (clap checks the range).
pub fn set_max_line_bytes(bytes: Option<u64>) {
    let bytes = bytes.unwrap_or(MAX_LINE_BYTES).clamp(1, MAX_LINE_BYTES_CEILING);
    let _ = MAX_LINE.set(usize::try_from(bytes).unwrap_or(usize::MAX));
}

/// The line limit of this run.
pub fn max_line_bytes() -> usize {
    *MAX_LINE.get_or_init(|| usize::try_from(MAX_LINE_BYTES).unwrap_or(usize::MAX))
}

/// Streams the lines of `reader` in batches under this run's line limit
/// ([`lines::for_each_batch`]).
pub fn for_each_batch<R: Read>(reader: R, f: impl FnMut(&[&[u8]], u64) -> Result<()>) -> Result<()> {
    lines::for_each_batch(reader, max_line_bytes(), lines::BLOCK, f)
}

/// Opens a key stream: a file, or stdin for `-`.
pub fn key_source(path: &Path) -> Result<Box<dyn Read>> {
    if path == Path::new("-") {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path).map_err(|e| CliError::io(format_args!("cannot open {}", path.display()), &e))?;
    Ok(Box::new(file))
}
