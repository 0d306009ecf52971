//! GHC `-px` output checked against the grammar of the seed's `ParseProfile.hs`, the one parser of
//! the format that survives (docs/formats.md, `ghc-px`): whatever the source, proftool writes what it reads,
//! and proftool reads whatever whitespace it takes between fields.

use crate::support::read_bytes;
use proftool::convert::{Convert, ConvertOptions};
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

/// The grammar of the seed's `ParseProfile.hs` (Parsec), as strictly as it reads: two quoted
/// header lines, `1` lines with exactly two quoted strings (a string ends at its first `"`),
/// then `2` lines, then `5 total ` and records `1 id e t a ` up to a `0`. Fields are separated
/// by Parsec's `space`: exactly one character for which Haskell's `isSpace` holds (a subset of
/// Rust's `char::is_whitespace`), a line break included; `eol` is LF or CRLF. Returns where it
/// failed.
fn seed_grammar(text: &str) -> Result<(), String> {
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
fn any_whitespace_the_seed_takes_between_fields_is_read() {
    let notes = include_str!("../fixtures/ghc-px/notes-example.px");
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
        assert_eq!(seed_grammar(&variant), Ok(()), "{variant:?}");
        assert_eq!(read_px(&variant).map(|p| dump(&p)), Ok(want.clone()), "{variant:?}");
    }
    let tabs = "\"t\"\n\"20 ms\"\n1\t1\t\"MAIN\"\t\"MAIN\"\n2 1 1 1\n5 3 1 1 1 3 8 0\n";
    assert_eq!(seed_grammar(tabs), Ok(()));
    assert!(read_px(tabs).is_ok());
}

fn write_px(profile: Profile) -> (String, Diagnostics) {
    let mut out = Vec::new();
    let mut diag = Diagnostics::default();
    Format::GhcPx.write(profile, &mut out, &ConvertOptions::default(), &mut diag).unwrap();
    (String::from_utf8(out).unwrap(), diag)
}

#[test]
fn the_seed_grammar_accepts_what_the_writer_writes() {
    let notes = include_str!("../fixtures/ghc-px/notes-example.px");
    assert_eq!(seed_grammar(notes), Ok(()));
    let sources = [
        (Format::GhcPx, notes),
        (Format::GhcPx, include_str!("../fixtures/ghc-px/ghc72-undeclared.px")),
        (Format::GhcProf, include_str!("../fixtures/ghc-prof/inferno-utf8.prof")),
        (Format::Folded, "a;say \"hi\" 3\nb;c 1\n"),
        (Format::Lispworks, include_str!("../fixtures/lispworks/processes.tree")),
    ];
    for (format, text) in sources {
        let (written, _) = write_px(read_as(format, text));
        assert_eq!(seed_grammar(&written), Ok(()), "{format}:\n{written}");
    }
    assert!(seed_grammar("\"t\"\n\"20 ms\"\n1 1 \"a \"q\" b\" \"M\"\n5 0 0\n").is_err());
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
