//! A throughput guard shared by the targets that build arbitrary spec text.

use serde_json::Value;

/// A throughput guard, not a correctness one: specs that would build tables of more than about
/// a million entries (Maglev, slots, ring points) are only parsed.
pub fn too_costly(text: &str) -> bool {
    let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(text) else { return false };
    let nodes = doc.get("nodes").and_then(Value::as_array).map_or(0, Vec::len) as f64;
    let weights: f64 = doc
        .get("nodes")
        .and_then(Value::as_array)
        .map_or(0.0, |ns| ns.iter().map(|n| n.get("weight").and_then(Value::as_f64).unwrap_or(1.0)).sum());
    let mut biggest_param = 0.0f64;
    if let Some(Value::Object(p)) = doc.get("params") {
        for v in p.values() {
            biggest_param = biggest_param.max(v.as_f64().unwrap_or(0.0));
        }
    }
    const LIMIT: f64 = (1 << 20) as f64;
    // Slot and Maglev tables, presets' points per name, ring points per weight.
    let costly = |x: f64| x > LIMIT && x <= 4.0 * f64::from(u32::MAX);
    costly(biggest_param)
        || costly(weights * biggest_param.max(160.0))
        || costly(nodes * biggest_param.max(160.0) * 4.0)
}
