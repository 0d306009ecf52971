//! Track-event slices: a sequence's clocks (the time of its packets, in nanoseconds) and each
//! track's slices nested into stacks, each stack weighing the time nothing was opened or closed
//! within it, as the Chrome trace reader weighs `B`/`E` slices (the rules are in the module
//! comment of [`super`]).

use super::proto;
use crate::model::FrameId;
use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// The first clock id of a sequence's own clocks (`ClockSnapshot`: 64 to 127): the builtin ones,
/// below, count nanoseconds.
const SEQUENCE_CLOCKS: u32 = 64;

/// A sequence's clocks and the defaults of its packets (part of its interned state).
#[derive(Default)]
pub(super) struct Timing {
    default_clock: Option<u32>,
    pub(super) default_track: Option<u64>,
    /// The sequence's own clocks: their last value, the nanoseconds of a unit, whether a packet's
    /// timestamp is the difference from the last.
    clocks: FxHashMap<u32, (i64, i64, bool)>,
}

impl Timing {
    /// A packet's defaults and clock snapshot, where it has them.
    pub(super) fn update(&mut self, packet: &proto::TracePacket) {
        if let Some(defaults) = &packet.trace_packet_defaults {
            self.default_clock = defaults.timestamp_clock_id;
            self.default_track = defaults.track_event_defaults.as_ref().and_then(|d| d.track_uuid);
        }
        for clock in packet.clock_snapshot.iter().flat_map(|s| &s.clocks) {
            if clock.clock_id >= SEQUENCE_CLOCKS {
                let value = i64::try_from(clock.timestamp).unwrap_or(i64::MAX);
                let unit = i64::try_from(clock.unit_multiplier_ns.unwrap_or(1).max(1)).unwrap_or(1);
                self.clocks.insert(clock.clock_id, (value, unit, clock.is_incremental));
            }
        }
    }

    /// The time of a packet in nanoseconds (of its clock: durations only are read), its
    /// sequence's incremental clock moved on by it; `None` where it has none, or its clock is one
    /// of its sequence's that no snapshot defined.
    pub(super) fn time(&mut self, packet: &proto::TracePacket) -> Option<i64> {
        let timestamp = i64::try_from(packet.timestamp?).unwrap_or(i64::MAX);
        let id = packet.timestamp_clock_id.or(self.default_clock).unwrap_or(0);
        if id < SEQUENCE_CLOCKS {
            return Some(timestamp);
        }
        let (value, unit, incremental) = self.clocks.get_mut(&id)?;
        match incremental {
            true => {
                *value = value.saturating_add(timestamp);
                Some(value.saturating_mul(*unit))
            }
            false => Some(timestamp.saturating_mul(*unit)),
        }
    }
}

/// What a track is of, from its descriptor.
pub(super) enum Owner {
    Thread(i64, i64),
    Process(i64),
    Named(String),
}

/// A track's slices open now, outermost first, when each began, and the time of its last event.
#[derive(Default)]
struct Track {
    open: Vec<FrameId>,
    began: Vec<i64>,
    last: Option<i64>,
}

/// A slice that ran: its track, its stack (an index of the reader's stacks: the slices open then,
/// its own innermost), when it began and ended (ns).
pub(super) struct Ran {
    pub(super) track: u64,
    pub(super) stack: u32,
    pub(super) start: i64,
    pub(super) end: i64,
}

/// The slices of every track.
#[derive(Default)]
pub(super) struct Slices {
    tracks: FxHashMap<u64, Track>,
    /// What each track is of, by its uuid.
    pub(super) owners: FxHashMap<u64, Owner>,
    /// The time of each track's stacks (an index of the reader's stacks), in nanoseconds.
    pub(super) time: FxHashMap<(u64, u32), i64>,
    /// The slices closed so far, of some length, in the order they closed.
    pub(super) ran: Vec<Ran>,
    /// Slices closed at the end of the trace, still open there.
    closed_at_end: usize,
    /// Ends of no open slice, events before the one before them on their track, and events of no
    /// track or time.
    pub(super) unmatched: u64,
    pub(super) backwards: u64,
    pub(super) untimed: u64,
    /// Slice events of sequences whose interned state was lost.
    pub(super) lost: u64,
}

impl Slices {
    /// An event of `track` at `time`: the time since its last event to the stack open, then a
    /// slice opened (`begin`, its frame) or the innermost closed.
    pub(super) fn event(
        &mut self,
        track: u64,
        time: i64,
        begin: Option<FrameId>,
        stacks: &mut IndexSet<Vec<FrameId>, FxBuildHasher>,
    ) {
        let t = self.tracks.entry(track).or_default();
        let since = time - t.last.unwrap_or(time);
        if since < 0 {
            self.backwards += 1;
        }
        if since > 0 && !t.open.is_empty() {
            *self.time.entry((track, stack_index(stacks, &t.open))).or_default() += since;
        }
        t.last = Some(t.last.map_or(time, |last| last.max(time)));
        match begin {
            Some(frame) => {
                t.open.push(frame);
                t.began.push(time);
            }
            None => match t.began.pop() {
                Some(start) => {
                    let end = t.last.unwrap_or(time);
                    if end > start {
                        self.ran.push(Ran { track, stack: stack_index(stacks, &t.open), start, end });
                    }
                    t.open.pop();
                }
                None => self.unmatched += 1,
            },
        }
    }

    /// Closes the slices still open at their track's last event (their time up to it is kept).
    pub(super) fn close_open(&mut self, stacks: &mut IndexSet<Vec<FrameId>, FxBuildHasher>) {
        let mut tracks: Vec<_> = self.tracks.iter_mut().collect();
        tracks.sort_unstable_by_key(|(track, _)| **track);
        for (&track, t) in tracks {
            let end = t.last.unwrap_or(0);
            while let Some(start) = t.began.pop() {
                if end > start {
                    self.ran.push(Ran { track, stack: stack_index(stacks, &t.open), start, end });
                }
                t.open.pop();
                self.closed_at_end += 1;
            }
        }
    }

    /// How many slices are still open at the end of the trace.
    pub(super) fn unclosed(&self) -> usize {
        self.closed_at_end + self.tracks.values().map(|t| t.open.len()).sum::<usize>()
    }
}

/// The index of stack `open` among the reader's stacks, added where it is new.
fn stack_index(stacks: &mut IndexSet<Vec<FrameId>, FxBuildHasher>, open: &[FrameId]) -> u32 {
    let index = match stacks.get_index_of(open) {
        Some(index) => index,
        None => stacks.insert_full(open.to_vec()).0,
    };
    u32::try_from(index).unwrap_or(u32::MAX)
}
