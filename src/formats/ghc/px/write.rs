//! Writing a `-px` file.

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::ghc;
use crate::formats::options::DEFAULT_INTERVAL;
use crate::formats::spec::Writing;
use crate::model::{FrameId, MetricKind, NodeId, Profile};
use std::io::Write;
use std::time::Duration;

/// Writes `profile` (projected onto what `-px` carries) as a `-px` file.
pub(crate) fn write(profile: &Profile, to: Writing<'_>) -> Result<(), Error> {
    let Writing { out, options, diag } = to;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
    let timestamp = match profile.meta.timestamp.as_deref() {
        Some(stated) => in_ghcs_form(stated, diag),
        None => {
            let now = now_ctime();
            diag.warn("ghc-px-time", None, || {
                format!("ghc-px: the profile states no time: written with this conversion's ({now}), as GHC writes the time it wrote its report")
            });
            now
        }
    };
    writeln!(w, "\"{}\"", sanitise(&timestamp, diag))?;
    writeln!(w, "\"{} ms\"", interval_ms(profile.meta.interval, diag))?;
    let tree = &profile.tree;
    // Cost centre ids count down the frame table, so that they come out descending as GHC's did and
    // a reader that interns them in file order rebuilds the same table.
    let n_frames = profile.frames.len() as u32;
    let cc_id = |frame: FrameId| n_frames - frame.0;
    for (id, frame) in profile.frames.iter() {
        let module = frame.module.as_deref().unwrap_or("");
        writeln!(w, "1 {} \"{}\" \"{}\"", cc_id(id), frame.name, sanitise(module, diag))?;
    }
    // Stacks are numbered 1.. in pre-order; `ids[node]` is a node's stack id.
    let mut ids = vec![0u64; tree.len()];
    let mut order = Vec::with_capacity(tree.len());
    for (n, visit) in tree.walk().enumerate() {
        let node = visit.node;
        ids[node.index()] = n as u64 + 1;
        order.push(node);
        let cc = cc_id(tree.frame(node));
        match tree.parent(node) {
            None => writeln!(w, "2 {} 1 {cc}", n + 1)?,
            Some(parent) => writeln!(w, "2 {} 2 {cc} {}", n + 1, ids[parent.index()])?,
        }
    }
    let column = |kind| profile.metric_of_kind(kind);
    let (ticks, entries, alloc) = (column(MetricKind::Ticks), column(MetricKind::Calls), column(MetricKind::Alloc));
    let value = |m: Option<usize>, node: NodeId| m.map_or(0, |m| tree.self_value(m, node).as_count().max(0) as u64);
    let word = ghc::word_size(options.formats.get::<ghc::Options>().word_size);
    let total: u64 = order.iter().fold(0u64, |sum, &node| sum.saturating_add(value(ticks, node)));
    let mut digits = itoa::Buffer::new();
    w.write_all(b"5 ")?;
    w.write_all(digits.format(total).as_bytes())?;
    let mut rounded = false;
    for (n, &node) in order.iter().enumerate() {
        let bytes = value(alloc, node);
        rounded |= bytes % word != 0;
        let fields = [n as u64 + 1, value(entries, node), value(ticks, node), bytes.div_ceil(word)];
        w.write_all(b" 1")?;
        for field in fields {
            w.write_all(b" ")?;
            w.write_all(digits.format(field).as_bytes())?;
        }
    }
    w.write_all(b" 0\n")?;
    if rounded {
        diag.warn("alloc-rounded", None, || {
            format!(
                "ghc-px counts allocation in {word}-byte words: byte counts that are not whole words are rounded up"
            )
        });
    }
    w.flush()?;
    Ok(())
}

/// `text` with `"` and line breaks replaced (header texts and modules; frame names were fitted).
pub(super) fn sanitise(text: &str, diag: &mut Diagnostics) -> String {
    if !text.contains(['"', '\n', '\r']) {
        return text.to_string();
    }
    diag.warn("px-quote", None, || "ghc-px strings cannot hold '\"' or line breaks: written as ' and space".into());
    text.replace('"', "'").replace(['\n', '\r'], " ")
}

/// The tick length in whole milliseconds (at least 1), with a warning when that rounds.
pub(super) fn interval_ms(interval: Option<Duration>, diag: &mut Diagnostics) -> u128 {
    if interval.is_none() {
        diag.warn("interval-default", None, || {
            format!("the profile has no sampling interval: ghc-px writes {DEFAULT_INTERVAL:?} (set with --interval)")
        });
    }
    let interval = interval.unwrap_or(DEFAULT_INTERVAL);
    let stated = crate::formats::options::stated_interval(interval, super::INTERVAL_STEP);
    let ms = stated.as_millis();
    if stated != interval {
        diag.warn("interval-rounded", None, || {
            format!("ghc-px gives the tick length in whole milliseconds: {interval:?} is written as {ms} ms")
        });
    }
    ms
}

/// A profile's time as GHC's `time_str()` writes it: an RFC 3339 time (pprof's, JFR's, OTLP's)
/// to the minute, said; any other text (GHC's own) as it is.
fn in_ghcs_form(stated: &str, diag: &mut Diagnostics) -> String {
    let Some(secs) = crate::formats::kit::time::parse_time(stated).and_then(|nanos| u64::try_from(nanos).ok()) else {
        return stated.to_string();
    };
    let minute = ctime_minutes(secs / 1_000_000_000);
    diag.warn("ghc-px-time-form", None, || {
        format!("ghc-px states its time as GHC's time_str() does, to the minute: {stated} is written as {minute}")
    });
    minute
}

/// The current time as GHC's `time_str()` wrote it: `ctime()` without seconds, in UTC.
pub(super) fn now_ctime() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    ctime_minutes(secs)
}

/// `Wed Jun  3 21:49 1993` for `secs` after the Unix epoch (UTC).
pub(super) fn ctime_minutes(secs: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let (year, month, day) = crate::formats::kit::time::civil_from_days(days);
    let weekday = DAYS[(days.rem_euclid(7)) as usize];
    format!("{weekday} {} {day:>2} {hour:02}:{minute:02} {year}", MONTHS[(month - 1) as usize])
}
