//! Visual Studio's call tree summary (`vsprof`), read only: the stacks of the default report
//! against inferno's `collapse-vsprof` (fixtures/vsprof/make-fixtures.sh, inferno 0.12.8), and each
//! node's samples, calls and time by hand from the files.

use crate::support::binary::*;
use crate::support::read_fixture;
use proftool::model::{NodeId, Profile};
use proftool::Format;
use std::collections::BTreeMap;

/// Each node of `profile` by its stack, frames joined by `;`, with its own value of `metric`
/// (named), as a whole number.
fn own_values(profile: &Profile, metric: &str) -> BTreeMap<String, i64> {
    let metric = profile.metric_index(metric).expect("the metric");
    let mut values = BTreeMap::new();
    for node in 0..profile.tree.len() {
        let node = NodeId(node as u32);
        let mut frames = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            frames.push(profile.frames.get(profile.tree.frame(n)).name.clone());
            at = profile.tree.parent(n);
        }
        frames.reverse();
        *values.entry(frames.join(";")).or_default() += profile.tree.self_value(metric, node).as_f64() as i64;
    }
    values
}

/// inferno's stacks are proftool's below the process (the level-0 row, which inferno's stacks
/// start below), and each stack that ends at a leaf weighs the calls inferno gives it. inferno
/// weighs a caller by its calls less its last callee's, and leaves out a caller whose calls equal
/// that callee's: proftool keeps each node's own calls instead.
#[test]
fn stacks_are_infernos_below_the_process() {
    let (profile, _) = read_fixture(Format::Vsprof, &fixture("vsprof/instrumented.vsprof.csv"));
    let calls = own_values(&profile, "calls");
    let text = std::fs::read_to_string(fixture("vsprof/instrumented.inferno.txt")).unwrap();
    let theirs: Vec<(String, i64)> = text
        .lines()
        .map(|line| {
            let (stack, calls) = line.rsplit_once(' ').unwrap();
            (format!("Shop.exe;{stack}"), calls.parse().unwrap())
        })
        .collect();
    assert_eq!(theirs.len(), 6);
    for (stack, their_calls) in &theirs {
        let ours = calls.get(stack).unwrap_or_else(|| panic!("{stack} in {calls:?}"));
        let is_leaf = !calls.keys().any(|other| other.starts_with(&format!("{stack};")));
        if is_leaf {
            assert_eq!(ours, their_calls, "{stack}");
        }
    }
}

/// The default report's own times are shares of the run's: `Main`'s 1,600.00 ms over its 80.00 %
/// make a run of 2,000 ms, of which `Tax.Compute`'s 30.00 % is 600 ms (its calls times their average,
/// 12,500 × 0.05 ms, would make 625). By hand from the file.
#[test]
fn instrumented_times_are_shares_of_the_run() {
    let (profile, _) = read_fixture(Format::Vsprof, &fixture("vsprof/instrumented.vsprof.csv"));
    let names: Vec<&str> = profile.metrics().iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["time", "calls"]);
    let micros = |values: &BTreeMap<String, i64>, leaf: &str| {
        values.iter().filter(|(stack, _)| stack.ends_with(leaf)).map(|(_, v)| *v).sum::<i64>()
    };
    let time = own_values(&profile, "time");
    let calls = own_values(&profile, "calls");
    for (leaf, own_micros, own_calls) in [
        ("Shop.exe", 0, 0),
        ("Main(string[])", 100_000, 1),
        ("Cart.Total(class System.Collections.Generic.List`1<class Shop.Item>)", 500_000, 250),
        ("Tax.Compute(valuetype System.Decimal,string)", 600_000, 12_500),
        ("TryGetValue(!0,!1&)", 100_000, 12_500),
        ("Report.Print()", 200_000, 1),
        ("Console.WriteLine(string)", 100_000, 40),
        ("Feed.Poll(object)", 50_000, 3),
        ("Socket.Receive(uint8[])", 350_000, 3),
    ] {
        assert_eq!((micros(&time, leaf), micros(&calls, leaf)), (own_micros, own_calls), "{leaf}");
    }
    assert_eq!(time.values().sum::<i64>(), 2_000_000);
}

/// A sampling report's exclusive samples are each node's own; two rows of one function under one
/// caller are one node of both rows' samples; the process's row is its thread's root. By hand.
#[test]
fn sampled_reports_weigh_their_exclusive_samples() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture("vsprof/sampled.vsprof.csv"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "Shop.exe;Shop.Feed.Poll(object) 4",
            "Shop.exe;Shop.Feed.Poll(object);System.Net.Sockets.Socket.Receive(uint8[]) 200",
            "Shop.exe;Shop.Program.Main(string[]) 12",
            "Shop.exe;Shop.Program.Main(string[]);Shop.Cart.Total(class System.Collections.Generic.List`1<class Shop.Item>) 150",
            "Shop.exe;Shop.Program.Main(string[]);Shop.Cart.Total(class System.Collections.Generic.List`1<class Shop.Item>);Shop.Tax.Compute(valuetype System.Decimal,string) 550",
            "Shop.exe;Shop.Program.Main(string[]);Shop.Report.Print() 88",
            "Shop.exe;Shop.Program.Main(string[]);Shop.Report.Print();System.Console.WriteLine(string) 200",
        ]
    );
}

/// A report with the total `Elapsed Exclusive Time` column, its numbers in a German locale's form
/// (`1.600,25`, `12.500`): each node's time is that column's. By hand.
#[test]
fn total_times_are_read_in_the_locales_form() {
    let (profile, _) = read_fixture(Format::Vsprof, &fixture("vsprof/totals.vsprof.csv"));
    let time = own_values(&profile, "time");
    let own: Vec<i64> = time.values().copied().collect();
    // By stack, sorted: Shop.exe; Feed.Poll; Main; Cart.Total; Tax.Compute.
    assert_eq!(own, [0, 400_000, 100_000, 900_000, 600_250]);
    assert_eq!(own_values(&profile, "calls").values().copied().collect::<Vec<_>>(), [0, 3, 1, 250, 12_500]);
}

#[test]
fn a_file_is_told_by_its_header() {
    let (info, _) = info("vsprof/sampled.vsprof.csv");
    assert!(info.contains("vsprof (recognised by content)"), "{info}");
}
