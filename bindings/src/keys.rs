//! The key text policy, shared by every surface that takes text keys.
//!
//! Keys are bytes; a text key is its UTF-8 encoding. Text that has no UTF-8 encoding (a
//! Python `str` or a JavaScript string holding a lone surrogate) is refused with
//! `invalid_utf8`, never silently replaced by U+FFFD: a replaced key would route like a
//! different key, so a JS service and a Python service would disagree on it without a word.
//! `conformance/SPEC.md` states the policy and vector cases (`key_utf16`) pin it.

use crate::{Error, ErrorCode, Result};

/// U+FFFD, the replacement character, in UTF-8.
const REPLACEMENT: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// The UTF-8 bytes of UTF-16 text, appended to `out`.
///
/// # Errors
/// `invalid_utf8` when the text holds a lone surrogate (nothing is appended then).
pub fn utf16_to_utf8(units: &[u16], out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let mut buf = [0u8; 4];
    for (i, c) in char::decode_utf16(units.iter().copied()).enumerate() {
        match c {
            Ok(c) => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            Err(e) => {
                out.truncate(start);
                return Err(lone_surrogate(e.unpaired_surrogate(), i));
            }
        }
    }
    Ok(())
}

/// The UTF-8 bytes of UTF-16 text.
///
/// # Errors
/// As [`utf16_to_utf8`].
pub fn utf16_key(units: &[u16]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(units.len() * 3);
    utf16_to_utf8(units, &mut out)?;
    Ok(out)
}

/// Calls `f` with the UTF-8 bytes of UTF-16 text, converted into a buffer on the stack when the
/// text is short (as keys are), so routing a UTF-16 key allocates nothing in the common case.
///
/// # Errors
/// As [`utf16_to_utf8`] (`f` is not called then).
#[inline]
pub fn with_utf16_key<R>(units: &[u16], f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    /// Each UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair: 2 units, 4 bytes).
    const STACK: usize = 384;
    if units.len() > STACK / 3 {
        return utf16_key(units).map(|bytes| f(&bytes));
    }
    let mut buf = [0u8; STACK];
    let mut len = 0;
    for (i, c) in char::decode_utf16(units.iter().copied()).enumerate() {
        let c = c.map_err(|e| lone_surrogate(e.unpaired_surrogate(), i))?;
        let Some(room) = buf.get_mut(len..) else { return utf16_key(units).map(|bytes| f(&bytes)) };
        len += c.encode_utf8(room).len();
    }
    Ok(f(buf.get(..len).unwrap_or_default()))
}

/// Whether UTF-8 that a runtime produced from UTF-16 text *lossily* (lone surrogates replaced
/// by U+FFFD, as napi and `TextEncoder` do) might differ from the text: true exactly when it
/// holds a U+FFFD. When false the conversion was exact and the bytes are the key; when true,
/// check the UTF-16 itself with [`utf16_to_utf8`]. This keeps the common case (no U+FFFD) at
/// one scan of the UTF-8 bytes.
#[must_use]
#[inline]
pub fn lossy_utf8_needs_check(utf8: &[u8]) -> bool {
    utf8.windows(3).any(|w| w == REPLACEMENT)
}

fn lone_surrogate(unit: u16, position: usize) -> Error {
    Error::new(
        ErrorCode::InvalidUtf8,
        format!(
            "the text holds a lone surrogate (U+{unit:04X}, character {position}) and has no UTF-8 form; \
             keys are UTF-8, so it is refused rather than replaced"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn well_formed_text_is_its_utf8() {
        for s in ["", "user:42", "é", "日本", "\u{1F600}", "a\u{FFFD}b", "\0"] {
            assert_eq!(utf16_key(&units(s)).unwrap(), s.as_bytes());
        }
    }

    #[test]
    fn lone_surrogates_are_refused_and_nothing_is_appended() {
        for bad in [vec![0xD800], vec![0x61, 0xDC00], vec![0xD83D, 0x61], vec![0xDE00, 0xD83D]] {
            let mut out = b"kept".to_vec();
            let e = utf16_to_utf8(&bad, &mut out).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidUtf8);
            assert_eq!(out, b"kept");
        }
    }

    #[test]
    fn the_stack_path_and_the_heap_path_agree() {
        for s in ["", "k", "é日本\u{1F600}", &"x\u{1F600}".repeat(200), &"日".repeat(128), &"日".repeat(129)] {
            let u = units(s);
            assert_eq!(with_utf16_key(&u, <[u8]>::to_vec).unwrap(), s.as_bytes());
        }
        assert_eq!(with_utf16_key(&[0x61, 0xD800], |_| ()).unwrap_err().code(), ErrorCode::InvalidUtf8);
        let long: Vec<u16> = std::iter::repeat_n(0x61, 500).chain([0xDC00]).collect();
        assert_eq!(with_utf16_key(&long, |_| ()).unwrap_err().code(), ErrorCode::InvalidUtf8);
    }

    #[test]
    fn only_a_replacement_character_needs_a_check() {
        assert!(!lossy_utf8_needs_check(b"plain text"));
        assert!(!lossy_utf8_needs_check("é日本\u{1F600}".as_bytes()));
        assert!(lossy_utf8_needs_check("x\u{FFFD}".as_bytes()));
        assert!(!lossy_utf8_needs_check(&[0xEF, 0xBF]));
    }
}
