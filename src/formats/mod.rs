//! The format registry: every format proftool knows, in one closed enum.
//!
//! A format is its module: the module states everything about itself in its `SPEC`, a
//! `Spec` of `spec.rs` (name, description, extensions, what it [`Carries`], how its files are read and
//! told apart, its reader and writer with the one signature every format has, and the rules of a
//! conversion to it). The `registry!` lines name each format's variant and module, one line a
//! format sorted by name; [`Format`], [`Format::ALL`] and `Format::spec` are made from them. No
//! format module names [`Format`]: a module names itself through its `SPEC` (its errors carry
//! `SPEC.format_name()`). Detection policy (which of `--from`, content and extension wins) lives in
//! [`detect`], which asks the contract.
//!
//! Adding a format: add `src/formats/<name>.rs` with its spec header and its `SPEC`, its line in
//! `registry!`; fixtures under `fixtures/<name>/`, its tests' module in `tests/formats/` (sorted by
//! name), the words of its row of docs/formats.md's table in `docs/formats/<name>.md`; then
//! `PROFTOOL_BLESS=1 cargo test doc_tables` writes its row of the README's table from its `SPEC`,
//! and of docs/formats.md's from its `SPEC` and that file. The golden, round-trip, property and CLI
//! tests pick it up from [`Format::ALL`].

pub mod detect;
pub mod dyalog;
pub mod ghc;
mod json;
pub(crate) mod kit;
mod options;
mod rust_symbols;
pub(crate) mod shared;
pub(crate) mod spec;
pub(crate) mod stacks;
pub mod valgrind;

pub(crate) use options::{effective_interval, stated_interval, Turning};
pub use options::{
    ConvertOptions, FormatOptions, ReadOptions, DEFAULT_INTERVAL, DEFAULT_MAX_SAMPLES, DEFAULT_MIN_OUTPUT_LIMIT,
    OUTPUT_PER_INPUT_BYTE,
};
use spec::Spec;
pub use spec::{Carries, Sniff, Structure};

use crate::diag::Diagnostics;
use crate::error::{Error, FormatName};
use crate::model::{Profile, ReportFact};
use std::fmt;
use std::io::{Read, Write};
use strum::VariantArray;

/// The formats, a line each, sorted by name: the variant of [`Format`] and where its `SPEC` is:
/// `mod NAME` where the module is the format's alone (declared here, with its visibility), or the
/// path of the format's module in a module of several (`dyalog::xml`). The enum, [`Format::ALL`]
/// and `Format::spec` are made from these lines, so a new format is one line.
macro_rules! registry {
    ($($variant:ident ($($at:tt)+),)+) => {
        $(registry!(@declare $($at)+);)+

        /// A profile format. [`Format::ALL`] lists them in the order of their names: the order
        /// `proftool formats`, the error messages and the tables list formats in. Detection does
        /// not depend on it: no input is claimed by two JSON formats' checks (a test proves it on
        /// every fixture).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, VariantArray)]
        pub enum Format {
            $(
                #[doc = concat!("The format of module `formats::", registry!(@module $($at)+),
                    "`; [`Format::description`] says what it is.")]
                $variant,
            )+
        }

        impl Format {
            /// What the format states about itself: its module's [`Spec`].
            pub(crate) const fn spec(self) -> &'static Spec {
                match self {
                    $(Format::$variant => &registry!(@spec $($at)+),)+
                }
            }
        }
    };
    (@declare $visibility:vis mod $module:ident) => { $visibility mod $module; };
    (@declare $($path:ident)::+) => {};
    (@module $visibility:vis mod $module:ident) => { stringify!($module) };
    (@module $first:ident $(:: $rest:ident)*) => { concat!(stringify!($first) $(, "::", stringify!($rest))*) };
    (@spec $visibility:vis mod $module:ident) => { $module::SPEC };
    (@spec $($path:ident)::+) => { $($path)::+::SPEC };
}

registry! {
    ArtTrace (mod art_trace),
    Bpftrace (mod bpftrace),
    Br (pub mod br),
    Callgrind (pub(crate) mod callgrind),
    ChromeTrace (pub(crate) mod chrome_trace),
    Cpuprofile (pub(crate) mod cpuprofile),
    Dhat (valgrind::dhat),
    Dtrace (mod dtrace),
    DyalogCsv (dyalog::csv),
    DyalogXml (dyalog::xml),
    Firefox (pub(crate) mod firefox),
    Folded (pub mod folded),
    Gecko (mod gecko),
    GhcJson (ghc::json),
    GhcProf (ghc::prof),
    GhcPx (ghc::px),
    Gprof (mod gprof),
    Heapprofile (mod heapprofile),
    Hprof (mod hprof),
    Html (pub(crate) mod html),
    Jfr (mod jfr),
    Lispworks (pub(crate) mod lispworks),
    MacosSample (mod macos_sample),
    Massif (valgrind::massif),
    Otlp (pub(crate) mod otlp),
    OtlpJson (otlp::json),
    Perf (pub mod perf),
    Perfetto (mod perfetto),
    Pmcstat (mod pmcstat),
    Pprof (pub mod pprof),
    PprofLegacy (mod pprof_legacy),
    Pstats (mod pstats),
    Safari (mod safari),
    Sampler (pub mod sampler),
    Simpleperf (mod simpleperf),
    Sleepy (mod sleepy),
    Speedscope (pub(crate) mod speedscope),
    Stackprof (mod stackprof),
    Svg (pub(crate) mod svg),
    V8Log (mod v8_log),
    Vsprof (mod vsprof),
    Vtune (mod vtune),
    Xctrace (mod xctrace),
    Xperf (mod xperf),
}

impl Format {
    /// Every format, in registry order: by name.
    pub const ALL: &'static [Format] = Format::VARIANTS;

    /// The rules of a conversion to the format, from its write half; a format proftool does not
    /// write has none of its own, and the conversion step, which asks only targets, finds
    /// [`spec::STACKS_ONLY`]'s (writing it is then refused).
    fn rules(self) -> &'static spec::Rules {
        match &self.spec().writes {
            Some(writes) => &writes.rules,
            None => &spec::STACKS_ONLY,
        }
    }

    /// The kebab-case name used by `--from`/`--to`, fixture folders and messages.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// The format with command-line name `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// What the format is, in a line of Markdown (the README's formats table).
    pub fn description(self) -> &'static str {
        self.spec().description
    }

    /// File extensions, without the dot, longest first where one ends another.
    pub fn extensions(self) -> &'static [&'static str] {
        self.spec().extensions
    }

    /// Whether proftool reads the format.
    pub fn can_read(self) -> bool {
        self.spec().reads.is_some()
    }

    /// Whether proftool writes the format.
    pub fn can_write(self) -> bool {
        self.spec().writes.is_some()
    }

    /// What the format carries.
    pub fn carries(self) -> Carries {
        self.spec().carries
    }

    /// What the format's sniffer makes of the first bytes of an input.
    pub fn sniff(self, head: &[u8]) -> Sniff {
        self.spec().reads.as_ref().map_or(Sniff::No, |reads| reads.encoding.sniff(head))
    }

    /// Reads a whole input of this format into a profile.
    pub fn read(
        self,
        input: &mut (dyn Read + Send),
        options: &ReadOptions,
        diag: &mut Diagnostics,
    ) -> Result<Profile, Error> {
        let Some(reads) = &self.spec().reads else {
            return Err(Error::Unsupported { format: self.into(), action: "read" });
        };
        let read = reads.read;
        let max_line = match options.max_line_length {
            0 => crate::files::DEFAULT_MAX_LINE_LENGTH,
            given => given,
        };
        let mut profile = crate::text::with_max_line_length(max_line, || read(input, options, diag))?;
        debug_assert_eq!(profile.validate(), Ok(()), "{self} reader broke a model invariant");
        profile.frames.drop_name_cache();
        Ok(profile)
    }

    /// Writes `profile`, already fitted to this format (by the conversion step,
    /// `convert::project`, which ends with [`Format::fit`]): writers only write.
    pub fn write_fitted(
        self,
        profile: &Profile,
        out: &mut dyn Write,
        options: &ConvertOptions,
        diag: &mut Diagnostics,
    ) -> Result<(), Error> {
        let Some(writes) = &self.spec().writes else {
            return Err(Error::Unsupported { format: self.into(), action: "written" });
        };
        let write = writes.write;
        // Every output is held to the limit, those whose size is worked out first and the rest.
        let mut limited = stacks::Limited::new(out, options.output_limit());
        let result = write(profile, spec::Writing::new(&mut limited, options, diag));
        limited.result(self.into(), result, options)
    }

    /// Whether the header fact `key` is one this format writes: keyed by its name
    /// (`dyalog-xml.Version`), or one of the facts named for no format that it keeps
    /// (`spec::Rules::keeps_facts`: pprof's and OTLP's duration).
    pub fn keeps_attr(self, key: &str) -> bool {
        owns_key(self, key) || self.rules().keeps_facts.contains(&key)
    }

    /// Whether this format writes what a profiler's own report says of itself, `fact`
    /// ([`crate::model::ReportFacts`]: Dyalog's reports).
    pub fn keeps_report_fact(self, fact: ReportFact) -> bool {
        match fact {
            ReportFact::TimerCost => self.rules().keeps_timer_cost,
            _ => self.rules().keeps_report,
        }
    }

    /// Whether the per-frame fact `key` is one this format writes: keyed by its name
    /// (`sampler.id`), or one of the facts it keeps of no format or another's
    /// (`spec::Rules::keeps_facts`: where a function is defined, for the formats that have a file
    /// and line per function; the routine of a BR line, which the page names its row by).
    pub fn keeps_frame_attr(self, key: &str) -> bool {
        owns_key(self, key) || self.rules().keeps_facts.contains(&key)
    }

    /// A one-name frame (`Module.label`, as folded stacks name GHC cost centres) as module and name,
    /// for a format whose modules are namespaces (GHC); `None` for other formats and other names.
    pub fn split_qualified(self, name: &str) -> Option<(&str, &str)> {
        self.module_is_namespace().then(|| ghc::split_qualified(name)).flatten()
    }

    /// The format's own fitting of a profile's roots, called by the conversion step once frames are
    /// fitted (Sampler: every stack in a thread).
    pub fn fit_roots(self, profile: &mut Profile) {
        (self.rules().fit_roots)(profile)
    }

    /// The format's own last step of fitting a profile that the conversion step has projected onto
    /// what it carries (the `fit` of its write half's rules). A format that cannot say which metric
    /// comes first loses the source's choice.
    pub fn fit(self, mut profile: Profile, options: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
        if !self.says_which_metric_comes_first() {
            profile.meta.weighed_by = None;
        }
        (self.rules().fit)(profile, options, diag)
    }

    /// Whether a file of the format can say which of its metrics a profile is weighed by, or holds
    /// one metric only (its rules' `says_which_metric_comes_first`).
    fn says_which_metric_comes_first(self) -> bool {
        self.rules().says_which_metric_comes_first || self.carries().one_metric
    }

    /// Whether the format's frame module is a namespace that is part of the code's name (a GHC
    /// module), so that a frame of such a profile reads `Module.label` wherever one name is written.
    pub fn module_is_namespace(self) -> bool {
        self.rules().module_is_namespace
    }

    /// Whether the format stores inclusive values as measured (Dyalog's InclusiveTime and
    /// InclusiveTicks); every other format derives them from self values.
    pub fn keeps_measured_inclusive(self) -> bool {
        self.rules().keeps_measured_inclusive
    }

    /// Whether a node of the format is one chain of callers, so that siblings of one frame are
    /// merged before its fit (`spec::Rules::merges_siblings`).
    pub fn merges_siblings(self) -> bool {
        self.rules().merges_siblings
    }

    /// What a file of the format of no stack would be, where its readers take none
    /// (`spec::Rules::no_stack_file`).
    pub fn no_stack_file(self) -> Option<&'static str> {
        self.rules().no_stack_file
    }

    /// The frame a format with a single root puts above several roots (GHC's `MAIN`), if it has one.
    pub fn single_root(self) -> Option<crate::model::FrameRef<'static>> {
        self.rules().single_root.map(|root| root())
    }

    /// The format's writer of a comparison (`diff --to`), where it has one.
    pub fn differential(self) -> Option<&'static spec::Differential> {
        self.spec().writes.as_ref().and_then(|writes| writes.differential.as_ref())
    }

    /// The names of the formats that write a comparison, comma-separated.
    pub fn differential_names() -> String {
        Format::names_where(|f| f.differential().is_some())
    }

    /// The names of the formats that can be read, comma-separated.
    pub fn reader_names() -> String {
        Format::names_where(Format::can_read)
    }

    /// The names of the formats that can be written, comma-separated.
    pub fn writer_names() -> String {
        Format::names_where(Format::can_write)
    }

    fn names_where(keep: fn(Format) -> bool) -> String {
        Format::ALL.iter().copied().filter(|&f| keep(f)).map(Format::name).collect::<Vec<_>>().join(", ")
    }
}

/// Whether `key` is named after `format` (`format.field`), or after the format its facts are named
/// as ([`spec::Rules::facts_named_as`]).
fn owns_key(format: Format, key: &str) -> bool {
    let owner = format.rules().facts_named_as.unwrap_or(format.name());
    key.strip_prefix(owner).is_some_and(|rest| rest.starts_with('.'))
}

impl From<Format> for FormatName {
    fn from(format: Format) -> FormatName {
        FormatName(format.name())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_extensions_are_unique_per_format() {
        for &format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert!(format.name().chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
        }
    }
}
