//! The conformance corpus (`conformance/vectors/v1`): how vector files are listed, how a case's
//! key and spec are read, and how a router is checked against a case. Every Rust runner uses
//! this one reading of `conformance/VECTORS.md`: the crate's own conformance test, the `keyroute
//! conformance` command (on the corpus compiled into it or on a folder) and its `--exec` driver.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{Error, ErrorCode, Limits, Result, Router, Spec, keys};

mod listing;

/// The vector files of a corpus folder: its `*.json` files (not the `schema/` folder), sorted
/// by name.
///
/// # Errors
///
/// `io` when the folder cannot be read.
pub fn vector_files(dir: &Path) -> Result<Vec<PathBuf>> {
    listing::json_files(dir).map_err(|e| Error::new(ErrorCode::Io, format!("cannot read {}: {e}", dir.display())))
}

/// A case's key, as `VECTORS.md` defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseKey {
    /// The case has no key (a spec error case), or gives a `key_type` (a key of a type that
    /// typed surfaces cannot pass; the dynamic surfaces run those).
    None,
    /// The key's bytes: `key` (UTF-8 text), `key_hex`, `key_repeat`, or `key_utf16` text that
    /// is well-formed.
    Bytes(Vec<u8>),
    /// `key_utf16` text the key text policy refuses (a lone surrogate), with its error.
    Refused(Error),
    /// The case's key fields are malformed (bad hex): the vector file is broken.
    Malformed(String),
}

/// Reads a case's key: `key`, `key_hex`, `key_repeat` (see [`repeat`]) or `key_utf16` (read by
/// the key text policy of [`keys`], which refuses a lone surrogate).
#[must_use]
pub fn case_key(case: &Value) -> CaseKey {
    if let Some(k) = case.get("key").and_then(Value::as_str) {
        return CaseKey::Bytes(k.as_bytes().to_vec());
    }
    if let Some(units) = case.get("key_utf16").and_then(Value::as_array) {
        let mut code_units = Vec::with_capacity(units.len());
        for unit in units {
            match unit.as_u64().and_then(|u| u16::try_from(u).ok()) {
                Some(u) => code_units.push(u),
                None => return CaseKey::Malformed(format!("key_utf16 holds {unit}, not a UTF-16 code unit")),
            }
        }
        return match keys::utf16_key(&code_units) {
            Ok(bytes) => CaseKey::Bytes(bytes),
            Err(e) => CaseKey::Refused(e),
        };
    }
    if let Some(r) = case.get("key_repeat") {
        return repeat(r).map_or_else(CaseKey::Malformed, CaseKey::Bytes);
    }
    match case.get("key_hex").and_then(Value::as_str) {
        Some(h) => {
            hex_decode(h).map_or_else(|| CaseKey::Malformed(format!("key_hex {h:?} is not hex")), CaseKey::Bytes)
        }
        None => CaseKey::None,
    }
}

/// Writes a key the way vector files do: `key` when it is printable ASCII, else `key_hex`.
#[must_use]
pub fn key_field(key: &[u8]) -> (&'static str, Value) {
    if key.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        ("key", Value::String(String::from_utf8_lossy(key).into_owned()))
    } else {
        ("key_hex", Value::String(hex(key)))
    }
}

/// Lowercase hex of `bytes`.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    let digit = |d: u8| char::from_digit(u32::from(d), 16).unwrap_or('0');
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(digit(b >> 4));
        out.push(digit(b & 15));
    }
    out
}

/// The bytes of hex text (either case); `None` when it is not an even number of hex digits.
#[must_use]
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| char::from(c).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let bytes = s.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes.chunks_exact(2).map(|pair| Some((digit(*pair.first()?)? << 4) | digit(*pair.get(1)?)?)).collect()
}

/// The spec bytes of a case that carries its own: `spec` (a JSON value, written as compact
/// JSON), `spec_json` (raw text), `spec_hex` (raw bytes) or `spec_repeat` (see [`repeat`]).
/// `None` when the case uses its file's spec, or gives only `spec_toml` (read by the CLI).
///
/// # Errors
///
/// A message when `spec_hex` or `spec_repeat` is malformed.
pub fn case_spec_bytes(case: &Value) -> Result<Option<Vec<u8>>, String> {
    if let Some(spec) = case.get("spec") {
        return Ok(Some(spec.to_string().into_bytes()));
    }
    if let Some(text) = case.get("spec_json").and_then(Value::as_str) {
        return Ok(Some(text.as_bytes().to_vec()));
    }
    if let Some(h) = case.get("spec_hex").and_then(Value::as_str) {
        return hex_decode(h).map(Some).ok_or_else(|| "spec_hex is not hex".to_string());
    }
    case.get("spec_repeat").map(repeat).transpose()
}

/// Longest text `key_repeat` / `spec_repeat` may describe (64 MiB): a tampered `times` must
/// not exhaust memory.
const MAX_REPEAT: usize = 64 << 20;

/// `head` + `unit` × `times` + `tail` (absent parts are empty): text, or hex when `hex` is
/// true.
///
/// # Errors
///
/// A message when a part is not hex (with `hex`) or the result would pass 64 MiB.
pub fn repeat(r: &Value) -> Result<Vec<u8>, String> {
    let hex = r.get("hex").and_then(Value::as_bool).unwrap_or(false);
    let part = |name: &str| -> Result<Vec<u8>, String> {
        let s = r.get(name).and_then(Value::as_str).unwrap_or("");
        if hex { hex_decode(s).ok_or_else(|| format!("repeat {name} is not hex")) } else { Ok(s.as_bytes().to_vec()) }
    };
    let times = usize::try_from(r.get("times").and_then(Value::as_u64).unwrap_or(0)).unwrap_or(usize::MAX);
    let (head, unit, tail) = (part("head")?, part("unit")?, part("tail")?);
    let len = unit.len().checked_mul(times).and_then(|n| n.checked_add(head.len() + tail.len()));
    if !matches!(len, Some(n) if n <= MAX_REPEAT) {
        return Err(format!("repeat describes more than {MAX_REPEAT} bytes"));
    }
    Ok([head, unit.repeat(times), tail].concat())
}

/// The limits a case is built under: its `limits` object as JSON text, if it has one.
#[must_use]
pub fn case_limits(case: &Value) -> Option<String> {
    case.get("limits").map(Value::to_string)
}

/// Reads a `spec_toml` document into a spec under limits (the CLI's TOML reader).
pub type TomlReader<'a> = &'a dyn Fn(&[u8], &Limits) -> Result<Spec>;

/// What a router gave for a case that does not match it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// How the result differs, for people.
    pub message: String,
    /// The node the router answered, when it answered one.
    pub got_node: Option<String>,
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The router gave what the case expects.
    Pass,
    /// The case is not for this runner, and why (`key_type`; `spec_toml` without a TOML
    /// reader).
    Skip(&'static str),
    /// The router gave something else.
    Fail(Mismatch),
}

impl Outcome {
    fn fail(message: impl Into<String>) -> Self {
        Self::Fail(Mismatch { message: message.into(), got_node: None })
    }
}

/// Checks one case through keyroute: the case's own spec (under its `limits`) or the file's
/// router, then its key, against the expected `node`, `slot`, `replicas` or `error` + `code`.
/// `toml` reads `spec_toml` cases; without it they are skipped.
#[must_use]
pub fn check_case(file_router: Option<&Router>, case: &Value, toml: Option<TomlReader<'_>>) -> Outcome {
    if case.get("key_type").is_some() {
        return Outcome::Skip("key_type: a key of a type this surface cannot pass");
    }
    let limits = match case_limits(case).map(|text| Limits::from_json(&text)).transpose() {
        Ok(limits) => limits.unwrap_or(Limits::DEFAULT),
        Err(e) => return expect_error(case, e.code()),
    };
    let own;
    let router = match case_spec_bytes(case) {
        Err(why) => return Outcome::fail(format!("malformed case: {why}")),
        Ok(Some(spec)) => match Router::from_bytes(&spec, &limits) {
            Ok(r) => {
                own = r;
                &own
            }
            Err(e) => return expect_error(case, e.code()),
        },
        Ok(None) => match (case.get("spec_toml").and_then(Value::as_str), toml) {
            (Some(_), None) => return Outcome::Skip("spec_toml: TOML is read by the CLI alone"),
            (Some(text), Some(read)) => {
                match read(text.as_bytes(), &limits).and_then(|s| Router::from_spec_with(&s, &limits)) {
                    Ok(r) => {
                        own = r;
                        &own
                    }
                    Err(e) => return expect_error(case, e.code()),
                }
            }
            (None, _) => match file_router {
                Some(r) => r,
                None => return Outcome::fail("the case has no spec and the file has none"),
            },
        },
    };
    let key = match case_key(case) {
        CaseKey::Bytes(key) => key,
        CaseKey::Refused(e) => return expect_error(case, e.code()),
        CaseKey::Malformed(why) => return Outcome::fail(format!("malformed case: {why}")),
        CaseKey::None => return Outcome::fail("the case has no key"),
    };
    check_key(router, &key, case)
}

/// Routes `key` through `router` and compares with the case's expectations.
fn check_key(router: &Router, key: &[u8], case: &Value) -> Outcome {
    if let Some(n) = case.get("replicas_count").and_then(Value::as_u64) {
        let mut out = vec![0u32; usize::try_from(n).unwrap_or(usize::MAX).min(1 << 20)];
        return match router.replicas(key, &mut out) {
            Ok(()) => Outcome::fail(format!("expected an error, got replicas {out:?}")),
            Err(e) => expect_error(case, e.code()),
        };
    }
    let node = match router.route_id(key) {
        Ok(node) => node,
        Err(e) => return expect_error(case, e.code()),
    };
    let got = Some(node.to_string());
    if let Some(want) = case.get("error") {
        return Outcome::Fail(Mismatch { message: format!("expected error {want}, got node {node}"), got_node: got });
    }
    let Some(want) = case.get("node").and_then(Value::as_str) else {
        return Outcome::fail("malformed case: neither node nor error");
    };
    if node != want {
        return Outcome::Fail(Mismatch { message: format!("node {node}, expected {want}"), got_node: got });
    }
    if let Some(slot) = case.get("slot").and_then(Value::as_u64) {
        match router.slot(key) {
            Some(s) if u64::from(s) == slot => {}
            Some(s) => return Outcome::fail(format!("slot {s}, expected {slot}")),
            None => return Outcome::fail("a slot is expected but the router has no slots"),
        }
    }
    if let Some(want) = case.get("replicas").and_then(Value::as_array) {
        let mut out = vec![0u32; want.len()];
        if let Err(e) = router.replicas(key, &mut out) {
            return Outcome::fail(format!("replicas: error {} ({})", e.code().name(), e.code().code()));
        }
        let got: Vec<&str> = out.iter().map(|&i| router.node_id(i).unwrap_or("?")).collect();
        let want: Vec<&str> = want.iter().filter_map(Value::as_str).collect();
        if got != want {
            return Outcome::fail(format!("replicas {got:?}, expected {want:?}"));
        }
    }
    Outcome::Pass
}

/// A case that expects `got` passes when its `error` and `code` name it.
fn expect_error(case: &Value, got: ErrorCode) -> Outcome {
    match (case.get("error").and_then(Value::as_str), case.get("code").and_then(Value::as_u64)) {
        (Some(name), Some(code)) if name == got.name() && code == u64::from(got.code()) => Outcome::Pass,
        (Some(name), _) => Outcome::fail(format!("error {} ({}), expected {name}", got.name(), got.code())),
        (None, _) => Outcome::fail(format!("unexpected error {} ({})", got.name(), got.code())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_bad_digits() {
        assert_eq!(hex(&[0, 0xab, 0xff]), "00abff");
        assert_eq!(hex_decode("00ABff"), Some(vec![0, 0xab, 0xff]));
        assert_eq!(hex_decode("abc"), None);
        assert_eq!(hex_decode("zz"), None);
        assert_eq!(hex_decode(""), Some(vec![]));
    }

    #[test]
    fn keys_of_every_form() {
        let key = |v: Value| case_key(&v);
        assert_eq!(key(serde_json::json!({"key": "é"})), CaseKey::Bytes("é".as_bytes().to_vec()));
        assert_eq!(key(serde_json::json!({"key_hex": "ff00"})), CaseKey::Bytes(vec![0xff, 0]));
        assert!(matches!(key(serde_json::json!({"key_hex": "f"})), CaseKey::Malformed(_)));
        assert_eq!(key(serde_json::json!({"key_utf16": [0xd83d, 0xde00]})), CaseKey::Bytes("😀".as_bytes().to_vec()));
        assert!(matches!(key(serde_json::json!({"key_utf16": [0xd800]})), CaseKey::Refused(_)));
        assert!(matches!(key(serde_json::json!({"key_utf16": [70000]})), CaseKey::Malformed(_)));
        assert_eq!(
            key(serde_json::json!({"key_repeat": {"head": "a", "unit": "b", "times": 3}})),
            CaseKey::Bytes(b"abbb".to_vec())
        );
        assert!(matches!(
            key(serde_json::json!({"key_repeat": {"unit": "b", "times": u64::MAX}})),
            CaseKey::Malformed(_)
        ));
        assert_eq!(key(serde_json::json!({"key_type": "int"})), CaseKey::None);
    }

    #[test]
    fn a_case_passes_or_says_what_differs() {
        let router = Router::from_json(r#"{"algorithm":"modulo","nodes":[{"id":"a"},{"id":"b"}]}"#).unwrap();
        let node = router.route_id(b"k").unwrap().to_string();
        let other = if node == "a" { "b" } else { "a" };
        assert_eq!(check_case(Some(&router), &serde_json::json!({"key": "k", "node": node}), None), Outcome::Pass);
        let Outcome::Fail(m) = check_case(Some(&router), &serde_json::json!({"key": "k", "node": other}), None) else {
            panic!("a wrong node must fail")
        };
        assert_eq!(m.got_node.as_deref(), Some(node.as_str()));
        let empty =
            serde_json::json!({"spec": {"algorithm": "ring", "nodes": []}, "error": "empty_topology", "code": 4});
        assert_eq!(check_case(None, &empty, None), Outcome::Pass);
        assert!(matches!(check_case(None, &serde_json::json!({"spec_toml": "x"}), None), Outcome::Skip(_)));
    }
}
