//! Shared helpers: fixtures, dumps with warnings, golden files, folded text; running the binary;
//! pprof's messages.

pub mod binary;
pub mod gate_simulation;
pub mod pprof_proto;

use proftool::convert::{self, ConvertOptions};
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
    convert::write(profile.clone(), Format::Folded, &mut out, &options, &mut Diagnostics::default()).unwrap();
    String::from_utf8(out).unwrap()
}

/// The lines of a text, sorted: folded stacks in any order.
pub fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

/// Whether `document` is well-formed XML 1.0 as far as its characters go: quick-xml reads it to
/// its end (tags closed in order, attributes and references that parse), and every character of
/// it, and of what each reference in its text and attributes stands for, is one XML 1.0 allows
/// (its `Char` production: no C0 control character but tab, line feed and carriage return, no
/// U+FFFE or U+FFFF), which quick-xml does not check. `Err` says what is wrong where.
pub fn well_formed_xml(document: &str) -> Result<(), String> {
    use quick_xml::events::Event;
    let allowed = |text: &str, what: &str| match text
        .chars()
        .find(|&c| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}'))
    {
        Some(c) => Err(format!("{what} holds U+{:04X}, which XML 1.0 cannot carry: {text:?}", c as u32)),
        None => Ok(()),
    };
    allowed(document, "the document")?;
    let mut reader = quick_xml::Reader::from_str(document);
    reader.config_mut().check_end_names = true;
    loop {
        let event = reader.read_event().map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match &event {
            Event::Start(tag) | Event::Empty(tag) => {
                for attribute in tag.attributes() {
                    let attribute = attribute.map_err(|e| format!("an attribute: {e}"))?;
                    let value = attribute
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map_err(|e| format!("an attribute's value: {e}"))?;
                    allowed(&value, "an attribute's value")?;
                }
            }
            Event::Text(text) => {
                let text = text.decode().map_err(|e| format!("a text: {e}"))?;
                let unescaped = quick_xml::escape::unescape(&text).map_err(|e| format!("a text: {e}"))?;
                allowed(&unescaped, "a text")?;
            }
            // A reference in a text (`&#1;`, `&amp;`): a character one must be one XML allows.
            Event::GeneralRef(reference) => {
                let character = reference.resolve_char_ref().map_err(|e| format!("a reference: {e}"))?;
                allowed(&character.map(String::from).unwrap_or_default(), "a reference")?;
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// A speedscope file whose frames are named `f` and one character of each of U+0000 to U+001F
/// (`f\u{0}` … `f\u{1f}`), each frame a sample of its own weighing 1 more than the one before, its
/// title `t\u{1}`: names that XML cannot carry.
pub fn control_character_names() -> Vec<u8> {
    let frames: Vec<serde_json::Value> =
        (0u32..32).map(|c| serde_json::json!({ "name": format!("f{}", char::from_u32(c).unwrap()) })).collect();
    let samples: Vec<Vec<u32>> = (0..32).map(|c| vec![c]).collect();
    let weights: Vec<u32> = (1..=32).collect();
    let document = serde_json::json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "name": "t\u{1}",
        "shared": { "frames": frames },
        "profiles": [{ "type": "sampled", "name": "main", "unit": "none", "startValue": 0, "endValue": 528,
                       "samples": samples, "weights": weights }]
    });
    serde_json::to_vec(&document).unwrap()
}
