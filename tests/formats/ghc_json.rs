//! GHC's JSON profiles (`ghc-json`, `+RTS -pj`): detected whatever the length of their argument
//! list.

use crate::support::binary::{fixture, run_stdin};

#[test]
fn ghc_json_with_a_long_argument_list_is_detected() {
    let original = std::fs::read_to_string(fixture("ghc-json/work.prof.json")).unwrap();
    let arguments: String = (0..20).map(|i| format!(", \"--some-long-argument-number-{i:02}=with-a-value\"")).collect();
    let long = original.replacen("\"arguments\": [\"./work\"", &format!("\"arguments\": [\"./work\"{arguments}"), 1);
    assert!(long.find("rts_arguments").unwrap() > 512);
    let (out, _) = run_stdin(&["convert", "--to", "folded"], long.as_bytes());
    // The profile's first stack with ticks, as the file has it: GC's 40 (cost centre 169).
    assert!(out.starts_with("MAIN.MAIN;GC.GC 40\n"), "{out}");
}
