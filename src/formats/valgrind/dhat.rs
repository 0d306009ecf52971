//! Valgrind's DHAT profile (`dhat.out.<pid>`), as `valgrind --tool=dhat` writes it (valgrind 3.15
//! and later; file version 2 since 3.17, described in the header comment of `dhat/dh_main.c`) and
//! its viewer `dh_view.html` (`dh_view.js`) reads it (read only).
//!
//! ```text
//! {"dhatFileVersion":2
//! ,"mode":"heap","verb":"Allocated"
//! ,"bklt":true,"bkacc":true
//! ,"tu":"instrs","Mtu":"Minstr"
//! ,"tuth":500
//! ,"cmd":"./work"
//! ,"pid":1000
//! ,"te":178375
//! ,"tg":173469
//! ,"pps":
//!  [{"tb":14500,"tbk":10,"tl":291103,"mb":14500,"mbk":10,"gb":14500,"gbk":10
//!   ,"eb":8500,"ebk":5,"rb":800,"wb":14500,"fs":[1,2,3]}
//!  ]
//! ,"ftbl":
//!  ["[root]"
//!  ,"0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)"
//!  ,"0x109190: buffer (work.c:7)"
//!  ,"0x109297: main (work.c:28)"
//!  ]
//! }
//! ```
//!
//! **Schema**: `dhatFileVersion` (2, the one `dh_view.js` reads), `mode` (`heap`, `copy` or
//! `ad-hoc`), `cmd`, `pid`, the time unit `tu`, the times of the end `te` and, with block
//! lifetimes (`bklt`, heap mode), of the global maximum `tg`; `pps`, the program points, each with
//! its total bytes and blocks (`tb`, `tbk`), with `bklt` its total lifetimes (`tl`), the largest
//! bytes and blocks it had live at once (`mb`, `mbk`), those live at `tg` (`gb`, `gbk`) and at the
//! end (`eb`, `ebk`), with block accesses (`bkacc`) the bytes read and written (`rb`, `wb`) and an
//! access histogram (`acc`), and its stack, `fs`, indices into `ftbl`, innermost first; `ftbl`, the
//! frames as valgrind describes a code address (`[root]` first, the root of every stack).
//! Ad-hoc mode names its units (`bsu`, `bksu`) where they are not bytes and blocks.
//!
//! **Model**: each program point's stack, root first, with its figures as self values of its
//! innermost frame: `total blocks`, `total bytes`, `blocks at t-gmax`, `bytes at t-gmax`,
//! `blocks at t-end`, `bytes at t-end`, `bytes read`, `bytes written`, where the file has them.
//! Bytes are of kind alloc, blocks (copies in copy mode) objects, each counted exactly by valgrind;
//! ad-hoc mode's units and events are events. The profile is weighed by its total blocks, the
//! figure `dh_view` sorts by unless told otherwise. A frame
//! `0x109190: buffer (work.c:7)` is line 7 of `buffer` in `work.c` (the file its module); one of
//! no file, `malloc (in /usr/…/vgpreload_dhat-amd64-linux.so)`, the function `malloc` of that
//! library; one of no symbol (`???`) is named by its address. The first address of each frame is
//! its fact `dhat.address`. The command is the title; the mode and the times of t-gmax and t-end
//! are header facts (`dhat.mode`, `dhat.t-gmax`, `dhat.t-end`).
//!
//! **Errors**: JSON errors at their line and column; a file version other than 2, a stack naming
//! a frame `ftbl` does not have, and a figure the file's flags promise missing, at their place. A
//! program point of no frame but `[root]` (valgrind writes none) is left out, counted in a warning.
//!
//! **Lost**: lifetimes (`tl`), the largest live figures of a program point (`mb`, `mbk`: maxima,
//! which do not add up along a tree), access histograms, `pid`, the threshold `tuth`.

use super::CodeAddress;
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind};
use crate::formats::json;
use crate::formats::kit::sink::{Order, Reason, StackSink};
use crate::formats::spec::{Carries, JsonKind, Reads, Spec};
use crate::formats::ReadOptions;
use crate::model::{FrameId, Metric, MetricKind, Profile, Repr, Sampling, Unit};
use serde::Deserialize;
use std::io::Read;

/// What its format is and how it is told and read (proftool does not write it).
pub(crate) const SPEC: Spec = Spec {
    name: "dhat",
    description: "Valgrind DHAT profile JSON (dhat.out.<pid>), as dh_view reads it",
    extensions: &["dhat"],
    carries: Carries::STACKS_OF_SAMPLES
        .weighing(&[MetricKind::Objects, MetricKind::Alloc, MetricKind::Events])
        .with_source_lines()
        .with_modules()
        .with_title(),
    reads: Some(Reads::json(JsonKind { what: "a DHAT profile (dhat.out.<pid>)", aside: " (valgrind's)", check }, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a DHAT file should be, for serde's errors.
const EXPECTED: &str = "a DHAT profile (dhatFileVersion, mode, cmd, pps of tb, tbk and fs, ftbl)";

/// The file version read, the one `dh_view.js` reads.
const VERSION: u64 = 2;

/// Whether the input is a JSON object with a `dhatFileVersion` (valgrind writes it first).
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    head.object()?;
    match head.mentions(b"\"dhatFileVersion\"") {
        true => Ok(()),
        false => Err("no \"dhatFileVersion\""),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    dhat_file_version: u64,
    mode: String,
    cmd: String,
    /// Whether block lifetimes (`gb`, `gbk`, `eb`, `ebk`) and accesses (`rb`, `wb`) are there.
    #[serde(default)]
    bklt: bool,
    #[serde(default)]
    bkacc: bool,
    tu: Option<String>,
    te: Option<u64>,
    tg: Option<u64>,
    /// Ad-hoc mode's names of its units and of its events, where they are not bytes and blocks.
    bsu: Option<String>,
    bksu: Option<String>,
    pps: Vec<ProgramPoint>,
    ftbl: Vec<String>,
}

/// A program point: its figures (those of block lifetimes and accesses only where the file has
/// them) and its stack, innermost first.
#[derive(Deserialize)]
struct ProgramPoint {
    tb: u64,
    tbk: u64,
    gb: Option<u64>,
    gbk: Option<u64>,
    eb: Option<u64>,
    ebk: Option<u64>,
    rb: Option<u64>,
    wb: Option<u64>,
    fs: Vec<usize>,
}

impl ProgramPoint {
    /// Its figures in the order of [`metrics`]'s names.
    fn figures(&self) -> [Option<u64>; 8] {
        [Some(self.tbk), Some(self.tb), self.gbk, self.gb, self.ebk, self.eb, self.rb, self.wb]
    }
}

/// The fields of [`ProgramPoint::figures`], for errors.
const FIELDS: [&str; 8] = ["tbk", "tb", "gbk", "gb", "ebk", "eb", "rb", "wb"];

/// Reads a DHAT file (see the module documentation).
fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document = json::parse(FORMAT, text, EXPECTED)?;
    if document.dhat_file_version != VERSION {
        let found = format!("file version {}", document.dhat_file_version);
        let expected = format!("file version {VERSION}, the one dh_view reads (valgrind 3.17 and later)");
        let at = json::nth_key(text.as_bytes(), "\"dhatFileVersion\"", 0);
        return Err(json::error_at(FORMAT, text.as_bytes(), at, ParseErrorKind::Unexpected { expected, found }));
    }
    profile(&document, text, diag)
}

/// The profile of a parsed DHAT file, `text`, where an error is placed.
fn profile(document: &Document, text: &str, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    // The figures of block lifetimes and accesses are there where the file says so, as dh_view
    // checks them.
    let kept: Vec<usize> =
        (0..FIELDS.len()).filter(|&i| i < 2 || (i < 6 && document.bklt) || (i >= 6 && document.bkacc)).collect();
    let all = metrics(document);
    let metrics: Vec<Metric> = kept.iter().map(|&i| all[i].clone()).collect();
    let weighed_by = metrics[0].kind;
    let mut sink = StackSink::new(FORMAT, metrics);
    let profile = sink.profile();
    profile.meta.weighed_by = Some(weighed_by);
    profile.meta.title = Some(document.cmd.clone());
    profile.meta.attrs.push(("dhat.mode".into(), document.mode.clone()));
    let unit = document.tu.as_deref().unwrap_or("instrs");
    for (key, time) in [("dhat.t-gmax", document.tg), ("dhat.t-end", document.te)] {
        if let Some(time) = time {
            profile.meta.attrs.push((key.into(), format!("{time} {unit}")));
        }
    }
    let frames = frames(&document.ftbl, &mut sink);
    for (n, point) in document.pps.iter().enumerate() {
        let stack = point
            .fs
            .iter()
            .map(|&index| frames.get(index).copied().ok_or(index))
            .collect::<Result<Vec<Option<FrameId>>, usize>>()
            .map_err(|index| no_such_frame(text, n, index, frames.len()))?;
        if stack.iter().all(Option::is_none) {
            sink.leave_out(&NO_FRAME, None, point.tb);
            continue;
        }
        let figures = point.figures();
        for (metric, &field) in kept.iter().enumerate() {
            let flag = if field < 6 { "bklt" } else { "bkacc" };
            let figure = figures[field].ok_or_else(|| missing_field(text, n, FIELDS[field], flag))?;
            sink.add(
                Order::LeafFirst,
                stack.iter().flatten().copied(),
                metric,
                i64::try_from(figure).unwrap_or(i64::MAX),
            );
        }
    }
    sink.finish(None, diag)
}

/// Program points whose stack has no frame but `[root]`: no stack of the model holds them.
static NO_FRAME: Reason = Reason::new("dhat-no-frame", |count, bytes| {
    format!("{count} program point(s) of no frame but [root] ({bytes} total bytes) left out")
});

/// The metrics a file of `document`'s mode can have, in the order of [`ProgramPoint::figures`]:
/// bytes and blocks, or ad-hoc mode's units and events.
fn metrics(document: &Document) -> Vec<Metric> {
    let bytes = document.bsu.as_deref().filter(|unit| *unit != "bytes");
    let blocks = document.bksu.as_deref().unwrap_or("blocks");
    let (bytes_name, bytes_kind, bytes_unit) = match bytes {
        Some(units) => (units, MetricKind::Events, Unit::Count),
        None => ("bytes", MetricKind::Alloc, Unit::Bytes),
    };
    let blocks_kind = if bytes.is_some() { MetricKind::Events } else { MetricKind::Objects };
    let metric = |name: String, kind, unit| Metric::new(&name, kind, unit, Repr::Int).sampled(Sampling::Measured);
    let mut metrics = Vec::new();
    for at in ["total {}", "{} at t-gmax", "{} at t-end"] {
        metrics.push(metric(at.replace("{}", blocks), blocks_kind, Unit::Count));
        metrics.push(metric(at.replace("{}", bytes_name), bytes_kind, bytes_unit));
    }
    metrics.push(metric(format!("{bytes_name} read"), bytes_kind, bytes_unit));
    metrics.push(metric(format!("{bytes_name} written"), bytes_kind, bytes_unit));
    metrics
}

/// The frames of `ftbl`, interned: `None` for `[root]`, the root of every stack.
fn frames(ftbl: &[String], sink: &mut StackSink) -> Vec<Option<FrameId>> {
    ftbl.iter()
        .map(|text| (text != "[root]").then(|| CodeAddress::parse(text).intern(sink.profile(), ADDRESS)))
        .collect()
}

/// The frame fact of a frame's code address, the first met.
const ADDRESS: &str = "dhat.address";

/// The error of program point `n` without its figure `field`, which the file's flag `flag` says
/// it has.
fn missing_field(text: &str, n: usize, field: &str, flag: &str) -> ParseError {
    let expected = format!("a program point's \"{field}\", as \"{flag}\":true says");
    let found = format!("pps[{n}] without it");
    let at = json::nth_key(text.as_bytes(), "\"fs\"", n);
    json::error_at(FORMAT, text.as_bytes(), at, ParseErrorKind::Unexpected { expected, found })
}

/// The error of program point `n`'s stack naming frame `index` of a table of `len`.
fn no_such_frame(text: &str, n: usize, index: usize, len: usize) -> ParseError {
    let expected = format!("frame indices of ftbl, below {len}");
    let found = format!("frame {index} in pps[{n}].fs");
    let at = json::nth_key(text.as_bytes(), "\"fs\"", n);
    json::error_at(FORMAT, text.as_bytes(), at, ParseErrorKind::Unexpected { expected, found })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Valgrind writes no program point of an empty stack; one written by hand is said and left out.
    #[test]
    fn a_program_point_of_no_frame_is_left_out_and_said() {
        let text = r#"{"dhatFileVersion":2,"mode":"heap","cmd":"x","pps":[{"tb":7,"tbk":1,"fs":[]},
            {"tb":3,"tbk":1,"fs":[1]}],"ftbl":["[root]","0x1: f (a.c:1)"]}"#;
        let mut diag = Diagnostics::default();
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut diag).unwrap();
        assert_eq!(profile.total(1), crate::model::Value::Int(3));
        let warnings = diag.lines(false).join("\n");
        assert!(warnings.contains("1 program point(s) of no frame but [root] (7 total bytes) left out"), "{warnings}");
    }

    #[test]
    fn a_dhat_file_is_told_by_its_version_key() {
        assert_eq!(check(b"{\"dhatFileVersion\":2\n,\"mode\":\"heap\""), Ok(()));
        assert!(check(b"{\"head\":{}}").is_err());
    }
}
