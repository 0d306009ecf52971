//! Tests of the Dyalog XML reader and writer.

use super::*;
use crate::model::dump::dump;

/// The dump and warnings of `xml` read in blocks of `block` bytes, or the error.
fn read_blocks(xml: &[u8], block: usize) -> Result<(String, Vec<String>), String> {
    let mut diag = Diagnostics::default();
    let profile = read_in_blocks(&mut &xml[..], block, false, &mut diag).map_err(|e| e.to_string())?;
    Ok((dump(&profile), diag.warnings().iter().map(|w| w.to_string()).collect()))
}

/// Block sizes from one byte up: every way a block can end is met.
const SIZES: [usize; 12] = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 1000];

/// A report with a `</ProfileEntry>` where a block cannot end: in comments (between entries and
/// between columns), in a CDATA name, in an attribute value; an end tag with spaces; CRLF lines.
const TRICKY: &str = "<?xml version=\"1.0\"?>\r\n<!-- </ProfileEntry> before the root -->\r\n<ProfileData>\r\n\
    <ProfileSettings><Version>1.37</Version><Command>tree</Command></ProfileSettings>\r\n\
    <ProfileEntry><Depth>0</Depth><Element>#.A</Element><Line>\u{af}1</Line><Calls>1</Calls>\
    <ExclusiveTime>1.5</ExclusiveTime><InclusiveTime>4</InclusiveTime></ProfileEntry  >\r\n\
    <!-- </ProfileEntry> between entries -->\r\n\
    <ProfileEntry><Note kind=\"</ProfileEntry>\">x</Note><Depth>2</Depth><!-- </ProfileEntry> -->\
    <Element><![CDATA[#.B</ProfileEntry>]]></Element><Line>\u{af}1</Line><Calls>2</Calls>\
    <ExclusiveTime>2.5</ExclusiveTime><InclusiveTime>2.5</InclusiveTime></ProfileEntry>\r\n\
    <ProfileEntry><Depth>2</Depth><Element>#.C&amp;D</Element><Line>\u{af}1</Line><Calls>3</Calls>\
    <Note/><Extra>y</Extra><ExclusiveTime>0</ExclusiveTime><InclusiveTime>0</InclusiveTime></ProfileEntry>\r\n\
    </ProfileData>\r\n";

#[test]
fn tricky_report_reads_as_written() {
    let (dump, warnings) = read_blocks(TRICKY.as_bytes(), usize::MAX).unwrap();
    // Checked by hand: B and C&D under A, whose own time is 1.5 of its 4.
    let expected = "\
report kind: tree
attr dyalog-xml.Version: \"1.37\"
metric 0: calls (calls, count, per-node)
metric 1: time (time, ms, additive)
nodes 3, roots 1, frames 3, max depth 1
tree:
\"#.A\" [function] calls=1 time=1.5 (total 4, measured 4)
  \"#.B</ProfileEntry>\" [function] calls=2 time=2.5 (total 2.5, measured 2.5)
  \"#.C&D\" [function] calls=3 time=0 (total 0, measured 0)
";
    assert_eq!(dump, expected);
    // Unknown elements with content, <Note> and <Extra> (an empty one holds nothing to warn of):
    // one line, counted once per element (and not more when an
    // entry is read again after a block ended inside it).
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].ends_with("unknown column <Note> ignored (and once more)"), "{warnings:?}");
}

proptest::proptest! {
    /// A damaged report (bytes replaced, cut out or repeated anywhere) reads the same, to the
    /// same error, in blocks of any size as in one.
    #[test]
    fn a_damaged_report_reads_the_same_in_any_blocks(
        report in 0usize..2,
        edits in proptest::collection::vec((0.0f64..1.0, 0usize..4, proptest::prelude::any::<u8>()), 1..4),
        size in 1usize..300,
    ) {
        let reports = [TRICKY, include_str!("../../../../fixtures/dyalog-xml/v0.9.0-tree.xml")];
        let mut xml = reports[report].as_bytes().to_vec();
        for (place, op, byte) in edits {
            let at = (place * xml.len() as f64) as usize;
            match op {
                0 => xml.insert(at, byte),
                1 if at < xml.len() => { xml.remove(at); }
                2 if at < xml.len() => xml[at] = byte,
                _ => {
                    let piece = xml[at..(at + 20).min(xml.len())].to_vec();
                    xml.splice(at..at, piece);
                }
            }
        }
        proptest::prop_assert_eq!(read_blocks(&xml, size), read_blocks(&xml, usize::MAX));
    }
}

/// Blocks of plain entries are read ahead on the helper thread; one with a comment, a quote or
/// a processing instruction, or cut elsewhere than after an entry, is not.
#[test]
fn plain_blocks_are_those_of_plain_entries() {
    let entry = "<ProfileEntry><Depth>0</Depth><Element>#.f</Element><Line>\u{af}1</Line></ProfileEntry>\n";
    let plain_blocks = |xml: &str| {
        let mut input = xml.as_bytes();
        let mut blocks = Blocks::new(&mut input, 2 * entry.len());
        let mut plain = Vec::new();
        let mut inside = false;
        while blocks.advance(usize::MAX, inside).unwrap() {
            plain.push(blocks.plain());
            inside = true;
        }
        plain
    };
    let body = entry.repeat(6);
    let report = format!("<ProfileData>\n{body}</ProfileData>\n");
    // The first block holds the start of the document, the last its end.
    assert_eq!(plain_blocks(&report), [false, true, true, false]);
    for odd in ["<!-- x -->", "<?pi?>", "<Note a=\"1\"/>", "<Note a='1'/>"] {
        let report = format!("<ProfileData>\n{body}{odd}{body}</ProfileData>\n");
        let plain = plain_blocks(&report);
        assert!(plain.contains(&true) && plain.iter().filter(|&&p| !p).count() > 2, "{odd}: {plain:?}");
    }
}

#[test]
fn any_block_size_reads_the_same() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/dyalog-xml");
    let mut inputs = vec![("tricky".to_string(), TRICKY.as_bytes().to_vec())];
    for dir in [fixtures.clone(), fixtures.join("bad")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "xml") {
                inputs.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    assert!(inputs.len() > 8, "fixtures not found");
    for (name, xml) in &inputs {
        let whole = read_blocks(xml, usize::MAX);
        for size in SIZES {
            assert_eq!(read_blocks(xml, size), whole, "{name} in blocks of {size}");
        }
    }
}
