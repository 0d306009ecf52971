//! Format detection: the only place that decides which format an input or output is.
//!
//! Input: `--from` wins; else the content sniffers (a single `Yes` decides; several are settled by the
//! extension); else the extension, when it names one format or only one of the formats it names
//! does not reject the content (a rejected file is still read as its extension's one format, with a
//! warning, so that its reader says what is wrong); else, for a file without a known extension, a
//! single `Maybe`; else an error that lists the candidates. Output: `--to`, else the extension. Output detection
//! never looks at content.
//!
//! Before all of that, JSON is told apart by its keys, each JSON format's check (its contract's
//! `Encoding::Json`) on its first bytes: JSON of a format proftool reads goes on to be detected
//! (or read as named; one named as another of them is refused with what it is). JSON no
//! check takes is read as the one JSON format its extension names, if it names one (with a warning
//! of what the check missed), so that the reader says where it is wrong; any other is refused, even
//! under `--from` a format that is not JSON, with where each check failed and, when the whole input
//! is there to see, whether it ends before its JSON closes (cut short). An extension that names only
//! formats proftool writes (`.svg`) is refused as such. Text formats are sniffed as their readers get
//! them: UTF-16 decoded, without a leading byte-order mark, CRLF as LF ([`reads_text`],
//! `text::sniffable`); an input path ending in `.gz` is also matched by the name inside it.

use super::spec::{Encoding, JsonKind, Sniff};
use super::Format;
use crate::diag::Diagnostics;
use crate::error::Error;
use crate::files::HEAD_LEN;
use crate::text;
use std::path::Path;

/// How a format was decided, for `info` and for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Named with `--from` or `--to`.
    Named,
    /// The content has the format's signature.
    Content,
    /// The file extension, with nothing in the content against it.
    Extension,
    /// The content fits the format and no other, though the format has no signature.
    ContentOnly,
}

impl Reason {
    /// How the decision reads in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::Named => "named on the command line",
            Reason::Content => "recognised by content",
            Reason::Extension => "by file extension",
            Reason::ContentOnly => "by content (no other format fits)",
        }
    }
}

/// The formats whose extensions `path` ends with, longest extension first.
pub fn by_extension(path: &Path) -> Vec<Format> {
    // Extensions are ASCII: a name that is not UTF-8 has its extension all the same.
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, Format)> = Vec::new();
    for &format in Format::ALL {
        let best = format
            .extensions()
            .iter()
            .filter(|ext| {
                name.len() > ext.len() + 1 && name.ends_with(*ext) && name[..name.len() - ext.len()].ends_with('.')
            })
            .map(|ext| ext.len())
            .max();
        if let Some(len) = best {
            found.push((len, format));
        }
    }
    let longest = found.iter().map(|&(len, _)| len).max().unwrap_or(0);
    found.into_iter().filter(|&(len, _)| len == longest).map(|(_, f)| f).collect()
}

/// Decides the format of an input from `--from`, its first bytes as they are (`head`) and its path
/// (`None` for stdin). Text formats are sniffed as their readers get them (`text::sniffable`).
/// JSON is recognised before anything else: proftool reads the formats whose contract says they
/// are JSON (`Encoding::Json`), and says what any other is.
/// An empty input is read as the format named or its extension says, with a warning.
pub fn detect_input(
    named: Option<Format>,
    path: Option<&Path>,
    head: &[u8],
    diag: &mut Diagnostics,
) -> Result<(Format, Reason), Error> {
    if let Some(format) = named.filter(|f| !f.can_read()) {
        return Err(Error::Unsupported { format: format.into(), action: "read" });
    }
    let text = text::sniffable(head);
    if let Some(json) = Json::of(&text) {
        // JSON of no known kind named by its extension as one: read as that, so that its reader
        // says where it is not (a damaged or cut file, keys in another order).
        if let (Json::Unknown, None, Some(json_format)) = (json, named, path.and_then(json_by_extension)) {
            let (format, found) = (json_format.format, (json_format.kind.check)(&text).err().unwrap_or_default());
            diag.warn("detect-ext", None, || {
                format!("the content does not look like {format} ({found}); reading it as {format}, as its extension says (name another with --from)")
            });
            return Ok((format, Reason::Extension));
        }
        json.check(named, &text)?;
    }
    if let Some(format) = named.filter(|&f| f != Format::Perfetto) {
        if crate::formats::kit::wire::is_perfetto_trace(head) && !crate::formats::otlp::is_request_start(head) {
            return Err(Error::Unreadable {
                named: Some(format.into()),
                why: "the content is a Perfetto trace (protocol buffers, Chromium's default binary trace): read it as \
                      perfetto (without --from, or with --from perfetto)"
                    .to_string(),
            });
        }
    }
    if crate::formats::perf::is_perf_data(head) {
        return Err(Error::Unreadable {
            named: named.map(Format::into),
            why: "the content is a raw perf.data recording (binary): print it with `perf script -i perf.data > \
                  out.perf` (on the machine that recorded it, for its symbols) and read that as perf"
                .to_string(),
        });
    }
    if crate::formats::stackprof::is_marshal_dump(head) {
        return Err(Error::Unreadable {
            named: named.map(Format::into),
            why: "the content is stackprof's results as StackProf.run(out: FILE) writes them (a Ruby Marshal dump): \
                  write them as JSON with `stackprof --json FILE > out.stackprof.json` and read that as stackprof"
                .to_string(),
        });
    }
    let decided = match named {
        Some(format) => (format, Reason::Named),
        None => detect_unnamed(path, head, diag)?,
    };
    if text.is_empty() {
        diag.warn("empty-input", None, || "the input is empty".to_string());
    }
    Ok(decided)
}

/// [`detect_input`] without `--from`: by content, then by extension.
fn detect_unnamed(path: Option<&Path>, head: &[u8], diag: &mut Diagnostics) -> Result<(Format, Reason), Error> {
    let readers = || Format::ALL.iter().copied().filter(|f| f.can_read());
    let text = text::sniffable(head);
    let sniff = |format: Format| sniff_input(format, head, &text);
    let named_by_ext = path.map(by_input_extension).unwrap_or_default();
    let by_ext: Vec<Format> = named_by_ext.iter().copied().filter(|f| f.can_read()).collect();
    let yes: Vec<Format> = readers().filter(|&f| sniff(f) == Sniff::Yes).collect();
    match yes.as_slice() {
        [one] => {
            // An extension several formats share (`.json`) says none of them.
            if let [ext] = by_ext.as_slice() {
                if ext != one {
                    diag.warn("detect-ext", None, || {
                        format!("the extension says {ext} but the content is {one}; reading it as {one}")
                    });
                }
            }
            return Ok((*one, Reason::Content));
        }
        [] => {}
        several => {
            if let Some(&f) = several.iter().find(|f| by_ext.contains(f)) {
                return Ok((f, Reason::Content));
            }
            return Err(unknown_input(format!("the content fits {}", names(several))));
        }
    }
    if let (Some(&written), []) = (named_by_ext.first(), by_ext.as_slice()) {
        return Err(written_only(written, None, "its extension says"));
    }
    let ext_ok: Vec<Format> = by_ext.iter().copied().filter(|&f| sniff(f) != Sniff::No).collect();
    if let [one] = ext_ok.as_slice() {
        return Ok((*one, Reason::Extension));
    }
    let inconclusive = sniffing_is_inconclusive(head);
    // The extension names one format and the content fits it badly: the file is most likely a
    // damaged or cut-off file of that format, so its reader says what is wrong and where. Taking
    // a weakly recognised format instead would, say, read a cut-off `.px` as folded stacks.
    if let ([one], []) = (by_ext.as_slice(), ext_ok.as_slice()) {
        if inconclusive.is_none() {
            diag.warn("detect-ext", None, || {
                format!("the content does not look like {one}; reading it as {one}, as its extension says (name another with --from)")
            });
        }
        return Ok((*one, Reason::Extension));
    }
    let maybe: Vec<Format> = readers().filter(|&f| sniff(f) == Sniff::Maybe).collect();
    if let ([], [one]) = (by_ext.as_slice(), maybe.as_slice()) {
        return Ok((*one, Reason::ContentOnly));
    }
    let why = match (by_ext.as_slice(), maybe.as_slice()) {
        ([], []) => inconclusive.unwrap_or_else(|| "no format recognises the content".to_string()),
        ([], m) => format!("the content could be {}", names(m)),
        (e, _) if ext_ok.is_empty() => format!("the extension says {} but the content fits none of them", names(e)),
        (e, _) => format!("the extension could be {}", names(e)),
    };
    Err(unknown_input(why))
}

/// Why the sniffers could not judge `head`, when they could not: it is empty, or it holds no whole
/// line (a folded stack longer than the bytes detection looks at). A file of the format its
/// extension names is then read as that format without a warning that it does not look like one.
fn sniffing_is_inconclusive(head: &[u8]) -> Option<String> {
    if text::sniffable(head).is_empty() {
        return Some("the input is empty".to_string());
    }
    (head.len() >= HEAD_LEN && memchr::memchr(b'\n', head).is_none())
        .then(|| format!("the first line is longer than the {HEAD_LEN} bytes detection looks at"))
}

/// What `format`'s sniffer makes of an input's first bytes: a text format's as its reader gets
/// them, UTF-8 without a byte-order mark, and with LF line endings ([`text::sniffable`]).
/// `text` is `head` made sniffable once for all of them.
fn sniff_input(format: Format, head: &[u8], text: &[u8]) -> Sniff {
    format.sniff(if reads_text(format) { text } else { head })
}

/// Whether `format` is read as text, so that a leading UTF-8 byte-order mark (which Windows editors
/// and Excel write) is not part of its content and is dropped before it is sniffed and read, and
/// UTF-16 with a mark (PowerShell's `>`) is decoded: as its contract says (`Encoding`, `spec.rs`).
pub fn reads_text(format: Format) -> bool {
    format.spec().reads.as_ref().is_some_and(|reads| reads.encoding.is_text())
}

/// The formats an input's extension names: by its whole name, else by its name without a `.gz`
/// ending, as a gzip-compressed input is read decompressed (`x.prof.gz` is a `.prof`; `x.pb.gz` is
/// pprof by its whole name).
fn by_input_extension(path: &Path) -> Vec<Format> {
    let whole = by_extension(path);
    if !whole.is_empty() {
        return whole;
    }
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return whole;
    };
    match name.len().checked_sub(".gz".len()).filter(|&stem| name[stem..].eq_ignore_ascii_case(".gz")) {
        Some(stem) => by_extension(Path::new(&name[..stem])),
        None => whole,
    }
}

/// The error for an input of a format proftool writes but does not read; `how` says how it was told.
fn written_only(format: Format, named: Option<Format>, how: &str) -> Error {
    Error::Unreadable {
        named: named.map(Format::into),
        why: format!(
            "{how} {format}, which proftool writes but does not read (yet); convert the profile it was made from"
        ),
    }
}

/// A JSON format proftool reads, with how its contract tells its JSON apart.
#[derive(Clone, Copy)]
struct JsonFormat {
    format: Format,
    kind: &'static JsonKind,
}

/// The JSON formats, in registry order (by name; no input passes two of their checks).
fn json_formats() -> impl Iterator<Item = JsonFormat> {
    Format::ALL.iter().filter_map(|&format| match format.spec().reads.as_ref().map(|reads| &reads.encoding) {
        Some(Encoding::Json(kind)) => Some(JsonFormat { format, kind }),
        Some(Encoding::Text(_) | Encoding::Binary(_)) | None => None,
    })
}

/// The one JSON format `path`'s extension names (`.cpuprofile`, `.prof.json`, `.prof`), if it
/// names one (`.json` names two).
fn json_by_extension(path: &Path) -> Option<JsonFormat> {
    let formats = by_input_extension(path);
    let mut named = json_formats().filter(|json| formats.contains(&json.format));
    named.next().filter(|_| named.next().is_none())
}

/// The kind of JSON an input holds, told apart by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Json {
    /// Of a format whose [`Encoding`] is JSON.
    Of(Format),
    /// Any other JSON.
    Unknown,
}

impl Json {
    /// The kind of JSON `head` holds, or `None` when it does not start like a JSON object with a
    /// key (or an empty one) or an array of objects: what no other format proftool reads starts with.
    fn of(head: &[u8]) -> Option<Json> {
        let next_after = |rest: &[u8]| rest.trim_ascii_start().first().copied();
        let is_json = match head.trim_ascii_start().split_first() {
            Some((b'{', rest)) => matches!(next_after(rest), Some(b'"' | b'}')),
            Some((b'[', rest)) => next_after(rest) == Some(b'{'),
            _ => false,
        };
        let known = json_formats().find(|json| (json.kind.check)(head).is_ok());
        is_json.then(|| known.map_or(Json::Unknown, |json| Json::Of(json.format)))
    }

    /// An error unless this JSON is read as `named` (the format of `--from`), or detected;
    /// `head` is the input's first bytes, all of it when shorter than [`HEAD_LEN`].
    fn check(self, named: Option<Format>, head: &[u8]) -> Result<(), Error> {
        let json_format = |format| json_formats().find(|json| json.format == format);
        let why = match (self, named) {
            (Json::Of(_), None) => return Ok(()),
            (Json::Of(format), Some(named)) if format == named => return Ok(()),
            (Json::Of(format), Some(_)) => {
                let what = json_format(format).map_or("JSON", |json| json.kind.what);
                format!("the content is {what}; read it as {format}")
            }
            // The sniffers know GHC's own key order and speedscope's first keys; a file written otherwise is
            // read when named.
            (Json::Unknown, Some(named)) if json_format(named).is_some() => return Ok(()),
            (Json::Unknown, _) => unknown_json(head),
        };
        Err(Error::Unreadable { named: named.map(Format::into), why })
    }
}

/// Why `head`, JSON of no format proftool reads, is none of them: whether it ends before it closes
/// (when `head` is the whole input), and where each JSON format's check failed first.
fn unknown_json(head: &[u8]) -> String {
    let whole = head.len() < HEAD_LEN;
    let cut = match serde_json::from_slice::<serde::de::IgnoredAny>(head) {
        Err(e) if whole && e.is_eof() => {
            format!(", and it ends at byte {} before it closes: the file looks cut short", head.len())
        }
        _ => String::new(),
    };
    let looked_at = if whole { "" } else { " in the first 64 KiB, which detection reads" };
    let listed: Vec<String> = json_formats().map(|json| format!("{}{}", json.format, json.kind.aside)).collect();
    let listed = match listed.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut why = format!(
        "the content is JSON of a kind proftool does not know{cut}; of the formats proftool reads, only {listed} are JSON, and each found{looked_at}:"
    );
    for json in json_formats() {
        if let Err(found) = (json.kind.check)(head) {
            why.push_str(&format!("\n  {}: {found}", json.format));
        }
    }
    why
}

/// Decides the format of an output from `--to` and its path (`None` for stdout).
/// A format named with `--to` wins; where the path's extension names only other formats, a warning
/// says so, as one for an input does.
pub fn detect_output(named: Option<Format>, path: Option<&Path>, diag: &mut Diagnostics) -> Result<Format, Error> {
    if let Some(format) = named {
        if !format.can_write() {
            return Err(Error::Unsupported { format: format.into(), action: "written" });
        }
        let by_ext = path.map(by_extension).unwrap_or_default();
        // `out.json` is speedscope's `.speedscope.json` as much as a Chrome trace.
        let last = path.and_then(Path::extension).map(|e| e.to_string_lossy().to_ascii_lowercase());
        let shares_last =
            last.is_some_and(|last| format.extensions().iter().any(|e| e.rsplit('.').next() == Some(&last)));
        if let Some(&ext) = by_ext.first().filter(|_| !by_ext.contains(&format) && !shares_last) {
            diag.warn("detect-ext", None, || {
                format!("the output's extension says {ext} but --to names {format}; writing {format}")
            });
        }
        return Ok(format);
    }
    let Some(path) = path else {
        return Err(unknown_output("standard output has no extension".into()));
    };
    let candidates: Vec<Format> = by_extension(path).into_iter().filter(|f| f.can_write()).collect();
    match candidates.as_slice() {
        [one] => Ok(*one),
        [] => Err(unknown_output(format!("no writable format has the extension of {}", path.display()))),
        several => Err(unknown_output(format!("the extension could be {}", names(several)))),
    }
}

fn names(formats: &[Format]) -> String {
    formats.iter().map(|f| f.name()).collect::<Vec<_>>().join(" or ")
}

/// The error for an input whose format cannot be told, and `why`.
fn unknown_input(why: String) -> Error {
    Error::UnknownInput { why, readers: Format::reader_names() }
}

/// The error for an output whose format cannot be told, and `why`.
fn unknown_output(why: String) -> Error {
    Error::UnknownOutput { why, writers: Format::writer_names() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON formats are told apart by checks that no fixture passes two of, so that the order
    /// they are tried in (the registry's, by name) decides nothing.
    #[test]
    fn no_json_fixture_passes_two_formats_checks() {
        let mut folders = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
        let mut json_files = 0;
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                let text = text::sniffable(&bytes[..bytes.len().min(HEAD_LEN)]);
                if Json::of(&text).is_none() {
                    continue;
                }
                json_files += 1;
                let passed: Vec<Format> =
                    json_formats().filter(|json| (json.kind.check)(&text).is_ok()).map(|json| json.format).collect();
                assert!(passed.len() <= 1, "{} passes the checks of {passed:?}", path.display());
            }
        }
        assert!(json_files > 50, "only {json_files} JSON fixtures found");
    }

    /// What each format's sniffer makes of heads of its own files and of others', a row a case:
    /// the formats told by a first line, a header or a magic number, and folded stacks, which only
    /// every line's shape tells.
    #[test]
    fn each_sniffer_tells_its_own_heads() {
        use Sniff::{Maybe, No, Yes};
        let cases: &[(Format, &[u8], Sniff)] = &[
            (Format::Bpftrace, b"Attaching 1 probe...\n\n@[\n    f+1\n]: 3\n", Yes),
            (Format::Bpftrace, b"@stacks[\n    f+1\n", Maybe),
            (Format::Bpftrace, b"@[comm]: 3\n", No),
            (Format::Bpftrace, b"main;work 3\n", No),
            (Format::MacosSample, b"Analysis of sampling rg (pid 1) every 1 millisecond\n", Yes),
            (Format::MacosSample, b"\nCall graph:\n    825 Thread_1\n", Yes),
            (Format::MacosSample, b"Call graph:\nmain 3\n", No),
            (Format::MacosSample, b"main;work 3\n", No),
            (Format::Gprof, b"Flat profile:\n\nEach sample counts as 0.01 seconds.\n", Yes),
            (Format::Gprof, b"\t\t\tCall graph\n\n\ngranularity: each sample hit covers 2 byte(s)", Yes),
            (Format::Gprof, b"index  % time    self  children called     name\n", Yes),
            (Format::Gprof, b"\nCall graph:\n    825 Thread_1\n", No),
            (Format::Gprof, b"main;work 3\n", No),
            (Format::Callgrind, b"# callgrind format\nversion: 1\n", Yes),
            (Format::Callgrind, b"version: 1\ncreator: callgrind-3.19.0\n", Yes),
            (Format::Callgrind, b"version: 1\nmain;f 3\n", No),
            // go tool pprof -callgrind: a bare header.
            (Format::Callgrind, b"positions: instr line\nevents: cpu(ms)\n\nob=(1) /bin/x\n", Yes),
            (Format::Callgrind, b"events: Ir\n\nfl=a.c\nfn=main\n", Yes),
            (Format::Callgrind, b"events: Ir\nmain;f 3\n", No),
            (Format::Callgrind, b"main;f 3\n", No),
            (Format::Jfr, b"FLR\0\0\x02\0\x01", Yes),
            (Format::Jfr, b"FLR", No),
            (Format::Jfr, b"{\"a\":1}", No),
            (Format::Xctrace, b"<?xml version=\"1.0\"?>\n<trace-query-result>\n<node>", Yes),
            (Format::Xctrace, b"<trace-query-result>", Yes),
            (Format::Xctrace, b"<?xml version=\"1.0\"?>\n<ProfilingReport>", No),
            (Format::Massif, b"desc: (none)\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n", Yes),
            (Format::Massif, b"desc: (none)\ncmd: ./a\n", Maybe),
            (Format::Massif, b"# callgrind format\n", No),
            (Format::PprofLegacy, b"\0\0\0\0\x03\0\0\0\0\0\0\0\xe8\x03\0\0\0\0\0\0", Yes),
            (Format::PprofLegacy, b"\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\x03\xe8\0\0\0\0", Yes),
            (Format::PprofLegacy, b"\0\0\0\0\x03\0\0\0\x01\0\0\0\xe8\x03\0\0\0\0\0\0", Yes),
            (Format::PprofLegacy, b"\0\0\0\0\x03\0\0\0\x02\0\0\0\xe8\x03\0\0\0\0\0\0", No),
            (Format::PprofLegacy, b"heap profile:     1:  2 [   1:  2] @ heapprofile\n", Yes),
            (Format::Hprof, b"JAVA PROFILE 1.0.1, created Mon Nov 30 08:00:00 2026\n", Yes),
            (Format::Hprof, b"JAVA PROFILE\n", No),
            (Format::PprofLegacy, b"--- heapz 1 ---\n", Yes),
            (Format::PprofLegacy, b"--- heapz 2 ---\n", No),
            (Format::PprofLegacy, b"goroutine profile: total 5\n4 @ 0x4375f6\n", Yes),
            (Format::PprofLegacy, b"--- mutex:\ncycles/second=2600009558\n", Yes),
            (Format::PprofLegacy, b"my app profile: total 5\n", No),
            (Format::GhcPx, b"\"Wed Jun  3 21:49 1993\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n", Yes),
            (Format::GhcPx, b"\"x\"\r\n\"1 ms\"\r\n", Yes),
            (Format::GhcPx, b"<?xml version=\"1.0\"?>\n<ProfileData>\n", No),
            (Format::GhcPx, b"\"x\"\n\"fast\"\n", No),
            (Format::Folded, b"a;b 1\nc 2\n", Maybe),
            (Format::Folded, b"a;b 1\nno count here\n", No),
            (Format::Folded, b"a;b 1\na;b 2 partial", Maybe),
            (Format::Folded, b"", No),
        ];
        for &(format, head, expected) in cases {
            assert_eq!(format.sniff(head), expected, "{format} of {:?}", String::from_utf8_lossy(head));
        }
    }

    #[test]
    fn extension_matching_is_by_whole_suffix() {
        assert_eq!(by_extension(Path::new("a/x.tree")), vec![Format::Lispworks]);
        assert_eq!(by_extension(Path::new("X.FOLDED")), vec![Format::Folded]);
        assert_eq!(by_extension(Path::new("subtree")), Vec::<Format>::new());
        assert_eq!(by_extension(Path::new(".tree")), Vec::<Format>::new());
    }

    #[test]
    fn content_beats_extension_with_a_warning() {
        let mut diag = Diagnostics::default();
        let head = b"LispWorks Profiler Tree: t\n0|1|0|1|1|FOO\n";
        let got = detect_input(None, Some(Path::new("x.folded")), head, &mut diag).unwrap();
        assert_eq!(got, (Format::Lispworks, Reason::Content));
        assert!(diag.has("detect-ext"));
    }

    #[test]
    fn folded_on_stdin_is_recognised_by_content_only() {
        let mut diag = Diagnostics::default();
        let got = detect_input(None, None, b"a;b 3\na;c 1\n", &mut diag).unwrap();
        assert_eq!(got, (Format::Folded, Reason::ContentOnly));
    }

    #[test]
    fn a_damaged_file_is_read_as_its_extension_says_not_as_a_weak_match() {
        // A cut-off -px file: its sniffer rejects it, and folded would take it as a stack `"Wed Jun
        // 3 21:49` with a count of 1993. Its own reader must get it, to say what is missing.
        let mut diag = Diagnostics::default();
        let head = b"\"Wed Jun  3 21:49 1993";
        let got = detect_input(None, Some(Path::new("run.px")), head, &mut diag).unwrap();
        assert_eq!(got, (Format::GhcPx, Reason::Extension));
        assert!(diag.has("detect-ext"));
        // Without an extension the weak match still decides (folded stacks on stdin).
        let got = detect_input(None, None, head, &mut Diagnostics::default()).unwrap();
        assert_eq!(got, (Format::Folded, Reason::ContentOnly));
        // An extension shared by several formats that all reject the content names them all.
        let err = detect_input(None, Some(Path::new("run.prof")), head, &mut Diagnostics::default()).unwrap_err();
        assert!(err.to_string().contains("ghc-json or ghc-prof or ghc-px"), "{err}");
    }

    #[test]
    fn unknown_content_without_extension_is_an_error() {
        let mut diag = Diagnostics::default();
        let err = detect_input(None, None, b"\x00\x01garbage", &mut diag).unwrap_err();
        assert!(err.to_string().contains("--from"), "{err}");
    }

    #[test]
    fn text_formats_are_sniffed_without_a_byte_order_mark() {
        let mut diag = Diagnostics::default();
        let head = b"\xEF\xBB\xBFLispWorks Profiler Tree: t\n0|1|0|1|1|FOO\n";
        assert_eq!(detect_input(None, None, head, &mut diag).unwrap(), (Format::Lispworks, Reason::Content));
        let sampler = b"\xEF\xBB\xBF@supersamplerV1.0";
        assert_eq!(sniff_input(Format::Sampler, sampler, &text::sniffable(sampler)), Sniff::No);
    }

    #[test]
    fn json_is_told_apart_by_its_keys() {
        assert_eq!(Json::of(br#"{"program": "p", "arguments": []}"#), Some(Json::Of(Format::GhcJson)));
        assert_eq!(
            Json::of(br#" {"$schema":"https://www.speedscope.app/file-format-schema.json"}"#),
            Some(Json::Of(Format::Speedscope))
        );
        assert_eq!(Json::of(br#"{"traceEvents": []}"#), Some(Json::Of(Format::ChromeTrace)));
        assert_eq!(Json::of(br#"[{"name":"a","ph":"B","ts":0}]"#), Some(Json::Of(Format::ChromeTrace)));
        assert_eq!(Json::of(b"{}"), Some(Json::Unknown));
        // Folded stacks whose first frame has a brace are no JSON.
        assert_eq!(Json::of(b"{closure};b 3\n"), None);
        assert_eq!(Json::of(b"[unknown];b 3\n"), None);
    }

    #[test]
    fn a_gz_ending_is_looked_through() {
        assert_eq!(by_input_extension(Path::new("x.tree.GZ")), vec![Format::Lispworks]);
        assert_eq!(by_input_extension(Path::new("x.pb.gz")), vec![Format::Pprof]);
        assert_eq!(by_input_extension(Path::new("x.gz")), Vec::<Format>::new());
    }

    #[test]
    fn output_needs_to_or_extension() {
        let mut diag = Diagnostics::default();
        assert_eq!(detect_output(None, Some(Path::new("o.folded")), &mut diag).unwrap(), Format::Folded);
        assert!(detect_output(None, None, &mut diag).is_err());
        assert!(detect_output(None, Some(Path::new("o.txt")), &mut diag).is_err());
        assert!(!diag.has("detect-ext"));
        // --to wins; an extension that names another format is warned about, one that names none is not.
        let named =
            |path: &str, diag: &mut Diagnostics| detect_output(Some(Format::Folded), Some(Path::new(path)), diag);
        assert_eq!(named("o.txt", &mut diag).unwrap(), Format::Folded);
        assert_eq!(named("o.collapsed", &mut diag).unwrap(), Format::Folded);
        assert!(!diag.has("detect-ext"));
        let speedscope = detect_output(Some(Format::Speedscope), Some(Path::new("o.json")), &mut diag);
        assert_eq!(speedscope.unwrap(), Format::Speedscope);
        assert!(!diag.has("detect-ext"), "o.json may be speedscope's .speedscope.json");
        assert_eq!(named("o.tree", &mut diag).unwrap(), Format::Folded);
        assert!(diag.has("detect-ext"));
    }
}
