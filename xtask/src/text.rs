//! Small text helpers shared by the generators.

use keyroute_bindings::registry::{Algorithm, Kind, Weights};

/// Words of `text` wrapped to `width` columns, each line starting with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            lines.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// `text` with the part between the two marker lines replaced by `body` (markers kept).
///
/// # Errors
/// When a marker is missing.
pub fn splice(text: &str, begin: &str, end: &str, body: &str, what: &str) -> Result<String, String> {
    let start = text.find(begin).ok_or_else(|| format!("{what}: marker {begin:?} not found"))?;
    let after_begin = start + begin.len();
    let stop = text[after_begin..].find(end).ok_or_else(|| format!("{what}: marker {end:?} not found"))? + after_begin;
    Ok(format!("{}\n{}{}", &text[..after_begin], body, &text[stop..]))
}

/// `snake_case` → `PascalCase`.
pub fn pascal(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut c = part.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// A JSON string literal (also a valid Python and JS literal for the text we generate).
pub fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// An algorithm class's doc text, the same sentences in every language: its description,
/// where its scheme is specified, and what its example router says it supports.
///
/// `code` quotes a code span in the target's doc markup; `route_hash` is the surface's name
/// of the method that routes a 64-bit hash.
pub fn class_doc(a: &Algorithm, code: &dyn Fn(&str) -> String, route_hash: &str) -> String {
    let mut doc = a.description();
    let origin = match a.kind {
        Kind::Native { scheme } => format!("Native scheme {} ({}).", code(scheme), code("conformance/SPEC.md")),
        Kind::Preset { peer } => format!("Reproduces {peer} ({}).", code("conformance/PEERS.md")),
    };
    // The core decides what an algorithm supports; its example router is asked.
    match a.supports() {
        Ok(supports) => {
            let weights = match supports.weights {
                Weights::Honoured => "weights honoured",
                Weights::Refused => "equal weights only",
                _ => "weights ignored",
            };
            let yes = |b: bool| if b { "yes" } else { "no" };
            doc.push_str(&format!(
                "\n\n{origin} Spec algorithm {}: {weights}; replicas: {}; {}: {}; analysis: {}.",
                code(a.name),
                yes(supports.replicas),
                code(route_hash),
                yes(supports.route_hash),
                supports.analysis.name()
            ));
        }
        Err(e) => doc.push_str(&format!("\n\n{origin} Its example does not build: {e}.")),
    }
    doc
}
