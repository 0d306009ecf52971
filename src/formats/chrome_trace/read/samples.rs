//! The stacks a trace carries as samples: the CPU profiles of `Profile` and `ProfileChunk` events
//! (what Chrome DevTools' Performance panel saves, Node's `--cpu-prof` trace events), and the
//! `samples` and `stackFrames` of the sampling form.

use super::{add_time, time, Id, Reader, FORMAT};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::kit::v8_profile;
use crate::model::{ChildIndex, FrameKind, FrameRef, Profile};
use rustc_hash::FxHashMap;
use serde::Deserialize;

/// One of the `samples` of a trace's sampling form (Chrome's sampling traces, Hermes' profiles of
/// React Native): when, on which thread, and its innermost stack frame. Its `weight` is not read:
/// speedscope weighs a sample by the time to the next.
#[derive(Deserialize)]
pub(super) struct SampleJson {
    #[serde(default, deserialize_with = "time")]
    pub(super) ts: Option<f64>,
    pub(super) pid: Option<Id>,
    pub(super) tid: Option<Id>,
    pub(super) sf: Id,
}

/// One of the `stackFrames` of the sampling form: its name and its caller's id.
#[derive(Deserialize)]
pub(super) struct StackFrameJson {
    pub(super) name: Option<String>,
    pub(super) parent: Option<Id>,
}

#[derive(Deserialize)]
pub(super) struct ProfileArgs {
    pub(super) data: Option<ProfileData>,
}

/// `args.data` of a `Profile`, `ProfileChunk` or `CpuProfile` event.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct ProfileData {
    pub(super) cpu_profile: Option<CpuProfileJson>,
    pub(super) time_deltas: Option<Vec<f64>>,
    pub(super) start_time: Option<f64>,
    pub(super) end_time: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct CpuProfileJson {
    #[serde(default)]
    pub(super) nodes: Vec<v8_profile::NodeJson>,
    #[serde(default)]
    pub(super) samples: Vec<u64>,
    pub(super) time_deltas: Option<Vec<f64>>,
    pub(super) start_time: Option<f64>,
    pub(super) end_time: Option<f64>,
}

/// Which profile an event is of: its process and its `id`, else its thread (ids are unique in a
/// process only: each Chromium process numbers its profiles from `0x1`).
pub(super) type ProfileKey = (Id, Result<Id, Id>);

/// A `Profile`, `ProfileChunk` or `CpuProfile` event.
pub(super) struct ProfileEvent {
    /// Which profile.
    pub(super) profile: ProfileKey,
    pub(super) chunk: bool,
    pub(super) ts: f64,
    pub(super) track: (Id, Id),
    pub(super) data: ProfileData,
    pub(super) position: Position,
}

impl Reader<'_> {
    /// The samples of the sampling form (`samples` and `stackFrames`), each weighed by the time to
    /// the next sample of its thread (the last by none), as speedscope weighs them, under a root per
    /// thread; the trace's other events are not read (as speedscope reads such a trace).
    pub(super) fn sampled(&mut self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let stack_frames = self.stack_frames.take().unwrap_or_default();
        let slices: usize = self.tracks.iter().map(|t| t.items.len()).sum::<usize>() + self.profiles.len();
        if slices > 0 {
            diag.warn("chrome-trace-sampled", None, || {
                format!("the trace's samples are read (as speedscope reads them): its {slices} slice and profile events are not")
            });
        }
        let mut profile = Profile::new(Vec::new());
        let mut index = ChildIndex::default();
        let mut time: Vec<f64> = Vec::new();
        let mut by_thread: Vec<((Id, Id), Vec<&SampleJson>)> = Vec::new();
        let mut thread_of: FxHashMap<(Id, Id), usize> = FxHashMap::default();
        for sample in &self.samples {
            let key = (sample.pid.clone().unwrap_or_default(), sample.tid.clone().unwrap_or_default());
            let thread = *thread_of.entry(key).or_insert_with_key(|key| {
                by_thread.push((key.clone(), Vec::new()));
                by_thread.len() - 1
            });
            by_thread[thread].1.push(sample);
        }
        let names = self.root_names(&by_thread.iter().map(|(key, _)| key).collect::<Vec<_>>());
        let mut stack: Vec<&str> = Vec::new();
        for ((track, samples), name) in by_thread.iter().zip(&names) {
            let thread = profile.frames.intern(FrameRef::named(name, FrameKind::Thread));
            let root = index.child_or_insert(&mut profile.tree, None, thread);
            for (i, sample) in samples.iter().enumerate() {
                let ts = |s: &SampleJson| s.ts.unwrap_or(0.0);
                let weight = samples.get(i + 1).map_or(0.0, |next| ts(next) - ts(sample));
                // The stack, innermost first, through the frames' parents.
                stack.clear();
                let mut at = Some(&sample.sf);
                while let Some(id) = at {
                    let Some(frame) = stack_frames.get(id).filter(|_| stack.len() <= stack_frames.len()) else {
                        let kind = ParseErrorKind::Unexpected {
                            expected: "stackFrames whose parents lead to a root".into(),
                            found: format!("the frame {id} (of a sample of tid {}) missing or in a cycle", track.1),
                        };
                        return Err(ParseError { format: FORMAT, position: self.place.position(), kind });
                    };
                    stack.push(frame.name.as_deref().unwrap_or("(unnamed)"));
                    at = frame.parent.as_ref();
                }
                let mut node = root;
                for name in stack.iter().rev() {
                    let frame = profile.frames.intern(FrameRef::function(name));
                    node = index.child_or_insert(&mut profile.tree, Some(node), frame);
                }
                time.resize(profile.tree.len(), 0.0);
                time[node.index()] += weight.max(0.0);
            }
        }
        add_time(&mut profile, time);
        Ok(profile)
    }

    /// The CPU profiles of the `Profile` (or `CpuProfile`) events and their chunks, each under the
    /// root of its thread (named with its process where profiles come from several).
    pub(super) fn cpu_profiles(&mut self, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let slices: usize = self.tracks.iter().map(|t| t.items.len()).sum();
        if slices > 0 {
            diag.warn("chrome-trace-profile", None, || {
                format!(
                    "the trace carries CPU profiles, which are read (their samples, as speedscope reads them): \
                     its {slices} slice events (the tasks beside the samples) are not"
                )
            });
        }
        // Chunks join their profile in time order; a chunk of no profile declared is dropped.
        self.profiles.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        // The profiles in the order they are declared, and where each key's is.
        let mut joined: Vec<(ProfileKey, Joined)> = Vec::new();
        let mut index: FxHashMap<ProfileKey, usize> = FxHashMap::default();
        let mut undeclared = 0;
        for event in self.profiles.drain(..) {
            if !event.chunk && !index.contains_key(&event.profile) {
                index.insert(event.profile.clone(), joined.len());
                joined.push((event.profile.clone(), Joined::new(&event)));
            }
            match index.get(&event.profile) {
                Some(&i) => joined[i].1.add(event.data),
                None => undeclared += 1,
            }
        }
        if undeclared > 0 {
            diag.warn("chrome-trace-undeclared", None, || {
                format!("profile chunks of no profile declared before them are dropped, as speedscope drops them: {undeclared}")
            });
        }
        let processes: std::collections::HashSet<&Id> = joined.iter().map(|((pid, _), _)| pid).collect();
        let with_process = processes.len() > 1;
        let mut profile = Profile::new(v8_profile::metrics(true));
        let mut index = ChildIndex::default();
        let mut unknown = v8_profile::Unknown::default();
        // Every profile's samples at their times, on the trace's clock, over all their spans.
        let (mut timed, mut span) = (Vec::new(), None);
        for (_, Joined { document, track, position }) in joined {
            let name = self.track_of.get(&track).and_then(|&t| self.tracks[t].name.clone());
            let name = name.unwrap_or_else(|| format!("tid {}", track.1));
            let name = if with_process { format!("{name} (pid {})", track.0) } else { name };
            let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
            let root = index.child_or_insert(&mut profile.tree, None, thread);
            let error = |_: &str, expected: String, found: String| ParseError {
                format: FORMAT,
                position,
                kind: ParseErrorKind::Unexpected { expected, found },
            };
            let added = v8_profile::add_tree(&mut profile, &mut index, Some(root), &document, &error)?;
            unknown += added.unknown;
            if let Some(timeline) = added.timeline {
                span = Some(span.map_or((timeline.start, timeline.end), |(start, end)| {
                    (timeline.start.min(start), timeline.end.max(end))
                }));
                timed.extend_from_slice(timeline.samples());
            }
        }
        v8_profile::warn_unknown(&unknown, diag);
        profile.timeline = crate::model::Timeline::new(timed, span);
        // Time and samples, as the same profile saved as a `.cpuprofile` is read (the Firefox
        // Profiler and DevTools count its samples), weighed by time as that is; where functions are
        // defined is not kept.
        profile.frame_attrs.clear();
        profile.meta.weighed_by = Some(crate::model::MetricKind::Time);
        Ok(profile)
    }
}

/// A CPU profile joined from its events so far, and where it was declared.
struct Joined {
    document: v8_profile::Document,
    track: (Id, Id),
    position: Position,
}

impl Joined {
    fn new(declared: &ProfileEvent) -> Joined {
        let document = v8_profile::Document {
            // Without an end, the last sample has no time (as speedscope gives it).
            end_time: f64::NEG_INFINITY,
            samples: Some(Vec::new()),
            time_deltas: Some(Vec::new()),
            ..v8_profile::Document::default()
        };
        Joined { document, track: declared.track.clone(), position: declared.position }
    }

    /// Adds the nodes, samples and deltas of one event; its start and end times where it has them.
    fn add(&mut self, data: ProfileData) {
        let document = &mut self.document;
        let cpu = data.cpu_profile.unwrap_or_default();
        if let Some(start) = data.start_time.or(cpu.start_time) {
            document.start_time = start;
        }
        if let Some(end) = data.end_time.or(cpu.end_time) {
            document.end_time = end;
        }
        document.nodes.extend(cpu.nodes);
        document.samples.get_or_insert_with(Vec::new).extend(cpu.samples);
        document
            .time_deltas
            .get_or_insert_with(Vec::new)
            .extend(data.time_deltas.or(cpu.time_deltas).unwrap_or_default());
    }
}
