//! Each format's own cases, a file a format, the modules sorted by name (a new format's line goes
//! in its place, not at the end, where two branches adding one would meet): its
//! reading and writing through the binary, its options, its messages and bad inputs beyond its
//! fixtures, conversions into it. Its fixtures' dumps, round trips and properties are generic:
//! golden.rs, roundtrip.rs and properties.rs walk `Format::ALL`.

// art-trace: Android ART method traces, read only, figures checked by hand.
mod art_trace;

// bpftrace: bpftrace stack maps, read only, against stackcollapse-bpftrace.pl.
mod bpftrace;

// br: BR profiles.
mod br;

// callgrind: Valgrind's callgrind files, against callgrind_annotate.
mod callgrind;

// chrome-trace: Chrome's trace events.
mod chrome_trace;

// cpuprofile: V8 CPU profiles.
mod cpuprofile;

// dhat: valgrind's DHAT profiles, read only, against the figures of their JSON.
mod dhat;

// dtrace: DTrace stack aggregations, read only, against inferno-collapse-dtrace.
mod dtrace;

// dyalog-xml and dyalog-csv: Dyalog's ]PROFILE reports, one file as they share kinds and rules.
mod dyalog;

// firefox: the Firefox Profiler's processed profile, read and written at a pinned version.
mod firefox;

// folded: folded stacks.
mod folded;

// gecko: Firefox's Gecko profile JSON (saved recordings of Firefox <= 63), read only.
mod gecko;

// ghc-json: GHC's JSON profiles (-pj).
mod ghc_json;

// ghc-prof: GHC's text reports (-p, -P).
mod ghc_prof;

// ghc-px: GHC's -px output.
mod ghc_px;

// gprof: GNU gprof's text reports, read only, against gprof's own flat profile and call graph.
mod gprof;

// heapprofile: V8's sampling heap profiles, read only.
mod heapprofile;

// hprof: HPROF's CPU samples, read only, against gprof2dot's reading.
mod hprof;

// html: the viewer page, written only (its browser tests are .ci/html-viewer.mjs).
mod html;

// jfr: JDK Flight Recorder recordings, read only, against the JDK's jfr summary and jfr print.
mod jfr;

// lispworks: LispWorks profiler trees.
mod lispworks;

// macos-sample: macOS sample reports, read only, against inferno-collapse-sample.
mod macos_sample;

// massif: valgrind's massif profiles, read only, against ms_print.
mod massif;

// otlp and otlp-json: OpenTelemetry profiles, protobuf and OTLP/JSON, one file as they share a
// reader and a writer, against the pprof files the fixtures were converted from.
mod otlp;

// perf: Linux perf script text.
mod perf;

// perfetto: Perfetto traces (protobuf), read only, against figures worked out by hand.
mod perfetto;

// pmcstat: FreeBSD pmcstat call graphs, read only, against stackcollapse-pmc.pl and speedscope.
mod pmcstat;

// pprof: pprof's protocol buffers.
mod pprof;

// pprof-legacy: pprof's legacy profiles (gperftools' CPU and heap), read only, against go tool pprof.
mod pprof_legacy;

// pstats: Python's pstats files (cProfile, profile), read only, against pstats's print_stats.
mod pstats;

// safari: Safari's timeline recordings, read only, against speedscope.
mod safari;

// sampler: Sampler files.
mod sampler;

// simpleperf: simpleperf's report_sample protobuf, read only, figures checked by hand.
mod simpleperf;

// sleepy: Very Sleepy's captures, read only, against gprof2dot's reading.
mod sleepy;

// speedscope: speedscope's JSON files.
mod speedscope;

// stackprof: Ruby's stackprof JSON, read only.
mod stackprof;

// svg: flame graphs, written only.
mod svg;

// v8-log: V8's tick logs (node --prof), read only, against node --prof-process.
mod v8_log;

// vsprof: Visual Studio's call tree summary CSV, read only, against inferno-collapse-vsprof.
mod vsprof;

// vtune: Intel VTune's top-down CSV, read only, against inferno-collapse-vtune.
mod vtune;

// xctrace: Instruments' Time Profiler exports, read only, against inferno-collapse-xctrace.
mod xctrace;

// xperf: xperf's exported CPU sampling table, read only, against gprof2dot's reading.
mod xperf;
