//! Shared helpers: fixtures, dumps with warnings, golden files, folded text; running the binary;
//! pprof's messages.

pub mod binary;
pub mod gate_simulation;
pub mod pprof_proto;

use proftool::convert::{Convert, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::model::dump::dump;
use proftool::{Format, Profile, ReadOptions};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The fixtures folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The inputs in `dir`: the files with one of `format`'s extensions (expected outputs, notes and
/// the scripts that made binary fixtures live beside them).
fn inputs_in(dir: &Path, format: Format) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
    files.retain(|p| p.is_file() && proftool::formats::detect::by_extension(p).contains(&format));
    files.sort();
    files
}

/// Every good fixture: (its format, its path), for every readable format.
pub fn good_fixtures() -> Vec<(Format, PathBuf)> {
    Format::ALL
        .iter()
        .filter(|f| f.can_read())
        .flat_map(|&f| inputs_in(&fixtures_dir().join(f.name()), f).into_iter().map(move |p| (f, p)))
        .collect()
}

/// Every bad fixture: (its format, its path).
pub fn bad_fixtures() -> Vec<(Format, PathBuf)> {
    Format::ALL
        .iter()
        .filter(|f| f.can_read())
        .flat_map(|&f| inputs_in(&fixtures_dir().join(f.name()).join("bad"), f).into_iter().map(move |p| (f, p)))
        .collect()
}

/// Reads `bytes` as `format`, with default options (Sampler frame order decided from the data), as
/// proftool reads a file of that format.
pub fn read_bytes(format: Format, bytes: &[u8]) -> (Result<Profile, proftool::Error>, Diagnostics) {
    read_bytes_with(format, bytes, &ReadOptions::default())
}

/// Reads `bytes` as `format` with `options`.
pub fn read_bytes_with(
    format: Format,
    bytes: &[u8],
    options: &ReadOptions,
) -> (Result<Profile, proftool::Error>, Diagnostics) {
    let mut diag = Diagnostics::default();
    // As proftool reads a file: a text format's without its byte-order mark, UTF-16 decoded.
    let input = proftool::files::Input::from_bytes(bytes.to_vec());
    let mut reader = match proftool::formats::detect::reads_text(format) {
        true => input.into_text_reader(),
        false => input.into_reader(),
    };
    let result = format.read(&mut reader, options, &mut diag);
    (result, diag)
}

/// The options that read back what proftool wrote: Sampler stacks in the order it writes them.
pub fn own_output() -> ReadOptions {
    let mut options = ReadOptions::default();
    options
        .formats
        .set(proftool::formats::sampler::Options { order: proftool::formats::sampler::FrameOrder::LeafFirst });
    options
}

/// Reads a fixture file as `format`, panicking on failure (good fixtures must read).
pub fn read_fixture(format: Format, path: &Path) -> (Profile, Diagnostics) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (result, diag) = read_bytes(format, &bytes);
    let profile = result.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (profile, diag)
}

/// The model dump followed by the reader's warnings.
pub fn dump_with_warnings(profile: &Profile, diag: &Diagnostics) -> String {
    let mut text = dump(profile);
    if !diag.warnings().is_empty() {
        text.push_str("warnings:\n");
        for w in diag.warnings() {
            let _ = writeln!(text, "  {w}");
        }
    }
    text
}

/// Compares `actual` with the golden file `expected`, or rewrites it under `PROFTOOL_BLESS=1`.
/// A missing golden file is written and still counts as a failure, so that it gets reviewed.
pub fn check_golden(expected: &Path, actual: &str, failures: &mut Vec<String>) {
    let bless = std::env::var_os("PROFTOOL_BLESS").is_some_and(|v| v == "1");
    match std::fs::read_to_string(expected) {
        Ok(want) if want == actual => {}
        Ok(_) if bless => write_golden(expected, actual),
        Ok(want) => failures.push(format!("{}:\n{}", expected.display(), first_difference(&want, actual))),
        Err(_) => {
            write_golden(expected, actual);
            if !bless {
                failures.push(format!("{}: missing; written now, review it", expected.display()));
            }
        }
    }
}

fn write_golden(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let n = w.len().max(g.len());
    for i in 0..n {
        let (a, b) = (w.get(i).copied(), g.get(i).copied());
        if a != b {
            return format!(
                "  line {}:\n    expected: {a:?}\n    actual:   {b:?}\n--- actual output ---\n{got}",
                i + 1
            );
        }
    }
    "  (differs only in line endings)".into()
}

/// Fails with every collected message.
pub fn assert_no_failures(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

/// `profile` as folded text, its time divided at `interval` where it has one.
pub fn folded(profile: &Profile, interval: Option<std::time::Duration>) -> String {
    if profile.tree.is_empty() {
        // No stack at all (folded refuses it).
        return String::new();
    }
    let mut out = Vec::new();
    let options = ConvertOptions::new(interval);
    Format::Folded.write(profile.clone(), &mut out, &options, &mut Diagnostics::default()).unwrap();
    String::from_utf8(out).unwrap()
}

/// The lines of a text, sorted: folded stacks in any order.
pub fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}
