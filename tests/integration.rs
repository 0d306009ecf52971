//! proftool's integration tests, in one binary (`cargo test`).

// Fixture discovery, golden comparison with PROFTOOL_BLESS, reading helpers.
mod support;

// Every fixture under fixtures/<format>/ reads to its hand-checked dump; every bad/ fixture fails
// with its expected message.
mod golden;

// diff's gate against sampling noise, by simulation: false alarms and power.
mod gate;

// diff's gate on real runs of one program, and on a real regression.
mod cli_gate;

// Every fixture through every writable format and back.
mod roundtrip;

// proptest: arbitrary bytes never panic a reader; random profiles survive write → read.
mod properties;

// The `proftool` binary: files, pipes, detection, exit codes, no partial outputs.
mod cli;

// The `proftool` binary on Dyalog reports: XML and CSV conversions, their options and messages.
mod cli_dyalog;

// The reports on a Go CPU profile, against `go tool pprof`.
mod cli_go_reports;

// The `proftool` binary on Dyalog summary reports: their own total and percentages, their overlap.
mod cli_dyalog_summary;

// The `proftool` binary on Dyalog data and summary reports as `]PROFILE` means them (issue 34):
// raw and adjusted times, inclusive-only summaries.
mod cli_dyalog_reports;

// The `proftool` binary on GHC profiles.
mod cli_ghc;

// Conversions between formats, checked against each target's own rules (Dyalog's alternating
// rows, totals across metric kinds, every fixture's stacks through every seed format).
mod cross_format;

// The `proftool` binary on inputs as people keep them (byte-order marks, gzip, odd names, other
// tools' JSON), and its help, completions and manual.
mod cli_input;

// The `proftool` binary on pprof and speedscope, as the viewers and other profilers (Go, py-spy)
// write them, and against `go tool pprof`.
mod cli_viewers;

// GHC -px output against the seed parser's grammar, whatever the source.
mod ghc_px_seed;

// Flame graphs drawn from the model match inferno's from the whole folded text.
mod svg;

// The reports (`summary`, `calls`, `tree`) and the filters shared with `convert`.
mod cli_reports;

// `proftool diff` (its table, the CI gate, differential outputs) and `proftool merge`.
mod cli_diff;

// What numbers mean across sources: metric kinds, the default metric, time and ticks.
mod cli_metrics;

// The reports as `]PROFILE` and the LispWorks profiler answer (issue 26): `summary --lines`, `calls`
// switches and shares, `data`, recursive callers, one total per profile, BR routines.
mod cli_profile_reports;

// The `proftool` binary on perf script text, V8 .cpuprofile and Chrome trace events.
mod cli_world;

// Chrome traces and V8 CPU profiles against speedscope's importers and DevTools' rules.
mod chrome_world;

// Formats against their own tools, a module each (callgrind against callgrind_annotate).
mod formats;
