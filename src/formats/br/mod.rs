//! Business Rules! (BR) profiler files, written by the BR runtime after `DEBUG PROFILE SAMPLED file`
//! or `DEBUG PROFILE TIMED file` (stopped by `DEBUG PROFILE STOP`). The only description is the BR
//! wiki page "Profiler File Layout" (docs/formats.md, "Business Rules! profiler files"); no sample file is public. Binary records, each
//! opened by a type byte; all integers big-endian, with no other framing.
//!
//! ```text
//! 01 0001 0009 "orders.br"        CREATE MODULE MAPPING: module 1 is orders.br
//! 03 0001 0000000A 00             CURRENT LINE: module 1, line 10, clause 0 (opens a group)
//! 07 06 "FNCALC"                  FUNCTION NAME of the current line
//! 04 00000000000F4240             TIME SPENT IN LINE: 1,000,000 ns (timed files only)
//! 05 0001 00000064 02             BACKTRACE INFORMATION: module 1, line 100, clause 2
//! 09                              MAIN ROUTINE: that line is in the main routine
//! 06                              END CURRENT LINE (closes the group)
//! ```
//!
//! **Grammar** (the wiki page's): `1 u16 module u16 len name[len]` maps a module number to its file name;
//! a group is `3 u16 module u32 line u8 clause`, then in any order `4 u64 ns` and backtrace entries
//! `5 u16 module u32 line u8 clause`, then `6`. A `7 u8 len name[len]` (function name), `8` (GOSUB) or
//! `9` (main routine) qualifies the 3 or 5 record it follows directly. Types 2 and 10 to 255 are
//! unknown: a record cannot be skipped without knowing its length, so they stop the reader.
//!
//! **Readings of what the page leaves open**: module numbers are opaque keys, and a number
//! may be mapped again (later groups use the new name). A number used before its mapping reads as
//! the placeholder file `module#N`, with a warning. The page gives no backtrace order: by default the
//! entries run from the caller of the current line outwards (`--br-backtrace innermost-first`);
//! `outermost-first` reads the first entry as the root. A frame has at most one qualifier, directly
//! after its 3 or 5 record (the page: "they follow immediately after"). A group may have several
//! type-4 records (their times add up) or none. Module mappings come between groups, not inside one.
//! Names are UTF-8 when they validate, else Latin-1 (with a warning); the page does not say.
//!
//! **Model**: each group is one sample whose stack is [current line, backtrace entries…], innermost
//! first. A frame is a source-line frame (`line` kind) with the module's file name, the line and the
//! clause; its name is the function name of its FUNCTION NAME record. A frame without one is a line of
//! no named function (empty name; the model names it by its place, `orders.br:100.0`, wherever lines
//! become functions), and the routine its MAIN ROUTINE or GOSUB record puts it in is kept as the frame
//! fact `br.routine` (`main`, `gosub`; absent without a qualifier), so that it is written back.
//! Groups are aggregated while reading, keyed by their raw bytes without the time records, so memory
//! grows with distinct stacks, not with the file. Metrics: `samples` (one per group) and, when the
//! file has type-4 records, `time` in nanoseconds (their sum), which such a timed file is weighed
//! by: one-number targets get time unless `--metric samples` asks for the count of groups.
//!
//! **Reading**: records are read by nom's streaming parsers from a buffer of the input; an item (a
//! mapping or a whole group) that the buffer ends inside is nom's `Incomplete`: the buffer is
//! refilled and the item read again from its start. At the end of the input, the records are
//! read once more to say which one is cut short.
//!
//! **Writing**: a module mapping per distinct file right before its first use, numbered from 1; one
//! group per sample (a node with N self samples becomes N identical groups), with a type-4 record each
//! in timed mode (`--br-mode`, default: timed when the profile has a time metric), the node's time
//! split evenly among its groups. A function-name record for every frame, except the names above,
//! which write their marker (or nothing). A profile with time but no samples gets samples from time at
//! `--interval`. `--max-samples` stops a runaway file, and a file larger than `--max-output-size` (its
//! size worked out before a byte is written: a group holds its whole stack, so the file grows with
//! depth times samples, and the format shares nothing between groups but the module mappings) is
//! refused. **Lost**: metrics other than samples and time;
//! frame kinds (every frame reads back as a source line); header facts; per-function counts; the
//! order of groups and the module numbering (regenerated); with a warning each: threads and
//! processes (the conversion step drops their frames: no process name becomes a function), frames
//! without a file (written with the placeholder file `<no file>`), without a line (line 0), clauses
//! above 255, names longer than 255 bytes and file names longer than 65,535 bytes (cut at a
//! character boundary). Frames are
//! fitted to what a record holds before writing, and sibling stacks that become equal (a function
//! `f` without file or line beside `f` in `<no file>` at line 0) merge, so that every file written
//! reads back into the tree it was written from.

use super::spec::{self, Carries, Reads, Rules, Spec, Writes};
use crate::error::FormatName;
use crate::model::MetricKind;

mod read;
mod write;

pub(crate) use read::{read, sniff};
pub(crate) use write::{fit, write};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "br",
    description: "Business Rules! profiler records (binary)",
    extensions: &["br"],
    carries: Carries {
        needs_samples: true,
        weight_is_time: true,
        ..Carries::STACKS_OF_SAMPLES
            .weighing(&[MetricKind::Samples, MetricKind::Time])
            .with_source_lines()
            .with_modules()
    },
    reads: Some(Reads::binary(sniff, |input, options, diag| {
        read(input, &options.formats.get(), diag)
    })),
    writes: Some(Writes::new(write, Rules { fit, says_which_metric_comes_first: true, ..spec::STACKS_ONLY })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

const MAPPING: u8 = 1;
const CURRENT_LINE: u8 = 3;
const TIME: u8 = 4;
const BACKTRACE: u8 = 5;
const END: u8 = 6;
const FUNCTION_NAME: u8 = 7;
const GOSUB: u8 = 8;
const MAIN_ROUTINE: u8 = 9;

/// The bytes of a CURRENT LINE or BACKTRACE record, type byte included.
const FRAME_LEN: usize = 8;
/// The bytes of a TIME SPENT IN LINE record.
const TIME_LEN: usize = 9;

/// The frame attr that says which routine a line of no named function is in: [`MAIN_ROUTINE_VALUE`]
/// or [`GOSUB_VALUE`]; a line without it had no qualifier record.
pub(crate) const ROUTINE_KEY: &str = crate::model::ROUTINE;
const MAIN_ROUTINE_VALUE: &str = "main";
const GOSUB_VALUE: &str = "gosub";
/// The file the writer gives frames that have none.
const NO_FILE: &str = "<no file>";

/// The order of the backtrace entries of a group; the file format does not record it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumString, strum::VariantNames)]
#[strum(serialize_all = "kebab-case")]
pub enum BacktraceOrder {
    /// The first entry is the caller of the current line, the last the outermost frame.
    #[default]
    InnermostFirst,
    /// The first entry is the outermost frame, the last the caller of the current line.
    OutermostFirst,
}

/// Whether the writer gives every group a TIME SPENT IN LINE record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::EnumString, strum::VariantNames)]
#[strum(serialize_all = "kebab-case")]
pub enum Mode {
    /// Timed when the profile has a time metric, else sampled.
    #[default]
    Auto,
    /// A time record per group (`DEBUG PROFILE TIMED`).
    Timed,
    /// No time records (`DEBUG PROFILE SAMPLED`).
    Sampled,
}

/// BR's own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The order of a group's backtrace entries, read and written (`--br-backtrace`).
    pub backtrace: BacktraceOrder,
    /// Whether groups are written with time records (`--br-mode`).
    pub mode: Mode,
}

/// The name of a record type, for messages.
fn record_name(kind: u8) -> String {
    let name = match kind {
        MAPPING => "CREATE MODULE MAPPING",
        CURRENT_LINE => "CURRENT LINE",
        TIME => "TIME SPENT IN LINE",
        BACKTRACE => "BACKTRACE INFORMATION",
        END => "END CURRENT LINE",
        FUNCTION_NAME => "FUNCTION NAME",
        GOSUB => "GOSUB",
        MAIN_ROUTINE => "MAIN ROUTINE",
        other => return format!("unknown record type {other}"),
    };
    format!("{name} ({kind})")
}

#[cfg(test)]
mod tests {
    use super::read::CHUNK;
    use super::*;
    use crate::diag::Diagnostics;
    use crate::formats::options::ConvertOptions;
    use crate::formats::spec::{Sniff, Writing};
    use crate::model::dump::dump;
    use crate::model::{FrameId, FrameKind, FrameRef, Metric, NodeId, Profile, Repr, Unit, Value};

    fn mapping(number: u16, name: &str) -> Vec<u8> {
        let mut r = vec![MAPPING];
        r.extend_from_slice(&number.to_be_bytes());
        r.extend_from_slice(&(name.len() as u16).to_be_bytes());
        r.extend_from_slice(name.as_bytes());
        r
    }

    fn frame(kind: u8, module: u16, line: u32, clause: u8) -> Vec<u8> {
        let mut r = vec![kind];
        r.extend_from_slice(&module.to_be_bytes());
        r.extend_from_slice(&line.to_be_bytes());
        r.push(clause);
        r
    }

    fn time(ns: u64) -> Vec<u8> {
        let mut r = vec![TIME];
        r.extend_from_slice(&ns.to_be_bytes());
        r
    }

    fn read_bytes(bytes: &[u8], order: BacktraceOrder) -> (Profile, Diagnostics) {
        let mut diag = Diagnostics::default();
        let profile = read(&mut &bytes[..], &Options { backtrace: order, ..Options::default() }, &mut diag).unwrap();
        (profile, diag)
    }

    fn write_bytes(profile: &Profile, options: &ConvertOptions) -> (Vec<u8>, Diagnostics) {
        let mut out = Vec::new();
        let mut diag = Diagnostics::default();
        let fitted = fit(profile.clone(), options, &mut diag);
        write(&fitted, Writing::new(&mut out, options, &mut diag)).unwrap();
        (out, diag)
    }

    /// The main routine's line a.br:10.0 (1 sample, 7 ns) calling FNX b.br:20.1 (2 samples, 5 ns).
    fn timed_profile() -> Profile {
        let mut p = Profile::new(vec![Metric::samples(), Metric::time(Unit::Nanoseconds, Repr::Int)]);
        p.meta.weighed_by = Some(MetricKind::Time);
        let line = |name, module, line, clause| FrameRef {
            name,
            module: Some(module),
            line: Some(line),
            clause: Some(clause),
            kind: FrameKind::Line,
        };
        let main = p.frames.intern(line("", "a.br", 10, 0));
        p.frame_attrs.insert(main, vec![(ROUTINE_KEY.into(), MAIN_ROUTINE_VALUE.into())]);
        let fnx = p.frames.intern(line("FNX", "b.br", 20, 1));
        let root = p.tree.push(None, main);
        let child = p.tree.push(Some(root), fnx);
        for (node, samples, ns) in [(root, 1, 7), (child, 2, 5)] {
            p.tree.set_self(0, node, Value::Int(samples));
            p.tree.set_self(1, node, Value::Int(ns));
        }
        p
    }

    #[test]
    fn writes_the_records_the_layout_describes() {
        let (bytes, diag) = write_bytes(&timed_profile(), &ConvertOptions::default());
        assert!(diag.warnings().is_empty(), "{:?}", diag.warnings());
        let mut expected = mapping(1, "a.br");
        expected.extend(frame(CURRENT_LINE, 1, 10, 0));
        expected.push(MAIN_ROUTINE);
        expected.extend(time(7));
        expected.push(END);
        expected.extend(mapping(2, "b.br"));
        for ns in [3, 2] {
            // 5 ns over two groups: the remainder goes to the first.
            expected.extend(frame(CURRENT_LINE, 2, 20, 1));
            expected.extend([FUNCTION_NAME, 3, b'F', b'N', b'X']);
            expected.extend(time(ns));
            expected.extend(frame(BACKTRACE, 1, 10, 0));
            expected.push(MAIN_ROUTINE);
            expected.push(END);
        }
        assert_eq!(bytes, expected);
        let (reread, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        assert_eq!(dump(&reread), dump(&timed_profile()));
    }

    #[test]
    fn sampled_mode_drops_time_and_outermost_first_reverses_backtraces() {
        let mut options = ConvertOptions::default();
        options.formats.set(Options { backtrace: BacktraceOrder::OutermostFirst, mode: Mode::Sampled });
        let (bytes, diag) = write_bytes(&timed_profile(), &options);
        assert!(diag.has("br-time-dropped"));
        let (outer, _) = read_bytes(&bytes, BacktraceOrder::OutermostFirst);
        assert_eq!(outer.metrics().len(), 1, "no time records");
        let (inner, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        let mut expected = timed_profile();
        expected.retain_metrics(&[true, false]);
        expected.meta.weighed_by = None;
        assert_eq!(dump(&outer), dump(&expected));
        // One backtrace entry: the order cannot change a stack of two frames.
        assert_eq!(dump(&inner), dump(&expected));
        let mut three = mapping(1, "a.br");
        three.extend(frame(CURRENT_LINE, 1, 3, 0));
        three.extend(frame(BACKTRACE, 1, 2, 0));
        three.extend(frame(BACKTRACE, 1, 1, 0));
        three.push(END);
        let root_line = |p: &Profile| p.frames.get(p.tree.frame(NodeId(0))).line;
        assert_eq!(root_line(&read_bytes(&three, BacktraceOrder::InnermostFirst).0), Some(1));
        assert_eq!(root_line(&read_bytes(&three, BacktraceOrder::OutermostFirst).0), Some(2));
    }

    #[test]
    fn nanoseconds_beyond_f64_precision_survive() {
        let mut p = timed_profile();
        p.tree.set_self(1, NodeId(0), Value::Int((1 << 60) + 1));
        let (bytes, _) = write_bytes(&p, &ConvertOptions::default());
        assert_eq!(dump(&read_bytes(&bytes, BacktraceOrder::InnermostFirst).0), dump(&p));
    }

    #[test]
    fn max_samples_stops_before_writing() {
        let options = ConvertOptions { max_samples: 2, ..ConvertOptions::default() };
        let mut out = Vec::new();
        let mut diag = Diagnostics::default();
        let fitted = fit(timed_profile(), &options, &mut diag);
        let err = write(&fitted, Writing::new(&mut out, &options, &mut diag)).unwrap_err();
        assert!(err.to_string().contains("--max-samples 2"), "{err}");
        assert!(out.is_empty());
    }

    /// The file's size is worked out to the byte before a group is written: a file at
    /// `--max-output-size` is written, one a byte over it refused with its size and the option.
    #[test]
    fn the_output_is_held_to_max_output_size_before_a_byte_is_written() {
        for mode in [Mode::Timed, Mode::Sampled] {
            let mut options = ConvertOptions::default();
            options.formats.set(Options { mode, ..Options::default() });
            let (bytes, _) = write_bytes(&timed_profile(), &options);
            let size = bytes.len() as u64;
            options.max_output_size = Some(size);
            assert_eq!(write_bytes(&timed_profile(), &options).0, bytes, "{mode:?}");
            options.max_output_size = Some(size - 1);
            let (mut out, mut diag) = (Vec::new(), Diagnostics::default());
            let fitted = fit(timed_profile(), &options, &mut diag);
            let error = write(&fitted, Writing::new(&mut out, &options, &mut diag)).unwrap_err().to_string();
            assert!(error.contains(&format!("cannot write br: it would be {size} bytes")), "{error}");
            assert!(error.contains(&format!("more than --max-output-size {} allows", size - 1)), "{error}");
            assert!(out.is_empty());
        }
    }

    #[test]
    fn items_across_refills_and_a_group_larger_than_the_buffer() {
        // 60,000 groups: some straddle every refill of the 256 KiB buffer.
        let mut many = timed_profile();
        for node in [NodeId(0), NodeId(1)] {
            let samples = many.tree.self_value(0, node).as_count();
            many.tree.set_self(0, node, Value::Int(samples * 20_000));
        }
        let (bytes, _) = write_bytes(&many, &ConvertOptions::default());
        assert!(bytes.len() > 4 * CHUNK);
        assert_eq!(dump(&read_bytes(&bytes, BacktraceOrder::InnermostFirst).0), dump(&many));
        let mut deep = mapping(1, "a.br");
        deep.extend(frame(CURRENT_LINE, 1, 0, 0));
        for line in 1..=40_000 {
            deep.extend(frame(BACKTRACE, 1, line, 0));
        }
        deep.push(END);
        assert!(deep.len() > CHUNK);
        let (profile, _) = read_bytes(&deep, BacktraceOrder::InnermostFirst);
        assert_eq!(profile.tree.len(), 40_001);
        assert_eq!(profile.max_depth(), Some(40_000));
    }

    #[test]
    fn names_are_cut_at_a_character_boundary() {
        let mut p = Profile::new(vec![Metric::samples()]);
        let long = "é".repeat(200); // 400 bytes
        let f = p.frames.intern(FrameRef::function(&long));
        let node = p.tree.push(None, f);
        p.tree.set_self(0, node, Value::Int(1));
        let (bytes, diag) = write_bytes(&p, &ConvertOptions::default());
        assert!(diag.has("br-name-cut") && diag.has("br-no-file") && diag.has("br-no-line"));
        let (reread, _) = read_bytes(&bytes, BacktraceOrder::InnermostFirst);
        let frame = reread.frames.get(FrameId(0));
        assert_eq!(frame.name, "é".repeat(127)); // 254 bytes: 255 would split a character
        assert_eq!((frame.module.as_deref(), frame.line), (Some(NO_FILE), Some(0)));
    }

    #[test]
    fn frames_a_record_cannot_tell_apart_merge_before_writing() {
        // `f` without file or line and `f` in the placeholder file at line 0 write the same record:
        // as siblings they must be one node, or the file would not read back into what was written.
        let mut p = Profile::new(vec![Metric::samples()]);
        let bare = p.frames.intern(FrameRef::function("f"));
        let placed = p.frames.intern(FrameRef {
            name: "f",
            module: Some(NO_FILE),
            line: Some(0),
            clause: Some(0),
            kind: FrameKind::Line,
        });
        let g = p.frames.intern(FrameRef::function("g"));
        for frame in [bare, placed] {
            let node = p.tree.push(None, frame);
            p.tree.set_self(0, node, Value::Int(1));
            let child = p.tree.push(Some(node), g);
            p.tree.set_self(0, child, Value::Int(2));
        }
        let (once, _) = write_bytes(&p, &ConvertOptions::default());
        let (reread, _) = read_bytes(&once, BacktraceOrder::InnermostFirst);
        assert_eq!(reread.tree.len(), 2);
        assert_eq!(reread.total(0), Value::Int(6));
        assert_eq!(write_bytes(&reread, &ConvertOptions::default()).0, once);
    }

    #[test]
    fn sniffs_records_not_text() {
        let (bytes, _) = write_bytes(&timed_profile(), &ConvertOptions::default());
        assert_eq!(sniff(&bytes), Sniff::Maybe);
        assert_eq!(sniff(&bytes[..3]), Sniff::Maybe); // cut by the sniffing window
        assert_eq!(sniff(b""), Sniff::No);
        assert_eq!(sniff(b"LispWorks Profiler Tree\n"), Sniff::No);
        assert_eq!(sniff(b"\x03\x00\x01\x00\x00\x00\x01\x00\x02"), Sniff::No);
    }
}
