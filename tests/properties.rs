//! Property tests: no reader panics on any bytes; random profiles survive write → read in every
//! format that can carry them.

use crate::roundtrip::{br_of_no_sample, check_pair, holds_nothing_but_threads, write};
use crate::support::read_bytes;
use proftool::diag::Diagnostics;
use proftool::files::Input;
use proftool::model::{FrameKind, FrameRef, Metric, Value};
use proftool::{Format, Profile};
use proptest::prelude::*;

fn any_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..512),
        // Text shaped like the formats, to get past the first checks.
        "LispWorks Profiler Tree[:a ]{0,3}\n[0-9|\\-;\"\\\\a \r\n]{0,300}".prop_map(String::into_bytes),
        "[a-z;0-9 \r\n\\-]{0,300}".prop_map(String::into_bytes),
        // Binary, JSON and callgrind files: a good file with a few bytes changed and its end perhaps cut
        // off.
        mutated("pprof/inlined.pb"),
        mutated("speedscope/evented.speedscope.json"),
        mutated("chrome-trace/edge.trace.json"),
        mutated("chrome-trace/node-profile.json"),
        mutated("callgrind/threads.callgrind"),
    ]
}

/// The fixture at `path` with up to eight bytes replaced, cut short half of the time.
fn mutated(path: &str) -> impl Strategy<Value = Vec<u8>> {
    let seed = std::fs::read(crate::support::fixtures_dir().join(path)).unwrap();
    let len = seed.len();
    (prop::collection::vec((0..len, any::<u8>()), 0..8), prop::option::of(0..len)).prop_map(move |(edits, cut)| {
        let mut bytes = seed.clone();
        for (at, byte) in edits {
            bytes[at] = byte;
        }
        bytes.truncate(cut.unwrap_or(len));
        bytes
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn readers_never_panic(bytes in any_bytes()) {
        let merge = proftool::convert::reading_for(
            Format::Folded,
            proftool::ReadOptions::default(),
            &proftool::convert::ConvertOptions::default(),
        );
        for &format in Format::ALL.iter().filter(|f| f.can_read()) {
            let _ = read_bytes(format, &bytes);
            // Line rows merged into their functions while reading: another way through the readers.
            let _ = crate::support::read_bytes_with(format, &bytes, &merge);
        }
        let _ = proftool::read_input(Input::from_bytes(bytes), None, &mut Diagnostics::default());
    }
}

/// A frame name: anything printable including separators (`;`, `|`, spaces) and non-ASCII, plus
/// the odd newline, but not a whole quoted string (that is a LispWorks pseudo-frame by definition).
fn frame_name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _:;|\\\\\"()λü\n-]{1,8}".prop_filter("quoted", |s| !(s.starts_with('"') && s.ends_with('"')))
}

prop_compose! {
    fn random_profile()(
        names in prop::collection::vec((frame_name(), any::<bool>()), 1..6),
        shape in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0i64..1000, any::<bool>()), 1..40),
        title in prop::option::of("[a-z][a-z :]{0,8}[a-z]"),
    ) -> Profile {
        let mut p = Profile::new(vec![Metric::samples()]);
        p.meta.title = title;
        let frames: Vec<_> = names
            .iter()
            .map(|(n, thread)| p.frames.intern(FrameRef::named(n, if *thread { FrameKind::Thread } else { FrameKind::Function })))
            .collect();
        for (i, (parent, frame, value, root)) in shape.into_iter().enumerate() {
            let parent = (i > 0 && !root).then(|| proftool::model::NodeId(parent.index(i) as u32));
            let node = p.tree.push(parent, frames[frame.index(frames.len())]);
            p.tree.set_self(0, node, Value::Int(value));
        }
        p
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_profiles_survive_every_format(profile in random_profile()) {
        prop_assert_eq!(profile.validate(), Ok(()));
        for &target in Format::ALL.iter().filter(|f| f.can_write() && f.can_read()) {
            // A random profile is in no format's normal form: check what survives the trip, then the
            // same-format round trip of what the format made of it.
            let failures = check_pair(None, target, &profile, &format!("random -> {target}"));
            prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
            if holds_nothing_but_threads(&profile, target) || br_of_no_sample(&profile, target) {
                continue;
            }
            let reread = crate::support::read_bytes_with(target, &write(target, &profile), &crate::support::own_output()).0.unwrap();
            let failures = check_pair(Some(target), target, &reread, &format!("random -> {target} -> {target}"));
            prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
        }
    }
}
