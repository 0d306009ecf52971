//! stub
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::{Carries, Format, Sniff, Structure};
use crate::model::{MetricKind, Profile};
use std::io::Read;

pub(crate) const CARRIES: Carries = super::px::CARRIES;

pub(crate) fn sniff(_head: &[u8]) -> Sniff {
    Sniff::No
}

pub(crate) fn read(_input: &mut (dyn Read + Send), _diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    Err(ParseError { format: Format::GhcProf, position: Position::byte(0), kind: ParseErrorKind::Encoding })
}
