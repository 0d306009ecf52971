//! The reading thread's work on `perf script` lines: what each line is (a header, a frame, a
//! source line), its fields, and the key of the symbol and DSO a frame line names, which the
//! building thread looks up (see [`PairKey`]).

use super::pairs::PairKey;
use crate::error::{excerpt, ParseErrorKind};
use std::ops::Range;

/// A header line's fields, as byte ranges of the line.
pub(super) struct Header {
    pub(super) comm: Range<usize>,
    pub(super) pid: Option<Range<usize>>,
    pub(super) tid: Range<usize>,
    /// The event's name without its modifiers (`cpu-clock` of `cpu-clock:pppH:`).
    pub(super) event: Option<Range<usize>>,
    pub(super) period: Option<u64>,
    /// The time (`562.245409:`) in nanoseconds, where it is there.
    pub(super) time: Option<i64>,
    /// Where the frame on the header line starts (a sample of a recording without call chains).
    pub(super) frame: Option<usize>,
    /// The key of the frame on the header line, which the reading thread adds.
    pub(super) frame_key: Option<PairKey>,
    /// Whether the line is a side-band event that perf prints among the samples where a
    /// `--show-*-events` option asks (`PERF_RECORD_COMM exec: …`, `PERF_RECORD_MMAP2 …`): no sample.
    pub(super) side_band: bool,
}

/// The fields of a header line. The command is everything before the first word of digits (`TID`,
/// or `PID/TID`) that a space follows, as inferno finds it, unless the fields after that word do not
/// read as perf prints them (an event that is a time, a frame that is none): then the word is part
/// of the command (a thread named `FS Broker 5906`, whose TID follows) and the next such word is
/// tried. After it come the fields perf script prints in this order, each where `-F` keeps it:
/// `[CPU]`, the time of day (`-F +tod`), the time and a colon, the period, the event ending with a
/// colon (`cycles:u:`), a tracepoint's fields, and the sample's frame where it has no call chain.
/// A word of digits is the period unless a symbol follows it (then it is the frame's address).
pub(super) fn parse_header(line: &str) -> Option<Header> {
    let first = fields_after_thread(line, thread_fields(line, 0)?);
    if comm_ends_in_time(line, &first) {
        // perf prints the thread id before the time: a word of digits after one is the period of
        // a header without thread id (`perf script -F -tid`, `node  5237.935398:  250000 …`),
        // whose command cannot be told apart from the fields that follow it.
        return None;
    }
    if reads_as_perf_prints(line, &first) {
        return Some(first);
    }
    let mut from = first.tid.end;
    while let Some(header) = thread_fields(line, from).map(|h| fields_after_thread(line, h)) {
        if reads_as_perf_prints(line, &header) {
            return Some(header);
        }
        from = header.tid.end;
    }
    Some(first)
}

/// Whether the last word of `header`'s command is a time (`5237.935398:`), which perf prints after
/// the thread id, never before it.
fn comm_ends_in_time(line: &str, header: &Header) -> bool {
    let comm = &line.as_bytes()[header.comm.clone()];
    is_time(comm.rsplit(|&b| b == b' ').next().unwrap_or_default())
}

/// Whether `line` reads as a header that lacks its thread id (`-F` without `tid`): no thread id
/// ([`parse_header`] finds none) but a time (`5237.935398:`) after its command.
pub(super) fn lacks_thread_id(line: &str) -> bool {
    let bytes = line.as_bytes();
    let mut words = std::iter::successors(next_word(bytes, 0), |w| next_word(bytes, w.end));
    parse_header(line).is_none() && words.any(|w| is_time(&bytes[w]))
}

/// Whether the fields found after a thread id are what perf prints: no event named like a time
/// (the time, read as an event where the thread id was a word of the command), no frame on the line
/// that is not one (an address in hex, a symbol, where perf prints it its DSO).
fn reads_as_perf_prints(line: &str, header: &Header) -> bool {
    if header.side_band {
        return true;
    }
    let event_is_time = header.event.as_ref().is_some_and(|e| is_seconds(&line.as_bytes()[e.clone()]));
    let bad_frame = header.frame.is_some_and(|from| !reads_as_frame(line, from));
    !event_is_time && !bad_frame
}

/// Whether what starts at `from` of a header line is a frame: an address in hex, a symbol and,
/// where perf prints it, its DSO.
fn reads_as_frame(line: &str, from: usize) -> bool {
    let address = line[from..].split(' ').next().unwrap_or("");
    is_hex(address) && frame_symbol_and_dso(line, from, true).is_some()
}

/// The fields of a header after its thread id (see [`parse_header`]).
fn fields_after_thread(line: &str, mut header: Header) -> Header {
    let bytes = line.as_bytes();
    let mut word = next_word(bytes, header.tid.end);
    if word.as_ref().is_some_and(|w| bytes[w.start] == b'[' && bytes[w.end - 1] == b']') {
        word = next_word(bytes, word.map_or(0, |w| w.end));
    }
    if word.as_ref().is_some_and(|w| is_misc(&bytes[w.clone()])) {
        word = next_word(bytes, word.map_or(0, |w| w.end));
    }
    word = after_time_of_day(bytes, word);
    if let Some(w) = word.clone().filter(|w| is_time(&bytes[w.clone()])) {
        header.time = Some(nanoseconds(&bytes[w.start..w.end - 1]));
        word = next_word(bytes, w.end);
    }
    // perf prints a side-band event where a sample's period and event would be.
    if word.as_ref().is_some_and(|w| is_side_band(&bytes[w.clone()])) {
        header.side_band = true;
        return header;
    }
    if let Some(w) = word.clone().filter(|w| is_digits(&bytes[w.clone()])) {
        let after = next_word(bytes, w.end);
        let is_period = match &after {
            None => true,
            Some(next) if bytes[next.end - 1] == b':' => true,
            Some(next) => is_hex(&line[next.clone()]) && next_word(bytes, next.end).is_some(),
        };
        if is_period {
            header.period = line[w].parse().ok();
            word = after;
        }
    }
    if let Some(w) = word.clone().filter(|w| bytes[w.end - 1] == b':') {
        header.event = Some(w.start..event_name_end(bytes, w.clone()));
        word = next_word(bytes, w.end);
    }
    header.frame = word.map(|w| w.start);
    if header.frame.is_some_and(|from| !reads_as_frame(line, from)) && is_tracepoint(line, &header) {
        // What follows a tracepoint's name is its fields (`prev_comm=prog prev_pid=10023 … ==>
        // next_comm=…`), which may hold spaces and colons: its frames, with `-g`, follow on lines
        // of their own.
        header.frame = None;
    }
    header
}

/// Whether the event of `header` is a tracepoint, whose name is `SYSTEM:NAME` (`sched:sched_switch`).
fn is_tracepoint(line: &str, header: &Header) -> bool {
    header.event.as_ref().is_some_and(|e| line[e.clone()].contains(':'))
}

/// The end of an event's name in its word `w` (`cycles:u:`, `sched:sched_switch:`): before the
/// colon that ends the word and the modifiers perf writes after a name (`:u`, `:pppH`, each a
/// letter of perf's event modifiers, `ukhIGHpPSDWeb`). A tracepoint's `SYSTEM:NAME` keeps its colon.
fn event_name_end(bytes: &[u8], w: Range<usize>) -> usize {
    let mut end = w.end - 1;
    while let Some(colon) = memchr::memrchr(b':', &bytes[w.start..end]).map(|c| w.start + c) {
        let modifiers = &bytes[colon + 1..end];
        if modifiers.is_empty() || !modifiers.iter().all(|b| b"ukhIGHpPSDWeb".contains(b)) {
            break;
        }
        end = colon;
    }
    end
}

/// Whether `word` names a side-band event, as perf prints it: `PERF_RECORD_COMM`, `PERF_RECORD_MMAP2`,
/// `PERF_RECORD_SWITCH_CPU_WIDE`, `PERF_RECORD_EXIT(5754:5757):(5745:5745)`, `PERF_RECORD_FINISHED_ROUND`.
pub(super) fn is_side_band(word: &[u8]) -> bool {
    word.starts_with(b"PERF_RECORD_")
}

/// Whether `line` is a side-band event's (see [`is_side_band`]), after its header's thread and time
/// or alone.
pub(super) fn is_side_band_line(line: &str) -> bool {
    is_side_band(&line.as_bytes()[leading_space(line)..]) || parse_header(line).is_some_and(|h| h.side_band)
}

/// The word after a time of day where `word` starts one (`-F +tod`: `2026-12-02 10:50:18.103511`,
/// perf's `%F %H:%M:%S` and the microseconds), else `word`.
fn after_time_of_day(bytes: &[u8], word: Option<Range<usize>>) -> Option<Range<usize>> {
    let Some(date) = word.clone().filter(|w| is_date(&bytes[w.clone()])) else { return word };
    match next_word(bytes, date.end).filter(|w| is_clock_time(&bytes[w.clone()])) {
        Some(clock) => next_word(bytes, clock.end),
        None => word,
    }
}

/// Whether `word` is the `misc` field of `perf script -F +misc`, which perf prints after the CPU
/// and before the time: letters of the sample's mode (`K` kernel, `U` user, `H` hypervisor, `G`
/// guest kernel, `g` guest user; perf tests each mode's bits alone, so a mode may print several, as
/// `KUH`), of an mmap, comm or switch event (`M`, `E`, `S`, `Sp`), or `?`. perf pads the field
/// with spaces to 6 columns, so no word is left of a mode of none; `?` is taken too, so that a mark of
/// an unknown mode is not read as a frame. None of them is a hex address as perf prints one (in
/// lower case), nor a time, period or event.
fn is_misc(word: &[u8]) -> bool {
    !word.is_empty() && word.len() <= 6 && word.iter().all(|b| b"KUHGgMESp?".contains(b))
}

/// Whether `word` is a date, `2026-12-02`.
fn is_date(word: &[u8]) -> bool {
    let digits = |range: Range<usize>| word.get(range).is_some_and(is_digits);
    word.len() == 10 && word[4] == b'-' && word[7] == b'-' && digits(0..4) && digits(5..7) && digits(8..10)
}

/// Whether `word` is a time of day, `10:50:18` and its fraction of a second, `.103511`.
fn is_clock_time(word: &[u8]) -> bool {
    let digits = |range: Range<usize>| word.get(range).is_some_and(is_digits);
    let fraction = match word.get(8) {
        None => true,
        Some(b'.') => digits(9..word.len()),
        Some(_) => false,
    };
    word.len() >= 8 && word[2] == b':' && word[5] == b':' && digits(0..2) && digits(3..5) && digits(6..8) && fraction
}

/// A header with the command, PID and TID of `line` alone: the command is everything before the
/// first thread id ([`is_thread_id`]: `TID`, or `PID/TID`) that a space follows and that starts
/// after `from` (a line may start with its thread id, where `-F` leaves the command out:
/// `13647  2199.697588:`).
fn thread_fields(line: &str, from: usize) -> Option<Header> {
    let bytes = line.as_bytes();
    let mut at = from;
    while let Some(word) = next_word(bytes, at) {
        if word.end < bytes.len() && is_thread_id(&bytes[word.clone()]) {
            let (pid, tid) = match memchr::memrchr(b'/', &bytes[word.clone()]).map(|s| word.start + s) {
                Some(s) => (Some(word.start..s), s + 1..word.end),
                None => (None, word.clone()),
            };
            let comm = trim_range(line, 0..word.start.saturating_sub(1));
            let (event, period, frame, frame_key) = (None, None, None, None);
            let side_band = false;
            return Some(Header { comm, pid, tid, event, period, time: None, frame, frame_key, side_band });
        }
        at = word.end;
    }
    None
}

/// Whether `word` is a thread id, `TID` or `PID/TID`: numbers, or `-1`, which perf prints for the
/// samples of a task that had exited when the recording was read (`:-1    -1 [001]  6016.878263:`,
/// the command `:-1` perf names a thread it does not know).
fn is_thread_id(word: &[u8]) -> bool {
    word.split(|&b| b == b'/').all(|part| part.iter().all(u8::is_ascii_digit) || part == b"-1")
}

/// The next word of a header from `from`: bytes up to a space.
fn next_word(bytes: &[u8], from: usize) -> Option<Range<usize>> {
    let start = from + bytes.get(from..)?.iter().position(|&b| b != b' ')?;
    let end = memchr::memchr(b' ', &bytes[start..]).map_or(bytes.len(), |e| start + e);
    Some(start..end)
}

fn is_digits(word: &[u8]) -> bool {
    !word.is_empty() && word.iter().all(u8::is_ascii_digit)
}

/// Whether `word` is a time in seconds and its colon, `562.245409:`.
fn is_time(word: &[u8]) -> bool {
    word.strip_suffix(b":").is_some_and(is_seconds)
}

/// The nanoseconds of a time in seconds ([`is_seconds`]: `562.245409`, or `562.245409123` with
/// `--ns`); digits past the ninth are dropped, and a time past 292 years is the latest there is.
fn nanoseconds(seconds: &[u8]) -> i64 {
    let dot = seconds.iter().position(|&b| b == b'.').unwrap_or(seconds.len());
    let whole = seconds[..dot].iter().fold(0i64, |n, &d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    let fraction = seconds.get(dot + 1..).unwrap_or_default();
    let nanos = (0..9).fold(0i64, |n, i| n * 10 + fraction.get(i).map_or(0, |&d| i64::from(d - b'0')));
    whole.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// Whether `word` is a time in seconds, `562.245409`.
fn is_seconds(word: &[u8]) -> bool {
    word.iter().position(|&b| b == b'.').is_some_and(|dot| is_digits(&word[..dot]) && is_digits(&word[dot + 1..]))
}

pub(super) fn is_hex(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `line` with the tabs simpleperf's `report_sample.py` separates its fields with (`Gecko\t25122
/// [007] 1.5:\t\t1000 task-clock:u:`, `        b3cea6c4\tLock::unlock() (libc.so)`) as spaces, byte
/// for byte, so that every place found in it is one of `line`; `line` itself where no tab follows
/// its leading white space (perf starts a frame line with one).
pub(super) fn spaced(line: &str) -> std::borrow::Cow<'_, str> {
    match memchr::memchr(b'\t', &line.as_bytes()[leading_space(line)..]) {
        Some(_) => line.replace('\t', " ").into(),
        None => line.into(),
    }
}

/// Whether `b` is one of the ASCII characters `char::is_whitespace` takes as white space (`str::trim`
/// trims them; `u8::is_ascii_whitespace` leaves out the vertical tab).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// How many bytes of white space `text` starts with, as `str::trim_start` counts them: byte by byte
/// over ASCII (a frame line's tab and the spaces that pad its address), with `str::trim_start`
/// only from a byte that is not ASCII.
pub(super) fn leading_space(text: &str) -> usize {
    let bytes = text.as_bytes();
    let spaces = bytes.iter().take_while(|&&b| is_ascii_space(b)).count();
    match bytes.get(spaces) {
        Some(b) if !b.is_ascii() => text.len() - text.trim_start().len(),
        _ => spaces,
    }
}

/// The length of `text` without the white space it ends with, as `str::trim_end` leaves it (see
/// [`leading_space`]).
fn trimmed_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let spaces = bytes.iter().rev().take_while(|&&b| is_ascii_space(b)).count();
    match bytes.len().checked_sub(spaces + 1).map(|last| bytes[last]) {
        Some(b) if !b.is_ascii() => text.trim_end().len(),
        _ => bytes.len() - spaces,
    }
}

/// Whether `line` is blank: the end of a record.
pub(super) fn is_blank(line: &str) -> bool {
    leading_space(line) == line.len()
}

/// `range` of `line` without the spaces at its ends.
fn trim_range(line: &str, range: Range<usize>) -> Range<usize> {
    let text = &line[range.clone()];
    let start = range.start + leading_space(text);
    start..start.max(range.start + trimmed_len(text))
}

/// A frame line's address, symbol (trimmed; a single space where it is empty, as inferno and
/// FlameGraph name it) and DSO without its parentheses, as byte ranges of `line`; `None` for a line
/// that is not such a frame, as inferno finds its "weird stack lines": no DSO in parentheses as the
/// last word, or no space between the address and the DSO for a symbol. `start` is where the line's
/// white space ends ([`leading_space`]), which the caller has found already.
pub(super) fn frame_parts(line: &str, start: usize) -> Option<(Range<usize>, Range<usize>, Range<usize>)> {
    let end = trimmed_len(line);
    let text = line.as_bytes().get(start..end).filter(|text| text.last() == Some(&b')'))?;
    let pc_end = start + text.iter().position(|&b| b == b' ')?;
    let dso_start = memchr::memrchr(b' ', text)? + start + 1;
    if dso_start <= pc_end + 1 || line.as_bytes()[dso_start] != b'(' || end - dso_start < 2 {
        return None;
    }
    let symbol = trim_range(line, pc_end + 1..dso_start - 1);
    Some((start..pc_end, symbol, dso_start + 1..end - 1))
}

/// The symbol of a frame printed without its DSO (`-F ip,sym`): an address in hex, a space and a
/// symbol, as a byte range of `line` (trimmed, not empty).
fn bare_frame_symbol(line: &str, start: usize) -> Option<Range<usize>> {
    let pc_end = start + memchr::memchr(b' ', &line.as_bytes()[start..])?;
    let symbol = trim_range(line, pc_end..line.len());
    let text = &line[symbol.clone()];
    // A last word in parentheses is a DSO that left no room for a symbol: a weird line to inferno.
    let dso_alone = text.ends_with(')') && text.rsplit(' ').next().is_some_and(|w| w.starts_with('('));
    (is_hex(&line[start..pc_end]) && !text.is_empty() && !dso_alone).then_some(symbol)
}

/// The symbol and DSO of a frame line, or of the frame on a header line: with its `(DSO)`, or,
/// where `bare` allows it, without one (the DSO then an empty range).
pub(super) fn frame_symbol_and_dso(line: &str, start: usize, bare: bool) -> Option<(Range<usize>, Range<usize>)> {
    match frame_parts(line, start) {
        Some((_, symbol, dso)) => Some((symbol, dso)),
        None if bare => bare_frame_symbol(line, start).map(|symbol| (symbol, line.len()..line.len())),
        None => None,
    }
}

/// Whether `line`, after a frame, is its source line (`-F +srcline`), and if so whether it marks
/// the frame inlined: two spaces, a file, a colon and a line number (`  work.c:9`; perf's `??:0`
/// for none, `:0` where the debug information names no file); where perf knows no line, the DSO
/// and the address in brackets (`  [kernel.kallsyms][ffffffff822601e7]`, `  dash[ae77]`); either
/// followed by ` (inlined)` for a frame of a function inlined into its caller (perf then prints no
/// DSO on the frame's line).
fn source_line(line: &str) -> Option<SourceLine> {
    let text = line.strip_prefix("  ")?.trim_end();
    let (text, inlined) = match text.strip_suffix(" (inlined)") {
        Some(text) => (text, true),
        None => (text, false),
    };
    let file_and_line = text.rsplit_once(':').is_some_and(|(file, number)| {
        let no_file = file.is_empty() && is_digits(number.as_bytes());
        no_file || (!file.trim().is_empty() && (is_digits(number.as_bytes()) || number == "?"))
    });
    let dso_and_address = text
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
        .is_some_and(|(dso, address)| !dso.trim().is_empty() && is_hex(address));
    (file_and_line || dso_and_address).then_some(SourceLine { inlined })
}

/// A frame's source line (`-F +srcline`).
struct SourceLine {
    /// Whether it ends with perf's ` (inlined)`: its frame is of a function inlined into its caller.
    inlined: bool,
}

/// The error for `text` where a frame line was expected.
pub(super) fn not_a_frame(text: &str) -> ParseErrorKind {
    let expected = "a frame line: an address, a symbol and its (DSO) where perf prints it".into();
    ParseErrorKind::Unexpected { expected, found: excerpt(text.as_bytes()) }
}

/// What the reading thread makes of a line.
pub(super) enum Parsed {
    /// A comment, a frame's source line, or a frame line that names no frame.
    Skip,
    /// A blank line: the end of a record.
    End,
    /// A header: its fields are the block's part of this index.
    Header(u32),
    /// A frame line's symbol and DSO.
    Frame(PairKey),
    /// A source line ending ` (inlined)`: the frame before it is of a function inlined into its
    /// caller.
    InlinedSource,
    /// A side-band event (`PERF_RECORD_COMM …`): no sample, but the end of a sample perf printed on
    /// its header line alone.
    SideBand,
    /// Not a header or frame: where in the line and why (boxed, so that the item handed over for
    /// every line stays small).
    Bad(usize, Box<ParseErrorKind>),
}

/// The reading thread's state: where it is in the records.
#[derive(Default)]
pub(super) struct Splitter {
    /// Whether a record is open (its frames may follow).
    in_record: bool,
    /// Whether the last line was a frame (its source line may follow).
    after_frame: bool,
    /// How many source lines (`-F +srcline`) were skipped.
    pub(super) source_lines: u64,
    /// The side-band events skipped.
    pub(super) side_band: SideBandEvents,
}

/// The side-band events perf prints among the samples where a `--show-*-events` option asks
/// (`--show-task-events`: `PERF_RECORD_COMM`, `PERF_RECORD_FORK`, `PERF_RECORD_EXIT`;
/// `--show-mmap-events`, `--show-switch-events`, `--show-round-events` …), which are no samples.
#[derive(Default)]
pub(super) struct SideBandEvents {
    /// How many lines of them were skipped.
    pub(super) lines: u64,
    /// Their kinds, without `PERF_RECORD_`, in the order they came (`COMM`, `MMAP2`).
    pub(super) kinds: Vec<String>,
}

impl SideBandEvents {
    /// Counts the side-band event whose name starts `word`.
    fn add(&mut self, word: &str) {
        self.lines += 1;
        let name = word.trim_start_matches("PERF_RECORD_");
        let name = &name[..name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(name.len())];
        if !self.kinds.iter().any(|kind| kind == name) {
            self.kinds.push(name.to_string());
        }
    }
}

impl Splitter {
    /// What `line` is; a header's fields go on `headers`.
    pub(super) fn parse(&mut self, line: &str, headers: &mut Vec<Header>) -> Parsed {
        if line.starts_with('#') {
            return Parsed::Skip;
        }
        let start = leading_space(line);
        if start == line.len() {
            (self.in_record, self.after_frame) = (false, false);
            return Parsed::End;
        }
        if let Some(source) = std::mem::take(&mut self.after_frame).then(|| source_line(line)).flatten() {
            self.source_lines += 1;
            return if source.inlined { Parsed::InlinedSource } else { Parsed::Skip };
        }
        // perf starts a frame line with a tab; one without a DSO has no other mark.
        let bare = line.starts_with('\t');
        let spaced = spaced(line);
        let line = spaced.as_ref();
        if self.in_record {
            if let Some((symbol, dso)) = frame_symbol_and_dso(line, start, bare) {
                self.after_frame = true;
                return Parsed::Frame(frame_key(line, symbol, dso));
            }
        }
        // `PERF_RECORD_FINISHED_ROUND` (`--show-round-events`) is printed alone on its line.
        if is_side_band(&line.as_bytes()[start..]) {
            return self.side_band(&line[start..]);
        }
        // A header, after a blank line, or where a record without call chain ends without one.
        match parse_header(line) {
            Some(header) if header.side_band => {
                let event = header.tid.end + line[header.tid.end..].find("PERF_RECORD_").unwrap_or(0);
                self.side_band(&line[event..])
            }
            Some(header) => self.header(line, header, headers),
            None if self.in_record => Parsed::Bad(0, Box::new(not_a_frame(line))),
            None if lacks_thread_id(line) => Parsed::Bad(
                0,
                Box::new(ParseErrorKind::Unexpected {
                    expected: "a sample header with its thread id (prog 1234 12.5: 1000 cpu-clock:): the thread id \
                               tells the command apart from the fields after it; print it with perf script -F \
                               with tid in the list (or -F +tid)"
                        .into(),
                    found: excerpt(line.as_bytes()),
                }),
            ),
            None => Parsed::Bad(
                0,
                Box::new(ParseErrorKind::Unexpected {
                    expected: "a sample header: command, thread id, time, event (prog 1234 12.5: 1000 cpu-clock:)"
                        .into(),
                    found: excerpt(line.as_bytes()),
                }),
            ),
        }
    }

    /// A side-band event's line, `text` from its name on: counted, and the end of an open record.
    fn side_band(&mut self, text: &str) -> Parsed {
        (self.in_record, self.after_frame) = (false, false);
        self.side_band.add(text);
        Parsed::SideBand
    }

    /// A header line's item; the frame on it, if any, ends the record (a sample without call
    /// chain, whose next sample follows on the next line).
    fn header(&mut self, line: &str, mut header: Header, headers: &mut Vec<Header>) -> Parsed {
        self.in_record = header.frame.is_none();
        if let Some(from) = header.frame {
            let Some((symbol, dso)) = frame_symbol_and_dso(line, from, true) else {
                return Parsed::Bad(from, Box::new(not_a_frame(&line[from..])));
            };
            self.after_frame = true;
            header.frame_key = Some(frame_key(line, symbol, dso));
        }
        headers.push(header);
        Parsed::Header(headers.len() as u32 - 1)
    }
}

/// The key of the symbol (with its offset, which is left out) and DSO at these ranges of `line`.
fn frame_key(line: &str, symbol: Range<usize>, dso: Range<usize>) -> PairKey {
    PairKey::new(line, super::names::without_offset(line, symbol), dso)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_as_inferno_splits_them() {
        let line = "V8 WorkerThread 24636/25607 [000] 94564.109216:     257597 cycles:uppp:";
        let h = parse_header(line).unwrap();
        assert_eq!(&line[h.comm], "V8 WorkerThread");
        assert_eq!(&line[h.pid.unwrap()], "24636");
        assert_eq!(&line[h.tid], "25607");
        assert_eq!(&line[h.event.unwrap()], "cycles");
        assert_eq!((h.period, h.frame, h.time), (Some(257597), None, Some(94_564_109_216_000)));
        let line = "false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])";
        let h = parse_header(line).unwrap();
        assert_eq!(&line[h.frame.unwrap()..], "ffffffff9aa3c8de [unknown] ([unknown])");
        let line = "java 12688 6544038.708352: cpu-clock:";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], h.pid, h.period), ("java", None, None));
        assert!(parse_header("no digits here: cycles:").is_none());
    }

    /// A thread named with a space and a number (Firefox's `FS Broker 5906`): the number is part of
    /// the command where the fields after it do not read as perf prints them (perf 6.1's lines).
    #[test]
    fn thread_names_ending_in_a_number_keep_it() {
        let line = "    io worker 17 14658  1804.643684:    1001001 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.tid], h.period), ("io worker 17", "14658", Some(1001001)));
        assert_eq!(&line[h.event.unwrap()], "cpu-clock");
        let line = "FS Broker 5906 5877/5906 [001] 12.5: 250000 cpu-clock:  ffffffff9aa3c8de f ([kernel.kallsyms])";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.pid.unwrap()], &line[h.tid]), ("FS Broker 5906", "5877", "5906"));
        assert_eq!(&line[h.frame.unwrap()..], "ffffffff9aa3c8de f ([kernel.kallsyms])");
        // Fields that read either way keep the first word of digits as the thread id.
        let line = "calc 3 14659  1804.645680:    1001001 cpu-clock: ";
        assert_eq!(&line[parse_header(line).unwrap().comm], "calc 3");
        let line = "perfwork  5809    1001001 ";
        assert_eq!(&line[parse_header(line).unwrap().comm], "perfwork");
    }

    /// Headers of `-F` field lists that leave out the time, the event or the period, with the
    /// sample's frame on the line or not (perf 6.1's output).
    #[test]
    fn headers_of_field_lists_keep_what_is_there() {
        let fields = |line: &'static str| {
            let h = parse_header(line).unwrap();
            (h.period, h.event.map(|e| &line[e]), h.time.is_some(), h.frame.map(|f| &line[f..]))
        };
        assert_eq!(fields("perfwork  5809    1001001 "), (Some(1001001), None, false, None));
        assert_eq!(fields("perfwork  5809/5809    182.252355: "), (None, None, true, None));
        assert_eq!(
            fields("  perfwork  5801    1001001      55dd8b8f51a2 leaf"),
            (Some(1001001), None, false, Some("55dd8b8f51a2 leaf"))
        );
        assert_eq!(
            fields("  perfwork  5801/5801    180.962862:      55dd8b8f51a2 leaf"),
            (None, None, true, Some("55dd8b8f51a2 leaf"))
        );
        // An address of digits alone, before a symbol, is no period.
        assert_eq!(fields("p 1 1.5:   401136 leaf"), (None, None, true, Some("401136 leaf")));
        assert_eq!(fields("p 1 1.5: 1000 401136 leaf"), (Some(1000), None, true, Some("401136 leaf")));
        assert_eq!(
            fields("p 1 1.5: cpu-clock:   401136 leaf (x)"),
            (None, Some("cpu-clock"), true, Some("401136 leaf (x)"))
        );
    }

    /// perf 6.1's other headers: a time of day before the time (`-F +tod`), a tracepoint's name
    /// and fields, a side-band event, a line that starts with its thread id (`-F` without `comm`).
    #[test]
    fn headers_of_other_printings() {
        let line = "prog 24794 2026-12-02 10:50:18.103511   556.075806:     250000 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.tid], h.period), ("prog", "24794", Some(250000)));
        assert_eq!((h.time, h.event.map(|e| &line[e])), (Some(556_075_806_000), Some("cpu-clock")));
        let line = "prog 10023 [001]   347.602403: sched:sched_switch: prev_comm=prog prev_pid=10023 \
                    prev_state=R ==> next_comm=rcu_preempt next_pid=15";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], h.event.map(|e| &line[e]), h.frame), ("prog", Some("sched:sched_switch"), None));
        let line = "p 1 1.5: sched:sched_switch:u:      ffffffff82266208 __schedule+0x628 ([kernel.kallsyms])";
        let h = parse_header(line).unwrap();
        assert_eq!(h.event.map(|e| &line[e]), Some("sched:sched_switch"));
        assert_eq!(&line[h.frame.unwrap()..], "ffffffff82266208 __schedule+0x628 ([kernel.kallsyms])");
        for line in [
            "perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:5754/5754",
            "prog  5754   260.659891: PERF_RECORD_FORK(5754:5757):(5754:5754)",
            "prog 10005   346.417817: PERF_RECORD_SWITCH OUT preempt",
            "PERF_RECORD_FINISHED_ROUND",
        ] {
            assert!(is_side_band_line(line), "{line}");
        }
        assert!(!is_side_band_line("prog  5754   260.659914:     250000 cpu-clock: "));
        let line = "13647  2199.697588:    1001001 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.tid], h.period), ("", "13647", Some(1001001)));
    }

    /// A sample of a task that had exited when perf read the recording: perf names its thread
    /// `:-1`, its thread id `-1` (perf 6.1, `perf record -a`).
    #[test]
    fn exited_tasks_have_thread_id_minus_one() {
        let line = ":-1    -1 [001]  6016.878263:     250000 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], h.pid, &line[h.tid]), (":-1", None, "-1"));
        assert_eq!((h.period, h.event.map(|e| &line[e])), (Some(250000), Some("cpu-clock")));
        assert_eq!((h.time, h.frame), (Some(6_016_878_263_000), None));
        let line = ":-1    -1/-1    [001]  6016.878263:     250000 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.pid.unwrap()], &line[h.tid]), (":-1", "-1", "-1"));
        assert!(!is_thread_id(b"-2") && !is_thread_id(b"1-1") && !is_thread_id(b"--1"));
    }

    /// `perf script -F +misc`: the sample's mode, a letter, between the thread id (or CPU) and the
    /// time (perf 6.1).
    #[test]
    fn misc_letters_are_skipped() {
        let line = "node 29628 U      5237.935398:     250000 cpu-clock: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.tid], h.period), ("node", "29628", Some(250000)));
        assert_eq!((h.time, h.event.map(|e| &line[e])), (Some(5_237_935_398_000), Some("cpu-clock")));
        let line = "node 29628/29628 [003] K      5237.935645:     250000 cpu-clock:pppH: ";
        let h = parse_header(line).unwrap();
        assert_eq!((&line[h.comm], &line[h.tid], h.period), ("node", "29628", Some(250000)));
        assert_eq!(h.event.map(|e| &line[e]), Some("cpu-clock"));
        // A mode of none prints spaces alone.
        let line = "node 29628       5237.935645:     250000 cpu-clock: ";
        assert_eq!(parse_header(line).unwrap().period, Some(250000));
    }

    /// `perf script -F -tid`: no thread id, so the period would read as one and the command take
    /// the time; refused, as a header without a word of digits is.
    #[test]
    fn headers_without_thread_id_are_refused() {
        let line = "node  5237.935398:     250000 cpu-clock: ";
        assert!(parse_header(line).is_none());
        assert!(lacks_thread_id(line));
        let mut headers = Vec::new();
        let Parsed::Bad(0, kind) = Splitter::default().parse(line, &mut headers) else { panic!("read") };
        assert!(kind.to_string().contains("-F with tid"), "{kind}");
        assert!(lacks_thread_id("prog 1.5: cpu-clock:"));
        assert!(!lacks_thread_id("no digits here: cycles:"));
    }

    /// [`frame_parts`] and [`super::super::names::without_offset`] as `str` methods say them, the
    /// plain path the byte scanning is held to; `None` where no space is left between the address
    /// and the DSO for a symbol.
    fn frame_parts_of_str(line: &str) -> Option<(&str, &str, &str)> {
        let start = line.len() - line.trim_start().len();
        let text = line.trim_end();
        let pc_end = start + text.get(start..)?.find(' ')?;
        let dso_start = text.rfind(' ')? + 1;
        let dso = &text[dso_start..];
        if dso_start <= pc_end + 1 || !dso.starts_with('(') || !dso.ends_with(')') || dso.len() < 2 {
            return None;
        }
        let symbol = line[pc_end + 1..dso_start - 1].trim();
        let symbol = match symbol.rsplit_once('+') {
            Some((name, offset))
                if offset.strip_prefix("0x").is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit())) =>
            {
                name
            }
            _ => symbol,
        };
        Some((&line[start..pc_end], symbol, &dso[1..dso.len() - 1]))
    }

    fn frame_parts_of(line: &str) -> Option<(&str, &str, &str)> {
        let (pc, symbol, dso) = frame_parts(line, leading_space(line))?;
        Some((&line[pc], &line[super::super::names::without_offset(line, symbol)], &line[dso]))
    }

    #[test]
    fn frame_lines_split_as_inferno_splits_them() {
        assert_eq!(frame_parts_of("\t    7f1e leaf+0x25 (/tmp/prog)"), Some(("7f1e", "leaf", "/tmp/prog")));
        assert_eq!(frame_parts_of("\t1  (x)"), Some(("1", "", "x")));
        assert_eq!(frame_parts_of("\t1   a b+0x1+0x2  (x) \r"), Some(("1", "a b+0x1", "x")));
        // White space that is not ASCII is white space to `str::trim`.
        assert_eq!(frame_parts_of("\u{3000}\t1 \u{a0}a\u{2003} (x)\u{85}"), Some(("1", "a", "x")));
        // No symbol between the address and the DSO: inferno's "weird stack line".
        assert_eq!(frame_parts_of("\t1 (x)"), None);
        assert_eq!(frame_parts_of("\t1 a (x"), None);
    }

    #[test]
    fn frames_without_dso_and_source_lines() {
        let bare = |line: &'static str| {
            frame_symbol_and_dso(line, leading_space(line), true).map(|(s, d)| (&line[s], d.is_empty()))
        };
        assert_eq!(bare("\t            11a2 leaf"), Some(("leaf", true)));
        assert_eq!(bare("\t  11a2 std::vector<int>::size  "), Some(("std::vector<int>::size", true)));
        assert_eq!(bare("\t  11a2"), None);
        assert_eq!(bare("\t  perfwork leaf"), None);
        assert_eq!(bare("\t1 (x)"), None);
        let inlined = |line| source_line(line).map(|s| s.inlined);
        assert_eq!(inlined("  work.c:338"), Some(false));
        assert_eq!(inlined("  ??:0"), Some(false));
        assert_eq!(inlined("  [kernel.kallsyms][ffffffff822601e7]"), Some(false));
        assert_eq!(inlined("  dash[ae77]"), Some(false));
        // perf 6.1 with --call-graph dwarf: a frame inlined into its caller, a line of no file.
        assert_eq!(inlined("  dl-cacheinfo.h:158 (inlined)"), Some(true));
        assert_eq!(inlined("  :0"), Some(false));
        assert_eq!(inlined("  [ae77]"), None);
        assert_eq!(inlined("  :x"), None);
        assert_eq!(inlined("\t  11a2 leaf"), None);
        assert_eq!(inlined("        perfwork  5801   180.962862:    1001001 cpu-clock: "), None);
    }

    proptest::proptest! {
        /// Lines of white space, hex digits, symbols with offsets and parentheses split as `str`'s
        /// methods split them.
        #[test]
        fn frame_lines_split_as_str_methods_split_them(line in r"[ \t\u{a0}\u{3000}\x0b]{0,20}[0-9a-f]{0,18}[ \t]{0,2}[a-z (+0x)\u{a0}]{0,12}[ \t\x0c\u{2003}]{0,3}(\([a-z/.]{0,5}\)?)?[ \r\u{85}]{0,2}") {
            proptest::prop_assert_eq!(frame_parts_of(&line), frame_parts_of_str(&line));
        }
    }
}
