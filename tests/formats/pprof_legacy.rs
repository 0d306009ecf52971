//! pprof's legacy profiles (`pprof-legacy`), read only: gperftools' CPU and heap profiles, each
//! stack and its figures as `go tool pprof -symbolize=none -raw` gives them
//! (fixtures/pprof-legacy/make-fixtures.sh).

use crate::support::binary::{fixture, info, run};
use std::collections::BTreeMap;

/// The stacks of one sample type of a `go tool pprof -raw` listing, root first, each location by
/// its address (or by the functions `names` give it, innermost first), added up where equal.
fn pprof_raw_stacks(listing: &str, sample_type: &str, names: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, i64> {
    let mut lines = listing.lines();
    let types = lines.by_ref().skip_while(|line| *line != "Samples:").nth(1).expect("a Samples: section");
    let column = types.split_whitespace().position(|t| t == sample_type).expect("the sample type");
    let samples: Vec<&str> = lines.by_ref().take_while(|line| *line != "Locations").collect();
    let addresses: BTreeMap<&str, &str> = lines
        .take_while(|line| *line != "Mappings")
        .filter_map(|line| {
            let (id, rest) = line.split_once(':')?;
            Some((id.trim(), rest.split_whitespace().next()?))
        })
        .collect();
    let mut stacks = BTreeMap::new();
    for line in samples.iter().filter(|line| !line.trim_start().starts_with("bytes:")) {
        let (values, ids) = line.split_once(':').expect("values: ids");
        let value: i64 = values.split_whitespace().nth(column).expect("a value").parse().expect("a number");
        let leaf_first = ids.split_whitespace().flat_map(|id| match names.get(addresses[id]) {
            Some(functions) => functions.clone(),
            None => vec![addresses[id].to_string()],
        });
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
