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

// Each format's own cases: tests/formats/<format>.rs.
mod formats;

// The formats tables of README.md and docs/formats.md, made from the specs and docs/formats/.
mod doc_tables;

// proptest: arbitrary bytes never panic a reader; random profiles survive write → read.
mod properties;

// The `proftool` binary: files, pipes, signals, detection, limits, exit codes, no partial outputs.
mod cli;

// The reports on a Go CPU profile, against `go tool pprof`.
mod cli_go_reports;

// Conversions whatever the formats: totals across metric kinds, every fixture's stacks through
// every seed format, what a target has no place for said once.
mod conversions;

// The `proftool` binary on inputs as people keep them (byte-order marks, gzip, odd names, other
// tools' JSON), and its help, completions and manual.
mod cli_input;

// The reports (`info`, `summary`, `calls`, `tree`) and the filters shared with `convert`.
mod cli_reports;

// `proftool diff` (its table, the CI gate, differential outputs) and `proftool merge`.
mod cli_diff;

// What numbers mean across sources: metric kinds, the default metric, time and ticks, units.
mod cli_metrics;

// The reports as `]PROFILE` and the LispWorks profiler answer (issue 26): `summary --lines`, `calls`
// switches and shares, `data`, recursive callers, one total per profile, BR routines.
mod cli_profile_reports;
