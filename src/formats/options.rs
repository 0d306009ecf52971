//! The options of reading and conversion, as every reader and writer gets them
//! ([`super::spec::Reader`], [`super::spec::Writer`]): each format's own options gathered in
//! [`FormatOptions`], and the limits and defaults every conversion shares.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

/// Every format's own options, each the `Options` of the format's module, kept by type: a module
/// asks for its own ([`FormatOptions::get`]) and the command line sets them
/// ([`FormatOptions::set`]). This module names no format, so that a format's new option is a field
/// of its own `Options` and nothing else, and no format module is imported here: the format
/// modules import these options, not the other way round.
#[derive(Clone, Default)]
pub struct FormatOptions {
    /// The options set, one of each type (a handful: a list is as quick as a map).
    set: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl FormatOptions {
    /// The options of type `T` (a format module's `Options`): as set, else `T`'s defaults.
    pub fn get<T: Any + Clone + Default>(&self) -> Cow<'_, T> {
        let set = self.set.iter().find(|(id, _)| *id == TypeId::of::<T>());
        match set.and_then(|(_, options)| options.downcast_ref::<T>()) {
            Some(options) => Cow::Borrowed(options),
            None => Cow::Owned(T::default()),
        }
    }

    /// Sets the options of type `T`, in place of those set before.
    pub fn set<T: Any + Send + Sync>(&mut self, options: T) {
        self.set.retain(|(id, _)| *id != TypeId::of::<T>());
        self.set.push((TypeId::of::<T>(), Arc::new(options)));
    }

    /// These options with those of type `T` set.
    pub fn with<T: Any + Send + Sync>(mut self, options: T) -> FormatOptions {
        self.set(options);
        self
    }

    /// Changes the options of type `T` (its defaults where none were set).
    pub fn update<T: Any + Clone + Default + Send + Sync>(&mut self, change: impl FnOnce(&mut T)) {
        let mut options = self.get::<T>().into_owned();
        change(&mut options);
        self.set(options);
    }
}

impl std::fmt::Debug for FormatOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FormatOptions({} set)", self.set.len())
    }
}

/// Options for readers. Every field has a default; new options do not break callers.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Each format's own options.
    pub formats: FormatOptions,
    /// Merge line frames into their functions while reading, where the reader can (Dyalog): what
    /// conversion does for a target without line numbers, without building the lines first. Set by
    /// `convert::reading_for` for a conversion and `ReportOptions::reading` for a report.
    pub merge_lines: bool,
    /// The input's size in bytes, where it is known before reading (a file), so that a reader can
    /// size its tree once instead of growing it (folded stacks).
    pub size_hint: Option<u64>,
    /// The most bytes a gzip-compressed input given to a reader as it is (a pprof profile not read
    /// through [`crate::files::Input`]) may decompress to; 0 means
    /// [`crate::files::DEFAULT_MAX_INPUT_SIZE`].
    pub max_input_size: u64,
    /// The most bytes a line of a line-based text format may hold (`--max-line-length`), so that
    /// one huge line (a file of zeros, an endless stream) is an error, not all the memory; 0 means
    /// [`crate::files::DEFAULT_MAX_LINE_LENGTH`].
    pub max_line_length: u64,
    /// The most nodes a call graph (callgrind) may expand into as a tree (`--max-graph-nodes`), so
    /// that a small graph of many paths (nested diamonds) is an error, not all the memory; 0 means
    /// [`crate::files::DEFAULT_MAX_GRAPH_NODES`].
    pub max_graph_nodes: u64,
    /// The file read, where the input is one, so that a reader can find what its producer writes
    /// beside it (samply's `.syms.json` symbols beside a processed profile).
    pub path: Option<std::path::PathBuf>,
}

impl ReadOptions {
    /// Options with each format's own as given, the rest by default.
    pub fn of(formats: FormatOptions) -> ReadOptions {
        ReadOptions { formats, ..ReadOptions::default() }
    }
}

/// Options that steer a conversion. Every field has a default.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The length of one sample, for turning time into samples and back.
    pub interval: Option<Duration>,
    /// The most sample records a sample-per-record target (Sampler, BR) may get.
    pub max_samples: u64,
    /// The most bytes a writer that writes every stack whole (folded stacks, Sampler, speedscope)
    /// may write (`--max-output-size`); `None`: [`ConvertOptions::output_limit`]'s default.
    pub max_output_size: Option<u64>,
    /// The size in bytes of what was read to make the profile (the inputs added up), where known:
    /// the default output limit grows with it.
    pub input_size: Option<u64>,
    /// Merge line frames into their functions whatever the target (`--functions`).
    pub functions: bool,
    /// Keep line frames as functions named `name[line]` in targets without line numbers (`--lines`).
    pub lines: bool,
    /// Each format's own options.
    pub formats: FormatOptions,
}

/// The default of `--max-samples`.
pub const DEFAULT_MAX_SAMPLES: u64 = 10_000_000;

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            interval: None,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_output_size: None,
            input_size: None,
            functions: false,
            lines: false,
            formats: FormatOptions::default(),
        }
    }
}

impl ConvertOptions {
    /// Options with `--interval` as given, the rest by default. The metric written is the
    /// profile's own choice ([`crate::model::Meta::chosen_metric`]).
    pub fn new(interval: Option<Duration>) -> ConvertOptions {
        ConvertOptions { interval, ..ConvertOptions::default() }
    }
}

/// How many times its input's size an output may be by default (see [`ConvertOptions::output_limit`]).
pub const OUTPUT_PER_INPUT_BYTE: u64 = 100;

/// The size any output may reach by default, however small its input (1 GiB).
pub const DEFAULT_MIN_OUTPUT_LIMIT: u64 = 1 << 30;

/// The interval used when neither `--interval` nor the profile gives one.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(1);

/// What an interval turns into what, which says which interval it is (docs/model.md, "The
/// effective interval"): one rule for every conversion, merge and comparison, that counts are at
/// the interval they were taken at and new counts are made at the interval asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Turning {
    /// Samples or ticks into time (a Dyalog or Firefox target's time, a `.cpuprofile`'s beside its
    /// samples, BR's timed mode, a merge's or diff's counts taken as time): at the interval they were
    /// taken at, the profile's own; the one given (`--interval`) where it states none.
    CountsIntoTime,
    /// Time into samples or ticks (a one-number, BR or GHC target's counts, a merge's or diff's time
    /// taken as counts): at the interval asked for, the one given; the profile's own where none is.
    TimeIntoCounts,
}

/// The interval samples or ticks and time are turned into one another at, as [`Turning`] says:
/// of the one `given` and the profile's `own`, the counts' own first where counts become time, the
/// given first where time becomes counts; else [`DEFAULT_INTERVAL`]. The one place it is decided.
pub(crate) fn effective_interval(given: Option<Duration>, own: Option<Duration>, turning: Turning) -> Duration {
    let (first, second) = match turning {
        Turning::TimeIntoCounts => (given, own),
        Turning::CountsIntoTime => (own, given),
    };
    first.or(second).unwrap_or(DEFAULT_INTERVAL)
}

/// `interval` as a format that states intervals in steps of `step` can state it: the nearest whole
/// number of steps, at least one.
pub(crate) fn stated_interval(interval: Duration, step: Duration) -> Duration {
    let step_ns = step.as_nanos().max(1);
    let steps = ((interval.as_nanos() + step_ns / 2) / step_ns).max(1);
    step * u32::try_from(steps).unwrap_or(u32::MAX)
}

impl ConvertOptions {
    /// The most bytes a writer that writes every stack whole may write: `--max-output-size`, else
    /// [`OUTPUT_PER_INPUT_BYTE`] times the input or [`DEFAULT_MIN_OUTPUT_LIMIT`], whichever is more
    /// (the latter alone where the input's size is not known). A deep tree written so grows with
    /// its depth times its leaves: an 8 MB input made 10 GB of folded stacks.
    pub fn output_limit(&self) -> u64 {
        self.max_output_size.unwrap_or_else(|| {
            let per_input = self.input_size.unwrap_or(0).saturating_mul(OUTPUT_PER_INPUT_BYTE);
            per_input.max(DEFAULT_MIN_OUTPUT_LIMIT)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Mine {
        tags: Vec<String>,
    }

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Theirs(u8);

    /// A format's options are its own type's: its defaults until set, set once per type, and
    /// changed where they are without touching another format's.
    #[test]
    fn each_formats_options_are_kept_by_their_type() {
        let mut options = FormatOptions::default();
        assert_eq!(*options.get::<Mine>(), Mine::default());
        options.set(Mine { tags: vec!["a".into()] });
        options = options.with(Theirs(4));
        options.update(|mine: &mut Mine| mine.tags.push("b".into()));
        assert_eq!(options.get::<Mine>().tags, ["a", "b"]);
        assert_eq!(*options.get::<Theirs>(), Theirs(4));
        options.set(Theirs(8));
        assert_eq!((options.get::<Theirs>().into_owned(), options.set.len()), (Theirs(8), 2));
        assert!(matches!(options.get::<Mine>(), Cow::Borrowed(_)));
    }
}
