//! The formats tables of the docs against the registry, so that a format added on a branch changes
//! one generated block, not a hand-kept list: README.md's table is made from each format's spec
//! (`PROFTOOL_BLESS=1 cargo test doc_tables` writes it); docs/formats.md's, whose other columns are
//! prose, has a row per format in registry order with the name, read, write and extensions the
//! specs give.

use proftool::Format;
use std::path::Path;

/// Where the README's generated table starts and ends.
const README_START: &str = "<!-- formats table: made from each format's spec by tests/doc_tables.rs; PROFTOOL_BLESS=1 cargo test doc_tables writes it -->\n";
const README_END: &str = "<!-- end of the formats table -->\n";

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

/// The README's table, a row per format in registry order (as `proftool formats` lists them).
fn readme_table() -> String {
    let mut table = String::from("| name | read | write | extensions | what it is |\n|---|---|---|---|---|\n");
    for &format in Format::ALL {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            format.name(),
            yes_no(format.can_read()),
            yes_no(format.can_write()),
            extensions(format),
            format.description()
        ));
    }
    table
}

fn doc(name: &str) -> (std::path::PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    (path, text)
}

#[test]
fn the_readme_formats_table_is_made_from_the_specs() {
    let (path, text) = doc("README.md");
    let start = text.find(README_START).expect("README.md holds the formats table's start marker") + README_START.len();
    let end = start + text[start..].find(README_END).expect("README.md holds the formats table's end marker");
    let made = readme_table();
    if std::env::var_os("PROFTOOL_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{made}{}", &text[..start], &text[end..])).unwrap();
    } else {
        assert!(
            text[start..end] == made,
            "README.md's formats table is not the one the specs make: PROFTOOL_BLESS=1 cargo test doc_tables writes it\n{made}"
        );
    }
}

#[test]
fn docs_formats_has_a_row_per_format_with_what_its_spec_says() {
    let (_, text) = doc("docs/formats.md");
    // The first table: its rows after the header and the rule.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|line| !line.starts_with("| name |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.split(" | ").collect())
        .collect();
    let names: Vec<String> = rows.iter().map(|cells| cells[0].trim_start_matches("| ").replace('`', "")).collect();
    let registry: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, registry, "docs/formats.md: a row per format, in registry order (`proftool formats`)");
    for (cells, &format) in rows.iter().zip(Format::ALL) {
        assert_eq!(
            (cells[1], cells[2]),
            (yes_no(format.can_read()), yes_no(format.can_write())),
            "{format}: read, write"
        );
        assert!(cells[3].starts_with(&extensions(format)), "{format}: extensions {} first", extensions(format));
    }
}
