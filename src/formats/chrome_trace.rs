//! Chrome's Trace Event Format (JSON): what `chrome://tracing`, Perfetto UI and speedscope open, as
//! py-spy (`py-spy record --format chrometrace`), Clang (`-ftime-trace`) and Chrome's performance
//! panel write it (the "Trace Event Format" document; shared notes `world-formats.md` §3).
//!
//! ```text
//! {"traceEvents":[
//!   {"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"main"}},
//!   {"name":"parse","ph":"B","ts":100,"pid":1,"tid":7,"args":{"filename":"app.py","line":4}},
//!   {"name":"lex","ph":"X","ts":110,"dur":20.5,"pid":1,"tid":7},
//!   {"name":"parse","ph":"E","ts":200,"pid":1,"tid":7}],
//!  "displayTimeUnit":"ms"}
//! ```
//!
//! **Grammar**: a JSON array of events, or an object whose `traceEvents` is that array (its other
//! keys are metadata; `displayTimeUnit`, `ms` or `ns`, only says how a viewer shows times). An event
//! is an object with its phase `ph` (one character), `name`, `ts` (µs, fractions allowed), `pid` and
//! `tid` (numbers or strings), `dur` (µs, `X` only; else `tdur`) and `args` (anything). `B`/`E`
//! begin and end a slice on their thread and nest there (an `E` may omit its name); `X` is a whole
//! slice; `M` is metadata (`thread_name`: `args.name`); `P` events named `Profile` and
//! `ProfileChunk` (and an old `CpuProfile`) carry a V8 CPU profile in `args.data`. Events need not
//! be in time order, and the array may lack its closing `]` (a trace written as it ran).
//!
//! **Model**: each (pid, tid) track is a thread root, named by its `thread_name` metadata or `tid N`;
//! its slices nest by time (an `E` closes the innermost open `B`; `X` slices sorted by start, the
//! longer first where two start together; a slice that outlasts its parent ends with it), and each
//! stack of open slices weighs the time (µs) to the next event of the track: the metric `time`, whole
//! µs as integers (time at no slice is no one's). A frame is named by the event's `name`
//! (`(unnamed)` without one), with Clang's `args.detail` after it in parentheses; its module is
//! `args.filename` (py-spy), `args.file` (Clang) or `args.url`, and with an `args.line` it is that
//! source line (py-spy's slices are lines of functions). Clang's `Total …` tracks (a tid without a
//! thread name whose slices are all `Total NAME` summaries) are dropped. A trace with `Profile` and
//! `ProfileChunk` events is the CPU profile they carry (read as a `.cpuprofile` is, the chunks of the
//! first profile joined in time order; its time and the url as module, not its sample counts nor
//! where functions are defined) under the root of the profile's thread; its slices are not
//! read (as speedscope reads such a trace), said in a warning. `displayTimeUnit` other than `ms` is
//! the header fact `chrome-trace.displayTimeUnit`. Instant, counter, async, flow and other events
//! are counted in one warning; an `E` that does not close the innermost open slice is ignored and
//! slices still open at the end close at the trace's last timestamp (each warned once).
//!
//! **Reading** streams: the JSON is parsed as it comes, event by event (no document in memory);
//! each slice is kept as 32 bytes until its track is laid out at the end (events need not be in
//! order).
//!
//! **Errors**: JSON errors at their line and column; an event without `ph`, a slice without `ts`, a
//! negative `dur`, a CPU profile whose nodes do not form a tree, at the event. A trace cut short
//! between two events is read, with a warning.
//!
//! **Written**: the object form, a `process_name` and per root a `thread_name` metadata event (the
//! roots are threads, one tid each from 1), then per thread its stacks as `X` slices laid out as a
//! flame chart: each node a slice as long as its inclusive time, its callees one after another from
//! its start, its own time after them; `ts` and `dur` in µs, fractions where the time has them.
//! A source line frame or a frame with a module has `args` `filename` and `line` (as py-spy writes
//! them; speedscope then names the frame with them). Roots that are not threads go under a thread
//! `main`; a thread's own time is a slice named after the thread (a track holds slices only); time
//! is rounded to the nanosecond. A profile without time is refused, or its samples or ticks are time
//! at its interval (the conversion says which, on stderr).
//!
//! **Lost**: processes (threads of one name in two processes are one root), the order and
//! timestamps of slices (the flame chart puts callees one after another), time on a thread outside
//! any slice, other `args`, categories, instant, counter, async and flow events; stacks of no time
//! are not written.

use super::cpuprofile;
use super::json::push_string;
use super::{Carries, Format, Sniff, Structure};
use crate::diag::Diagnostics;
use crate::error::{Error, ParseError, ParseErrorKind, Position};
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, FrameTable, Metric, MetricKind, NodeId, Profile, Repr, Unit, Values,
};
use rustc_hash::FxHashMap;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};

const FORMAT: Format = Format::ChromeTrace;

/// What a Chrome trace holds.
pub(crate) const CARRIES: Carries = Carries {
    structure: Structure::Stacks,
    threads: true,
    thread_roots: true,
    frame_kinds: false,
    metrics: &[MetricKind::Time],
    one_metric: false,
    function_facts: false,
    source_lines: true,
    modules: true,
    title: false,
    timestamp: false,
    interval: false,
    name_replacements: &[],
    lines_nest: false,
    time_unit: Some(Unit::Microseconds),
    flat_reports: false,
    needs_samples: false,
    weight_is_time: true,
};

/// The header fact of a `displayTimeUnit` other than `ms`.
const DISPLAY_TIME_UNIT: &str = "chrome-trace.displayTimeUnit";

/// `Yes` for a JSON object with the key `traceEvents` in the head, or an array of objects with a
/// `ph` key.
pub(crate) fn sniff(head: &[u8]) -> Sniff {
    let head = head.trim_ascii_start();
    let has = |key: &[u8]| memchr::memmem::find(head, key).is_some();
    let array = head.strip_prefix(b"[").is_some_and(|rest| rest.trim_ascii_start().starts_with(b"{")) && has(b"\"ph\"");
    match array || (head.starts_with(b"{") && has(b"\"traceEvents\"")) {
        true => Sniff::Yes,
        false => Sniff::No,
    }
}

/// A pid or tid: a number, or a string as some writers give them.
#[derive(Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
#[serde(untagged)]
enum Id {
    Int(i64),
    Text(String),
}

impl Default for Id {
    fn default() -> Id {
        Id::Int(0)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            Id::Text(text) => f.write_str(text),
        }
    }
}

#[derive(Deserialize)]
struct Event {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    ph: Option<char>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default)]
    tdur: Option<f64>,
    #[serde(default)]
    pid: Option<Id>,
    #[serde(default)]
    tid: Option<Id>,
    #[serde(default)]
    id: Option<Id>,
    #[serde(default)]
    args: Option<Box<RawValue>>,
}

/// A value of type `T`, or anything else (taken for none): `args` are free-form.
#[derive(Deserialize)]
#[serde(untagged)]
enum Loose<T> {
    Is(T),
    Other(IgnoredAny),
}

impl<T> Loose<T> {
    fn get(self) -> Option<T> {
        match self {
            Loose::Is(value) => Some(value),
            Loose::Other(_) => None,
        }
    }
}

/// What a slice's `args` say of its frame.
#[derive(Deserialize, Default)]
struct SliceArgs {
    filename: Option<Loose<String>>,
    file: Option<Loose<String>>,
    url: Option<Loose<String>>,
    line: Option<Loose<u32>>,
    detail: Option<Loose<String>>,
}

/// The `args` of metadata: the thread's name.
#[derive(Deserialize, Default)]
struct NameArgs {
    name: Option<Loose<String>>,
}

#[derive(Deserialize)]
struct ProfileArgs {
    data: ProfileData,
}

/// `args.data` of a `Profile`, `ProfileChunk` or `CpuProfile` event.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ProfileData {
    #[serde(default)]
    cpu_profile: Option<CpuProfileJson>,
    #[serde(default)]
    time_deltas: Option<Vec<f64>>,
    #[serde(default)]
    start_time: Option<f64>,
    #[serde(default)]
    end_time: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CpuProfileJson {
    #[serde(default)]
    nodes: Vec<cpuprofile::NodeJson>,
    #[serde(default)]
    samples: Vec<u64>,
    #[serde(default)]
    time_deltas: Option<Vec<f64>>,
    #[serde(default)]
    start_time: Option<f64>,
    #[serde(default)]
    end_time: Option<f64>,
}

/// How far the JSON has been read, and whether anything but separators came since the last whole
/// event (to tell a trace cut short between events from one cut inside an event).
#[derive(Default)]
struct Place {
    byte: Cell<u64>,
    line: Cell<u64>,
    line_start: Cell<u64>,
    inside: Cell<bool>,
}

impl Place {
    fn position(&self) -> Position {
        let byte = self.byte.get();
        Position { byte, line: Some(self.line.get() + 1), column: Some(byte - self.line_start.get() + 1) }
    }
}

/// The input, counting what serde_json takes of it.
struct Counting<'p, R> {
    inner: R,
    place: &'p Place,
}

impl<R: BufRead> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let place = self.place;
        for (i, &b) in buf[..n].iter().enumerate() {
            match b {
                b'\n' => {
                    place.line.set(place.line.get() + 1);
                    place.line_start.set(place.byte.get() + i as u64 + 1);
                }
                b' ' | b'\t' | b'\r' | b',' => {}
                _ => place.inside.set(true),
            }
        }
        place.byte.set(place.byte.get() + n as u64);
        Ok(n)
    }
}

/// What is wrong with an event: what was expected, what was found.
struct Failure(String, String);

/// One begin, end or whole slice of a track, as kept until the track is laid out.
struct Item {
    ts: f64,
    /// An `X` slice's duration; 0 for `B` and `E`.
    dur: f64,
    frame: FrameId,
    /// The event's name (in [`Reader::names`]), [`NO_NAME`] for an `E` without one.
    name: u32,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Begin,
    End,
    Whole,
}

const NO_NAME: u32 = u32::MAX;

/// The name of an `E` that no slice has: it closes none.
const UNKNOWN_NAME: u32 = u32::MAX - 1;

/// A (pid, tid) track.
struct Track {
    tid: Id,
    name: Option<String>,
    items: Vec<Item>,
    /// Whether every event is an `X` named `Total …` (Clang's summaries).
    only_totals: bool,
}

/// A `Profile`, `ProfileChunk` or `CpuProfile` event.
struct ProfileEvent {
    id: Option<Id>,
    chunk: bool,
    ts: f64,
    track: (Id, Id),
    data: ProfileData,
    position: Position,
}

/// Events not read, by kind, for the warning.
#[derive(Default)]
struct Skipped {
    instant: u64,
    counter: u64,
    asynchronous: u64,
    flow: u64,
    other: u64,
}

struct Reader<'p> {
    place: &'p Place,
    /// The frames of slices, as read: those of the tracks that are read go into the profile.
    frames: FrameTable,
    tracks: Vec<Track>,
    track_of: FxHashMap<(Id, Id), usize>,
    names: FxHashMap<String, u32>,
    last_ts: f64,
    skipped: Skipped,
    profiles: Vec<ProfileEvent>,
    display_time_unit: Option<String>,
    failure: Option<Failure>,
}

/// Reads a Chrome trace.
pub(crate) fn read(input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
    // Inside until the array of events starts: an input that ends before it is no trace.
    let place = Place { inside: Cell::new(true), ..Place::default() };
    let counting = Counting { inner: BufReader::with_capacity(1 << 16, input), place: &place };
    let mut deserializer = serde_json::Deserializer::from_reader(counting);
    let mut reader = Reader {
        place: &place,
        frames: FrameTable::default(),
        tracks: Vec::new(),
        track_of: FxHashMap::default(),
        names: FxHashMap::default(),
        last_ts: f64::NEG_INFINITY,
        skipped: Skipped::default(),
        profiles: Vec::new(),
        display_time_unit: None,
        failure: None,
    };
    let read = (&mut deserializer).deserialize_any(Top(&mut reader)).and_then(|()| deserializer.end());
    match read {
        Ok(()) => {}
        // Cut short between two events: what came is read.
        Err(e) if e.is_eof() && !place.inside.get() => {
            diag.warn("cut-short", Some(place.position()), || {
                "the trace ends without closing its array of events: it looks cut short".to_string()
            });
        }
        Err(e) => return Err(reader.error(&e)),
    }
    reader.finish(diag)
}

/// The whole trace: an array of events or an object with them.
struct Top<'r, 'p>(&'r mut Reader<'p>);

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome trace: an array of trace events, or an object with traceEvents")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, events: A) -> Result<(), A::Error> {
        Events(self.0).visit_seq(events)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut events = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "traceEvents" => {
                    map.next_value_seed(Events(self.0))?;
                    events = true;
                }
                "displayTimeUnit" => self.0.display_time_unit = map.next_value::<Loose<String>>()?.get(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            self.0.place.inside.set(true);
        }
        match events {
            true => Ok(()),
            false => Err(de::Error::missing_field("traceEvents")),
        }
    }
}

/// The array of events, read one by one.
struct Events<'r, 'p>(&'r mut Reader<'p>);

impl<'de> DeserializeSeed<'de> for Events<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Events<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut events: A) -> Result<(), A::Error> {
        self.0.place.inside.set(false);
        while let Some(event) = events.next_element::<Event>()? {
            if let Err(failure) = self.0.event(event) {
                let message = format!("{}: {}", failure.0, failure.1);
                self.0.failure = Some(failure);
                return Err(de::Error::custom(message));
            }
            self.0.place.inside.set(false);
        }
        Ok(())
    }
}

impl Reader<'_> {
    /// The parse error of `e`: an event found wrong, else serde_json's error, at its place.
    fn error(&mut self, e: &serde_json::Error) -> ParseError {
        let position = Position {
            line: (e.line() > 0).then_some(e.line() as u64),
            column: (e.column() > 0).then_some(e.column() as u64),
            ..self.place.position()
        };
        let kind = match self.failure.take() {
            Some(Failure(expected, found)) => ParseErrorKind::Unexpected { expected, found },
            None if e.is_io() => ParseErrorKind::Io(std::io::Error::other(e.to_string())),
            None => {
                let message = e.to_string();
                let message = message.split(" at line ").next().unwrap_or(&message).to_string();
                ParseErrorKind::Unexpected {
                    expected: "a Chrome trace (an array of trace events, or an object with traceEvents)".into(),
                    found: format!("a JSON error ({message})"),
                }
            }
        };
        ParseError { format: FORMAT.into(), position, kind }
    }

    fn track(&mut self, pid: Option<Id>, tid: Option<Id>) -> &mut Track {
        let key = (pid.unwrap_or_default(), tid.unwrap_or_default());
        let tracks = &mut self.tracks;
        let i = *self.track_of.entry(key).or_insert_with_key(|(_, tid)| {
            tracks.push(Track { tid: tid.clone(), name: None, items: Vec::new(), only_totals: true });
            tracks.len() - 1
        });
        &mut self.tracks[i]
    }

    /// Takes in one event.
    fn event(&mut self, event: Event) -> Result<(), Failure> {
        let Some(ph) = event.ph else {
            return Err(Failure("an event with a phase (ph)".into(), "an event without one".into()));
        };
        let name = event.name.as_deref().unwrap_or_default();
        if matches!(name, "Profile" | "ProfileChunk" | "CpuProfile") && event.args.is_some() {
            return self.profile_event(event);
        }
        match ph {
            'B' | 'E' | 'X' => self.slice(ph, event),
            'M' => {
                if name == "thread_name" {
                    let args = event.args.and_then(|a| serde_json::from_str::<NameArgs>(a.get()).ok());
                    let thread = args.and_then(|a| a.name?.get());
                    self.track(event.pid, event.tid).name = thread;
                }
                Ok(())
            }
            _ => {
                let skipped = &mut self.skipped;
                *match ph {
                    'i' | 'I' | 'R' => &mut skipped.instant,
                    'C' => &mut skipped.counter,
                    'b' | 'e' | 'n' | 'S' | 'T' | 'p' | 'F' => &mut skipped.asynchronous,
                    's' | 't' | 'f' => &mut skipped.flow,
                    _ => &mut skipped.other,
                } += 1;
                Ok(())
            }
        }
    }

    /// A `B`, `E` or `X` event.
    fn slice(&mut self, ph: char, event: Event) -> Result<(), Failure> {
        let Some(ts) = event.ts else {
            return Err(Failure(format!("a slice ({ph}) event with a timestamp (ts)"), "one without".into()));
        };
        let dur = match ph {
            'X' => event.dur.or(event.tdur).unwrap_or(0.0),
            _ => 0.0,
        };
        if dur < 0.0 {
            return Err(Failure("an X event with a duration of 0 or more".into(), format!("dur {dur}")));
        }
        // Far beyond any clock (10^18 µs is 31,000 years), so that no difference of two overflows.
        if ts.abs() >= 1e18 || dur >= 1e18 {
            return Err(Failure("times below 10^18 us".into(), format!("ts {ts}, dur {dur}")));
        }
        self.last_ts = self.last_ts.max(ts + dur);
        let item = match (ph, event.name) {
            // An end names the slice it closes, or none.
            ('E', name) => {
                let name = name.map_or(NO_NAME, |n| self.names.get(&n).copied().unwrap_or(UNKNOWN_NAME));
                Item { ts, dur, frame: FrameId(0), name, kind: Kind::End }
            }
            (_, name) => {
                let name = name.unwrap_or_else(|| "(unnamed)".into());
                let args = event.args.and_then(|a| serde_json::from_str::<SliceArgs>(a.get()).ok()).unwrap_or_default();
                let frame = frame(&mut self.frames, &name, args);
                let next = self.names.len() as u32;
                let is_total = ph == 'X' && name.starts_with("Total ");
                let name = *self.names.entry(name).or_insert(next);
                let kind = if ph == 'X' { Kind::Whole } else { Kind::Begin };
                self.track(event.pid.clone(), event.tid.clone()).only_totals &= is_total;
                Item { ts, dur, frame, name, kind }
            }
        };
        let track = self.track(event.pid, event.tid);
        track.only_totals &= item.kind != Kind::End;
        track.items.push(item);
        Ok(())
    }

    /// A `Profile`, `ProfileChunk` or `CpuProfile` event: kept for the end.
    fn profile_event(&mut self, event: Event) -> Result<(), Failure> {
        let args = event.args.as_deref().map_or("null", RawValue::get);
        let data = serde_json::from_str::<ProfileArgs>(args)
            .map_err(|e| Failure("a CPU profile in args.data".into(), format!("a JSON error ({e})")))?
            .data;
        self.profiles.push(ProfileEvent {
            id: event.id,
            chunk: event.name.as_deref() == Some("ProfileChunk"),
            ts: event.ts.unwrap_or(0.0),
            track: (event.pid.unwrap_or_default(), event.tid.unwrap_or_default()),
            data,
            position: self.place.position(),
        });
        Ok(())
    }

    /// The profile of everything read.
    fn finish(mut self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let skipped = &self.skipped;
        let counts = [
            (skipped.instant, "instant"),
            (skipped.counter, "counter"),
            (skipped.asynchronous, "async"),
            (skipped.flow, "flow"),
            (skipped.other, "other"),
        ];
        let said: Vec<String> = counts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
        if !said.is_empty() {
            diag.warn("chrome-trace-events", None, || {
                format!("events that carry no stacks are not read: {}", said.join(", "))
            });
        }
        let mut profile = match self.profiles.is_empty() {
            true => self.slices(diag),
            false => self.cpu_profile(diag)?,
        };
        if let Some(unit) = self.display_time_unit.filter(|u| u != "ms") {
            profile.meta.attrs.push((DISPLAY_TIME_UNIT.to_string(), unit));
        }
        Ok(profile)
    }

    /// The root frame of a track.
    fn thread_frame(profile: &mut Profile, name: Option<&str>, tid: &Id) -> FrameId {
        let name = name.map_or_else(|| format!("tid {tid}"), str::to_string);
        profile.frames.intern(FrameRef::named(&name, FrameKind::Thread))
    }

    /// The tracks' slices as stacks weighed by time.
    fn slices(&mut self, diag: &mut Diagnostics) -> Profile {
        let mut profile = Profile::new(Vec::new());
        let mut layout = Layout {
            frames: &self.frames,
            frame_of: vec![None; self.frames.len()],
            index: ChildIndex::default(),
            time: Vec::new(),
            unmatched: 0,
            unclosed: 0,
        };
        let mut totals = 0;
        for track in &mut self.tracks {
            if track.only_totals && track.name.is_none() && !track.items.is_empty() {
                totals += 1;
                continue;
            }
            let root_frame = Reader::thread_frame(&mut profile, track.name.as_deref(), &track.tid);
            let root = layout.index.child_or_insert(&mut profile.tree, None, root_frame);
            layout.track(&mut profile, root, &mut track.items, self.last_ts);
        }
        if totals > 0 {
            diag.warn("chrome-trace-totals", None, || {
                format!("Clang's `Total …` summary tracks are not read (their slices overlap the others): {totals}")
            });
        }
        if layout.unmatched > 0 {
            diag.warn("chrome-trace-unmatched", None, || {
                format!("end (E) events that close no open slice of their name are ignored: {}", layout.unmatched)
            });
        }
        if layout.unclosed > 0 {
            diag.warn("chrome-trace-unclosed", None, || {
                format!("slices still open at the end close at the trace's last timestamp: {}", layout.unclosed)
            });
        }
        layout.time.resize(profile.tree.len(), 0.0);
        let time: Vec<f64> = layout.time.iter().copied().map(to_nanosecond).collect();
        let values = match time.iter().all(|t| t.fract() == 0.0 && t.abs() < 2f64.powi(53)) {
            true => Values::Int(time.iter().map(|&t| t as i64).collect()),
            false => Values::Float(time),
        };
        let repr = match values {
            Values::Int(_) => Repr::Int,
            Values::Float(_) => Repr::Float,
        };
        profile.add_metric(Metric::time(Unit::Microseconds, repr), values);
        profile
    }

    /// The CPU profile of the first `Profile` (or `CpuProfile`) event and its chunks, under its
    /// thread's root.
    fn cpu_profile(&mut self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let slices: usize = self.tracks.iter().map(|t| t.items.len()).sum();
        if slices > 0 {
            diag.warn("chrome-trace-profile", None, || {
                format!("the trace carries a CPU profile, which is read: its {slices} slice events are not")
            });
        }
        // Chunks join in time order.
        self.profiles.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        let first = self.profiles.iter().position(|p| !p.chunk).unwrap_or(0);
        let id = self.profiles[first].id.clone();
        let (track, position) = (self.profiles[first].track.clone(), self.profiles[first].position);
        let others = self.profiles.iter().filter(|p| !p.chunk && p.id != id).count();
        if others > 0 {
            diag.warn("chrome-trace-profiles", None, || {
                format!("the trace carries {} CPU profiles: the first is read", others + 1)
            });
        }
        let (mut nodes, mut samples, mut deltas) = (Vec::new(), Vec::new(), Vec::new());
        let (mut start, mut end) = (None, None);
        for event in self.profiles.drain(..).filter(|p| p.id == id) {
            let data = event.data;
            let cpu = data.cpu_profile.unwrap_or_default();
            start = start.or(data.start_time).or(cpu.start_time);
            end = data.end_time.or(cpu.end_time).or(end);
            nodes.extend(cpu.nodes);
            samples.extend(cpu.samples);
            deltas.extend(data.time_deltas.or(cpu.time_deltas).unwrap_or_default());
        }
        let start_time = start.unwrap_or(0.0);
        // Without an end, the last sample has no time (as speedscope gives it).
        let end_time = end.unwrap_or_else(|| start_time + deltas.iter().map(|d| d.max(0.0)).sum::<f64>());
        let document =
            cpuprofile::Document { nodes, start_time, end_time, samples: Some(samples), time_deltas: Some(deltas) };
        let error = |_: &str, expected: String, found: String| ParseError {
            format: FORMAT.into(),
            position,
            kind: ParseErrorKind::Unexpected { expected, found },
        };
        let mut cpu = cpuprofile::profile(&document, &error)?;
        let name = self.track_of.get(&track).and_then(|&t| self.tracks[t].name.clone());
        let thread = Reader::thread_frame(&mut cpu, name.as_deref(), &track.1);
        // A trace holds time and frames' modules only: the samples it was measured by and where
        // functions are defined are not kept.
        let keep: Vec<bool> = cpu.metrics().iter().map(|m| m.kind == MetricKind::Time).collect();
        cpu.retain_metrics(&keep);
        cpu.meta.weighed_by = None;
        cpu.frame_attrs.clear();
        Ok(crate::model::ops::adopt_roots(&cpu, thread, |_| true))
    }
}

/// The frame of a slice named `name` with `args` (see the module documentation).
fn frame(frames: &mut FrameTable, name: &str, args: SliceArgs) -> FrameId {
    let detail = args.detail.and_then(Loose::get).filter(|d| !d.is_empty());
    let name = match &detail {
        Some(detail) => std::borrow::Cow::Owned(format!("{name} ({detail})")),
        None => std::borrow::Cow::Borrowed(name),
    };
    let module = [args.filename, args.file, args.url].into_iter().flatten().find_map(Loose::get);
    let line = args.line.and_then(Loose::get);
    let kind = if line.is_some() { FrameKind::Line } else { FrameKind::Function };
    frames.intern(FrameRef { module: module.as_deref(), line, kind, ..FrameRef::function(&name) })
}

/// The stacks of tracks, as their slices nest.
struct Layout<'f> {
    /// The frames of slices as read, and each one's frame in the profile, once it has one.
    frames: &'f FrameTable,
    frame_of: Vec<Option<FrameId>>,
    index: ChildIndex,
    /// The time (µs) of each node.
    time: Vec<f64>,
    unmatched: u64,
    unclosed: u64,
}

/// An open slice.
struct Open {
    node: NodeId,
    /// Where an `X` slice ends; infinite for a `B` slice.
    end: f64,
    name: u32,
}

impl Layout<'_> {
    /// Lays out one track's slices under its `root`; slices left open close at `last`.
    fn track(&mut self, profile: &mut Profile, root: NodeId, items: &mut [Item], last: f64) {
        // In time order; of two slices that start together, the longer is the outer.
        items.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
        let mut open: Vec<Open> = Vec::new();
        let mut now = items.first().map_or(0.0, |i| i.ts);
        for item in items.iter() {
            self.close_whole(&mut open, &mut now, item.ts);
            self.advance(&open, &mut now, item.ts);
            match item.kind {
                Kind::Begin | Kind::Whole => {
                    let parent = open.last().map_or(root, |o| o.node);
                    let frame = *self.frame_of[item.frame.index()]
                        .get_or_insert_with(|| profile.frames.intern(self.frames.get(item.frame).as_ref()));
                    let node = self.index.child_or_insert(&mut profile.tree, Some(parent), frame);
                    let outer = open.last().map_or(f64::INFINITY, |o| o.end);
                    let end = if item.kind == Kind::Whole { (item.ts + item.dur).min(outer) } else { f64::INFINITY };
                    open.push(Open { node, end, name: item.name });
                }
                Kind::End => match open.last() {
                    Some(o) if o.end == f64::INFINITY && (item.name == NO_NAME || item.name == o.name) => {
                        open.pop();
                    }
                    _ => self.unmatched += 1,
                },
            }
        }
        self.close_whole(&mut open, &mut now, f64::INFINITY);
        self.unclosed += open.len() as u64;
        self.advance(&open, &mut now, last);
    }

    /// Closes the `X` slices on top that end by `at` (a `B` slice ends at its `E` only).
    fn close_whole(&mut self, open: &mut Vec<Open>, now: &mut f64, at: f64) {
        while let Some(end) = open.last().map(|o| o.end).filter(|&end| end.is_finite() && end <= at) {
            self.advance(open, now, end);
            open.pop();
        }
    }

    /// Gives the innermost open slice the time from `now` to `to`.
    fn advance(&mut self, open: &[Open], now: &mut f64, to: f64) {
        if to > *now {
            if let Some(top) = open.last() {
                let i = top.node.index();
                if self.time.len() <= i {
                    self.time.resize(i + 1, 0.0);
                }
                self.time[i] += to - *now;
            }
            *now = to;
        }
    }
}

/// Fits a profile projected onto [`CARRIES`] to what a trace holds: every root a thread (roots
/// that are not go under one thread, `main`; frames below them functions), a thread's own time in a slice named after it (a
/// track holds slices only), time to the nanosecond (rounded); the last two said on stderr.
pub(crate) fn fit(profile: Profile, diag: &mut Diagnostics) -> Profile {
    let is_thread = |f: &crate::model::Frame| f.kind == FrameKind::Thread;
    let loose = profile.tree.roots().any(|r| !is_thread(profile.frames.get(profile.tree.frame(r))));
    let mut profile = profile;
    if loose {
        let name =
            super::unique_name("main".into(), |name| profile.frames.contains(FrameRef::named(name, FrameKind::Thread)));
        let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        profile = crate::model::ops::adopt_roots(&profile, thread, |f| !is_thread(f));
    }
    // A thread is a track: below the roots every frame is a function.
    super::sampler::make_nested_frames_functions(&mut profile);
    let Some(time) = profile.metrics().iter().position(|m| m.kind == MetricKind::Time) else { return profile };
    if let Values::Float(values) = profile.tree.self_values(time) {
        let rounded: Vec<f64> = values.iter().copied().map(to_nanosecond).collect();
        if rounded != *values {
            diag.warn("chrome-trace-rounded", None, || {
                format!("{FORMAT} is written to the nanosecond: time below a whole nanosecond is rounded")
            });
            let metric = profile.metrics()[time].clone();
            profile.replace_metric(time, metric, Values::Float(rounded));
        }
    }
    let roots: Vec<NodeId> =
        profile.tree.roots().filter(|&r| profile.tree.self_value(time, r).as_f64() != 0.0).collect();
    if !roots.is_empty() {
        let zero = match profile.metrics()[time].repr {
            Repr::Int => crate::model::Value::Int(0),
            Repr::Float => crate::model::Value::Float(0.0),
        };
        for &root in &roots {
            let name = profile.frames.get(profile.tree.frame(root)).name.clone();
            let own = profile.frames.intern(FrameRef::function(&name));
            let value = profile.tree.self_value(time, root);
            let node = profile.tree.push(Some(root), own);
            profile.tree.set_self(time, node, value);
            profile.tree.set_self(time, root, zero);
        }
        if profile.tree.has_duplicate_siblings(profile.frames.len()) {
            profile = crate::model::ops::merge_siblings(&profile);
        }
        diag.warn("chrome-trace-thread-time", None, || {
            format!(
                "{FORMAT} holds slices of threads: the time of {} threads of their own is a slice named after the thread",
                roots.len()
            )
        });
    }
    profile
}

/// Time in µs to the nanosecond: what a trace's slices hold, laid out as sums of fractions, read
/// back as it was written (the error of adding floats is far below a nanosecond).
fn to_nanosecond(micros: f64) -> f64 {
    (micros * 1e3).round() / 1e3
}

/// Writes `profile` (projected onto [`CARRIES`] and fitted by [`fit`]: time in µs, roots that are
/// threads without time of their own) as a Chrome trace.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write) -> Result<(), Error> {
    let tree = &profile.tree;
    let inclusive: Vec<f64> = match profile.metrics().iter().position(|m| m.kind == MetricKind::Time) {
        Some(m) => {
            let values = tree.derived_inclusive(m);
            (0..values.len()).map(|i| values.get(i).as_f64()).collect()
        }
        None => vec![0.0; tree.len()],
    };
    if let Some(v) = inclusive.iter().find(|v| !v.is_finite()) {
        return Err(Error::Unrepresentable {
            format: FORMAT.into(),
            what: format!("the time {v}: JSON numbers are finite"),
        });
    }
    let children = tree.children();
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"traceEvents\":[\n{\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":0,\"args\":{\"name\":\"proftool\"}}");
    for (i, &root) in children.roots().iter().enumerate() {
        let tid = itoa::Buffer::new().format(i + 1).to_string();
        json.push_str(",\n{\"name\":\"thread_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":");
        json.push_str(&tid);
        json.push_str(",\"args\":{\"name\":");
        push_string(&mut json, &super::written_name(profile.frames.get(tree.frame(root))));
        json.push_str("}}");
        // Each node with where its slice starts, callees one after another from their caller's start.
        let mut stack: Vec<(NodeId, f64)> = Vec::new();
        push_callees(&mut stack, children.of_node(root), 0.0, &inclusive);
        while let Some((node, start)) = stack.pop() {
            let dur = inclusive[node.index()];
            if dur <= 0.0 {
                continue;
            }
            let frame = profile.frames.get(tree.frame(node));
            json.push_str(",\n{\"name\":");
            push_string(&mut json, &super::written_name(frame));
            json.push_str(",\"ph\":\"X\",\"ts\":");
            push_number(&mut json, start);
            json.push_str(",\"dur\":");
            push_number(&mut json, dur);
            json.push_str(",\"pid\":1,\"tid\":");
            json.push_str(&tid);
            if frame.module.is_some() || frame.line.is_some() {
                json.push_str(",\"args\":{");
                if let Some(module) = &frame.module {
                    json.push_str("\"filename\":");
                    push_string(&mut json, module);
                }
                if let Some(line) = frame.line {
                    json.push_str(if frame.module.is_some() { ",\"line\":" } else { "\"line\":" });
                    json.push_str(itoa::Buffer::new().format(line));
                }
                json.push('}');
            }
            json.push('}');
            push_callees(&mut stack, children.of_node(node), start, &inclusive);
            if json.len() >= 1 << 16 {
                out.write_all(json.as_bytes())?;
                json.clear();
            }
        }
    }
    json.push_str("\n],\"displayTimeUnit\":");
    push_string(&mut json, profile.meta.attr(DISPLAY_TIME_UNIT).unwrap_or("ms"));
    json.push_str("}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Pushes `callees` with their starts, one after another from `start`, the first on top.
fn push_callees(stack: &mut Vec<(NodeId, f64)>, callees: &[NodeId], start: f64, inclusive: &[f64]) {
    let from = stack.len();
    let mut at = start;
    for &callee in callees {
        stack.push((callee, at));
        at += inclusive[callee.index()];
    }
    stack[from..].reverse();
}

/// A time: whole numbers as integers, else the shortest decimal that reads back as it.
fn push_number(json: &mut String, value: f64) {
    let _ = std::fmt::Write::write_fmt(json, format_args!("{value}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stack 100,000 slices deep, as B events then E events out of order in the file: read
    /// without recursion, each slice 2 µs of its own (1 before its callee, 1 after); written as nested X
    /// slices, read again and written to the same bytes.
    #[test]
    fn deep_stacks_read_and_write_without_recursion() {
        let depth = 100_000;
        let mut json = String::from("[");
        for i in 0..depth {
            json.push_str(&format!("{{\"name\":\"f{}\",\"ph\":\"B\",\"ts\":{i},\"pid\":1,\"tid\":1}},", i % 7));
        }
        // The ends, the innermost first, in reverse file order: time order puts them right.
        let ends: Vec<String> =
            (0..depth).map(|i| format!("{{\"ph\":\"E\",\"ts\":{},\"pid\":1,\"tid\":1}}", 2 * depth - i)).collect();
        json.push_str(&ends.into_iter().rev().collect::<Vec<_>>().join(","));
        json.push(']');
        let profile = read(&mut json.as_bytes(), &mut Diagnostics::default()).unwrap();
        assert_eq!(profile.max_depth(), Some(depth as u32));
        assert_eq!(profile.total(0).as_f64(), 2.0 * depth as f64);
        let mut out = Vec::new();
        write(&profile, &mut out).unwrap();
        let again = read(&mut &out[..], &mut Diagnostics::default()).unwrap();
        assert_eq!((again.max_depth(), again.total(0)), (profile.max_depth(), profile.total(0)));
        let mut twice = Vec::new();
        write(&again, &mut twice).unwrap();
        assert!(twice == out);
    }

    /// The writer's flame chart: callees one after another from their caller's start, its own time
    /// after them, fractions of µs as they are; a source line with its file and line in args.
    #[test]
    fn slices_are_laid_out_as_a_flame_chart() {
        let json =
            br#"[{"name":"a","ph":"X","ts":100,"dur":10.25,"tid":3},{"name":"b","ph":"X","ts":101,"dur":2.5,"tid":3,
            "args":{"filename":"f.py","line":9}},{"name":"c","ph":"X","ts":104,"dur":3,"tid":3}]"#;
        let profile = read(&mut &json[..], &mut Diagnostics::default()).unwrap();
        let mut out = Vec::new();
        write(&profile, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let slices: Vec<&str> = text.lines().filter(|l| l.contains("\"X\"")).collect();
        assert_eq!(
            slices,
            [
                r#"{"name":"a","ph":"X","ts":0,"dur":10.25,"pid":1,"tid":1},"#,
                r#"{"name":"b","ph":"X","ts":0,"dur":2.5,"pid":1,"tid":1,"args":{"filename":"f.py","line":9}},"#,
                r#"{"name":"c","ph":"X","ts":2.5,"dur":3,"pid":1,"tid":1}"#,
            ]
        );
        assert!(text.contains(
            r#""name":"thread_name","cat":"__metadata","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"tid 3"}}"#
        ));
        assert!(text.ends_with("],\"displayTimeUnit\":\"ms\"}\n"), "{text}");
    }
}
