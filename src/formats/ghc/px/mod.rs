//! GHC `+RTS -px` cost-centre stack logs.
//!
//! **Producer**: GHC 4.08 to 7.2 (`rts/Profiling.c`, removed in 7.4), for the `ghcprof` viewer. The file
//! is named `<prog>.prof` like the text report; despite the flag's "XML" name it is line-oriented text.
//!
//! ```text
//! "Wed Jun  3 21:49 1993"
//! "20 ms"
//! 1 9 "isEven" "Main"
//! 1 8 "main" "Main"
//! 1 1 "MAIN" "MAIN"
//! 2 1 1 1
//! 2 14 2 8 1
//! 2 15 2 9 14
//! 5 50 1 1 0 0 3 1 14 1 0 40 1 15 1 20 1000 0
//! ```
//!
//! **Grammar** (the writer's code in `rts/Profiling.c`): a quoted timestamp line, a quoted `"N ms"` tick
//! length line, cost centres `1 id "label" "module"`, stacks `2 id 1 cc` (a root) or
//! `2 id 2 cc parent`, and one cost line `5 total-ticks (1 stack entries ticks alloc)* 0`.
//!
//! **Reading** is split over two threads (`text::pipeline`): a reader thread splits lines and parses
//! their numbers (`prepare`), the calling thread indexes the stacks and builds the profile. The cost
//! line, most of a file, is read in pieces of about 128 KiB cut after a space (`text::Blocks` splitting
//! long lines), so it is never held whole; other long lines are joined again. While every stack's
//! parent and cost centre were declared before it, as GHC writes them, each stack becomes a node as
//! it is declared. After the first that is not, stacks are kept as a parent index and a frame (8
//! bytes each; ids and positions only for the rare parent declared after its child) and the tree is
//! built, depth first, when the cost line starts. Each cost record goes straight into its node.
//! The modules: `tokens` (the reader thread's side), `lines` (the grammar of a line other than the cost
//! line), `stacks` (cost centres and stacks as a tree), `costs` (the cost line), `write`.
//!
//! A cost centre's module is taken from the right-hand end of its `1` line (labels may hold spaces,
//! and `"`: GHC never escaped them; their bytes are whatever the compiler was given, so bytes
//! that are not UTF-8 read as U+FFFD, said); a third string (pre-4.08 builds: the group) is dropped with a
//! warning. The first `2` line of a stack id is its tree edge; a repeat is a back edge of recursion
//! through another cost centre and only counted in a warning. Children keep the order their stacks
//! were declared in. Stacks without a cost record weigh zero. Cost centres used but never declared
//! (GHC 7.2 did not declare its built-ins) become `<cc N>` frames, with one warning. Like the
//! Parsec parser of docs/sources.md (whose `space` is any one whitespace character), fields may be separated
//! by tabs, vertical tabs, form feeds, lone CRs or Unicode spaces as well as spaces (read on a
//! slow path, taken only when a line is not plain numbers and spaces), whitespace in the cost
//! section may include line breaks, and text after the final `0` is ignored (with a warning). A
//! count the model cannot hold (above `i64::MAX`, alloc after the word size) is an error. Metrics:
//! `ticks`, `entries` (per node) and `alloc` in bytes: the file counts machine words, multiplied
//! by `--ghc-word-size` (default 8).
//!
//! **Writing**: the timestamp in GHC's `ctime` form without seconds (a time stated in RFC 3339,
//! pprof's or JFR's, to its minute; now if the profile has none; each said on stderr), the interval
//! in whole milliseconds (the profile's own, which conversion sets from `--interval` where time
//! became ticks or the profile has none; samples of another interval are counted again in ticks of
//! the whole milliseconds nearest it; else 1 ms), one `1` line per frame in
//! descending id order as GHC wrote them, stacks numbered in pre-order from 1, and the cost line
//! ending ` 0`. The roots go under one added `MAIN` (module `MAIN`), with a warning, unless there
//! is one root and it is `MAIN` or the root of a GHC profile. A `"` in a label or module is
//! written as `'` and a line break as a space, with a warning. Lost: frame kinds, line numbers
//! (merged), metrics other than ticks/entries/alloc, and allocation that is not a whole number of
//! words (rounded, with a warning).

use crate::diag::Diagnostics;
use crate::error::{excerpt, FormatName, ParseError, ParseErrorKind, Position};
use crate::formats::spec::{self, Carries, Reads, Rules, Sniff, Spec, Writes};
use crate::model::Profile;
use crate::text::{self, Blocks, Line};
use std::io::Read;

mod costs;
mod lines;
mod stacks;
mod tokens;
mod write;

use costs::CostSection;
use lines::{parse_interval_header, quoted, quoted_bytes};
use stacks::PxReader;
use tokens::{prepare, Prepared};
pub(crate) use write::write;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "ghc-px",
    description: "GHC `+RTS -px` cost-centre stack log (GHC 4.08–7.2)",
    // GHC names both the -px log and the text report `<prog>.prof`: content decides.
    extensions: &["px", "prof"],
    carries: CARRIES,
    reads: Some(Reads::text(sniff, |input, options, diag| read(input, &options.formats.get(), diag))),
    writes: Some(Writes::new(
        write,
        Rules { module_is_namespace: true, single_root: Some(super::main_frame), ..spec::STACKS_ONLY },
    )),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// What a `-px` file carries.
pub(crate) const CARRIES: Carries = Carries {
    title: false,
    name_replacements: &[('"', '\''), ('\n', ' '), ('\r', ' ')],
    interval_step: Some(INTERVAL_STEP),
    ..super::CARRIES
};

/// The step the header states the tick length in: `"N ms"`.
const INTERVAL_STEP: std::time::Duration = std::time::Duration::from_millis(1);

/// `Yes` when the first two lines are a quoted line and a quoted `"N ms"`.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
        return Sniff::No;
    };
    let interval = std::str::from_utf8(second).ok().and_then(|s| quoted(s)).and_then(parse_interval_header);
    if quoted_bytes(first) && interval.is_some() {
        Sniff::Yes
    } else {
        Sniff::No
    }
}

/// Reads a `-px` file; allocation words are multiplied by the options' word size into bytes.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &super::Options,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut state = ReadState::new(super::word_size(options.word_size));
    // Labels are whatever bytes the compiler was given: read lossily, as the notes ask.
    let blocks = Blocks::new(input, FORMAT).splitting_long_lines().decoding_lossily();
    text::pipeline_blocks(blocks, prepare, |line, prepared| state.line(line, &prepared, diag))?;
    state.finish(diag)
}

/// Where the reader is in the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Timestamp,
    Interval,
    Declarations,
    Costs,
}

/// The consuming side of the read: the lines in order, with what [`prepare`] made of them.
struct ReadState {
    stage: Stage,
    reader: PxReader,
    costs: CostSection,
    /// The pieces so far of a long line that is read whole (any but the cost line), and where it starts.
    joined: String,
    joined_at: Option<Position>,
    /// Where the line after the last one starts (for errors at the end).
    last: Position,
}

impl ReadState {
    fn new(word_size: u64) -> ReadState {
        ReadState {
            stage: Stage::Timestamp,
            reader: PxReader::new(word_size),
            costs: CostSection::default(),
            joined: String::new(),
            joined_at: None,
            last: Position::line(1, 0),
        }
    }

    /// Takes one line or piece of a long line. Only the cost line is read in pieces: it is most of
    /// the file, and its tokens never span pieces.
    fn line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let cost_piece = self.stage == Stage::Costs
            || (self.stage == Stage::Declarations && self.joined_at.is_none() && line.text.starts_with('5'));
        if cost_piece || (self.joined_at.is_none() && !line.continues) {
            return self.whole_line(line, prepared, diag);
        }
        self.joined_at.get_or_insert(line.position);
        self.joined.push_str(line.text);
        if line.continues {
            return Ok(());
        }
        let text = std::mem::take(&mut self.joined);
        let at = self.joined_at.take().unwrap_or(line.position);
        let result = self.whole_line(Line::joined(&text, at, FORMAT), &prepare(&text), diag);
        self.joined = text;
        self.joined.clear();
        result
    }

    fn whole_line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        // The slow path, taken only where the fast parse failed: `ParseProfile.hs` separates fields
        // with any one whitespace character, which for a stack or cost line is read as a space.
        if odd_spaces(&line, prepared) && self.stage != Stage::Timestamp && self.stage != Stage::Interval {
            let text: String = line.text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
            let mut spaced = Line::joined(&text, line.position, FORMAT);
            (spaced.start_column, spaced.continues) = (line.start_column, line.continues);
            return self.spaced_line(spaced, &prepare(&text), diag);
        }
        self.spaced_line(line, prepared, diag)
    }

    /// [`Self::whole_line`] once its separators are spaces and tabs.
    fn spaced_line(&mut self, line: Line<'_>, prepared: &Prepared, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let next = next_line_position(&line);
        match self.stage {
            Stage::Timestamp => {
                let timestamp = read_header(&line, "the timestamp line in double quotes")?;
                self.reader.profile.meta.timestamp = Some(timestamp.into());
                self.stage = Stage::Interval;
            }
            Stage::Interval => {
                self.interval(&line, diag)?;
                self.stage = Stage::Declarations;
            }
            Stage::Declarations if line.text.starts_with('5') => {
                // The cost line: the tree is complete, and the costs go into it from the first token.
                self.stage = Stage::Costs;
                self.reader.build_tree();
                self.costs.feed(&line, prepared, 1, &mut self.reader, diag)?;
            }
            Stage::Declarations => self.reader.declaration(&line, prepared, diag)?,
            Stage::Costs => self.costs.feed(&line, prepared, 0, &mut self.reader, diag)?,
        }
        self.last = next;
        Ok(())
    }

    /// The second header line, `"N ms"`.
    fn interval(&mut self, line: &Line<'_>, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let text = read_header(line, Self::INTERVAL_HEADER)?;
        match parse_interval_header(text) {
            Some(interval) => self.reader.profile.meta.interval = Some(interval),
            None => {
                let text = text.to_string();
                diag.warn("interval-header", Some(line.position), || {
                    format!("the tick length {text:?} is not \"N ms\": the profile has no interval")
                });
            }
        }
        Ok(())
    }

    const INTERVAL_HEADER: &'static str = "the tick length line in double quotes (\"20 ms\")";

    /// After the last line: the error for a file that ends early, else the profile.
    fn finish(self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let (position, expected) = match self.stage {
            Stage::Timestamp => (self.last, "the timestamp line in double quotes"),
            Stage::Interval => (self.last, Self::INTERVAL_HEADER),
            Stage::Declarations => (self.last, "the cost line (5 …)"),
            Stage::Costs if !self.costs.done => (self.last, "the cost line's terminating 0"),
            Stage::Costs => return self.reader.finish(diag),
        };
        Err(ParseError {
            format: FORMAT,
            position,
            kind: ParseErrorKind::Unexpected { expected: expected.into(), found: "the end of the input".into() },
        })
    }
}

/// The text of a quoted header line, or an error naming what was expected.
fn read_header<'a>(line: &Line<'a>, expected: &'static str) -> Result<&'a str, ParseError> {
    quoted(line.text).ok_or_else(|| {
        line.error(ParseErrorKind::Unexpected { expected: expected.into(), found: excerpt(line.text.as_bytes()) })
    })
}

/// Whether `line`, which the fast parse did not take as plain numbers, is a stack or cost line
/// (no quote) with whitespace other than spaces and tabs between its fields: a vertical tab, a form
/// feed, a lone CR, a Unicode space, all of which `ParseProfile.hs`'s `space` takes.
fn odd_spaces(line: &Line<'_>, prepared: &Prepared) -> bool {
    let failed = match prepared {
        Prepared::Stack { .. } => false,
        Prepared::Tokens(many) => !many.odd.is_empty(),
        Prepared::Text => true,
    };
    failed && !line.text.contains('"') && line.text.chars().any(|c| c.is_whitespace() && c != ' ' && c != '\t')
}

/// Where the line after `line` starts, for an input that ends there (assuming an LF ending).
fn next_line_position(line: &Line<'_>) -> Position {
    let end = line.position.byte + line.text.len() as u64;
    match line.unterminated {
        // The input ends in this line: its end is the end of the input.
        true => Position::line(line.position.line.unwrap_or(1), end),
        false => Position::line(line.position.line.map_or(1, |n| n + 1), end + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::lines::{parse_cost_centre, plain_stack_line, stack_line, NO_PARENT};
    use super::stacks::IdIndex;
    use super::tokens::{tokens, NumberTokens};
    use super::write::ctime_minutes;
    use super::*;
    use crate::formats::ghc::TICKS;
    use crate::model::Value;

    #[test]
    fn cost_centre_lines_take_the_module_from_the_right() {
        assert_eq!(parse_cost_centre(r#"1 10 "isOdd" "Main""#), Some((10, "isOdd", "Main", None)));
        assert_eq!(parse_cost_centre(r#"1 3 "a "b" c" "M.N""#), Some((3, r#"a "b" c"#, "M.N", None)));
        assert_eq!(parse_cost_centre(r#"1 3 "f" "Main" "grp""#), Some((3, "f", "Main", Some("grp"))));
        assert_eq!(parse_cost_centre(r#"1 3 "x" "y" "z""#), Some((3, r#"x" "y"#, "z", None)));
        assert_eq!(parse_cost_centre("1\t3\u{a0}\"a b\"\t\"M\"\u{c}\"g\""), Some((3, "a b", "M", Some("g"))));
        assert_eq!(parse_cost_centre(r#"1 +3 "f" "M""#), Some((3, "f", "M", None)), "an id as str::parse reads it");
        assert_eq!(parse_cost_centre(r#"1 x "f" "M""#), None);
        assert_eq!(parse_cost_centre(r#"1 3 "f""#), None);
    }

    #[test]
    fn stack_lines_as_parse_profile_reads_them_and_the_fast_path_leaves_the_rest() {
        assert_eq!(stack_line(b"2 14 2 8 1"), Some((14, 8, 1)));
        assert_eq!(stack_line(b"2 1 1 1"), Some((1, 1, NO_PARENT)));
        assert_eq!(stack_line(b"2\t01  1 1 \t"), Some((1, 1, NO_PARENT)));
        assert_eq!(stack_line(b"2 1 1 00000000000000000001"), Some((1, 1, NO_PARENT)));
        for not_a_stack in [
            &b"2 1 1 1 1"[..],
            b"2 1 2 1",
            b"2 1 3 1",
            b"23 1 1 1",
            b"2 1 1 1x",
            b"2 1 2 1 18446744073709551615",
            b"2 1 1 000000000000000000001",
        ] {
            assert_eq!(stack_line(not_a_stack), None, "{}", String::from_utf8_lossy(not_a_stack));
        }
        // Plain numbers after `2 `, as GHC wrote them; any other stack line is read by `stack_line`.
        assert_eq!(plain_stack_line(b"2  14 2 8 1 "), Some((14, 8, 1)));
        assert_eq!(plain_stack_line(b"2\t14 2 8 1"), None);
        assert_eq!(plain_stack_line(b"2 01 1 1"), None);
        assert_eq!(plain_stack_line(b"2 1 1 12345678901234567890"), None);
    }

    #[test]
    fn ctime_has_no_seconds_and_pads_the_day() {
        assert_eq!(ctime_minutes(739_144_140), "Thu Jun  3 21:49 1993");
        assert_eq!(ctime_minutes(0), "Thu Jan  1 00:00 1970");
    }

    /// Reads `text` through the contract's reader, as the registry does.
    fn read_with(text: &str, options: &crate::formats::options::ReadOptions) -> Result<Profile, ParseError> {
        let read = SPEC.reads.as_ref().expect("ghc-px is read").read;
        read(&mut text.as_bytes(), options, &mut Diagnostics::default())
    }

    #[test]
    fn a_deep_chain_reads_without_recursion() {
        let depth = 200_000;
        let mut text = String::from("\"t\"\n\"1 ms\"\n1 1 \"f\" \"M\"\n2 1 1 1\n");
        for id in 2..=depth {
            text.push_str(&format!("2 {id} 2 1 {}\n", id - 1));
        }
        text.push_str(&format!("5 1 1 {depth} 1 1 8 0\n"));
        let profile = read_with(&text, &crate::formats::options::ReadOptions::default()).unwrap();
        assert_eq!(profile.max_depth(), Some(depth - 1));
        assert_eq!(profile.total(TICKS), Value::Int(1));
    }

    #[test]
    fn plain_numbers_are_the_tokens_that_give_back_their_text() {
        let line = "0 00 01 7\t12345678 123456789 9999999999999999999 18446744073709551615 1x x 42";
        let got: Vec<(usize, Option<u64>)> = NumberTokens { bytes: line.as_bytes(), pos: 0 }.collect();
        let want = [
            Some(0),
            None,
            None,
            Some(7),
            Some(12_345_678),
            Some(123_456_789),
            Some(9_999_999_999_999_999_999),
            None,
            None,
            None,
            Some(42),
        ];
        assert_eq!(got.iter().map(|t| t.1).collect::<Vec<_>>(), want);
        assert_eq!(got.iter().map(|t| t.0).collect::<Vec<_>>(), tokens(line).map(|t| t.0).collect::<Vec<_>>());
    }

    proptest::proptest! {
        /// The tokens are those `split` finds, and a plain number is what `str::parse` reads from a
        /// token of 1 to 19 digits without a leading zero.
        #[test]
        fn number_tokens_are_split_and_parse(line in "([0-9]{0,21}|x)([ \t]{1,2}([0-9]{0,21}|0x|1x))*[ \t]?") {
            let got: Vec<(usize, Option<u64>)> = NumberTokens { bytes: line.as_bytes(), pos: 0 }.collect();
            let expected: Vec<(usize, Option<u64>)> = line
                .split([' ', '\t'])
                .scan(0, |start, token| {
                    let at = *start;
                    *start += token.len() + 1;
                    Some((at, token))
                })
                .filter(|(_, token)| !token.is_empty())
                .map(|(at, token)| {
                    let plain = (1..=19).contains(&token.len()) && (token.len() == 1 || !token.starts_with('0'));
                    (at, token.parse::<u64>().ok().filter(|_| plain))
                })
                .collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }

    /// A file whose cost line is longer than a read block: `n` stacks in a chain of roots.
    fn long_px(n: u64, label: &str) -> String {
        let mut text = format!("\"t\"\n\"1 ms\"\n1 1 \"{label}\" \"M\"\n");
        for id in 1..=n {
            text.push_str(&format!("2 {id} 1 1\n"));
        }
        text.push_str(&format!("5 {n}"));
        for id in 1..=n {
            text.push_str(&format!(" 1 {id} 1 1 1"));
        }
        text.push_str(" 0\n");
        text
    }

    fn read_px(text: &str) -> Result<Profile, String> {
        read_with(text, &crate::formats::options::ReadOptions::default()).map_err(|e| e.to_string())
    }

    /// The tree part of a profile's dump (its warnings name lines, which differ between variants).
    fn tree_dump(profile: &Profile) -> String {
        let dump = crate::model::dump::dump(profile);
        dump[..dump.find("warnings:").unwrap_or(dump.len())].to_string()
    }

    /// Stacks become nodes as they are declared while every parent and cost centre is declared
    /// before them; otherwise the tree is built at the cost line. Both make the same tree.
    #[test]
    fn stacks_make_the_same_tree_as_declared_or_at_the_cost_line() {
        let notes = include_str!("../../../../fixtures/ghc-px/notes-example.px");
        let declared_first = read_px(notes).unwrap();
        assert!(declared_first.tree.len() == 10 && tree_dump(&declared_first).contains("\"isOdd\""));
        // isOdd's cost centre declared after the stack that uses it.
        let late_cc = notes.replace("1 10 \"isOdd\" \"Main\"\n", "").replace("5 50", "1 10 \"isOdd\" \"Main\"\n5 50");
        // Stack 15 declared before its parent 14.
        let late_parent = notes.replace("2 14 2 8 8\n2 15 2 9 14\n", "2 15 2 9 14\n2 14 2 8 8\n");
        // Nodes in declaration order (stack 14 comes after its parent's siblings) are not in pre-order;
        // the tree built at the cost line is: that tells which way each was read.
        assert!(!declared_first.tree.is_preorder());
        for variant in [late_cc, late_parent] {
            assert_ne!(variant, notes);
            let built_late = read_px(&variant).unwrap();
            assert!(built_late.tree.is_preorder());
            assert_eq!(tree_dump(&built_late), tree_dump(&declared_first), "{variant}");
        }
    }

    #[test]
    fn a_cost_line_longer_than_a_block_reads_in_pieces() {
        let n = 40_000;
        let text = long_px(n, "f");
        assert!(text.lines().last().unwrap().len() > 4 * 128 * 1024);
        let profile = read_px(&text).unwrap();
        assert_eq!(profile.tree.len(), n as usize);
        assert_eq!(profile.total(TICKS), Value::Int(n as i64));
        // An error late in the line is placed by its column across the pieces.
        let at = text.rfind(" 1 39999 ").unwrap() + 3;
        let bad = format!("{}x{}", &text[..at], &text[at + 1..]);
        let line_start = bad.rfind('\n').map_or(0, |i| bad[..i].rfind('\n').unwrap() + 1);
        let column = at - line_start + 1;
        let want = format!(
            "ghc-px: line {}, column {column} (byte {at}): a stack id must be an integer, found \"x9999\"",
            n + 4
        );
        assert_eq!(read_px(&bad).unwrap_err(), want);
    }

    #[test]
    fn a_count_too_large_is_reported_before_later_errors_in_its_piece() {
        let head = "\"t\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n2 1 1 1\n5 3 ";
        let text = format!("{head}1 1 1 9999999999999999999 1 1 2 1 1 1 0\n");
        let want = "ghc-px: line 5, column 11 (byte 48): expected ticks from 0 to 9223372036854775807, found 9999999999999999999, which is too large";
        assert_eq!(read_px(&text).unwrap_err(), want);
        // The limit on words depends on the word size: 2^61 - 1 words fit in 4-byte words, not in 8.
        let mut options = crate::formats::options::ReadOptions::default();
        options.formats.set(crate::formats::ghc::Options { word_size: 4 });
        let words = format!("{head}1 1 1 1 2305843009213693951 0\n");
        assert!(read_with(&words, &options).is_ok());
        let error = read_px(&words).unwrap_err();
        assert!(
            error.contains("alloc in 8-byte words from 0 to 1152921504606846975, found 2305843009213693951"),
            "{error}"
        );
    }

    #[test]
    fn a_cost_centre_line_longer_than_a_block_is_read_whole() {
        let label = "a b ".repeat(100_000);
        let profile = read_px(&long_px(3, &label)).unwrap();
        assert_eq!(profile.frames.iter().next().map(|(_, f)| f.name.len()), Some(label.len()));
    }

    #[test]
    fn scattered_ids_cannot_grow_the_index_without_bound() {
        let mut index = IdIndex::default();
        for k in 0..64 {
            assert!(index.insert(1u64 << k, k));
        }
        assert!(index.dense.len() <= 1 << 20, "{}", index.dense.len());
        assert_eq!(index.get(1 << 40), Some(40));
        assert_eq!(index.get(3), None);
        assert!(!index.insert(1 << 40, 0));
    }
}
