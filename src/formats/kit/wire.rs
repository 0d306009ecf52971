//! The top-level fields of an encoded protobuf message, walked without decoding it: to sniff a
//! message from its first bytes (pprof's Profile, OTLP's ExportProfilesServiceRequest, a Perfetto
//! trace), to point an
//! error at the byte of a field, and to decode a profile's samples one at a time rather than all at
//! once.

use std::ops::Range;

/// One field of a message: its number, its wire type, where it starts, and its payload (a
/// length-delimited field's bytes, a number's own bytes).
pub(crate) struct Field {
    pub number: u64,
    pub wire: u64,
    pub start: usize,
    pub payload: Range<usize>,
}

/// Why a walk stopped before the end of the bytes, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A field runs past the end (a message cut off).
    CutShort(usize),
    /// No field can start like this (a wire type protobuf does not have, a varint of 11 bytes).
    Invalid(usize),
}

/// The fields of `bytes`, in order; after a [`Stop`], none.
pub(crate) fn fields(bytes: &[u8]) -> impl Iterator<Item = Result<Field, Stop>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let field = field(bytes, at);
        at = match &field {
            Ok(field) => field.payload.end,
            Err(_) => bytes.len(),
        };
        Some(field)
    })
}

/// The field that starts at byte `start` of `bytes`.
fn field(bytes: &[u8], start: usize) -> Result<Field, Stop> {
    let cut = Stop::CutShort(start);
    let (tag, after_tag) = varint(bytes, start).ok_or(cut)?;
    let (number, wire) = (tag >> 3, tag & 7);
    let payload = match wire {
        0 => after_tag..varint(bytes, after_tag).ok_or(cut)?.1,
        1 => after_tag..after_tag + 8,
        2 => {
            let (len, from) = varint(bytes, after_tag).ok_or(cut)?;
            from..from.saturating_add(usize::try_from(len).map_err(|_| cut)?)
        }
        5 => after_tag..after_tag + 4,
        _ => return Err(Stop::Invalid(start)),
    };
    if payload.end > bytes.len() {
        return Err(cut);
    }
    Ok(Field { number, wire, start, payload })
}

/// The varint at byte `at` of `bytes` and the byte after it; `None` where it runs past the end or
/// past the ten bytes a 64-bit varint takes.
pub(crate) fn varint(bytes: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.get(at..)?.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, at + i + 1));
        }
    }
    None
}

/// Whether `head` is the start of a Perfetto trace (Chromium's default binary trace, `.pftrace`),
/// which a pprof Profile's first field would otherwise take it for (the Perfetto reader's sniffer,
/// and pprof's, which says no to it): a Trace is nothing but
/// `packet`s (field 1, as a Profile's `sample_type`, or an OTLP request's `resource_profiles`),
/// and its first packet has a field that is neither a ValueType's (the numbers 1 and 2) nor a
/// ResourceProfiles' (the messages 1 to 3): traced writes `trusted_uid` (a number at 3) and a
/// sequence id (10) in every packet, Chromium's first hold a clock snapshot and the like.
pub(crate) fn is_perfetto_trace(head: &[u8]) -> bool {
    let mut packets = fields(head).take_while(|f| !matches!(f, Err(Stop::CutShort(_))));
    let Some(Ok(first)) = packets.next() else { return false };
    // A ValueType's numbers, or an OTLP ResourceProfiles' messages (a request cut short).
    let other = |f: &Field| matches!((f.number, f.wire), (1 | 2, 0) | (1..=3, 2));
    let packet = &head[first.payload.clone()];
    let neither = fields(packet).map_while(Result::ok).any(|f| !other(&f));
    first.number == 1 && first.wire == 2 && neither && packets.all(|f| f.is_ok_and(|f| (f.number, f.wire) == (1, 2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_walked_to_a_stop() {
        // field 1 = 150 (varint), field 2 = "ab", then field 3 cut inside its length.
        let bytes = [0x08, 0x96, 0x01, 0x12, 2, b'a', b'b', 0x1a, 5, b'x'];
        let walked: Vec<Result<(u64, Range<usize>), Stop>> =
            fields(&bytes).map(|f| f.map(|f| (f.number, f.payload))).collect();
        assert_eq!(walked, [Ok((1, 1..3)), Ok((2, 5..7)), Err(Stop::CutShort(7))]);
        assert_eq!(fields(&[0x0b, 0]).map(|f| f.err()).collect::<Vec<_>>(), [Some(Stop::Invalid(0))]);
    }
}
