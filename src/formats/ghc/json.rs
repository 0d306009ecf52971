//! GHC's JSON profile, from `+RTS -pj` (GHC 8.2 and later).
//!
//! **Producer**: GHC's `rts/ProfilerReportJson.c`.
//!
//! ```text
//! {"program": "binary-trees", "arguments": ["binary-trees"], "rts_arguments": ["-pj"],
//!  "end_time": "Thu Oct 25 10:51 2018", "initial_capabilities": 0,
//!  "total_time":        0.80, "total_ticks": 798, "tick_interval": 1000, "total_alloc":1921672664,
//!  "cost_centres": [{"id": 144, "label": "MAIN", "module": "MAIN", "src_loc": "<built-in>", "is_caf": false}, …],
//!  "profile": {"id": 144, "entries": 0, "alloc": 640, "ticks": 0, "children": [ … ]}}
//! ```
//!
//! **Schema**: `cost_centres` declares each cost centre by id (label, module, `src_loc`, `is_caf`);
//! `profile` is the tree of cost-centre stacks, where `id` is the *cost-centre* id (not a stack
//! number), `ticks` counts ticks of `tick_interval` microseconds, `alloc` is in bytes and `entries`
//! counts entries. Back edges are not in the file.
//!
//! **Reading**: the whole input is read into memory (a `-pj` file is small next to the model of its
//! tree). The header and the cost-centre table are parsed by serde_json; the `profile` tree, which can
//! nest deeper than serde_json's recursion limit allows and deeper than the stack would, is parsed by
//! an iterative parser over the same text (serde_json only skips it, which it does without
//! recursion). `src_loc` is kept as the frame attr [`DEFINED_AT`] (where the function is defined:
//! a file and line for speedscope and pprof); `program` with its arguments is the title,
//! `end_time` the timestamp, `tick_interval` the interval. A count the model cannot hold (above
//! `i64::MAX`) and an `id` twice in one object are errors. Detected by its first keys, as GHC
//! writes them: `"program"`, then `"arguments"` or `"rts_arguments"`. Not written: proftool reads
//! this format only.

use super::{cost_centre, new_profile, ALLOC, ENTRIES, TICKS};
use crate::diag::Diagnostics;
use crate::error::{FormatName, ParseError, ParseErrorKind};
use crate::formats::json;
use crate::formats::spec::{JsonKind, Reads, Spec};
use crate::formats::ReadOptions;
use crate::model::{FrameId, FrameRef, NodeId, Profile, Value, DEFINED_AT};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use std::io::Read;
use std::time::Duration;

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "ghc-json",
    description: "GHC `+RTS -pj` JSON profile",
    // GHC writes -pj output to `<prog>.prof` too.
    extensions: &["prof.json", "json", "prof"],
    carries: super::CARRIES,
    reads: Some(Reads::json(JsonKind { what: "GHC's +RTS -pj JSON", aside: " (GHC's +RTS -pj profile)", check }, read)),
    writes: None,
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// Whether the input is a JSON object that starts as GHC writes one: its first key `"program"`
/// with a string value, then `"arguments"` (or `"rts_arguments"`), however long the program name
/// and argument lists are; or, for files not in GHC's key order, whether `"program"` and
/// `"rts_arguments"` are both in the first 512 bytes. If not, the first thing missing from GHC's
/// order.
pub(crate) fn check(head: &[u8]) -> Result<(), &'static str> {
    let in_ghc_order = starts_like_ghc(head);
    let text = String::from_utf8_lossy(&head[..head.len().min(512)]);
    let text = text.trim_start();
    match text.starts_with('{') && text.contains("\"program\"") && text.contains("\"rts_arguments\"") {
        true => Ok(()),
        false => in_ghc_order,
    }
}

/// Whether `head` is `{"program": "…", "arguments"` or `… "rts_arguments"`, with any JSON
/// whitespace between the tokens; if not, what is missing first.
fn starts_like_ghc(head: &[u8]) -> Result<(), &'static str> {
    let mut rest = head;
    if !(eat(&mut rest, b"{") && eat(&mut rest, b"\"program\"") && eat(&mut rest, b":") && eat(&mut rest, b"\"")) {
        return Err("its first key is not \"program\" with a string");
    }
    // The program's string, to its closing quote (GHC does not escape it; a JSON escape is skipped).
    let mut i = 0;
    while i < rest.len() && rest[i] != b'"' {
        i += if rest[i] == b'\\' { 2 } else { 1 };
    }
    let Some(after) = rest.get(i + 1..) else { return Err("the \"program\" string does not end") };
    rest = after;
    match eat(&mut rest, b",") && (eat(&mut rest, b"\"arguments\"") || eat(&mut rest, b"\"rts_arguments\"")) {
        true => Ok(()),
        false => Err("no \"arguments\" or \"rts_arguments\" key right after \"program\""),
    }
}

/// Skips whitespace and then `token` at the start of `rest`, if it is there.
fn eat(rest: &mut &[u8], token: &[u8]) -> bool {
    let trimmed = rest.trim_ascii_start();
    match trimmed.strip_prefix(token) {
        Some(after) => {
            *rest = after;
            true
        }
        None => false,
    }
}

#[derive(Deserialize)]
struct Document<'a> {
    program: String,
    #[serde(default)]
    arguments: Vec<String>,
    end_time: Option<String>,
    total_ticks: u64,
    tick_interval: u64,
    total_alloc: Option<u64>,
    cost_centres: Vec<CostCentre>,
    #[serde(borrow)]
    profile: &'a serde_json::value::RawValue,
}

#[derive(Deserialize)]
struct CostCentre {
    id: u64,
    label: String,
    module: String,
    src_loc: Option<String>,
}

/// What a `-pj` file should be, for its parse errors.
const SCHEMA: &str = "JSON in GHC's -pj schema";

/// Reads a `-pj` profile.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    _: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let bytes = json::read_all(input, FORMAT)?;
    let text = json::text(FORMAT, &bytes)?;
    let document: Document<'_> = json::parse(FORMAT, text, SCHEMA)?;
    let mut profile = new_profile();
    let mut title = document.program.clone();
    for argument in document.arguments.iter().skip(1) {
        title.push(' ');
        title.push_str(argument);
    }
    profile.meta.title = Some(title);
    profile.meta.timestamp = document.end_time.clone();
    profile.meta.interval = Some(Duration::from_micros(document.tick_interval));
    let mut frames: FxHashMap<u64, FrameId> = FxHashMap::default();
    for cc in &document.cost_centres {
        let frame = profile.frames.intern(cost_centre(&cc.label, &cc.module));
        frames.insert(cc.id, frame);
        if let Some(src) = cc.src_loc.as_deref().filter(|s| !s.is_empty()) {
            profile.frame_attrs.entry(frame).or_insert_with(|| vec![(DEFINED_AT.to_string(), src.to_string())]);
        }
    }
    // Where the `profile` value starts in the input: RawValue borrows from it.
    let offset = document.profile.get().as_ptr() as usize - text.as_ptr() as usize;
    let mut tree = TreeParser { text: text.as_bytes(), pos: offset, profile: &mut profile, frames: &mut frames };
    let undeclared = tree.parse()?;
    if !undeclared.is_empty() {
        let ids: Vec<String> = undeclared.iter().map(u64::to_string).collect();
        diag.warn("undeclared-cc", None, || {
            format!(
                "the profile names cost centres that cost_centres does not declare: named <cc N>: {}",
                ids.join(", ")
            )
        });
    }
    check_total(diag, "ticks", document.total_ticks, profile.total(TICKS));
    if let Some(total_alloc) = document.total_alloc {
        check_total(diag, "alloc", total_alloc, profile.total(ALLOC));
    }
    Ok(profile)
}

fn check_total(diag: &mut Diagnostics, what: &'static str, header: u64, sum: Value) {
    if i64::try_from(header).ok() != Some(sum.as_count()) {
        diag.warn("total-mismatch", None, || {
            format!("total_{what} is {header} but the profile's {what} add up to {sum}")
        });
    }
}

/// An error at byte `at` of `bytes`, with line and column.
fn error_at(bytes: &[u8], at: usize, kind: ParseErrorKind) -> ParseError {
    json::error_at(FORMAT, bytes, at, kind)
}

/// An iterative parser for the `profile` tree: objects with `id`, `entries`, `alloc`, `ticks` and
/// `children` (an array of such objects). Other keys are skipped.
struct TreeParser<'a, 'p> {
    text: &'a [u8],
    pos: usize,
    profile: &'p mut Profile,
    frames: &'p mut FxHashMap<u64, FrameId>,
}

/// A stack node being read: its fields so far, and its node once `id` is known.
#[derive(Default)]
struct Open {
    id: Option<u64>,
    values: [Option<u64>; 3],
    node: Option<NodeId>,
    /// How many keys were read (a key after the first needs a `,` before it).
    keys: usize,
}

impl TreeParser<'_, '_> {
    fn error(&self, expected: &str) -> ParseError {
        let found = match self.text.get(self.pos) {
            Some(&b) => format!("{:?}", char::from(b)),
            None => "the end of the input".into(),
        };
        error_at(self.text, self.pos, ParseErrorKind::Unexpected { expected: expected.into(), found })
    }

    fn skip_ws(&mut self) {
        while self.text.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        if self.text.get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, byte: u8, expected: &str) -> Result<(), ParseError> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// A JSON string without escapes or with them (keys here are plain), returned raw.
    fn key(&mut self) -> Result<&[u8], ParseError> {
        self.expect(b'"', "a key in double quotes")?;
        let start = self.pos;
        while let Some(&b) = self.text.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(&self.text[start..self.pos - 1]);
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
        Err(self.error("the end of a string"))
    }

    /// A whole number: a cost-centre id (any `u64`), or with `field` a count the model holds.
    fn number(&mut self, field: Option<&str>) -> Result<u64, ParseError> {
        self.skip_ws();
        let start = self.pos;
        while self.text.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let digits = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("");
        let max = field.map_or(u64::MAX, |_| super::MAX_COUNT);
        if !digits.is_empty() && digits.parse::<u64>().map_or(true, |v| v > max) {
            let kind = super::too_large(field.unwrap_or("a cost-centre id"), max, digits);
            return Err(error_at(self.text, start, kind));
        }
        digits.parse().map_err(|_| {
            self.pos = start;
            self.error("a whole number of 0 or more")
        })
    }

    /// Skips any JSON value, without recursion, through serde_json.
    fn skip_value(&mut self) -> Result<(), ParseError> {
        let rest = &self.text[self.pos..];
        let mut stream = serde_json::Deserializer::from_slice(rest).into_iter::<serde::de::IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => {
                self.pos += stream.byte_offset();
                Ok(())
            }
            _ => Err(self.error("a JSON value")),
        }
    }

    /// Parses the tree; returns the cost-centre ids it used that `cost_centres` lacks.
    fn parse(&mut self) -> Result<Vec<u64>, ParseError> {
        let mut undeclared = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        self.expect(b'{', "the profile object")?;
        stack.push(Open::default());
        // Inside an object: read `key: value` pairs; `children` opens an array of objects.
        while let Some(top) = stack.last() {
            let first = top.keys == 0;
            if self.eat(b'}') {
                let open = stack.pop().unwrap_or_default();
                let node = match open.node {
                    Some(node) => node,
                    None => self.place(&open, &stack, &mut undeclared)?,
                };
                self.set_values(node, &open);
                if stack.is_empty() {
                    break;
                }
                // After a child: `,` and another child, or the end of the children array.
                if self.eat(b',') {
                    self.expect(b'{', "the next child object")?;
                    stack.push(Open::default());
                } else {
                    self.expect(b']', "',' or ']' after a child")?;
                }
                continue;
            }
            if !first && !self.eat(b',') {
                return Err(self.error("',' or '}' in a profile object"));
            }
            self.skip_ws();
            let key_at = self.pos;
            let key = self.key()?.to_vec();
            self.expect(b':', "':' after a key")?;
            let index = stack.len() - 1;
            stack[index].keys += 1;
            match key.as_slice() {
                b"id" if stack[index].id.is_some() => {
                    let kind = ParseErrorKind::Unexpected {
                        expected: "one \"id\" in a profile object".into(),
                        found: "\"id\" a second time".into(),
                    };
                    return Err(error_at(self.text, key_at, kind));
                }
                b"id" => stack[index].id = Some(self.number(None)?),
                b"entries" => stack[index].values[ENTRIES] = Some(self.number(Some("entries"))?),
                b"ticks" => stack[index].values[TICKS] = Some(self.number(Some("ticks"))?),
                b"alloc" => stack[index].values[ALLOC] = Some(self.number(Some("alloc"))?),
                b"children" => {
                    let open = &stack[index];
                    let node = match open.node {
                        Some(node) => node,
                        None => self.place(open, &stack[..index], &mut undeclared)?,
                    };
                    stack[index].node = Some(node);
                    self.expect(b'[', "the children array")?;
                    if !self.eat(b']') {
                        self.expect(b'{', "a child object")?;
                        stack.push(Open::default());
                    }
                }
                _ => self.skip_value()?,
            }
        }
        self.skip_ws();
        Ok(undeclared)
    }

    /// Pushes the node of `open` (its `id` must be known) under the innermost placed ancestor.
    fn place(&mut self, open: &Open, ancestors: &[Open], undeclared: &mut Vec<u64>) -> Result<NodeId, ParseError> {
        let Some(id) = open.id else {
            self.skip_ws();
            return Err(self.error("\"id\" before \"children\" and before the end of a profile object"));
        };
        let frame = match self.frames.get(&id) {
            Some(&frame) => frame,
            None => {
                undeclared.push(id);
                let frame = self.profile.frames.intern(FrameRef::function(&format!("<cc {id}>")));
                self.frames.insert(id, frame);
                frame
            }
        };
        let parent = ancestors.last().and_then(|a| a.node);
        Ok(self.profile.tree.push(parent, frame))
    }

    fn set_values(&mut self, node: NodeId, open: &Open) {
        for (metric, value) in open.values.iter().enumerate() {
            let v = i64::try_from(value.unwrap_or(0)).unwrap_or(i64::MAX);
            self.profile.tree.set_self(metric, node, Value::Int(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_deeper_than_the_stack_allows_reads() {
        let depth = 300_000;
        let mut text = String::from(
            r#"{"program": "p", "arguments": [], "rts_arguments": [], "total_ticks": 1, "tick_interval": 1000, "cost_centres": [{"id": 1, "label": "f", "module": "M", "src_loc": "", "is_caf": false}], "profile": "#,
        );
        for _ in 0..depth - 1 {
            text.push_str(r#"{"id": 1, "entries": 1, "alloc": 0, "ticks": 0, "children": ["#);
        }
        text.push_str(r#"{"id": 1, "entries": 1, "alloc": 8, "ticks": 1, "children": []}"#);
        for _ in 0..depth - 1 {
            text.push_str("]}");
        }
        text.push('}');
        let mut diag = Diagnostics::default();
        let profile = read(&mut text.as_bytes(), &ReadOptions::default(), &mut diag).unwrap();
        assert_eq!(profile.max_depth(), Some(depth as u32 - 1));
        assert_eq!(profile.total(TICKS), Value::Int(1));
        assert!(diag.warnings().iter().all(|w| w.key != "total-mismatch"), "{:?}", diag.warnings());
    }

    #[test]
    fn sniffs_ghc_key_order_past_long_argument_lists() {
        let arguments: Vec<String> =
            (0..20).map(|i| format!("\"--an-argument-of-about-forty-chars-{i:04}\"")).collect();
        let head = format!(
            "{{\n\"program\": \"binary-trees\",\n\"arguments\": [{}],\n\"rts_arguments\": []}}",
            arguments.join(", ")
        );
        assert!(head.find("rts_arguments").is_some_and(|at| at > 512));
        assert_eq!(check(head.as_bytes()), Ok(()));
        assert_eq!(check(br#"{"program":"a \" b","rts_arguments":["-pj"]"#), Ok(()));
    }

    #[test]
    fn other_json_is_not_sniffed() {
        for head in [
            &br#"{"$schema":"https://www.speedscope.app/file-format-schema.json","name":"program","profiles":[]}"#[..],
            br#"{"program": "p", "name": "arguments"}"#,
            br#"{"name": "x", "program": "p", "arguments": []}"#,
            br#"{"program": 12, "arguments": []}"#,
            br#"["program", "arguments"]"#,
        ] {
            assert!(check(head).is_err(), "{}", String::from_utf8_lossy(head));
        }
    }
}
