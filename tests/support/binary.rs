//! Running the `proftool` binary: the command, fixture paths, temporary folders, runs that must
//! succeed or fail, and what they print.

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `proftool` binary of this build.
pub fn proftool() -> Command {
    Command::cargo_bin("proftool").unwrap()
}

/// The path of fixture `rel` (`format/case.ext`).
pub fn fixture(rel: &str) -> PathBuf {
    super::fixtures_dir().join(rel)
}

/// Runs `proftool <args> <input> -`, which must succeed, and returns (stdout, stderr).
pub fn run_bytes(args: &[&str], input: &Path) -> (Vec<u8>, String) {
    let out = proftool().args(args).arg(input).arg("-").assert().success();
    let output = out.get_output();
    (output.stdout.clone(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// [`run_bytes`] for a text output.
pub fn run(args: &[&str], input: &Path) -> (String, String) {
    let (stdout, stderr) = run_bytes(args, input);
    (String::from_utf8(stdout).unwrap(), stderr)
}

/// Runs `proftool <args> - -` with `stdin` as the input, which must succeed, and returns (stdout,
/// stderr).
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> (String, String) {
    let out = proftool().args(args).arg("-").arg("-").write_stdin(stdin).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// A new temporary folder, removed with the guard.
pub fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Every file in `dir`, to show that a failed run left nothing behind.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The stderr of a run that must fail with exit code 1.
pub fn failure(command: &mut Command) -> String {
    String::from_utf8(command.assert().code(1).get_output().stderr.clone()).unwrap()
}

/// (stdout, stderr) of `proftool convert --to folded <input> -`, which must succeed.
pub fn to_folded(input: &Path) -> (String, String) {
    let out = proftool().args(["convert", "--to", "folded"]).arg(input).arg("-").assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// The stacks of `fixture` as folded text (`stack weight`) without stacks of no weight, and (where
/// `threads`) without the thread roots: speedscope makes a profile of each thread.
pub fn stacks(fixture_path: &str, threads: bool) -> BTreeMap<String, i64> {
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture(fixture_path));
    out.lines()
        .filter_map(|line| {
            let (stack, weight) = line.rsplit_once(' ')?;
            let below = if threads { stack.split_once(';')?.1 } else { stack };
            Some((below.to_string(), weight.parse().ok()?)).filter(|(_, w)| *w != 0)
        })
        .collect()
}

/// The stdout of `program ARGS PATH`, where `program` is installed (it answers `--help`): another
/// tool's reading of the same file. `None`, with a note, where it is not.
pub fn output_of_installed(program: &str, args: &[&str], path: &Path) -> Option<String> {
    let installed = std::process::Command::new(program).arg("--help").output();
    if !installed.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: {program} not found");
        return None;
    }
    let output = std::process::Command::new(program).args(args).arg(path).output().unwrap();
    assert!(output.status.success(), "{program} failed on {}", path.display());
    Some(String::from_utf8(output.stdout).unwrap())
}

/// `proftool info` of a fixture: (stdout, stderr).
pub fn info(fixture_path: &str) -> (String, String) {
    let out = proftool().arg("info").arg(fixture(fixture_path)).assert().success();
    let output = out.get_output();
    (String::from_utf8(output.stdout.clone()).unwrap(), String::from_utf8(output.stderr.clone()).unwrap())
}

/// The samples of `path` written by `proftool convert --to firefox` at their times: each thread's
/// sample times (ms from `meta.startTime`) as µs since the clock's zero, rounded, sorted.
pub fn firefox_sample_micros(path: &Path) -> Vec<i64> {
    let (out, _) = run(&["convert", "-q", "--to", "firefox"], path);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let start = json["meta"]["startTime"].as_f64().unwrap();
    let mut micros: Vec<i64> = (json["threads"].as_array().unwrap().iter())
        .flat_map(|t| t["samples"]["time"].as_array().unwrap().iter())
        .map(|ms| ((start + ms.as_f64().unwrap()) * 1000.0).round() as i64)
        .collect();
    micros.sort_unstable();
    micros
}

/// The records of a `perf script` text with call chains, read here: each one's command (its
/// spaces as `_`, as the thread is named), its time in µs, and its frames' symbols without their
/// offsets, innermost first.
pub fn perf_records(path: &str) -> Vec<(String, i64, Vec<String>)> {
    let text = std::fs::read_to_string(fixture(path)).unwrap();
    let mut records = Vec::new();
    for record in text.split("\n\n").filter(|r| !r.trim().is_empty()) {
        let mut lines = record.lines();
        let (head, _) = lines.next().unwrap().split_once(":    ").unwrap();
        let (comm_tid, seconds) = head.rsplit_once("  ").unwrap();
        let comm = comm_tid.rsplit_once(' ').unwrap().0.replace(' ', "_");
        let (whole, fraction) = seconds.split_once('.').unwrap();
        let micros = whole.parse::<i64>().unwrap() * 1_000_000 + fraction.parse::<i64>().unwrap();
        let frames = lines.map(|line| {
            let frame = line.split_whitespace().nth(1).unwrap();
            frame.split_once("+0x").map_or(frame, |(symbol, _)| symbol).to_string()
        });
        records.push((comm, micros, frames.collect()));
    }
    records
}
