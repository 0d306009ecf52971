//! Callgrind's profile format (`callgrind.out.<pid>`), as Valgrind's `--tool=callgrind` writes it and
//! `callgrind_annotate` and KCachegrind read it ("Callgrind Format Specification", Valgrind manual,
//! chapter 3 of the Callgrind documentation; version 1).
//!
//! ```text
//! # callgrind format
//! version: 1
//! creator: callgrind-3.19.0
//! pid: 1000
//! cmd:  ./work
//! part: 1
//! desc: I1 cache:
//! positions: line
//! events: Ir
//! summary: 6868
//!
//! ob=(5) work
//! fl=(146) work.c
//! fn=(536) main
//! 30 3                      cost line: line 30 of work.c, 3 Ir in main itself
//! +3 2                      line 33 (sub-position compression: +n, -n, * the same)
//! cfn=(538) parse_input     a call from main at the next cost line's position …
//! calls=1 -16               … made once, to parse_input's line 17 …
//! * 1218                    … costing 1218 Ir inclusive, at line 33
//! fn=(538)                  a name given before by its number
//! fi=(160) work.h           inlined code: these lines are in work.h
//! -14 2
//! fe=(146)
//! totals: 6868
//! ```
//!
//! **Grammar**: header lines `key: value` (`version`, `creator`, `pid`, `cmd`, `part`, `thread`,
//! `desc`, `positions`, `event` long names, `events`, `summary`, `totals`); body lines: `key=value`
//! assignments of the object (`ob`, `cob`), file (`fl`, `fi`, `fe`, `cfi`, `cfl`), function (`fn`,
//! `cfn`), calls (`calls=count target-position`, followed by the call's cost line) and jumps (`jump`,
//! `jcnd`, `jfi`, `jfn`: skipped); cost lines of positions (`positions:`, `line` by default, or
//! `instr line`: an address, decimal or `0x` hex, before the line) and then one count per event
//! (missing ones are 0). Names may be compressed: `(id) name` defines a number (files share one
//! table, functions one, objects one), `(id)` uses it, for the rest of the file. A position may be
//! `+n`, `-n` or `*`, relative to the same sub-position of the cost line before (the target position
//! of `calls=` is relative to it too, and changes nothing); so may a count, relative to the same
//! event's count of the cost line before, as speedscope's importer reads one (callgrind does not
//! write them; a file of another tool may). Comments (`#`) and blank lines anywhere.
//! `--combine-dumps=yes` files are several dumps one after the other, each with its header (`part:`,
//! `thread:` with `--separate-threads=yes`); compressed names hold across them.
//!
//! **Read**: every event is a metric of its own, named after it, of the kind `events` (an Ir is an
//! instruction, neither a sample nor time), additive integer counts, unless its name ends with a
//! unit: Xdebug's `Time_(10ns)` and `Memory_(bytes)`, `go tool pprof -callgrind`'s `cpu(ms)` and
//! `inuse_space(kB)` (pprof's units: `s`; `B`, `kB`, `MB`… 1024 apart) and the `time_ns` proftool
//! writes are time (Xdebug's counts of 10 ns and pprof's seconds and kB multiplied out) and bytes,
//! named without the unit, as is an
//! event whose long name ends with its unit in parentheses (`event: t : Wall time (elapsed ns)`); `calls` counts how often each call path entered a function (per node). A function
//! is its name (`fn=`) and the file its costs are in (`fl=`, or `fi=`/`fe=` for inlined lines), as
//! `callgrind_annotate` totals functions by `file:function`; a cost line is a source-line frame of its
//! function (line 0, no debug information: the function itself). The file holds a call graph, not a
//! tree: each function's inclusive cost is apportioned among its callers, as speedscope's importer
//! does (each visit of a function from a caller gets the share of its total that the call's
//! inclusive cost is, and its own costs and calls in that proportion), said once on stderr; then
//! each function's own cost per line, and each call edge's count, are shared out as whole numbers
//! that add up exactly to the file's (largest remainders). A call back into a function already on
//! the stack (recursion, callgrind's `fib'2`) is not expanded, nor a call whose share is below
//! half an event or a millionth of the total into a function expanded before (the first call into
//! a function is, however small); what such calls held is in the other visits of the
//! same functions, or, for a function no visit reaches, under a root of its own (said on stderr).
//! Threads (`thread:` of several dumps) are thread roots `thread N` where the file has more than one;
//! dumps of one thread (parts) add up. `cmd:` is the title; `creator`, `pid`, `part`, `desc` and
//! `event` header lines are kept as header facts `callgrind.…` in the order read (those of the first
//! dump). Object files (`ob=`) and instruction addresses are dropped (said on stderr; an object
//! number used without its definition, `cob=(8)`, is no error, as callgrind_annotate reads it, and
//! said). `summary:` and `totals:` are checked against the cost lines: a `summary:` above them in
//! every event (callgrind counts a couple of instructions of a whole run that it lists under no
//! function) puts the difference under a pseudo-root `(not in a listed function)`, so that the
//! totals are callgrind_annotate's PROGRAM TOTALS; any other difference is said on stderr (the
//! totals are the lines'). Errors name the line: a cost line before `events:` or `fn=`, more counts than
//! events, a relative count below 0, a file or function number used before it is defined, a `calls=` line without its cost line (a file
//! cut short), `fi=` before `fn=`, an unknown `key=`, a `version` other than 1.
//!
//! **Written**: `positions: line` and an event per additive metric, the primary one first (as
//! `callgrind_annotate` sorts by the first); samples, ticks and counts as they are, named after the
//! metric, other units with it (`time_ns`, `alloc_bytes`): time in whole nanoseconds; per function
//! (`fl=` its module, else `???`; `fn=` its name, both compressed) its own cost per line, then its
//! calls: `cfi=`/`cfn=`, `calls=` with the count of the profile's first per-node calls metric (at
//! least 1, which `callgrind_annotate` needs to see a call), and the call's inclusive cost at the line
//! it was made from; `summary:` and `totals:` the profile's totals; the title as `cmd:`. So
//! `callgrind_annotate` gives every function the self total `proftool summary` gives it.
//!
//! **Lost on write**: the tree's shape beyond caller and callee (stacks that share a function are
//! added up in its one entry: read back, they are apportioned again); inlined lines (`fi=`) are
//! written as a function of their own file (`fl=`), whose own totals `callgrind_annotate` gives
//! as it gave them, but which reads back as a root; threads (their frames dropped,
//! by the conversion step); per-node metrics other than calls; frame kinds; fractions of a
//! nanosecond; header facts but the title and the `callgrind.…` ones; what other formats know of a
//! frame (where it is defined).

mod graph;
mod read;
mod write;

use super::spec::{self, Carries, Reads, Rules, Sniff, Spec, Structure, Writes};
use crate::error::FormatName;
use crate::model::{MetricKind, Unit};

/// What its format is, how it is told and read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "callgrind",
    description: "Valgrind's callgrind profile (`valgrind --tool=callgrind`; its `callgrind.out.*` files by content); opens in `callgrind_annotate` and KCachegrind",
    extensions: &["callgrind"],
    carries: Carries {
        structure: Structure::Graph,
        // Every kind but timer inspections, in the order a profile is weighed by them.
        metrics: MetricKind::PREFERENCE.split_at(7).0,
        one_metric: false,
        source_lines: true,
        modules: true,
        title: true,
        name_replacements: &[('\n', ' '), ('\r', ' ')],
        time_unit: Some(Unit::Nanoseconds),
        ..Carries::STACKS_OF_SAMPLES
    },
    reads: Some(Reads::text(sniff, read::read)),
    writes: Some(Writes::new(write::write, Rules { says_which_metric_comes_first: true, ..spec::STACKS_ONLY })),
};

/// The file of a function whose cost lines come before any `fl=`, as callgrind writes a file it
/// has no debug information for.
const UNKNOWN_FILE: &str = "???";

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// `Yes` for callgrind's recommended first line (`# callgrind format`), a first header line that
/// only callgrind files have (`version: 1` followed by `creator:`, `events:` or `positions:`), or
/// the bare header `go tool pprof -callgrind` starts with (`positions:` or `events:`, then the other
/// or the first body line, `ob=`, `fl=`, `fn=`, after a blank line).
fn sniff(head: &[u8]) -> Sniff {
    let mut lines = head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let starts = |line: &[u8], keys: &[&[u8]]| keys.iter().any(|k| line.starts_with(k));
    let told = match lines.next() {
        Some(b"# callgrind format") => true,
        Some(first) if first.starts_with(b"version:") => {
            lines.next().is_some_and(|l| starts(l, &[b"creator:", b"events:", b"positions:", b"pid:", b"cmd:"]))
        }
        Some(first) if starts(first, &[b"positions:", b"events:"]) => {
            lines.find(|l| !l.is_empty()).is_some_and(|l| starts(l, &[b"events:", b"positions:", b"ob=", b"fl=", b"fn="]))
        }
        _ => false,
    };
    Sniff::yes_if(told)
}
