//! Reading a Chrome trace: the events streamed, slices laid out per track, CPU profiles joined.

use super::{to_nanosecond, DISPLAY_TIME_UNIT, FORMAT};
use crate::diag::Diagnostics;
use crate::formats::ReadOptions;
use crate::formats::json;
use crate::formats::kit::time::whole_nanoseconds;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::kit::v8_profile::{readable, BELOW_MAX_TIME, MAX_TIME_US};
use crate::model::{
    ChildIndex, FrameId, FrameKind, FrameRef, FrameTable, Metric, NodeId, Profile, Repr, Slice, Timeline, Unit, Values,
};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, BufReader, Read};

mod samples;

use samples::{ProfileArgs, ProfileEvent, SampleJson, StackFrameJson};

/// A pid, tid or id: a number, or a string as some writers give them (Hermes: `"tid": "7695"`);
/// a string of a whole number is that number, as speedscope takes it (`Number(tid)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Id {
    Int(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Id, E> {
                Ok(Id::Int(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Id, E> {
                Ok(i64::try_from(n).map_or_else(|_| Id::Text(n.to_string()), Id::Int))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Id, E> {
                Ok(Id::Text(n.to_string()))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Id, E> {
                Ok(text.parse().map_or_else(|_| Id::Text(text.to_string()), Id::Int))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// A time in µs: a number, or a string of one as Hermes writes them (`"ts": "11552125241"`).
fn time<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    struct TimeVisitor;
    impl Visitor<'_> for TimeVisitor {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a number, or a string of one")
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<Option<f64>, E> {
            Ok(Some(n))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<f64>, E> {
            text.trim().parse().map(Some).map_err(|_| E::invalid_value(de::Unexpected::Str(text), &self))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(TimeVisitor)
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
    name: Option<String>,
    ph: Option<char>,
    #[serde(default, deserialize_with = "time")]
    ts: Option<f64>,
    #[serde(default, deserialize_with = "time")]
    dur: Option<f64>,
    #[serde(default, deserialize_with = "time")]
    tdur: Option<f64>,
    pid: Option<Id>,
    tid: Option<Id>,
    id: Option<Id>,
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

/// How far the JSON has been read, and whether anything but separators came since the last whole
/// event (to tell a trace cut short between events from one cut inside an event).
#[derive(Default)]
struct Place {
    byte: Cell<u64>,
    line: Cell<u64>,
    line_start: Cell<u64>,
    /// The bytes of the line read so far that continue a character (UTF-8's 10xxxxxx), so that a
    /// column counts characters, and whether the last byte read is one.
    continuations: Cell<u64>,
    last_continues: Cell<bool>,
    inside: Cell<bool>,
}

impl Place {
    fn position(&self) -> Position {
        self.at(self.byte.get())
    }

    /// Where serde_json's error `e` is: on the line read last, the byte of its column (which
    /// serde_json counts in bytes, and which it has read: one before what was taken so far); what
    /// was taken so far for JSON cut short or an input that could not be read.
    fn of_error(&self, e: &serde_json::Error) -> Position {
        let stopped_at_a_byte = e.is_syntax() || e.is_data();
        let on_this_line = stopped_at_a_byte && e.line() as u64 == self.line.get() + 1 && e.column() > 0;
        match on_this_line {
            true => self.at((self.line_start.get() + e.column() as u64 - 1).min(self.byte.get())),
            false => self.position(),
        }
    }

    /// The position of `byte`, on the line read last at most one byte before its end.
    fn at(&self, byte: u64) -> Position {
        let read = self.byte.get();
        let continuations = self.continuations.get() - u64::from(byte < read && self.last_continues.get());
        let column = (byte - self.line_start.get()).saturating_sub(continuations) + 1;
        Position { byte, line: Some(self.line.get() + 1), column: Some(column) }
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
                    place.continuations.set(0);
                }
                b' ' | b'\t' | b'\r' | b',' => {}
                0x80..=0xbf => {
                    place.continuations.set(place.continuations.get() + 1);
                    place.inside.set(true);
                }
                _ => place.inside.set(true),
            }
        }
        if let Some(&last) = buf[..n].last() {
            place.last_continues.set(last & 0xc0 == 0x80);
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
    /// The event's name and `args` (in [`Reader::keys`]): what speedscope tells events apart by.
    key: u32,
    kind: Kind,
    /// Whether the event has no `args` or empty ones (an end that says nothing but its name).
    bare: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Begin,
    End,
    Whole,
}

const NO_NAME: u32 = u32::MAX;

/// A (pid, tid) track.
struct Track {
    name: Option<String>,
    items: Vec<Item>,
    /// Whether every event is an `X` named `Total …` (Clang's summaries).
    only_totals: bool,
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
    keys: FxHashMap<String, u32>,
    skipped: Skipped,
    profiles: Vec<ProfileEvent>,
    /// Profile events without `args.data`, skipped.
    profiles_without_data: u64,
    /// The sampling form's samples and stack frames.
    samples: Vec<SampleJson>,
    stack_frames: Option<FxHashMap<Id, StackFrameJson>>,
    display_time_unit: Option<String>,
    failure: Option<Failure>,
}

/// Reads a Chrome trace.
pub(crate) fn read(input: &mut (dyn Read + Send), _: &ReadOptions, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
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
        keys: FxHashMap::default(),
        skipped: Skipped::default(),
        profiles: Vec::new(),
        profiles_without_data: 0,
        samples: Vec::new(),
        stack_frames: None,
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
        self.0.events().visit_seq(events)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut events = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "traceEvents" => {
                    map.next_value_seed(self.0.events())?;
                    events = true;
                }
                "displayTimeUnit" => self.0.display_time_unit = map.next_value::<Loose<String>>()?.get(),
                "samples" => self.0.samples = map.next_value()?,
                "stackFrames" => self.0.stack_frames = Some(map.next_value()?),
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

impl<'p> Reader<'p> {
    /// The array of events, read one by one into the reader: an event found wrong is kept as the
    /// failure its error reports.
    fn events<'r>(&'r mut self) -> json::Each<Event, impl FnMut(Event) -> Result<(), String> + use<'r, 'p>> {
        self.place.inside.set(false);
        json::Each::new("an array of trace events", |event| {
            if let Err(failure) = self.event(event) {
                let message = format!("{}: {}", failure.0, failure.1);
                self.failure = Some(failure);
                return Err(message);
            }
            self.place.inside.set(false);
            Ok(())
        })
    }

    /// The parse error of `e`: an event found wrong, else serde_json's error, at its place.
    fn error(&mut self, e: &serde_json::Error) -> ParseError {
        let position = self.place.of_error(e);
        let kind = match self.failure.take() {
            Some(Failure(expected, found)) => ParseErrorKind::Unexpected { expected, found },
            // Without serde_json's " at line L column C": the position says that already.
            None if e.is_io() => ParseErrorKind::Io(std::io::Error::other(crate::formats::json::message(e))),
            None => ParseErrorKind::Unexpected {
                expected: "a Chrome trace (an array of trace events, or an object with traceEvents)".into(),
                found: crate::formats::json::found(e),
            },
        };
        ParseError { format: FORMAT, position, kind }
    }

    fn track(&mut self, pid: Option<Id>, tid: Option<Id>) -> &mut Track {
        let key = (pid.unwrap_or_default(), tid.unwrap_or_default());
        let tracks = &mut self.tracks;
        let i = *self.track_of.entry(key).or_insert_with(|| {
            tracks.push(Track { name: None, items: Vec::new(), only_totals: true });
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
        if ts.abs() >= MAX_TIME_US || dur >= MAX_TIME_US {
            return Err(Failure(BELOW_MAX_TIME.into(), format!("ts {}, dur {}", readable(ts), readable(dur))));
        }
        let args = event.args.as_deref().map(RawValue::get);
        let bare =
            args.is_none_or(|a| a.trim_matches(|c: char| c.is_ascii_whitespace() || c == '{' || c == '}').is_empty());
        let key = {
            let key = format!("{}\0{}", event.name.as_deref().unwrap_or("(unnamed)"), args.unwrap_or_default());
            let next = self.keys.len() as u32;
            *self.keys.entry(key).or_insert(next)
        };
        let item = match (ph, event.name) {
            // An end names the slice it closes, or none; its name is numbered as a begin's is, for
            // an end may come before its begin in the file (the begins and ends are sorted later).
            ('E', name) => {
                let name = name.map_or(NO_NAME, |n| self.name_number(n));
                Item { ts, dur, frame: FrameId(0), name, key, kind: Kind::End, bare }
            }
            (_, name) => {
                let name = name.unwrap_or_else(|| "(unnamed)".into());
                let args = args.and_then(|a| serde_json::from_str::<SliceArgs>(a).ok()).unwrap_or_default();
                let frame = frame(&mut self.frames, &name, args);
                let is_total = ph == 'X' && name.starts_with("Total ");
                let name = self.name_number(name);
                let kind = if ph == 'X' { Kind::Whole } else { Kind::Begin };
                self.track(event.pid.clone(), event.tid.clone()).only_totals &= is_total;
                Item { ts, dur, frame, name, key, kind, bare }
            }
        };
        let track = self.track(event.pid, event.tid);
        track.only_totals &= item.kind != Kind::End;
        track.items.push(item);
        Ok(())
    }

    /// The number of a slice's name, in [`Reader::names`].
    fn name_number(&mut self, name: String) -> u32 {
        let next = self.names.len() as u32;
        *self.names.entry(name).or_insert(next)
    }

    /// A `Profile`, `ProfileChunk` or `CpuProfile` event: kept for the end; one without `args.data`
    /// (Chrome 141 writes such chunks) is skipped, as speedscope skips it.
    fn profile_event(&mut self, event: Event) -> Result<(), Failure> {
        let args = event.args.as_deref().map_or("null", RawValue::get);
        let data = serde_json::from_str::<ProfileArgs>(args)
            .map_err(|e| Failure("a CPU profile in args.data".into(), format!("a JSON error ({e})")))?
            .data;
        let Some(data) = data else {
            self.profiles_without_data += 1;
            return Ok(());
        };
        let (pid, tid) = (event.pid.unwrap_or_default(), event.tid.unwrap_or_default());
        self.profiles.push(ProfileEvent {
            profile: (pid.clone(), event.id.ok_or_else(|| tid.clone())),
            chunk: event.name.as_deref() == Some("ProfileChunk"),
            ts: event.ts.unwrap_or(0.0),
            track: (pid, tid),
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
        if self.profiles_without_data > 0 {
            diag.warn("chrome-trace-no-data", None, || {
                format!(
                    "profile events without args.data carry no samples and are skipped, as speedscope skips them: {}",
                    self.profiles_without_data
                )
            });
        }
        let profile = if self.stack_frames.is_some() && !self.samples.is_empty() {
            self.sampled(diag)?
        } else if self.profiles.is_empty() {
            self.slices(diag)
        } else {
            self.cpu_profiles(diag)?
        };
        let mut profile = without_timeless_stacks(&profile);
        if let Some(unit) = self.display_time_unit.filter(|u| u != "ms") {
            profile.meta.attrs.push((DISPLAY_TIME_UNIT.to_string(), unit));
        }
        Ok(profile)
    }

    /// The root names of the tracks of `keys`, each its thread's name or `tid N`; a name that
    /// tracks share (a thread name each process has, a tid two processes reuse: a process and its
    /// fork) followed by the process, ` (pid N)`, or where that does not tell them apart by the
    /// process and the tid, ` (pid N, tid N)`: two tracks are never one root, whose slices would
    /// overlap.
    fn root_names(&self, keys: &[&(Id, Id)]) -> Vec<String> {
        let thread_name = |key: &(Id, Id)| self.track_of.get(key).and_then(|&t| self.tracks[t].name.as_deref());
        let plain: Vec<String> =
            keys.iter().map(|&key| thread_name(key).map_or_else(|| format!("tid {}", key.1), str::to_string)).collect();
        let mut sharing: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        plain.iter().enumerate().for_each(|(i, name)| sharing.entry(name).or_default().push(i));
        let mut names = plain.clone();
        for tracks in sharing.values().filter(|tracks| tracks.len() > 1) {
            let pids: FxHashSet<&Id> = tracks.iter().map(|&i| &keys[i].0).collect();
            for &i in tracks {
                let (pid, tid) = keys[i];
                names[i] = match pids.len() == tracks.len() {
                    true => format!("{} (pid {pid})", plain[i]),
                    false => format!("{} (pid {pid}, tid {tid})", plain[i]),
                };
            }
        }
        names
    }

    /// The tracks' slices as stacks weighed by time.
    fn slices(&mut self, diag: &mut Diagnostics) -> Profile {
        let mut profile = Profile::new(Vec::new());
        let mut layout = Layout {
            frames: &self.frames,
            frame_of: vec![None; self.frames.len()],
            index: ChildIndex::default(),
            time: Vec::new(),
            slices: Some(Vec::new()),
            unmatched: 0,
            other_args: 0,
            overlapping: 0,
            unclosed: 0,
        };
        let is_totals = |track: &Track| track.only_totals && track.name.is_none() && !track.items.is_empty();
        let totals = self.tracks.iter().filter(|&track| is_totals(track)).count();
        let mut keys: Vec<(&(Id, Id), usize)> = self.track_of.iter().map(|(key, &t)| (key, t)).collect();
        keys.retain(|&(_, t)| !is_totals(&self.tracks[t]));
        keys.sort_unstable_by_key(|&(_, t)| t);
        let names = self.root_names(&keys.iter().map(|&(key, _)| key).collect::<Vec<_>>());
        for ((_, t), name) in keys.iter().zip(&names) {
            let root_frame = profile.frames.intern(FrameRef::named(name, FrameKind::Thread));
            let root = layout.index.child_or_insert(&mut profile.tree, None, root_frame);
            layout.track(&mut profile, root, &self.tracks[*t].items);
        }
        if totals > 0 {
            diag.warn("chrome-trace-totals", None, || {
                format!("Clang's `Total …` summary tracks are not read (their slices overlap the others): {totals}")
            });
        }
        if layout.unmatched > 0 {
            diag.warn("chrome-trace-unmatched", None, || {
                format!(
                    "end events (E, or an X's end) that do not close the innermost open slice of their name are \
                     ignored, as speedscope ignores them: {}",
                    layout.unmatched
                )
            });
        }
        if layout.other_args > 0 {
            diag.warn("chrome-trace-other-args", None, || {
                format!(
                    "end (E) events whose args (not empty) differ from their slice's close it, as speedscope closes it: {}",
                    layout.other_args
                )
            });
        }
        if layout.overlapping > 0 {
            diag.warn("chrome-trace-overlapping", None, || {
                format!(
                    "X slices' ends that find another slice of their name innermost (the two overlap) close it, as \
                     speedscope closes it: {}",
                    layout.overlapping
                )
            });
        }
        if layout.unclosed > 0 {
            diag.warn("chrome-trace-unclosed", None, || {
                format!(
                    "slices still open at their track's last event close there, as speedscope closes them: {}",
                    layout.unclosed
                )
            });
        }
        add_time(&mut profile, layout.time);
        profile.timeline = layout.slices.and_then(|slices| Timeline::of_slices(slices, None));
        profile
    }
}

/// `profile` (of time, and of samples where it is CPU profiles; no frame facts) without the stacks
/// of nothing but its thread roots, and without the frames only they had: a trace holds slices of
/// time, and writes none for them (slices of no length are nothing to show). The last sample of a
/// CPU profile without an end has no time but is a sample, and stays.
pub(super) fn without_timeless_stacks(profile: &Profile) -> Profile {
    let tree = &profile.tree;
    let inclusives: Vec<_> = (0..profile.metrics().len()).map(|m| tree.derived_inclusive(m)).collect();
    let nothing = |node: NodeId| inclusives.iter().all(|inclusive| inclusive.get(node.index()).as_f64() == 0.0);
    let mut kept = Profile::new(profile.metrics().to_vec());
    kept.meta = profile.meta.clone();
    let mut copy_of: Vec<Option<NodeId>> = vec![None; tree.len()];
    for node in tree.nodes() {
        let parent = match tree.parent(node) {
            Some(_) if nothing(node) => continue,
            Some(parent) => match copy_of[parent.index()] {
                Some(copy) => Some(copy),
                None => continue,
            },
            None => None,
        };
        let frame = kept.frames.intern(profile.frames.get(tree.frame(node)).as_ref());
        let copy = kept.tree.push(parent, frame);
        crate::model::ops::copy_values(tree, node, &mut kept.tree, copy);
        copy_of[node.index()] = Some(copy);
    }
    kept.timeline = profile.timeline.as_ref().and_then(|t| t.remapped(|n| copy_of[n.index()]));
    kept
}

/// Adds the metric time of `time` (µs per node, to the nanosecond): whole µs as integers.
fn add_time(profile: &mut Profile, mut time: Vec<f64>) {
    time.resize(profile.tree.len(), 0.0);
    let time: Vec<f64> = time.into_iter().map(to_nanosecond).collect();
    let values = match time.iter().all(|t| t.fract() == 0.0 && t.abs() < 2f64.powi(53)) {
        true => Values::Int(time.iter().map(|&t| t as i64).collect()),
        false => Values::Float(time),
    };
    let repr = match values {
        Values::Int(_) => Repr::Int,
        Values::Float(_) => Repr::Float,
    };
    // A slice's duration is measured; a CPU profile's time is the weight of its samples.
    let sampling = match profile.metric_index("samples") {
        Some(_) => crate::model::Sampling::weights_of("samples"),
        None => crate::model::Sampling::Measured,
    };
    profile.add_metric(Metric::time(Unit::Microseconds, repr).sampled(sampling), values);
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
    /// The slices laid out, in the order they begin; none once a time does not fit the timeline's
    /// nanoseconds.
    slices: Option<Vec<Slice>>,
    unmatched: u64,
    other_args: u64,
    /// Ends of `X` slices that closed another slice of their name than their own.
    overlapping: u64,
    unclosed: u64,
}

/// An open slice.
struct Open {
    node: NodeId,
    name: u32,
    key: u32,
    /// Its place among [`Layout::slices`].
    slice: usize,
}

/// A begin or end in one of the two queues of [`Layout::track`]: when, and which item.
#[derive(Clone, Copy)]
struct Edge {
    ts: f64,
    item: usize,
}

impl Item {
    /// Whether it is an `X` slice of no length: one that ends where it begins (`dur` 0, or too
    /// short to move its `ts`).
    fn of_no_length(&self) -> bool {
        self.kind == Kind::Whole && self.ts + self.dur == self.ts
    }
}

/// The begins and the ends of a track's `items`, each in time order, file order where equal:
/// speedscope's importer's queues (the `B`s, then the `X` slices in start order, the longer first
/// where two start together, for it encloses the shorter; each `X` a begin at its start and an end
/// at `ts + dur`), but an `X` of no length has no end in them: queued with the others', its end
/// came before a sibling's begin at its time, so before its own, and closed nothing.
fn queues(items: &[Item]) -> (Vec<Edge>, Vec<Edge>) {
    let mut wholes: Vec<usize> = (0..items.len()).filter(|&i| items[i].kind == Kind::Whole).collect();
    wholes.sort_by(|&a, &b| items[a].ts.total_cmp(&items[b].ts).then(items[b].dur.total_cmp(&items[a].dur)));
    let of_kind = |kind: Kind| (0..items.len()).filter(move |&i| items[i].kind == kind);
    let mut begins: Vec<Edge> = of_kind(Kind::Begin).map(|item| Edge { ts: items[item].ts, item }).collect();
    begins.extend(wholes.iter().map(|&item| Edge { ts: items[item].ts, item }));
    let mut ends: Vec<Edge> = of_kind(Kind::End).map(|item| Edge { ts: items[item].ts, item }).collect();
    let with_length = wholes.iter().filter(|&&item| !items[item].of_no_length());
    ends.extend(with_length.map(|&item| Edge { ts: items[item].ts + items[item].dur, item }));
    begins.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    ends.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    (begins, ends)
}

/// Puts first among `ends` (the ends not yet taken) the innermost open slice's end, `top`'s, of
/// those at the time of the first, as speedscope looks for it past the first: one of its name and
/// args, else one of its name; else they stay as they are. An `X`'s end that is the innermost's
/// stays first: it is its own slice's, and one of its name from past it would close that slice in
/// its stead (said as a slice the two overlap).
fn innermost_first(ends: &mut [Edge], top: Option<&Open>, items: &[Item]) {
    let (Some(top), Some(first)) = (top, ends.first()) else { return };
    if items[first.item].kind == Kind::Whole && items[first.item].key == top.key {
        return;
    }
    let together = ends.iter().take_while(|end| end.ts == first.ts).count();
    let find = |matches: &dyn Fn(&Item) -> bool| (1..together).find(|&j| matches(&items[ends[j].item]));
    if let Some(j) = find(&|end| end.key == top.key).or_else(|| find(&|end| end.name == top.name)) {
        ends.swap(0, j);
    }
}

impl Layout<'_> {
    /// Lays out one track's slices under its `root` as speedscope's importer does
    /// (`trace-event.ts`), but for what `X` slices state of their own ends: the begins and the ends
    /// queued as [`queues`] gives them, taken in time order. Of a begin and an end at one time the
    /// end comes first (it closes a slice begun before), unless they are a `B` and an `E` of one
    /// name and args, which speedscope takes for a slice of no length (the begin first); an `X`
    /// of no length begins and ends at once, holding nothing. An end at the time of others closes the innermost
    /// open slice if one of them is its (by name and args, else by name); an end that names
    /// another slice is ignored (its time too), and slices still open at the track's last begin or
    /// end that was not ignored close there.
    fn track(&mut self, profile: &mut Profile, root: NodeId, items: &[Item]) {
        let (begins, mut ends) = queues(items);
        let mut open: Vec<Open> = Vec::new();
        let mut now = begins.first().map_or(0.0, |e| e.ts);
        let (mut b, mut e) = (0, 0);
        while b < begins.len() || e < ends.len() {
            let take_begin = match (begins.get(b), ends.get(e)) {
                (Some(begin), Some(end)) if begin.ts == end.ts => {
                    let (begin, end) = (&items[begin.item], &items[end.item]);
                    begin.kind == Kind::Begin && end.kind == Kind::End && begin.key == end.key
                }
                (Some(begin), Some(end)) => begin.ts < end.ts,
                (begin, _) => begin.is_some(),
            };
            if take_begin {
                self.begin(profile, root, &mut open, &mut now, begins[b].ts, &items[begins[b].item]);
                b += 1;
            } else {
                innermost_first(&mut ends[e..], open.last(), items);
                self.end(&mut open, &mut now, ends[e].ts, &items[ends[e].item]);
                e += 1;
            }
        }
        self.unclosed += open.len() as u64;
        for slice in open.iter().map(|o| o.slice) {
            self.end_slice(slice, now);
        }
    }

    /// Opens `item`'s slice at `ts` inside the innermost open one (or the `root`). An `X` of no
    /// length begins and ends there at once: it holds no time, so it is no stack of the profile and
    /// no slice of its timeline (written back as a `B` and an `E` at one time, before a sibling's
    /// begin, its end would be read before its begin).
    fn begin(&mut self, profile: &mut Profile, root: NodeId, open: &mut Vec<Open>, now: &mut f64, ts: f64, item: &Item) {
        self.advance(open, now, ts);
        if item.of_no_length() {
            return;
        }
        let parent = open.last().map_or(root, |o| o.node);
        let frame = *self.frame_of[item.frame.index()]
            .get_or_insert_with(|| profile.frames.intern(self.frames.get(item.frame).as_ref()));
        let node = self.index.child_or_insert(&mut profile.tree, Some(parent), frame);
        let slice = self.begin_slice(ts, node);
        open.push(Open { node, name: item.name, key: item.key, slice });
    }

    /// Closes the innermost open slice at `ts` with `end` if it is of its name (an `E` without a
    /// name closes it too), counting an end whose args differ; else `end` is ignored, not even
    /// its time a time of the track's.
    fn end(&mut self, open: &mut Vec<Open>, now: &mut f64, ts: f64, end: &Item) {
        match open.last() {
            Some(top) if end.name == top.name || end.name == NO_NAME => {
                if end.key != top.key {
                    match end.kind {
                        // An X's end is its own slice's: it closes another where the two overlap.
                        Kind::Whole => self.overlapping += 1,
                        _ if !end.bare => self.other_args += 1,
                        _ => {}
                    }
                }
                self.advance(open, now, ts);
                if let Some(top) = open.pop() {
                    self.end_slice(top.slice, ts);
                }
            }
            _ => self.unmatched += 1,
        }
    }

    /// Begins a slice of `node` at `ts` (µs); its place among the slices.
    fn begin_slice(&mut self, ts: f64, node: NodeId) -> usize {
        let Some(slices) = &mut self.slices else { return 0 };
        match whole_nanoseconds(ts, 1e3) {
            Some(start) => slices.push(Slice { start, end: start, node }),
            None => self.slices = None,
        }
        self.slices.as_ref().map_or(0, |s| s.len().saturating_sub(1))
    }

    /// Ends slice `slice` at `ts` (µs).
    fn end_slice(&mut self, slice: usize, ts: f64) {
        let Some(slices) = &mut self.slices else { return };
        match whole_nanoseconds(ts, 1e3) {
            Some(end) => slices[slice].end = end,
            None => self.slices = None,
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
