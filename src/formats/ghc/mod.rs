//! GHC's cost-centre profiles, in the three shapes GHC has written them:
//!
//! - [`px`]: the `+RTS -px` log of GHC 4.08–7.2 (read and written);
//! - [`prof`]: the `+RTS -p`/`-P` text report of GHC 7.x–9.x (read);
//! - [`json`]: the `+RTS -pj` JSON profile of GHC 8.2 and later (read).
//!
//! All three describe the same thing: a tree of cost-centre stacks, each stack a cost centre (a
//! label in a module) under its caller's stack, with ticks, entries and allocation per stack. They map
//! onto the model the same way, through the pieces in this module: a cost centre is a function frame
//! named by its label with its GHC module as the frame's module (`cost_centre`); metrics are
//! `ticks` (additive count, the tick length is the profile's interval), `entries` (per node, not
//! additive) and `alloc` (additive bytes). The profile is marked as having namespace modules
//! ([`crate::model::Meta::module_namespaces`]), so that a one-name output (folded, Sampler,
//! LispWorks) writes `Module.label`, as inferno's `collapse-ghcprof` does.

pub mod json;
pub mod prof;
pub mod px;

use crate::error::ParseErrorKind;
use crate::formats::spec::Carries;
use crate::model::Sampling;
use crate::model::{FrameKind, FrameRef, Metric, MetricKind, Profile, Repr, Unit};

/// What a GHC profile carries: a tree of cost centres with modules, a timestamp and a tick length
/// (in µs); the JSON report's as it is, the other two shapes state how they differ (their metrics,
/// the text report's title, the characters a `-px` name cannot hold and the step of its interval).
pub(crate) const CARRIES: Carries = Carries {
    metrics: &[MetricKind::Ticks, MetricKind::Calls, MetricKind::Alloc],
    one_metric: false,
    modules: true,
    title: true,
    timestamp: true,
    interval: true,
    interval_step: Some(std::time::Duration::from_micros(1)),
    weight_is_time: true,
    ..Carries::TREE_OF_SAMPLES
};

/// The machine word size assumed for `-px` allocation counts (64-bit builds).
pub const DEFAULT_WORD_SIZE: u64 = 8;

/// The word size to use: `option` when set (non-zero), else [`DEFAULT_WORD_SIZE`].
pub fn word_size(option: u8) -> u64 {
    if option == 0 {
        DEFAULT_WORD_SIZE
    } else {
        u64::from(option)
    }
}

/// GHC's own options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The machine word size in bytes of the program a `-px` file comes from (its allocation counts
    /// words), read and written (`--ghc-word-size`); 0 means [`DEFAULT_WORD_SIZE`].
    pub word_size: u8,
}

/// The largest count (ticks, entries, bytes) the model holds: its counts are `i64`.
pub(crate) const MAX_COUNT: u64 = i64::MAX as u64;

/// `value` as a count of the model, or the error for a `field` above [`MAX_COUNT`].
pub(crate) fn count(field: &str, value: u64) -> Result<i64, ParseErrorKind> {
    i64::try_from(value).map_err(|_| too_large(field, MAX_COUNT, value))
}

/// The error for a number above what `field` may hold: its range and the number.
pub(crate) fn too_large(field: &str, max: u64, found: impl std::fmt::Display) -> ParseErrorKind {
    ParseErrorKind::Unexpected {
        expected: format!("{field} from 0 to {max}"),
        found: format!("{found}, which is too large"),
    }
}

/// Metric index of the ticks in a profile made by [`new_profile`].
pub(crate) const TICKS: usize = 0;
/// Metric index of the entries.
pub(crate) const ENTRIES: usize = 1;
/// Metric index of the allocation.
pub(crate) const ALLOC: usize = 2;

/// Bytes allocated per stack, counted by the instrumented program (no sampling noise).
pub(crate) fn alloc_metric() -> Metric {
    Metric::new("alloc", MetricKind::Alloc, Unit::Bytes, Repr::Int).sampled(Sampling::Measured)
}

/// The metrics every GHC profile with ticks has, in order: ticks, entries, alloc (at [`TICKS`],
/// [`ENTRIES`], [`ALLOC`]).
pub(crate) fn metrics() -> [Metric; 3] {
    [Metric::ticks(), Metric::entries("entries"), alloc_metric()]
}

/// An empty profile with [`metrics`] and modules marked as namespaces.
pub(crate) fn new_profile() -> Profile {
    profile_with(metrics().to_vec())
}

/// An empty profile with `metrics` (none, for a reader that declares them once its tree is
/// complete) and modules marked as namespaces.
pub(crate) fn profile_with(metrics: Vec<Metric>) -> Profile {
    let mut profile = Profile::new(metrics);
    profile.meta.module_namespaces = true;
    profile
}

/// The frame of a cost centre: its label, in its module (none when the module is empty).
pub(crate) fn cost_centre<'a>(label: &'a str, module: &'a str) -> FrameRef<'a> {
    FrameRef { module: (!module.is_empty()).then_some(module), ..FrameRef::named(label, FrameKind::Function) }
}

/// A Haskell module name: capitalised identifiers joined by dots.
pub(crate) fn looks_like_module(text: &str) -> bool {
    text.split('.').all(|part| {
        part.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '\'')
    })
}

/// A cost centre's name as single-name formats write it, `Module.label` (`Data.Map.Internal.insert`,
/// `GHC.Base.>>=`, `MAIN.MAIN`), split back into its module and label: the longest run of
/// capitalised identifiers before the last dot that leaves a label. `None` for a name with no such
/// module (`main`, `CL-USER::FIB`, `#.Rain`).
pub(crate) fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let mut module_end = None;
    for (dot, _) in name.match_indices('.') {
        if dot + 1 >= name.len() || !looks_like_module(&name[..dot]) {
            break;
        }
        module_end = Some(dot);
    }
    module_end.map(|dot| (&name[..dot], &name[dot + 1..]))
}

/// GHC's root cost centre, `MAIN` in module `MAIN`.
pub(crate) fn main_frame() -> FrameRef<'static> {
    cost_centre("MAIN", "MAIN")
}

#[cfg(test)]
mod tests {
    use super::split_qualified;

    #[test]
    fn qualified_names_split_at_the_longest_module() {
        assert_eq!(split_qualified("MAIN.MAIN"), Some(("MAIN", "MAIN")));
        assert_eq!(split_qualified("Data.Map.Internal.insert"), Some(("Data.Map.Internal", "insert")));
        assert_eq!(split_qualified("Data.Map.CAF"), Some(("Data.Map", "CAF")));
        assert_eq!(split_qualified("GHC.Base.>>="), Some(("GHC.Base", ">>=")));
        assert_eq!(split_qualified("GHC.Base.."), Some(("GHC.Base", ".")));
        assert_eq!(split_qualified("Main.generateFrames.go.frame"), Some(("Main", "generateFrames.go.frame")));
        for unqualified in ["main", "CL-USER::FIB", "#.Rain", "Main.", ".x", "java.lang.Thread.run", "Main"] {
            assert_eq!(split_qualified(unqualified), None, "{unqualified}");
        }
    }
}
