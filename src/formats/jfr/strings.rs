//! The text of JFR's strings, by their encoding: "UTF-8" (3), which the JVM writes as Java's
//! *modified* UTF-8, `char`s (4), UTF-16 code units, and Latin-1 (5).
//!
//! The JVM writes its strings of encoding 3 (thread names, class and method names: HotSpot's
//! symbols and `java_lang_String::as_utf8_string`) as modified UTF-8, which is CESU-8 with NUL as
//! `C0 80`: each UTF-16 code unit of the Java string in one to three bytes, so a character outside
//! the Basic Multilingual Plane is its two surrogates, three bytes each (`🚀`, U+1F680, is
//! `ed a0 bd ed ba 80`, not UTF-8's `f0 9f 9a 80`). Read as UTF-8, each of those six bytes is
//! invalid (the JDK 17's own parser, reading them as UTF-8, gives two U+FFFD for the one
//! character), so they are read as the code units they encode and the units joined in pairs as
//! UTF-16 joins them, the same step as encoding 4's. What is neither (a lone surrogate, a byte
//! that starts no sequence) is U+FFFD, as `String::from_utf8_lossy` makes it: one for a lead byte
//! and the continuation bytes after it that its sequence lacks the rest of.

/// The text of a string of encoding 3: modified UTF-8, which well-formed UTF-8 (four-byte
/// sequences included, which the JVM does not write but a tool might) reads as.
pub(super) fn modified_utf8(bytes: &[u8]) -> String {
    // UTF-8 that is valid holds no surrogate nor `C0 80`: it means what it says as it is.
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    utf16(&code_units(bytes))
}

/// The text of UTF-16 code units (encoding 4's `char`s, and what modified UTF-8 encodes): a high
/// surrogate and the low one after it are one character, a surrogate without its other half is
/// U+FFFD.
pub(super) fn utf16(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
}

/// The text of Latin-1 bytes (encoding 5): each byte is the character of its number.
pub(super) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The UTF-16 code units that modified UTF-8 bytes encode: a sequence of one to three bytes is one
/// unit (surrogates and `C0 80`, NUL, included), one of four bytes (UTF-8's, not the JVM's) the
/// two units of its character; what is not a sequence, U+FFFD.
fn code_units(bytes: &[u8]) -> Vec<u16> {
    const REPLACEMENT: u16 = 0xfffd;
    let mut units = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&lead) = bytes.get(at) {
        let (len, bits) = match lead {
            0x00..=0x7f => (1, u32::from(lead)),
            0xc0..=0xdf => (2, u32::from(lead & 0x1f)),
            0xe0..=0xef => (3, u32::from(lead & 0x0f)),
            0xf0..=0xf4 => (4, u32::from(lead & 0x07)),
            // A continuation byte with no lead, or a byte no sequence starts with.
            _ => (0, 0),
        };
        let continuation = bytes[at + 1..].iter().take(len.max(1) - 1).take_while(|&&b| b & 0xc0 == 0x80).count();
        if len == 0 || continuation + 1 < len {
            // The lead and what there is of its sequence: one U+FFFD.
            units.push(REPLACEMENT);
            at += 1 + continuation;
            continue;
        }
        let value = bytes[at + 1..at + len].iter().fold(bits, |value, &b| value << 6 | u32::from(b & 0x3f));
        at += len;
        match (u16::try_from(value), char::from_u32(value)) {
            (Ok(unit), _) => units.push(unit),
            (Err(_), Some(c)) => units.extend_from_slice(c.encode_utf16(&mut [0; 2])),
            // Four bytes past U+10FFFF.
            (Err(_), None) => units.push(REPLACEMENT),
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte strings written by hand from the JVM's encoding (each character's UTF-16 code units,
    /// one to three bytes each).
    #[test]
    fn modified_utf8_joins_surrogate_pairs() {
        // U+1F680 ROCKET: the surrogates D83D and DE80, three bytes each.
        assert_eq!(modified_utf8(&[0xed, 0xa0, 0xbd, 0xed, 0xba, 0x80]), "🚀");
        // U+1D4B3 MATHEMATICAL SCRIPT CAPITAL X (Supp.java's method): D835 DCB3.
        assert_eq!(modified_utf8(&[0xed, 0xa0, 0xb5, 0xed, 0xb2, 0xb3]), "𝒳");
        // A thread name as the JVM wrote it in a real recording: é (c3 a9) and 数 (e6 95 b0) are
        // UTF-8 as well, the rocket is not.
        let bytes = b"Thr\xc3\xa9ad-\xc3\xa9 \xed\xa0\xbd\xed\xba\x80 \xe6\x95\xb0";
        assert_eq!(modified_utf8(bytes), "Thréad-é 🚀 数");
    }

    #[test]
    fn modified_utf8_reads_nul_lone_surrogates_and_bad_bytes() {
        // NUL is C0 80, so that a string holds no zero byte.
        assert_eq!(modified_utf8(b"a\xc0\x80b"), "a\0b");
        // A high surrogate with no low one after it, and a low one alone: U+FFFD each.
        assert_eq!(modified_utf8(b"\xed\xa0\xbdx"), "\u{fffd}x");
        assert_eq!(modified_utf8(b"x\xed\xba\x80"), "x\u{fffd}");
        assert_eq!(modified_utf8(b"\xed\xa0\xbd\xed\xa0\xbd"), "\u{fffd}\u{fffd}");
        // A sequence cut short is one U+FFFD, as `from_utf8_lossy` gives it; a stray continuation
        // byte, and a byte that starts nothing, one each.
        assert_eq!(modified_utf8(b"\xe6\x95A"), "\u{fffd}A");
        assert_eq!(modified_utf8(b"\xe6\x95"), "\u{fffd}");
        assert_eq!(modified_utf8(b"\x80\xffA"), "\u{fffd}\u{fffd}A");
        // UTF-8's four bytes of the rocket, which the JVM does not write, read as UTF-8 reads them,
        // beside a surrogate pair; four bytes past U+10FFFF are U+FFFD.
        assert_eq!(modified_utf8(b"\xf0\x9f\x9a\x80\xed\xa0\xbd\xed\xba\x80"), "🚀🚀");
        assert_eq!(modified_utf8(b"\xf4\x90\x80\x80\xc0\x80"), "\u{fffd}\0");
    }

    #[test]
    fn utf16_joins_pairs_and_latin1_is_each_byte() {
        assert_eq!(utf16(&[0x54, 0xe9, 0xd83d, 0xde80, 0x6570]), "Té🚀数");
        // A low surrogate before its high one is two halves alone.
        assert_eq!(utf16(&[0xde80, 0xd83d]), "\u{fffd}\u{fffd}");
        assert_eq!(utf16(&[0xd83d, 0x41]), "\u{fffd}A");
        assert_eq!(latin1(b"\xff\xe9A\x00"), "ÿéA\0");
    }
}
