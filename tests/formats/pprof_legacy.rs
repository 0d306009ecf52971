//! pprof's legacy profiles (`pprof-legacy`), read only: gperftools' CPU and heap profiles, each
//! stack and its figures as `go tool pprof -symbolize=none -raw` gives them
//! (fixtures/pprof-legacy/make-fixtures.sh).

use crate::support::binary::{fixture, info, run};
use std::collections::BTreeMap;

/// The stacks of one sample type of a `go tool pprof -raw` listing, root first, each location by
/// its address (or by the functions `names` give it, innermost first), added up where equal.
fn pprof_raw_stacks(listing: &str, sample_type: &str, names: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, i64> {
    pprof_raw_stacks_by(listing, sample_type, |location| {
        let address = location.split_whitespace().next().expect("an address");
        names.get(address).cloned().unwrap_or_else(|| vec![address.to_string()])
    })
}

/// The stacks of one sample type of a `go tool pprof -raw` listing, root first, each location by
/// the frames `frames` makes of its line in the listing (after its id), innermost first, added up
/// where equal.
fn pprof_raw_stacks_by(
    listing: &str,
    sample_type: &str,
    frames: impl Fn(&str) -> Vec<String>,
) -> BTreeMap<String, i64> {
    let mut lines = listing.lines();
    let types = lines.by_ref().skip_while(|line| *line != "Samples:").nth(1).expect("a Samples: section");
    let column = types.split_whitespace().position(|t| t == sample_type).expect("the sample type");
    let samples: Vec<&str> = lines.by_ref().take_while(|line| *line != "Locations").collect();
    let locations: BTreeMap<&str, &str> = lines
        .take_while(|line| *line != "Mappings")
        .filter_map(|line| {
            let (id, rest) = line.split_once(':')?;
            Some((id.trim(), rest.trim()))
        })
        .collect();
    let mut stacks = BTreeMap::new();
    for line in samples.iter().filter(|line| !line.trim_start().starts_with("bytes:")) {
        let (values, ids) = line.split_once(':').expect("values: ids");
        let value: i64 = values.split_whitespace().nth(column).expect("a value").parse().expect("a number");
        let leaf_first = ids.split_whitespace().flat_map(|id| frames(locations[id]));
        let stack: Vec<String> = leaf_first.collect::<Vec<_>>().into_iter().rev().collect();
        *stacks.entry(stack.join(";")).or_insert(0) += value;
    }
    stacks.retain(|_, value| *value != 0);
    stacks
}

/// proftool's folded stacks of `file` for `metric`.
fn proftool_stacks(file: &str, metric: &str) -> BTreeMap<String, i64> {
    let (folded, _) = run(&["convert", "-q", "--to", "folded", "--metric", metric], &fixture(file));
    folded
        .lines()
        .map(|line| {
            let (stack, count) = line.rsplit_once(' ').expect("stack count");
            (stack.to_string(), count.parse().expect("a count"))
        })
        .collect()
}

/// `go tool pprof -raw` of work.cpu: 209 samples at 1 ms in 20 stacks; proftool's are the same
/// stacks of the same addresses (return addresses less 1, the leaf as sampled) with the same counts.
#[test]
fn a_cpu_profile_reads_with_pprofs_stacks() {
    let listing = std::fs::read_to_string(fixture("pprof-legacy/work.cpu.pprof-raw.txt")).expect("the listing");
    assert!(listing.starts_with("PeriodType: cpu nanoseconds\nPeriod: 1000000\n"), "{listing}");
    let expected = pprof_raw_stacks(&listing, "samples/count", &BTreeMap::new());
    assert_eq!(expected.values().sum::<i64>(), 209);
    assert_eq!(proftool_stacks("pprof-legacy/work.cpu", "samples"), expected);
    let (info, _) = info("pprof-legacy/work.cpu");
    assert!(info.contains("interval   1ms\n") && info.contains("total 209\n"), "{info}");
}

/// `go tool pprof -raw` of work.heap: every allocation recorded (`heapprofile`); in use, 20
/// blocks of 100,000 bytes from `keep` and 72 bytes from the C library; allocated besides, 100
/// blocks of 4,096 bytes from `churn`, all freed. Each of pprof's four sample types is a metric
/// with the same stacks and figures.
#[test]
fn a_heap_profile_reads_with_pprofs_figures() {
    let listing = std::fs::read_to_string(fixture("pprof-legacy/work.heap.pprof-raw.txt")).expect("the listing");
    for (metric, sample_type, total) in [
        ("inuse_space", "inuse_space/bytes", 2_000_072),
        ("inuse_objects", "inuse_objects/count", 21),
        ("alloc_space", "alloc_space/bytes", 2_409_672),
        ("alloc_objects", "alloc_objects/count", 121),
    ] {
        let expected = pprof_raw_stacks(&listing, sample_type, &BTreeMap::new());
        assert_eq!(expected.values().sum::<i64>(), total, "{metric}");
        assert_eq!(proftool_stacks("pprof-legacy/work.heap", metric), expected, "{metric}");
    }
    // Weighed by the bytes in use, as pprof's default sample type.
    let (info, _) = info("pprof-legacy/work.heap");
    let first = info.lines().find(|line| line.starts_with("metric")).expect("a metric line");
    assert_eq!(first, "metric     inuse_space (alloc, bytes, additive): total 2000072");
}

/// A frame is named by its address, with the file of the executable mapping it is in as its module.
#[test]
fn frames_are_addresses_in_their_mappings() {
    let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture("pprof-legacy/work.cpu"));
    // The leaf of pprof's first listed stack, in `spin`, and `__libc_start_call_main` in libc.
    assert!(speedscope.contains(r#"{"name":"0x5631425e817b","file":"/tmp/pprof-legacy/work"}"#), "{speedscope}");
    assert!(speedscope.contains(r#"{"name":"0x7fd67e645249","file":"/usr/lib/x86_64-linux-gnu/libc.so.6"}"#));
}

/// The functions Go's `debug=1` text names at each address (`#\t0x4b3fba\tmain.park+0x1a\tFILE:31`),
/// innermost first, as Go wrote them.
fn go_names(profile: &str) -> BTreeMap<String, Vec<String>> {
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in profile.lines().filter_map(|line| line.strip_prefix('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [address, function, _, ..] = fields[..] {
            let function = function.rsplit_once("+0x").map_or(function, |(name, _)| name).to_string();
            let named = names.entry(address.to_string()).or_default();
            if !named.contains(&function) {
                named.push(function);
            }
        }
    }
    names
}

/// Go 1.19's own legacy text of its goroutine, mutex and block profiles (`WriteTo(w, 1)`): each
/// stack as `go tool pprof -raw` lists it, an address named by the function Go's `#` lines give it
/// (the runtime's addresses, which Go does not name there, stay addresses); the mutex profile's
/// 59 contentions and their delay in nanoseconds (cycles at its `cycles/second`), the goroutines
/// 4 parked in `main.park` and the one writing the profile.
#[test]
fn gos_text_profiles_read_with_pprofs_stacks_and_gos_names() {
    for (file, metric, sample_type, total) in [
        ("work.goroutine", "goroutine", "goroutine/count", Some(5)),
        ("work.mutex.contention", "contentions", "contentions/count", Some(59)),
        ("work.mutex.contention", "delay", "delay/nanoseconds", None),
        ("work.block.contention", "contentions", "contentions/count", None),
        ("work.block.contention", "delay", "delay/nanoseconds", None),
    ] {
        let path = format!("pprof-legacy/{file}");
        let listing = std::fs::read_to_string(fixture(&format!("{path}.pprof-raw.txt"))).expect("the listing");
        let names = go_names(&std::fs::read_to_string(fixture(&path)).expect("the profile"));
        let expected = pprof_raw_stacks(&listing, sample_type, &names);
        if let Some(total) = total {
            assert_eq!(expected.values().sum::<i64>(), total, "{file} {metric}");
        }
        assert!(expected.keys().any(|stack| stack.contains("main.")), "{file}: {expected:?}");
        assert_eq!(proftool_stacks(&path, metric), expected, "{file} {metric}");
    }
}

/// A thread profile (`--- threadz 1 ---`, written by hand: no producer of it runs here): each
/// thread a sample of its stack with its `creator:` addresses, as `go tool pprof -raw` lists it; a
/// thread `[same as previous thread]` and one with no stack count once more for the thread before.
#[test]
fn a_thread_profile_reads_with_pprofs_stacks() {
    let listing = std::fs::read_to_string(fixture("pprof-legacy/work.thread.pprof-raw.txt")).expect("the listing");
    let expected = pprof_raw_stacks(&listing, "thread/count", &BTreeMap::new());
    assert_eq!(expected.values().sum::<i64>(), 5);
    assert_eq!(proftool_stacks("pprof-legacy/work.thread", "thread"), expected);
}

/// A Java location of a `go tool pprof -raw` listing (`0x0 M=1 FUNCTION FILE:LINE s=0`): its
/// function, file and line (0 for none).
fn java_location(location: &str) -> (&str, &str, &str) {
    let rest = location.split_once(" M=1 ").expect("a location's mapping").1;
    let rest = rest.strip_suffix(" s=0").expect("a location's start line");
    let (function, place) = rest.split_once(' ').expect("a function and its place");
    let (file, line) = place.rsplit_once(':').expect("a file and a line");
    (function, file, line)
}

/// A Java agent's heap, contention and CPU profiles (written by hand in the grammar pprof reads:
/// fixtures/pprof-legacy/make-java.py), each stack of functions and its figure as
/// `go tool pprof -raw` lists it: the heap's samples estimated at the agent's 512 KiB rate (pprof's
/// 3,317,645 bytes for 4 objects of 512 KiB), the contentions and delays times the sampling period
/// of 100, the CPU samples at 10 ms; and each location pprof lists a frame at its line in its file
/// (a native library's file name, no line where pprof has 0), the agent's `GC`, `VM` and `STUB`
/// named so.
#[test]
fn java_profiles_read_with_pprofs_stacks_and_figures() {
    for (file, metric, sample_type, total) in [
        ("java.heap", "inuse_space", "inuse_space/bytes", 545_497_215),
        ("java.heap", "inuse_objects", "inuse_objects/count", 4_304_053),
        ("java.contention", "delay", "delay/microseconds", 172_500),
        ("java.contention", "contentions", "contentions/count", 600),
        ("java.cpu", "samples", "samples/count", 15),
    ] {
        let path = format!("pprof-legacy/{file}");
        let listing = std::fs::read_to_string(fixture(&format!("{path}.pprof-raw.txt"))).expect("the listing");
        let expected =
            pprof_raw_stacks_by(&listing, sample_type, |location| vec![java_location(location).0.to_string()]);
        assert_eq!(expected.values().sum::<i64>(), total, "{file} {metric}");
        assert_eq!(proftool_stacks(&path, metric), expected, "{file} {metric}");
        let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture(&path));
        let locations = listing.lines().skip_while(|line| *line != "Locations").skip(1);
        for location in locations.take_while(|line| *line != "Mappings") {
            let (function, source, line) = java_location(location.split_once(": ").expect("an id").1);
            let frame = match (source, line) {
                ("", _) => format!(r#"{{"name":"{function}"}}"#),
                (_, "0") => format!(r#"{{"name":"{function}","file":"{source}"}}"#),
                _ => format!(r#"{{"name":"{function}","file":"{source}","line":{line}}}"#),
            };
            assert!(speedscope.contains(&frame), "{file}: {frame} in {speedscope}");
        }
    }
    let (cpu, _) = info("pprof-legacy/java.cpu");
    assert!(cpu.contains("interval   10ms\n"), "{cpu}");
    let (contention, _) = info("pprof-legacy/java.contention");
    let first = contention.lines().find(|line| line.starts_with("metric")).expect("a metric line");
    assert_eq!(first, "metric     delay (time, us, additive): total 172500");
}

/// gperftools' own contention profile (`--- contentionz 1 ---` without `format = java`) is still
/// read as gperftools', its cycles at the clock's rate.
#[test]
fn a_contentionz_profile_without_java_is_gperftools() {
    let text =
        b"--- contentionz 1 ---\ncycles/second = 1000000000\nsampling period = 1\n  2000 1 @ 0x4005d0 0x4006f0\n";
    let (folded, _) = crate::support::binary::run_stdin(&["convert", "--from", "pprof-legacy", "--to", "folded"], text);
    assert_eq!(folded, "0x4006ef;0x4005cf 2000\n");
}

/// A CPU profile of a program that ended before the first tick (header, trailer and memory map,
/// no record) is empty, as `go tool pprof -top` reads it ("0 of 0 total"): it was refused for
/// having no sample record, so a CI diff of two such runs failed.
#[test]
fn a_cpu_profile_of_no_sample_is_empty() {
    let (text, _) = info("pprof-legacy/empty.cpu");
    assert!(text.contains("metric     samples (samples, count, additive): total 0\n"), "{text}");
    assert!(text.contains("interval   10ms\n"), "{text}");
}
