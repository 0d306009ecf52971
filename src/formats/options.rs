//! The options of a conversion and of the formats' writers, gathered in one place: what to write
//! (`--metric`, line granularity) and each format's own settings (Sampler frame order and sample cap,
//! Dyalog CSV separators, BR mode and backtrace order, GHC word size, the interval that turns time
//! into counts). Defined beside the registry, below the conversion step, so that the formats take
//! their own options without knowing the step that projects profiles onto them.

use super::{br, dyalog::Separators, sampler::FrameOrder, Format};
use std::time::Duration;

/// Options that steer a conversion. Every field has a default.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// The metric to write to a one-number-per-node target (by name).
    pub metric: Option<String>,
    /// The length of one sample, for turning time into samples and back.
    pub interval: Option<Duration>,
    /// The most sample records a sample-per-record target (Sampler) may get.
    pub max_samples: u64,
    /// The frame order of Sampler stacks (`Auto` writes leaf-first).
    pub sampler_order: FrameOrder,
    /// Merge line frames into their functions whatever the target (`--functions`).
    pub functions: bool,
    /// Keep line frames as functions named `name[line]` in targets without line numbers (`--lines`).
    pub lines: bool,
    /// The decimal mark and field separator of Dyalog CSV output (`--dyalog-separators`).
    pub dyalog_separators: Option<Separators>,
    /// Whether BR groups get time records (`Auto`: when the profile has a time metric).
    pub br_mode: br::Mode,
    /// The order BR backtrace entries are written in.
    pub br_backtrace: br::BacktraceOrder,
    /// The machine word size in bytes that GHC `-px` allocation counts are written in (0: the default, 8).
    pub ghc_word_size: u8,
}

/// The default of `--max-samples`.
pub const DEFAULT_MAX_SAMPLES: u64 = 10_000_000;

impl Default for ConvertOptions {
    fn default() -> ConvertOptions {
        ConvertOptions {
            metric: None,
            interval: None,
            max_samples: DEFAULT_MAX_SAMPLES,
            sampler_order: FrameOrder::Auto,
            functions: false,
            lines: false,
            dyalog_separators: None,
            br_mode: br::Mode::Auto,
            br_backtrace: br::BacktraceOrder::InnermostFirst,
            ghc_word_size: 0,
        }
    }
}

impl ConvertOptions {
    /// Options with `--metric` and `--interval` as given, the rest by default.
    pub fn new(metric: Option<String>, interval: Option<Duration>) -> ConvertOptions {
        ConvertOptions { metric, interval, ..ConvertOptions::default() }
    }

    /// These options with `--max-samples` and `--sampler-order` as given.
    pub fn with_samples(self, max_samples: u64, sampler_order: FrameOrder) -> ConvertOptions {
        ConvertOptions { max_samples, sampler_order, ..self }
    }

    /// These options with `--functions`, `--lines` and `--dyalog-separators` as given.
    pub fn with_granularity(
        self,
        functions: bool,
        lines: bool,
        dyalog_separators: Option<Separators>,
    ) -> ConvertOptions {
        ConvertOptions { functions, lines, dyalog_separators, ..self }
    }

    /// These options with `--br-mode` and `--br-backtrace` as given.
    pub fn with_br(self, br_mode: br::Mode, br_backtrace: br::BacktraceOrder) -> ConvertOptions {
        ConvertOptions { br_mode, br_backtrace, ..self }
    }

    /// These options with `--ghc-word-size` as given.
    pub fn with_ghc_word_size(self, ghc_word_size: u8) -> ConvertOptions {
        ConvertOptions { ghc_word_size, ..self }
    }
}

/// The interval used when neither `--interval` nor the profile gives one.
pub const DEFAULT_INTERVAL: Duration = Duration::from_millis(1);

impl ConvertOptions {
    /// Whether a conversion to `target` merges line frames into their functions: with
    /// `--functions`, or for a target without line numbers unless `--lines` keeps them as names.
    pub fn merges_lines(&self, target: Format) -> bool {
        self.functions || (!target.carries().source_lines && !self.lines)
    }
}
