//! The formats tables of the docs, made from the registry, so that a format added on a branch
//! changes its rows of generated tables, not hand-kept lists: README.md's table at a glance, from
//! each format's spec, and docs/formats.md's table of what each format carries and what a
//! conversion to it loses, from each format's spec (name, read, write, extensions) and its words,
//! a row per format in registry order, between two marker lines.
//! `PROFTOOL_BLESS=1 cargo test doc_tables` writes them; each test fails when its doc's table is not
//! the one made.
//!
//! A format's words are documentation, not code: `docs/formats/<name>.md`, `<name>` as `proftool
//! formats` names the format. The file is a comment saying what it is (`<!-- … -->`), then a
//! section per cell, a title `## …` and one line of Markdown below it (a table cell is one line),
//! in this order:
//!
//! - `## extensions aside`, where there is more to say of the files' names than the extensions:
//!   it follows them in the cell, after a space, or at once where it starts with `;` or `,`;
//! - `## recognised by content`, where proftool reads the format and only there: how an input's
//!   content tells it, `yes: …` or `weakly: …` (a format proftool does not read is
//!   `(written only)`);
//! - `## carries`: what a file of the format holds;
//! - `## a conversion to it loses`, where proftool writes the format and only there;
//! - `## reading leaves out`, where there is something to say, for a format proftool only reads:
//!   the last cell in place of what a conversion to it loses (without it, `(read only)`).
//!
//! The test of docs/formats.md fails on a format with no file, a file of no format, and a file
//! whose sections are not these.

use proftool::Format;
use std::path::Path;

/// Where a generated table made from `from` starts in its doc.
fn start(from: &str) -> String {
    format!("<!-- formats table: made from {from} by tests/doc_tables.rs; PROFTOOL_BLESS=1 cargo test doc_tables writes it -->\n")
}

/// Where a generated table ends, in each doc.
const END: &str = "<!-- end of the formats table -->\n";

fn yes_no(yes: bool) -> &'static str {
    if yes {
        "yes"
    } else {
        "no"
    }
}

/// A format's extensions as the tables write them: `` `.pb.gz`, `.pprof` ``.
fn extensions(format: Format) -> String {
    format.extensions().iter().map(|e| format!("`.{e}`")).collect::<Vec<_>>().join(", ")
}

/// A table of every format, a row each in registry order (as `proftool formats` lists them): its
/// name, whether proftool reads and writes it, then the `columns` it names, whose cells `cells`
/// gives.
fn table(columns: &[&str], cells: fn(Format) -> Vec<String>) -> String {
    let header = [&["name", "read", "write"], columns].concat();
    let mut table = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len()));
    for &format in Format::ALL {
        let mut row = vec![format!("`{format}`"), yes_no(format.can_read()).into(), yes_no(format.can_write()).into()];
        row.extend(cells(format));
        assert_eq!(row.len(), header.len(), "{format}: a cell per column");
        table.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    table
}

/// Checks that the table between the markers of the doc `name` is `made`, from `from`; writes it
/// there instead under `PROFTOOL_BLESS=1`.
fn is_the_one_made(name: &str, from: &str, made: &str) {
    let start_marker = start(from);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let start = text
        .find(&start_marker)
        .unwrap_or_else(|| panic!("{name} holds the formats table's start marker: {start_marker}"))
        + start_marker.len();
    let end = start + text[start..].find(END).unwrap_or_else(|| panic!("{name} holds the formats table's end marker"));
    if std::env::var_os("PROFTOOL_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{made}{}", &text[..start], &text[end..])).unwrap();
    } else if text[start..end] != *made {
        // The first line that differs, as the rows are long.
        let (found, wanted): (Vec<&str>, Vec<&str>) = (text[start..end].lines().collect(), made.lines().collect());
        let line = found.iter().zip(&wanted).take_while(|(found, wanted)| found == wanted).count();
        let (found, wanted) = (found.get(line).unwrap_or(&"(no line)"), wanted.get(line).unwrap_or(&"(no line)"));
        panic!(
            "{name}'s formats table is not the one made (PROFTOOL_BLESS=1 cargo test doc_tables \
             writes it): its line {} is\n{found}\nand the one made has\n{wanted}",
            line + 1
        );
    }
}

#[test]
fn the_readme_formats_table_is_made_from_the_specs() {
    let made = table(&["extensions", "what it is"], |format| vec![extensions(format), format.description().into()]);
    is_the_one_made("README.md", "each format's spec", &made);
}

/// The sections of a format's file in docs/formats/, in their order (the module doc says what
/// each holds).
const SECTIONS: [&str; 5] =
    ["extensions aside", "recognised by content", "carries", "a conversion to it loses", "reading leaves out"];

/// The sections of `docs/formats/<name>.md`, each its line or `None` where the file does not have
/// it, in the order of [`SECTIONS`]. Panics, naming the file, where it is missing or not made of
/// them.
fn words(format: Format) -> [Option<String>; 5] {
    let name = format!("docs/formats/{format}.md");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&name)).unwrap_or_else(|e| {
        panic!("{format} has no {name} ({e}): write the words of its row of docs/formats.md's table there (tests/doc_tables.rs says how)")
    });
    let body = text.strip_prefix("<!--").and_then(|text| text.split_once("-->\n")).map(|(_, body)| body);
    let body = body.unwrap_or_else(|| panic!("{name} starts with a comment saying what it is, <!-- … -->"));
    let mut sections: Vec<(usize, Vec<&str>)> = Vec::new();
    for line in body.lines().filter(|line| !line.trim().is_empty()) {
        match line.strip_prefix("## ") {
            Some(title) => {
                let section = SECTIONS.iter().position(|&known| known == title);
                let section = section.unwrap_or_else(|| panic!("{name}: no section is {title:?}: {SECTIONS:?}"));
                let in_order = sections.last().is_none_or(|&(last, _)| last < section);
                assert!(in_order, "{name}: its sections are {SECTIONS:?}, each once and in that order");
                sections.push((section, Vec::new()));
            }
            None => sections.last_mut().unwrap_or_else(|| panic!("{name}: {line:?} is in no section")).1.push(line),
        }
    }
    let mut words: [Option<String>; 5] = Default::default();
    for (section, lines) in sections {
        let &[line] = &lines[..] else {
            panic!("{name}: its section {:?} is one line of Markdown, a table cell", SECTIONS[section])
        };
        words[section] = Some(line.into());
    }
    words
}

/// The cells of a format's row of docs/formats.md's table after name, read and write: from its spec
/// and its words (`docs/formats/<name>.md`), whose sections it checks against the spec.
fn docs_formats_cells(format: Format) -> Vec<String> {
    let [aside, told_by, carries, loses, leaves_out] = words(format);
    let has = |words: &Option<String>, title: &str, wanted: bool, because: String| {
        let must = if wanted { "must have" } else { "must not have" };
        assert!(words.is_some() == wanted, "docs/formats/{format}.md {must} a section `## {title}`: {because}");
    };
    let (read, written) = (format.can_read(), format.can_write());
    let is = |yes| if yes { "is" } else { "is not" };
    has(&told_by, SECTIONS[1], read, format!("{format} {} read", is(read)));
    has(&carries, SECTIONS[2], true, "every format's file has it".into());
    has(&loses, SECTIONS[3], written, format!("{format} {} written", is(written)));
    if written {
        has(
            &leaves_out,
            SECTIONS[4],
            false,
            format!("{format} is written: its last cell is what a conversion to it loses"),
        );
    }
    let extensions = match aside {
        None => extensions(format),
        Some(aside) if aside.starts_with([';', ',']) => extensions(format) + &aside,
        Some(aside) => format!("{} {aside}", extensions(format)),
    };
    let told_by = told_by.unwrap_or_else(|| "(written only)".into());
    [extensions, told_by, carries.unwrap(), loses.or(leaves_out).unwrap_or_else(|| "(read only)".into())].into()
}

#[test]
fn the_docs_formats_table_is_made_from_the_specs_and_their_words() {
    let files: Vec<String> = Format::ALL.iter().map(|format| format!("{format}.md")).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/formats");
    for file in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("docs/formats/: {e}")) {
        let file = file.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            files.contains(&file),
            "docs/formats/{file} is the words of no format: each is named after its format, as `proftool formats` lists them"
        );
    }
    let columns = ["extensions", "recognised by content", "carries", "a conversion *to* it loses"];
    let from = "each format's spec and its words, docs/formats/<name>.md,";
    is_the_one_made("docs/formats.md", from, &table(&columns, docs_formats_cells));
}
