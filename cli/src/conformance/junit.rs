//! The JUnit XML report of a conformance run, in the shape CI systems read (Jenkins, GitLab,
//! GitHub actions that publish test results): `<testsuites>`, a `<testsuite>` per vector file
//! (named by the file's id), a `<testcase>` per case (named by the case's id, `classname` the
//! file's id) with a `<failure>` or `<skipped>` child. An adapter that broke the protocol adds a
//! suite `adapter` whose one case holds an `<error>`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::{CaseResult, FileReport};
use crate::error::Result;

/// Writes the report to `path`, whole or not at all (`output::write_file`).
pub fn write(path: &Path, reports: &[FileReport], fatal: Option<&str>, elapsed: Duration) -> Result<()> {
    crate::output::write_file(path, render(reports, fatal, elapsed).as_bytes())
}

/// The report's XML text.
pub fn render(reports: &[FileReport], fatal: Option<&str>, elapsed: Duration) -> String {
    let count = |f: &FileReport, skipped: bool| {
        f.cases
            .iter()
            .filter(|c| {
                if skipped {
                    matches!(c.result, CaseResult::Skip(_))
                } else {
                    matches!(c.result, CaseResult::Fail { .. })
                }
            })
            .count()
    };
    let tests: usize = reports.iter().map(|f| f.cases.len()).sum::<usize>() + usize::from(fatal.is_some());
    let failures: usize = reports.iter().map(|f| count(f, false)).sum();
    let skipped: usize = reports.iter().map(|f| count(f, true)).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"keyroute conformance\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        usize::from(fatal.is_some()),
        elapsed.as_secs_f64()
    );
    for file in reports {
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">",
            escape(&file.id),
            file.cases.len(),
            count(file, false),
            count(file, true),
            file.seconds
        );
        for case in &file.cases {
            let open = format!("    <testcase name=\"{}\" classname=\"{}\"", escape(&case.id), escape(&file.id));
            match &case.result {
                CaseResult::Pass => {
                    let _ = writeln!(x, "{open}/>");
                }
                CaseResult::Skip(why) => {
                    let _ = writeln!(x, "{open}>\n      <skipped message=\"{}\"/>\n    </testcase>", escape(why));
                }
                CaseResult::Fail { message, .. } => {
                    let key = case.key.as_deref().map(|k| format!("\nkey: {}", super::show_key(k))).unwrap_or_default();
                    let _ = writeln!(
                        x,
                        "{open}>\n      <failure message=\"{}\" type=\"mismatch\">{}{}</failure>\n    </testcase>",
                        escape(message),
                        escape(message),
                        escape(&key)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    if let Some(error) = fatal {
        x.push_str("  <testsuite name=\"adapter\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n");
        let _ = writeln!(
            x,
            "    <testcase name=\"protocol\" classname=\"adapter\">\n      <error message=\"{}\" type=\"adapter\"/>\n    </testcase>",
            escape(error)
        );
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// Text for an XML attribute or element: markup characters escaped, and characters XML 1.0
/// cannot hold at all (most control characters) written as `\u{…}`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c if u32::from(c) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_characters_xml_cannot_hold() {
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
        assert_eq!(escape("nul\0 tab\t"), "nul\\u{0} tab&#9;");
        assert_eq!(escape("é😀"), "é😀");
    }
}
