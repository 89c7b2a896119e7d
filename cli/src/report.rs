//! Small formatting helpers shared by the commands' reports.

use keyroute_bindings::Router;
use keyroute_bindings::core::analysis::Method;

/// The algorithm a router's spec names, with its parameters: `ring (points_per_weight 160)`.
pub fn algorithm(r: &Router) -> String {
    if r.params().is_empty() {
        return r.algorithm().to_owned();
    }
    let list: Vec<String> = r.params().iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!("{} ({})", r.algorithm(), list.join(", "))
}

/// `0.2503` → `25.0%`.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// `0.2503` → `25.03%`.
pub fn pct2(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

/// `1000000` → `1,000,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How a figure was obtained, in a few words.
pub fn method(m: Method) -> String {
    match m {
        Method::Exact => "exact: measured on the key-hash space, no keys sampled".into(),
        Method::SlotShare => "exact per slot: every slot counts equally".into(),
        Method::Expected => "closed form: the algorithm's expected figure for hashed keys".into(),
        Method::Sampled { keys } => format!("estimated from {} sample keys", thousands(u64::from(keys))),
        _ => "unknown".into(),
    }
}

/// A short machine name for a method (JSON output).
pub fn method_name(m: Method) -> &'static str {
    match m {
        Method::Exact => "exact",
        Method::SlotShare => "slot_share",
        Method::Expected => "expected",
        Method::Sampled { .. } => "sampled",
        _ => "unknown",
    }
}

/// `16` hex digits, as fingerprints are shown everywhere.
pub fn hex(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(10_000_000), "10,000,000");
    }
}
