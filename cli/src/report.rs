//! What the commands' reports share: small formatting helpers, and the ownership report that
//! `balance` prints and `plot` draws.

use keyroute_bindings::Router;
use keyroute_bindings::analysis::{Balance, Method};

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
    match m.sample_keys() {
        Some(keys) => format!("estimated from {} sample keys", thousands(u64::from(keys))),
        None => m.describe().to_owned(),
    }
}

/// `16` hex digits, as fingerprints are shown everywhere.
pub fn hex(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}

/// One configuration's exact ownership.
pub struct Row {
    /// `160 points/node`, or the algorithm.
    pub label: String,
    /// Points per weight, for rings.
    pub points: Option<u32>,
    /// Share of keys per node.
    pub shares: Vec<f64>,
    pub balance: Balance,
    pub method: Method,
    /// The spec's own configuration.
    pub own: bool,
}

/// Everything the report and the chart show.
pub struct Report {
    pub title: String,
    pub ids: Vec<String>,
    /// Per node: weight / total weight.
    pub fair: Vec<f64>,
    pub rows: Vec<Row>,
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
