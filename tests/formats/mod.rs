//! Each format's own cases, a file a format, in the order `proftool formats` lists them: its
//! reading and writing through the binary, its options, its messages and bad inputs beyond its
//! fixtures, conversions into it. Its fixtures' dumps, round trips and properties are generic:
//! golden.rs, roundtrip.rs and properties.rs walk `Format::ALL`.

// lispworks: LispWorks profiler trees.
mod lispworks;

// folded: folded stacks.
mod folded;

// sampler: Sampler files.
mod sampler;

// dyalog-xml and dyalog-csv: Dyalog's ]PROFILE reports, one file as they share kinds and rules.
mod dyalog;

// br: BR profiles.
mod br;

// ghc-px: GHC's -px output.
mod ghc_px;

// ghc-prof: GHC's text reports (-p, -P).
mod ghc_prof;

// ghc-json: GHC's JSON profiles (-pj).
mod ghc_json;

// svg: flame graphs, written only.
mod svg;

// speedscope: speedscope's JSON files.
mod speedscope;

// pprof: pprof's protocol buffers.
mod pprof;

// perf: Linux perf script text.
mod perf;

// cpuprofile: V8 CPU profiles.
mod cpuprofile;

// chrome-trace: Chrome's trace events.
mod chrome_trace;

// callgrind: Valgrind's callgrind files, against callgrind_annotate.
mod callgrind;

// heapprofile: V8's sampling heap profiles, read only.
mod heapprofile;

// stackprof: Ruby's stackprof JSON, read only.
mod stackprof;

// firefox: the Firefox Profiler's processed profile, read and written at a pinned version.
mod firefox;

// gecko: Firefox's Gecko profile JSON (saved recordings of Firefox <= 63), read only.
mod gecko;

// dtrace: DTrace stack aggregations, read only, against inferno-collapse-dtrace.
mod dtrace;

// macos-sample: macOS sample reports, read only, against inferno-collapse-sample.
mod macos_sample;

// xctrace: Instruments' Time Profiler exports, read only, against inferno-collapse-xctrace.
mod xctrace;

// bpftrace: bpftrace stack maps, read only, against stackcollapse-bpftrace.pl.
mod bpftrace;

// pmcstat: FreeBSD pmcstat call graphs, read only, against stackcollapse-pmc.pl and speedscope.
mod pmcstat;

// safari: Safari's timeline recordings, read only, against speedscope.
mod safari;

// dhat: valgrind's DHAT profiles, read only, against the figures of their JSON.
mod dhat;

// massif: valgrind's massif profiles, read only, against ms_print.
mod massif;

// html: the viewer page, written only (its browser tests are .ci/html-viewer.mjs).
mod html;
// jfr: JDK Flight Recorder recordings, read only, against the JDK's jfr summary and jfr print.
mod jfr;
