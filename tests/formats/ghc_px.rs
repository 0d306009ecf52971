//! GHC's `-px` output (`ghc-px`), checked against the grammar of `ParseProfile.hs`, the one
//! parser of the format that survives (docs/sources.md; docs/formats.md, `ghc-px`): whatever the source,
//! proftool writes what it reads, and proftool reads whatever whitespace it takes between fields.
//! And through the binary: the interval its header states and ticks, one MAIN root, names it
//! cannot hold, `--ghc-word-size`.

use crate::support::binary::{fixture, proftool, run, run_bytes, run_stdin, temp};
use crate::support::read_bytes;
use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::model::dump::dump;
use proftool::{Format, Profile};

/// Reads `text` as a `-px` file, or the error's message.
fn read_px(text: &str) -> Result<Profile, String> {
    read_bytes(Format::GhcPx, text.as_bytes()).0.map_err(|e| e.to_string())
}

fn read_as(format: Format, text: &str) -> Profile {
    read_bytes(format, text.as_bytes()).0.unwrap()
}

/// The grammar of `ParseProfile.hs` (Parsec), as strictly as it reads: two quoted
/// header lines, `1` lines with exactly two quoted strings (a string ends at its first `"`),
/// then `2` lines, then `5 total ` and records `1 id e t a ` up to a `0`. Fields are separated
/// by Parsec's `space`: exactly one character for which Haskell's `isSpace` holds (a subset of
/// Rust's `char::is_whitespace`), a line break included; `eol` is LF or CRLF. Returns where it
/// failed.
fn parse_profile_grammar(text: &str) -> Result<(), String> {
    fn quoted(s: &str) -> Option<&str> {
        let rest = s.strip_prefix('"')?;
        let end = rest.find('"')?;
        Some(&rest[end + 1..])
    }
    fn natural(s: &str) -> Option<&str> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then(|| &s[n..])
    }
    fn space(s: &str) -> Option<&str> {
        s.strip_prefix(char::is_whitespace)
    }
    fn eol(s: &str) -> Option<&str> {
        s.strip_prefix("\r\n").or_else(|| s.strip_prefix('\n'))
    }
    fn code(s: &str, c: char) -> Option<&str> {
        s.strip_prefix(c).and_then(space)
    }
    let mut s = text;
    for header in ["timestamp", "interval"] {
        s = quoted(s).and_then(eol).ok_or(header)?;
    }
    while s.starts_with('1') {
        let rest = code(s, '1').and_then(natural).and_then(space);
        let rest = rest.and_then(quoted).and_then(space).and_then(quoted).and_then(eol);
        s = rest.ok_or_else(|| format!("cost centre at {:?}", &s[..s.len().min(40)]))?;
    }
    while s.starts_with('2') {
        let rest = code(s, '2').and_then(natural).and_then(space).ok_or("stack id")?;
        let rest = match code(rest, '1') {
            Some(r) => natural(r),
            None => code(rest, '2').and_then(natural).and_then(space).and_then(natural),
        };
        s = rest.and_then(eol).ok_or("stack line")?;
    }
    s = code(s, '5').and_then(natural).and_then(space).ok_or("5 total")?;
    while !s.starts_with('0') {
        let mut rest = code(s, '1').ok_or("record")?;
        for _ in 0..4 {
            rest = natural(rest).and_then(space).ok_or("record field")?;
        }
        s = rest;
    }
    Ok(())
}

/// `text` with every space outside double quotes replaced by one of `separators`, in turn.
fn respaced(text: &str, separators: &[&str]) -> String {
    let mut out = String::new();
    let (mut quoted, mut k) = (false, 0);
    for c in text.chars() {
        quoted ^= c == '"';
        if c == ' ' && !quoted {
            out.push_str(separators[k % separators.len()]);
            k += 1;
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn any_whitespace_parse_profile_takes_between_fields_is_read() {
    let notes = include_str!("../../fixtures/ghc-px/notes-example.px");
    let want = dump(&read_px(notes).unwrap());
    let odd = ["\t", "\u{b}", "\u{c}", "\u{a0}", "\u{3000}", "\r", " "];
    let (declarations, costs) = notes.split_at(notes.find("\n5 ").unwrap() + 1);
    // Line breaks separate fields too, in the cost line (a line-based reader's other lines
    // are lines).
    let variants = [
        respaced(notes, &odd),
        respaced(notes, &odd[1..]),
        format!("{}{}", respaced(declarations, &odd), respaced(costs, &["\n", "\t", "\r", "\u{c}"])),
    ];
    for variant in variants {
        assert_eq!(parse_profile_grammar(&variant), Ok(()), "{variant:?}");
        assert_eq!(read_px(&variant).map(|p| dump(&p)), Ok(want.clone()), "{variant:?}");
    }
    let tabs = "\"t\"\n\"20 ms\"\n1\t1\t\"MAIN\"\t\"MAIN\"\n2 1 1 1\n5 3 1 1 1 3 8 0\n";
    assert_eq!(parse_profile_grammar(tabs), Ok(()));
    assert!(read_px(tabs).is_ok());
}

fn write_px(profile: Profile) -> (String, Diagnostics) {
    let mut out = Vec::new();
    let mut diag = Diagnostics::default();
    convert::write(profile, Format::GhcPx, &mut out, &ConvertOptions::default(), &mut diag).unwrap();
    (String::from_utf8(out).unwrap(), diag)
}

#[test]
fn parse_profile_accepts_what_the_writer_writes() {
    let notes = include_str!("../../fixtures/ghc-px/notes-example.px");
    assert_eq!(parse_profile_grammar(notes), Ok(()));
    let sources = [
        (Format::GhcPx, notes),
        (Format::GhcPx, include_str!("../../fixtures/ghc-px/ghc72-undeclared.px")),
        (Format::GhcProf, include_str!("../../fixtures/ghc-prof/unicode-crlf.prof")),
        (Format::Folded, "a;say \"hi\" 3\nb;c 1\n"),
        (Format::Lispworks, include_str!("../../fixtures/lispworks/processes.tree")),
    ];
    for (format, text) in sources {
        let (written, _) = write_px(read_as(format, text));
        assert_eq!(parse_profile_grammar(&written), Ok(()), "{format}:\n{written}");
    }
    assert!(parse_profile_grammar("\"t\"\n\"20 ms\"\n1 1 \"a \"q\" b\" \"M\"\n5 0 0\n").is_err());
}

#[test]
fn quotes_and_line_breaks_in_labels_are_replaced_with_a_warning() {
    let (written, diag) = write_px(read_as(Format::Folded, "main;say \"hi\" 3\n"));
    let body: Vec<&str> = written.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "\"1 ms\"",
            "1 3 \"main\" \"\"",
            "1 2 \"say 'hi'\" \"\"",
            "1 1 \"MAIN\" \"MAIN\"",
            "2 1 1 1",
            "2 2 2 3 1",
            "2 3 2 2 2",
            "5 3 1 1 0 0 0 1 2 0 0 0 1 3 0 3 0 0"
        ]
    );
    assert!(diag.has("name-sanitised-quote"), "{:?}", diag.warnings());
}

#[test]
fn ghc_word_size_scales_px_alloc() {
    let info = |size: &str| {
        let out = proftool().args(["info", "--ghc-word-size", size]).arg(fixture("ghc-px/notes-example.px")).output();
        String::from_utf8(out.unwrap().stdout).unwrap()
    };
    // 3 + 12 + 40 + 1000 + 2000 = 3055 words.
    assert!(info("8").contains("alloc (alloc, bytes, additive): total 24440"), "{}", info("8"));
    assert!(info("4").contains("alloc (alloc, bytes, additive): total 12220"), "{}", info("4"));
}

/// The second line of a -px file: its tick length.
fn px_interval(out: &[u8]) -> String {
    String::from_utf8_lossy(out).lines().nth(1).unwrap_or_default().to_string()
}

/// Time divided into `-px` ticks is divided at the interval the header states, whole milliseconds:
/// a run of 68.4 ms (a Dyalog-sized one, typed here as speedscope time) read back from the header
/// and its ticks is 68 ms at `--interval 250us` (stated as 1 ms: 68 ticks, not 274 ticks of "1 ms",
/// 274 ms) and 68 ms at `--interval 1500us` (stated as 2 ms: 34 ticks), by hand.
#[test]
fn time_becomes_ticks_of_the_interval_the_px_header_states() {
    let run = r#"{"$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "Rain"}, {"name": "Sum"}]},
        "profiles": [{"type": "evented", "name": "run", "unit": "milliseconds", "startValue": 0, "endValue": 68.4,
            "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 10},
                       {"type": "C", "frame": 1, "at": 50}, {"type": "C", "frame": 0, "at": 68.4}]}]}"#;
    for (interval, header, ticks) in [("250us", "\"1 ms\"", 68), ("1500us", "\"2 ms\"", 34), ("4ms", "\"4 ms\"", 17)] {
        let args = ["convert", "--from", "speedscope", "--interval", interval, "--to", "ghc-px"];
        let (px, err) = run_stdin(&args, run.as_bytes());
        assert_eq!(px_interval(px.as_bytes()), header, "{interval}: {err}");
        assert_eq!(err.contains("ghc-px states its interval in steps of 1ms"), interval != "4ms", "{err}");
        let summary =
            proftool().args(["summary", "-q", "--from", "ghc-px", "--format", "csv", "-"]).write_stdin(px).output();
        let summary = String::from_utf8(summary.unwrap().stdout).unwrap();
        // The self ticks of every row.
        let total: u64 = summary.lines().skip(1).filter_map(|l| l.split(',').nth(1)?.parse::<u64>().ok()).sum();
        assert_eq!(total, ticks, "{interval}: {summary}");
    }
}

/// Samples taken at an interval `-px` cannot state are time, counted in ticks of the interval its
/// header states: 70 samples of 1.5 ms (105 ms) are 53 ticks of 2 ms (52.5, rounded), of 250 µs
/// 18 ticks of 1 ms (17.5), and of 2 ms 70 ticks, by hand. They were written as 70 ticks of "2 ms"
/// or "1 ms", 140 ms and 70 ms read back.
#[test]
fn samples_become_ticks_of_the_interval_the_px_header_states() {
    for (interval, header, ticks) in
        [("1500us", "\"2 ms\"", "5 53 "), ("250us", "\"1 ms\"", "5 18 "), ("2ms", "\"2 ms\"", "5 70 ")]
    {
        let args = ["convert", "--from", "folded", "--interval", interval, "--to", "ghc-px"];
        let (px, err) = run_stdin(&args, b"a;b 40\na 30\n");
        assert_eq!(px_interval(px.as_bytes()), header, "{interval}: {err}");
        assert!(px.lines().last().unwrap().starts_with(ticks), "{interval}: {px}");
        assert_eq!(err.contains("are counted in ticks of"), interval != "2ms", "{err}");
    }
}

#[test]
fn interval_does_not_relabel_counted_ticks() {
    // -px ticks of 20 ms, and .prof ticks of 1000 us: kept as counted, at their own interval.
    for (input, own) in [("ghc-px/notes-example.px", "20ms"), ("ghc-prof/work-ticks.prof", "1ms")] {
        let (out, err) = run_bytes(&["convert", "--interval", "10ms", "--to", "ghc-px"], &fixture(input));
        assert_eq!(px_interval(&out), format!("\"{}\"", own.replace("ms", " ms")), "{input}");
        let warning = format!(
            "--interval 10ms is not applied: no time is turned into counts, and counts are kept as they were taken; ghc-px gets the profile's own interval, {own}"
        );
        assert_eq!(err.matches(&warning).count(), 1, "{input}: {err}");
    }
    // A target without an interval says so too.
    let (_, err) = run_bytes(&["convert", "--interval", "10ms", "--to", "folded"], &fixture("ghc-px/notes-example.px"));
    assert!(
        err.contains("--interval 10ms is not applied") && err.contains("the profile's own interval is 20ms"),
        "{err}"
    );
    // The same interval as the profile's is no news.
    let (out, err) =
        run_bytes(&["convert", "--interval", "20ms", "--to", "ghc-px"], &fixture("ghc-px/notes-example.px"));
    assert_eq!((px_interval(&out).as_str(), err.contains("not applied")), ("\"20 ms\"", false));
}

/// Counts become time at the interval they were taken at: the 50 ticks of a file of `"20 ms"` ticks
/// are 1000 ms in a Dyalog report, whatever `--interval` says (it makes new counts, and labels
/// counts that have no interval).
#[test]
fn counted_ticks_become_time_at_their_own_interval() {
    for args in [&["convert", "--to", "dyalog-xml"][..], &["convert", "--interval", "10ms", "--to", "dyalog-xml"]] {
        let (out, err) = run_bytes(args, &fixture("ghc-px/notes-example.px"));
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("<TotalTime>1000</TotalTime>"), "{args:?}: {out}");
        assert!(err.contains("ticks multiplied by an interval of 20ms"), "{args:?}: {err}");
        assert_eq!(err.contains("--interval 10ms is not applied"), args.len() == 5, "{args:?}: {err}");
    }
}

#[test]
fn interval_turns_time_into_ticks_and_labels_counts_without_one() {
    // Time (from %time) becomes ticks of --interval.
    let (out, err) =
        run_bytes(&["convert", "--interval", "10ms", "--to", "ghc-px"], &fixture("ghc-prof/work-percent.prof"));
    assert_eq!(px_interval(&out), "\"10 ms\"");
    assert!(err.contains("time in ms divided into ticks of 10ms") && !err.contains("not applied"), "{err}");
    // Folded counts have no interval of their own: --interval says what they were taken at.
    let (out, err) = run_stdin(&["convert", "--interval", "10ms", "--from", "folded", "--to", "ghc-px"], b"a;b 3\n");
    assert_eq!(out.lines().nth(1), Some("\"10 ms\""));
    assert!(!err.contains("not applied"), "{err}");
}

#[test]
fn px_output_has_one_main_root() {
    // One root that is not MAIN goes under an added MAIN, as several roots do.
    for input in [&b"a;b 3\na;c 2\n"[..], b"a;b 3\nd 2\n"] {
        let (out, err) = run_stdin(&["convert", "--from", "folded", "--to", "ghc-px"], input);
        let main_id = out.lines().find(|l| l.ends_with(" \"MAIN\" \"MAIN\"")).expect(&out).split(' ').nth(1).unwrap();
        let roots: Vec<&str> =
            out.lines().filter(|l| l.starts_with("2 ") && l.split(' ').nth(2) == Some("1")).collect();
        assert_eq!(roots, [format!("2 1 1 {main_id}")], "{out}");
        assert!(
            err.contains("ghc-px has one root, MAIN: the input's roots are put under a MAIN added for them"),
            "{err}"
        );
    }
    // A MAIN root is kept as it is.
    let (out, err) = run_bytes(&["convert", "--to", "ghc-px"], &fixture("ghc-json/work.prof.json"));
    let out = String::from_utf8(out).unwrap();
    assert_eq!(out.lines().filter(|l| l.contains("\"MAIN\" \"MAIN\"")).count(), 1, "{out}");
    assert!(!err.contains("root"), "{err}");
}

#[test]
fn each_replacement_in_px_names_is_its_own_warning() {
    // A label with a quote and a line break (JSON escapes them): both replacements are named.
    let json = br#"{"program": "p", "arguments": [], "rts_arguments": [], "total_ticks": 1, "tick_interval": 1000,
 "cost_centres": [{"id": 1, "label": "say \"hi\"\nthere", "module": "Main", "src_loc": "", "is_caf": false}],
 "profile": {"id": 1, "entries": 1, "alloc": 8, "ticks": 1, "children": []}}"#;
    let (out, err) = run_stdin(&["convert", "--from", "ghc-json", "--to", "ghc-px"], json);
    assert!(out.contains("1 1 \"say 'hi' there\" \"Main\""), "{out}");
    for c in [r#"'"'"#, r"'\n'"] {
        assert!(err.contains(&format!("ghc-px frame names cannot hold {c}")), "{c}: {err}");
    }
}

/// Folded stacks name cost centres `Module.label`, as proftool and inferno write them; written as
/// -px they are split back into label and module, and `MAIN.MAIN` is GHC's root again, not a frame
/// under a MAIN added for it. Read back, the -px gives the very stacks it was written from.
#[test]
fn folded_names_are_split_back_into_cost_centres_for_px() {
    let (folded, _) = run_bytes(&["convert", "--to", "folded"], &fixture("ghc-px/notes-example.px"));
    let (px, stderr) = run_stdin(&["convert", "--from", "folded", "--to", "ghc-px"], &folded);
    assert!(!stderr.contains("MAIN added"), "{stderr}");
    for declared in ["\"MAIN\" \"MAIN\"", "\"isEven\" \"Main\"", "\"CAF\" \"Main\""] {
        assert!(px.contains(declared), "{declared} in {px}");
    }
    let (again, _) = run_stdin(&["convert", "--from", "ghc-px", "--to", "folded"], px.as_bytes());
    assert_eq!(again.as_bytes(), folded);
}

/// A profile that states no time is written with the conversion's, as GHC writes the time it wrote
/// its report, and stderr says so; one that states its time keeps it, and says nothing of it.
#[test]
fn a_profile_of_no_time_is_written_with_the_conversions_and_says_so() {
    let dir = temp();
    let input = dir.path().join("in.folded");
    std::fs::write(&input, "main;a 3\n").unwrap();
    let (text, stderr) = run(&["convert", "--to", "ghc-px"], &input);
    assert!(stderr.contains("ghc-px: the profile states no time: written with this conversion's ("), "{stderr}");
    // `"Sun Nov 29 12:31 2026"`: ctime without seconds, in quotes.
    let first = text.lines().next().unwrap();
    let fields: Vec<&str> = first.trim_matches('"').split_whitespace().collect();
    assert!(first.starts_with('"') && first.ends_with('"') && fields.len() == 5, "{first}");
    assert!(fields[3].len() == 5 && fields[3].as_bytes()[2] == b':', "{first}");
    let (_, stderr) = run(&["convert", "--to", "ghc-px"], &fixture("ghc-px/notes-example.px"));
    assert!(!stderr.contains("states no time"), "{stderr}");
}

/// A time a profile states in RFC 3339 (pprof's `time_nanos`, JFR's, OTLP's) is written as GHC's
/// `time_str()` writes one, to the minute, and said: cpu.pb.gz's 2026-11-25T09:39:13.436969803Z is
/// `Wed Nov 25 09:39 2026` (a Wednesday, by the calendar). It was written in RFC 3339.
#[test]
fn a_stated_time_is_written_in_ghcs_form() {
    let (px, err) = run_bytes(&["convert", "--to", "ghc-px"], &fixture("pprof/cpu.pb.gz"));
    assert_eq!(String::from_utf8(px).unwrap().lines().next(), Some("\"Wed Nov 25 09:39 2026\""));
    assert!(err.contains("2026-11-25T09:39:13.436969803Z is written as Wed Nov 25 09:39 2026"), "{err}");
}

/// A label is whatever bytes the compiler was given (the notes: "decode lossily"): a Latin-1 `é`
/// reads as U+FFFD, said at its line. It was refused as invalid UTF-8.
#[test]
fn a_label_that_is_not_utf8_reads_lossily() {
    let bytes = b"\"Wed Jun  3 21:49 1993\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n1 2 \"caf\xe9\" \"Main\"\n2 1 1 1\n2 2 2 2 1\n5 3 1 1 0 0 0 1 2 1 3 0 0\n";
    let (profile, diag) = read_bytes(Format::GhcPx, bytes);
    let profile = profile.unwrap();
    assert!(dump(&profile).contains("\"caf\u{fffd}\""), "{}", dump(&profile));
    let warning = diag.warnings().iter().find(|w| w.key == "px-not-utf8").expect("a warning");
    assert!(warning.message.contains("read with U+FFFD"), "{}", warning.message);
}

/// A file cut in its cost line, without a last line break, ends where the input ends: line 5,
/// byte 51 (its length), by hand. It was line 6, byte 52, past the end.
#[test]
fn a_cost_line_cut_short_is_placed_at_the_end_of_the_input() {
    let text = "\"x\"\n\"20 ms\"\n1 1 \"MAIN\" \"MAIN\"\n2 1 1 1\n5 0 1 1 0 0 0";
    assert_eq!(text.len(), 51);
    let error = read_px(text).err().unwrap();
    assert!(error.contains("line 5 (byte 51): expected the cost line's terminating 0"), "{error}");
}
