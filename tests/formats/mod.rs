//! Each format's own cases, a file a format: its reading and writing through the binary, its
//! options, its messages and bad inputs beyond the fixtures that golden.rs and roundtrip.rs walk.

// LispWorks profiler trees.
mod lispworks;

// Sampler files.
mod sampler;

// BR profiles.
mod br;

// Folded stacks.
mod folded;

// Dyalog's ]PROFILE reports, XML and CSV: one file, as their report kinds and rules are shared.
mod dyalog;

// GHC's -px output.
mod ghc_px;

// GHC's text reports (-p, -P).
mod ghc_prof;

// GHC's JSON profiles (-pj).
mod ghc_json;

// Flame graphs, written only.
mod svg;

// speedscope files.
mod speedscope;

// pprof profiles.
mod pprof;

// Linux perf script text.
mod perf;

// V8 CPU profiles.
mod cpuprofile;

// Chrome's trace events.
mod chrome_trace;
