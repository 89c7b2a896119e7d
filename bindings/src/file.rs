//! Specs read from files: JSON, or TOML when the name ends in `.toml` (the same document in
//! TOML's syntax). Every surface with a file system reads files through here, so a missing or
//! malformed file gets the same code and message from the CLI, Python, Node and C.

use std::io::Read;
use std::path::Path;

use crate::{Error, ErrorCode, Limits, Result, Router, Spec};

impl Spec {
    /// Reads the spec in the file at `path` under `limits`: TOML when its name ends in `.toml`,
    /// JSON otherwise. At most one byte past the spec size limit is read, so a larger file is
    /// refused without being read whole.
    ///
    /// # Errors
    /// `io` when the file cannot be opened or read (the message names the path); then as
    /// [`Spec::from_bytes`], or [`Spec::from_toml`] for a `.toml` file.
    pub fn from_file(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display();
        let io = |what: &str, e: std::io::Error| Error::new(ErrorCode::Io, format!("{what} {name}: {e}"));
        let file = std::fs::File::open(path).map_err(|e| io("cannot open", e))?;
        let mut bytes = Vec::new();
        file.take(limits.max_spec_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| io("cannot read", e))?;
        let in_file = |e: Error| Error::new(e.code(), format!("{name}: {}", e.message()));
        if is_toml(path) { Self::from_toml(&bytes, limits) } else { Self::from_bytes(&bytes, limits) }.map_err(in_file)
    }

    /// Parses a spec written in TOML under `limits`, with the checks a JSON spec gets, in the
    /// same order (size, UTF-8, syntax, then shape).
    ///
    /// # Errors
    /// `spec_too_large`, `invalid_utf8`, `invalid_toml` (with its line and column), then as
    /// [`Spec::from_value`].
    pub fn from_toml(bytes: &[u8], limits: &Limits) -> Result<Self> {
        Self::from_value(toml_value(bytes, limits, "the spec")?, limits)
    }
}

/// Reads TOML under `limits` (its size, UTF-8, then syntax) as the JSON value it spells.
fn toml_value(bytes: &[u8], limits: &Limits, what: &str) -> Result<serde_json::Value> {
    limits.check_spec_bytes(bytes.len(), what)?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidUtf8, format!("{what} is not UTF-8: {e}")))?;
    let value: toml::Value = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|span| line_column(text, span.start)).unwrap_or_default();
        Error::new(ErrorCode::InvalidToml, format!("{at}not valid TOML: {}", e.message().trim_end()))
    })?;
    serde_json::to_value(value).map_err(|e| Error::new(ErrorCode::InvalidSpec, e.to_string()))
}

/// A TOML document (a view document) as JSON text, for the JSON reader's checks.
pub(crate) fn toml_to_json(bytes: &[u8], limits: &Limits, what: &str) -> Result<String> {
    Ok(toml_value(bytes, limits, what)?.to_string())
}

impl Router {
    /// Builds the router described by the spec file at `path` ([`Spec::from_file`]).
    ///
    /// # Errors
    /// As [`Spec::from_file`], then as [`Router::from_spec_with`].
    pub fn from_file(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let path = path.as_ref();
        Self::from_spec_with(&Spec::from_file(path, limits)?, limits)
            .map_err(|e| Error::new(e.code(), format!("{}: {}", path.display(), e.message())))
    }
}

/// Whether `path` names a TOML file (its extension is `toml`, in any case).
#[must_use]
pub fn is_toml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// `line L, column C: ` of byte `offset` in `text`, both counted from 1, columns in characters.
fn line_column(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}: ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("keyroute-file-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn json_and_toml_files_give_the_same_router() {
        let d = dir();
        std::fs::write(d.join("a.json"), r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b","weight":2}]}"#).unwrap();
        std::fs::write(
            d.join("a.TOML"),
            "algorithm = \"ring\"\nnodes = [{ id = \"a\" }, { id = \"b\", weight = 2 }]\n",
        )
        .unwrap();
        let a = Router::from_file(d.join("a.json"), &Limits::DEFAULT).unwrap();
        let b = Router::from_file(d.join("a.TOML"), &Limits::DEFAULT).unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn a_missing_file_is_io_and_bad_toml_is_invalid_toml_with_its_line() {
        let d = dir();
        let e = Router::from_file(d.join("missing.json"), &Limits::DEFAULT).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert!(e.message().starts_with("cannot open ") && e.message().contains("missing.json"), "{}", e.message());
        std::fs::write(d.join("bad.toml"), "algorithm = \"ring\"\nnodes = [ { id = \"a\" }, \n").unwrap();
        let e = Router::from_file(d.join("bad.toml"), &Limits::DEFAULT).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidToml);
        assert!(e.message().contains("bad.toml: line 2, column 24: not valid TOML: unclosed array"), "{}", e.message());
    }

    #[test]
    fn a_file_past_the_size_limit_is_refused_unread() {
        let d = dir();
        let limits = Limits { max_spec_bytes: 10, ..Limits::DEFAULT };
        std::fs::write(d.join("big.json"), r#"{"algorithm":"ring","nodes":[{"id":"a"}]}"#).unwrap();
        assert_eq!(Spec::from_file(d.join("big.json"), &limits).unwrap_err().code(), ErrorCode::SpecTooLarge);
    }
}
