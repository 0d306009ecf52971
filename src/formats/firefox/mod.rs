//! The Firefox Profiler's processed profile JSON (profiler.firefox.com), as samply writes it through
//! the crate `fxprof-processed-profile`: written at version 55 (`meta.preprocessedProfileVersion`
//! 55, `meta.version` 24, those of fxprof-processed-profile 0.8.1), read at versions 0 to 70 (the
//! profiler's own of today), whose tables hold the columns read here, in the places said below
//! (versions below 41 upgraded first, `upgrade.rs`).
//!
//! ```text
//! {"meta":{"interval":1.0,"preprocessedProfileVersion":55,"version":24,"product":"work",
//!   "categories":[{"name":"Other","color":"grey","subcategories":["Other"]},…],…},
//!  "libs":[],
//!  "threads":[{"name":"work","pid":"1","tid":1,"processType":"default",…,
//!    "samples":{"length":2,"weightType":"samples","stack":[1,2],"time":[0,1],"weight":[1,1]},
//!    "stackTable":{"length":3,"prefix":[null,0,0],"frame":[0,1,2]},
//!    "frameTable":{"length":3,"func":[0,1,2],"line":[null,4,null],"column":[null,null,null],
//!      "category":[0,0,0],"subcategory":[0,0,0],"address":[-1,-1,-1],…},
//!    "funcTable":{"length":3,"name":[0,1,2],"fileName":[null,3,null],"lineNumber":[null,3,null],
//!      "columnNumber":[null,null,null],"resource":[-1,-1,-1],"isJS":[…],"relevantForJS":[…]},
//!    "resourceTable":{…},"nativeSymbols":{…},"markers":{…},
//!    "stringArray":["main","leaf","fib","work.c"]}],…}
//! ```
//!
//! **Schema** (the profiler's `src/types/profile.js` at version 55): each table is columns of one
//! `length`. A sample is its `stack` (or `null`), its `time` in ms (or, from version 50, its
//! `timeDeltas`) and its `weight` (`null`: 1 each) of the thread's `weightType`: `samples`,
//! `tracing-ms` (ms of time) or `bytes`. A stack is its `prefix` (its caller's stack, an earlier
//! one) and its `frame`; a frame its `func`, the `line` and `column` it is at, its `category` (an
//! index into `meta.categories`) and `subcategory`; a function its `name` (an index into the
//! thread's `stringArray`), its `fileName`, the `lineNumber` and `columnNumber` it is defined at, and
//! its `resource` (a library or a script's host, with a `name`). `meta.interval` is the sampling
//! interval in ms, `meta.product` the program. Later versions move the tables, which are read where
//! each version has them: the strings in `profile.shared.stringArray` from version 56, a function's
//! file as a `source` of `profile.shared.sources` (its `filename`) from 58, the stack, frame,
//! function and resource tables in `profile.shared` (every thread's samples pointing into them) from
//! 60, a stack's caller as its `prefixOffset` (how many stacks before it; 0: none) from 66. Versions
//! below 41 name threads, functions, files and weights otherwise: they are upgraded as the
//! profiler's upgraders change them (`upgrade.rs`). A file of version 0 states none: its `meta`
//! comes first and its threads hold a `stringArray` (a Gecko profile's a `stringTable`), as the
//! profiler tells one; samply's keys may come sorted (`libs` before `meta`).
//!
//! **Model**: each thread a thread root named after it (a second thread of one name gets
//! ` (tid N)` after it); its stacks below it; a sample with no stack left out, as the profiler's call
//! tree leaves it out (their number said on stderr). A frame is a function named by its `name`, its
//! module the function's `fileName`, else its resource's name (the library of an unsymbolicated
//! address, as samply writes them, which also names it as the profiler does: `libc.so.6!0x27249`); where the frame has a `line` a
//! source-line frame (its `column` the clause); where the function has a `fileName` and a
//! `lineNumber`, where it is defined ([`crate::model::DEFINED_AT`]); its category's name the frame
//! fact `firefox.category`. Metrics by weight type: `samples` (a count of samples, at
//! `meta.interval`, the profile's interval), `time` in ms (`tracing-ms`), `size` in bytes (`bytes`).
//! `meta.product` is the title. **Timeline**: each sample at its time (`samples.time`, or its
//! `timeDeltas` added up, from `meta.startTime`), a count of samples of its weight, any other weight
//! one; starting where the first thread with samples starts (`registerTime`: `meta.startTime` is
//! the clock's zero, hours before a samply recording's threads start), else at the first sample,
//! and ending where the last thread ends (`unregisterTime`, else `processShutdownTime`), else at
//! the last sample; none where a sample has no time.
//!
//! **Errors**: JSON errors at their line and column; a version above 70 (naming the versions
//! read); a sample, stack, frame, function or string index out of its table, a prefix that is not an
//! earlier stack, columns shorter than their table's `length`, and an unknown `weightType`, each
//! naming the place as a JSON path.
//!
//! **Written** (version 55, the columns its types require): a thread per thread root (the roots
//! that are not threads together in one thread named after the title, else `proftool`); a stack per
//! node, a frame per function and line (its category from `firefox.category`, else `Other`), a
//! function per name, module and place of definition (`fileName`, `lineNumber`, `columnNumber`);
//! the samples of the profile's timeline at their times (from `meta.startTime`, the timeline's
//! start), each weighing its share of its node's value, where the timeline holds all of the metric
//! written; else a sample per node with a value, weighed by it, at a running time (in whole ns):
//! each count of samples one interval long (the profile's, else `--interval`, else 1 ms), time as
//! long as it is, bytes one interval each; every thread ending where the last ends; a thread's own value (which would be a sample with no stack, in none of the
//! profiler's call trees) under a frame named as the thread, said on stderr. Empty markers, native symbols, resources and libraries.
//!
//! **Lost**: the order of samples in time and their times where the profile has no timeline, markers, counters, `threadCPUDelta`,
//! libraries and addresses, JS and native allocations, subcategories, pages, processes (their
//! threads are kept); the markers, CPU time and allocations a file holds are said on stderr.

mod document;
mod read;
mod symbols;
mod upgrade;
mod write;

use super::json;
use super::options::ConvertOptions;
use super::spec::{self, Carries, JsonKind, Reads, Rules, Spec, Writes};
use crate::diag::Diagnostics;
use crate::error::FormatName;
use crate::model::{ops, FrameKind, FrameRef, MetricKind, NodeId, Profile, Repr, Timeline, Unit, Value, DEFINED_AT};
use serde::{Deserialize, Serialize};

/// What its format is, how it is told, read and written, and what a conversion to it does.
pub(crate) const SPEC: Spec = Spec {
    name: "firefox",
    description: "the Firefox Profiler's processed profile (samply's): written at version 55, read at 0–70 (older ones upgraded as the profiler does); opens at profiler.firefox.com",
    extensions: &["firefox.json"],
    carries: Carries {
        threads: true,
        thread_roots: true,
        metrics: &[MetricKind::Samples, MetricKind::Time, MetricKind::Alloc],
        // One weight per sample, but a weight of time in ms with fractions: [`fit`] keeps the one.
        one_metric: false,
        source_lines: true,
        modules: true,
        title: true,
        interval: true,
        time_unit: Some(Unit::Milliseconds),
        timeline: true,
        ..Carries::TREE_OF_SAMPLES
    },
    reads: Some(Reads::json(
        JsonKind {
            what: "a Firefox Profiler processed profile",
            aside: " (the Firefox Profiler's)",
            check,
        },
        |input, options, diag| read::read(input, options.path.as_deref(), diag),
    )),
    writes: Some(Writes::new(write::write, Rules {
            fit,
            fit_roots,
            // It holds the one metric it is weighed by.
            says_which_metric_comes_first: true,
            keeps_facts: &[DEFINED_AT],
            merges_siblings: true,
            ..spec::STACKS_ONLY
        })),
};

/// The format's name in errors and warnings.
const FORMAT: FormatName = SPEC.format_name();

/// The version written: `meta.preprocessedProfileVersion` and `meta.version`, as
/// fxprof-processed-profile 0.8.1 writes them.
const WRITTEN_VERSION: (u32, u32) = (55, 24);

/// The versions read: their tables hold the columns read, where `read::Tables` finds them (those
/// below [`UPGRADED_FROM`] upgraded first, `upgrade.rs`); 0 is a file that states none.
const READ_VERSIONS: std::ops::RangeInclusive<u64> = 0..=70;

/// The first version read as it is: those below are upgraded to it first (`upgrade.rs`).
const UPGRADED_FROM: u64 = 41;

/// The frame fact of a frame's category.
const CATEGORY: &str = "firefox.category";

/// The category a frame without one is written in: the profiler's default, the first grey one.
const DEFAULT_CATEGORY: &str = "Other";

/// What a processed profile should be, for serde's errors.
const EXPECTED: &str =
    "a Firefox Profiler processed profile (meta, threads with samples, stackTable, frameTable, funcTable, stringArray)";

/// Whether the input is a JSON object whose `meta` states a `preprocessedProfileVersion` (first, as
/// samply and the profiler write it, or later, its keys sorted), or whose `meta` comes first and
/// whose threads hold a `stringArray` (version 0, before the version was stated, as the profiler
/// tells one); if not, why not.
fn check(head: &[u8]) -> Result<(), &'static str> {
    let head = json::Head::of(head);
    let members = head.object()?;
    let meta_first = members.starts_with(b"\"meta\"");
    let versioned = head.mentions(b"\"preprocessedProfileVersion\"");
    match (meta_first, versioned) {
        (_, true) if head.mentions(b"\"meta\"") => Ok(()),
        (true, false) if head.mentions(b"\"stringArray\"") => Ok(()),
        (true, _) => Err("a \"meta\" without a \"preprocessedProfileVersion\" or threads with a \"stringArray\""),
        (false, _) => Err("no \"meta\" with a \"preprocessedProfileVersion\""),
    }
}

/// Every stack in a thread: the roots that are not threads under one thread named after the title
/// (else `main`); every other frame that is not code becomes a function of its name, as the file
/// has no kinds.
fn fit_roots(profile: &mut Profile) {
    let tree = &profile.tree;
    if tree.roots().any(|r| profile.frames.get(tree.frame(r)).kind != FrameKind::Thread) {
        let name = profile.meta.title.clone().unwrap_or_else(|| "main".into());
        let thread = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        *profile = ops::adopt_roots(profile, thread, |frame| frame.kind != FrameKind::Thread);
    }
    ops::make_functions(profile, ops::is_nested_non_code);
}

/// A thread's own value (a sample with no frame below the thread: a LispWorks process's own, a perf
/// sample with no call chain) would be a sample with no stack, which the profiler's call tree leaves
/// out: it goes to a frame below the thread named as the thread, as folded stacks write it (`FIB
/// process 15`), said on stderr.
fn keep_threads_own_values(profile: &mut Profile, diag: &mut Diagnostics) {
    let own: Vec<NodeId> =
        profile.tree.roots().filter(|&root| profile.tree.self_value(0, root).as_f64() != 0.0).collect();
    if own.is_empty() {
        return;
    }
    let zero = match profile.metrics()[0].repr {
        Repr::Int => Value::Int(0),
        Repr::Float => Value::Float(0.0),
    };
    let frames: Vec<_> = (own.iter())
        .map(|&root| {
            let name = profile.frame_name(profile.tree.frame(root)).into_owned();
            profile.frames.intern(FrameRef::function(&name))
        })
        .collect();
    // A thread may have such a frame below it already (a nested thread of its name): its node.
    let mut below: Vec<Option<NodeId>> = vec![None; own.len()];
    let mut own_index: Vec<Option<usize>> = vec![None; profile.tree.len()];
    own.iter().enumerate().for_each(|(i, root)| own_index[root.index()] = Some(i));
    for node in profile.tree.nodes() {
        if let Some(i) = profile.tree.parent(node).and_then(|p| own_index[p.index()]) {
            if profile.tree.frame(node) == frames[i] {
                below[i] = Some(node);
            }
        }
    }
    for (i, &root) in own.iter().enumerate() {
        let value = profile.tree.self_value(0, root);
        let node = below[i].unwrap_or_else(|| profile.tree.push(Some(root), frames[i]));
        profile.tree.add_self(0, node, value);
        profile.tree.set_self(0, root, zero);
        if let Some(timeline) = &mut profile.timeline {
            timeline.move_samples(root, node);
        }
    }
    let (n, metric) = (own.len(), profile.metrics()[0].name.clone());
    diag.warn("firefox-no-stack", None, || {
        format!("firefox: the {metric} of {n} threads' own (no frame below the thread) written under a frame named as the thread: a sample with no stack is in none of the profiler's call trees")
    });
}

/// Keeps the one metric a thread's samples are weighed by (the chosen one, else the one the
/// profile is weighed by), naming the others as dropped (GHC ticks are time by then: the
/// conversion turns counts it does not hold into time).
/// (Siblings of one frame are one node already: `merges_siblings`.)
fn fit(mut profile: Profile, _: &ConvertOptions, diag: &mut Diagnostics) -> Profile {
    let Some(kept) = profile.meta.chosen_metric.or_else(|| profile.primary_metric()) else {
        return profile;
    };
    let keep: Vec<bool> = (0..profile.metrics().len()).map(|m| m == kept).collect();
    let dropped: Vec<&str> = (profile.metrics().iter().enumerate())
        .filter(|&(m, _)| m != kept)
        .map(|(_, metric)| metric.name.as_str())
        .collect();
    if !dropped.is_empty() {
        let (dropped, kept) = (dropped.join(", "), &profile.metrics()[kept].name);
        diag.warn("firefox-one-weight", None, || {
            format!("firefox weighs samples by one number: {dropped} dropped (writing {kept})")
        });
    }
    profile.retain_metrics(&keep);
    keep_threads_own_values(&mut profile, diag);
    if Timeline::drop_unless_holding(&mut profile.timeline, &profile.tree, 0) {
        let metric = &profile.metrics()[0].name;
        diag.warn("timeline-partial", None, || {
            format!("firefox: the {metric} of some nodes is in none of the timeline's samples: the samples are written in tree order, not at their times")
        });
    }
    profile
}

/// A category of frames: its name, color and subcategories, as `meta.categories` holds them.
#[derive(Deserialize, Serialize)]
struct Category {
    name: String,
    color: String,
    subcategories: Vec<String>,
}
