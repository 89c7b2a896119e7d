//! Java's `String.hashCode()`, which spymemcached's `NATIVE_HASH` routes on.

/// `s[0]·31^(n-1) + … + s[n-1]` over the UTF-16 code units of `s`, in Java `int` arithmetic
/// (wrapping), returned as the `int`.
#[must_use]
pub fn java_string_hash(s: &str) -> i32 {
    java_hash_units(s.encode_utf16())
}

/// `String.hashCode()` over given UTF-16 code units.
pub(crate) fn java_hash_units(units: impl IntoIterator<Item = u16>) -> i32 {
    units.into_iter().fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        // Values any JVM prints for these literals.
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        // The classic collision: "Aa" and "BB" are both 2112.
        assert_eq!(java_string_hash("Aa"), 2112);
        assert_eq!(java_string_hash("BB"), 2112);
        // Overflow wraps like Java's int.
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        // A supplementary character counts as two UTF-16 units (a surrogate pair).
        assert_eq!(java_string_hash("\u{1F600}"), 0xD83D * 31 + 0xDE00);
    }
}
