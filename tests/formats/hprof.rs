//! HPROF's CPU samples (`hprof`), read only: the stacks of each trace and its count, each figure
//! from the file by hand or gprof2dot's reading of it (fixtures/hprof/make-fixtures.py).

use crate::support::binary::{fixture, info, run};
use std::collections::BTreeMap;

/// Each function's own samples in proftool's folded stacks of `file` (the leaf of each stack,
/// lines merged into their functions, as folded stacks hold them).
fn own_samples(file: &str) -> BTreeMap<String, i64> {
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture(file));
    let mut own = BTreeMap::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("stack count");
        let leaf = stack.rsplit(';').next().expect("a leaf");
        *own.entry(leaf.to_string()).or_insert(0) += count.parse::<i64>().expect("a count");
    }
    own
}

/// Without threads (the agent's default): each function's own samples are those gprof2dot's
/// HProfParser counts (`plain.gprof2dot.txt`), and one more that it does not read: gprof2dot stops
/// a trace at a frame line without `:` (`invoke(Unknown Source)`), so trace 300104's 4 samples are
/// no one's there; proftool reads the frame, without a file. The trace of no frame (`<empty>`) and
/// no thread weighs no stack: its 3 samples are left out, said on stderr.
#[test]
fn own_samples_are_gprof2dots() {
    let theirs = std::fs::read_to_string(fixture("hprof/plain.gprof2dot.txt")).expect("gprof2dot's reading");
    let mut expected: BTreeMap<String, i64> = theirs
        .lines()
        .map(|line| {
            let (name, samples) = line.rsplit_once(' ').expect("name samples");
            (name.to_string(), samples.parse().expect("a count"))
        })
        .collect();
    expected.insert("sun.reflect.GeneratedMethodAccessor1.invoke".into(), 4);
    assert_eq!(own_samples("hprof/plain.hprof.txt"), expected);
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("hprof/plain.hprof.txt"));
    assert!(
        err.contains("rows of traces with no frame and no thread, which weigh no stack, left out: 1 (3 samples)"),
        "{err}"
    );
}

/// With threads (`thread=y`): each trace under its thread, named by its `THREAD START` (one that
/// has ended too), its frames the top of the stack first; the `<empty>` trace's 3 samples on its
/// thread alone. By hand from the file.
#[test]
fn traces_are_stacks_in_their_threads() {
    let (folded, _) = run(&["convert", "-q", "--to", "folded"], &fixture("hprof/shop.hprof.txt"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "main 3",
            "main;com.example.shop.Main.main;com.example.shop.Cart.total;com.example.shop.Tax.compute 23",
            "main;com.example.shop.Main.main;com.example.shop.Cart.total;java.util.HashMap.get;java.util.HashMap.hash 41",
            "pool-1-thread-1;com.example.shop.Feed.poll;java.net.SocketInputStream.read;java.net.SocketInputStream.socketRead0 19",
            "pool-1-thread-1;com.example.shop.Feed.poll;sun.reflect.GeneratedMethodAccessor1.invoke 4",
        ]
    );
}

/// A frame is its method in its file at its line: two lines of `Cart.total` are two frames; a
/// compiled or native method or an unknown line has its file and no line; `Unknown Source` no file.
#[test]
fn frames_are_methods_at_their_lines() {
    let (speedscope, _) = run(&["convert", "-q", "--to", "speedscope"], &fixture("hprof/shop.hprof.txt"));
    for frame in [
        r#"{"name":"com.example.shop.Cart.total","file":"Cart.java","line":60}"#,
        r#"{"name":"com.example.shop.Cart.total","file":"Cart.java","line":62}"#,
        r#"{"name":"com.example.shop.Tax.compute","file":"Tax.java"}"#,
        r#"{"name":"java.net.SocketInputStream.socketRead0","file":"SocketInputStream.java"}"#,
        r#"{"name":"com.example.shop.Feed.poll","file":"Feed.java"}"#,
        r#"{"name":"sun.reflect.GeneratedMethodAccessor1.invoke"}"#,
    ] {
        assert!(speedscope.contains(frame), "{frame} in {speedscope}");
    }
}

/// heap=sites alone: each site's trace is a stack with the class allocated below it, weighing its
/// live bytes and objects and those allocated in all, named as pprof names a heap profile's; the
/// live bytes first. By hand from the file's `SITES` table (fixtures/hprof/make-fixtures.py).
#[test]
fn sites_weigh_what_their_traces_allocated() {
    let (folded, _) =
        run(&["convert", "-q", "--metric", "alloc_objects", "--to", "folded"], &fixture("hprof/sites.hprof.txt"));
    let mut lines: Vec<&str> = folded.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "com.example.shop.Feed.poll;java.net.SocketInputStream.read;byte[] 256",
            "com.example.shop.Main.main;com.example.shop.Cart.add;java.util.HashMap.putVal;java.util.HashMap.resize;java.util.HashMap$Node[] 20",
            "com.example.shop.Main.main;com.example.shop.Receipt.print;java.lang.StringBuilder.toString;char[] 9600",
            "com.example.shop.Main.main;com.example.shop.Receipt.print;java.lang.StringBuilder.toString;java.lang.String 9600",
            "java.lang.Object 100",
        ]
    );
    for (metric, total) in
        [("inuse_space", 879_776), ("inuse_objects", 6_450), ("alloc_space", 3_754_560), ("alloc_objects", 19_576)]
    {
        let (folded, _) =
            run(&["convert", "-q", "--metric", metric, "--to", "folded"], &fixture("hprof/sites.hprof.txt"));
        let sum: i64 = folded.lines().map(|line| line.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap()).sum();
        assert_eq!(sum, total, "{metric}");
    }
}

/// heap=sites,cpu=samples,thread=y: both tables, each stack under its thread; the samples weigh
/// the profile as the file without sites does, and the sites' metrics sit beside them.
#[test]
fn sites_and_samples_are_read_together() {
    let (info, _) = info("hprof/heap.hprof.txt");
    for metric in ["samples", "inuse_space", "inuse_objects", "alloc_space", "alloc_objects"] {
        assert!(info.contains(metric), "{metric} in {info}");
    }
    let (with_sites, _) = run(&["convert", "-q", "--to", "folded"], &fixture("hprof/heap.hprof.txt"));
    let (without, _) = run(&["convert", "-q", "--to", "folded"], &fixture("hprof/shop.hprof.txt"));
    assert_eq!(with_sites, without);
    let (bytes, _) =
        run(&["convert", "-q", "--metric", "alloc_space", "--to", "folded"], &fixture("hprof/heap.hprof.txt"));
    assert!(
        bytes.contains("pool-1-thread-1;com.example.shop.Feed.poll;java.net.SocketInputStream.read;byte[] 2097152\n"),
        "{bytes}"
    );
    assert!(bytes.contains("main;java.lang.Object 1600\n"), "{bytes}");
}

/// The agent's header documents its records in lines that start with their names (`TRACE
/// represents a Java stack trace.`, as in gprof2dot's own test files of HPROF): up to its line of
/// dashes they are no records. A file without that line is read from its first record.
#[test]
fn the_headers_documentation_of_records_is_no_record() {
    let records = "TRACE 301: (thread=1)\n\tA.run(A.java:7)\nCPU SAMPLES BEGIN (total = 4) Mon Aug  4 22:25:01 2008\nrank   self  accum   count trace method\n   1 100.00% 100.00%       4 301 A.run\nCPU SAMPLES END\n";
    let documented = "JAVA PROFILE 1.0.1, created Mon Aug  4 22:22:24 2008\n\nThis file contains the following types of records:\n\nTHREAD START\nTHREAD END      mark the lifetime of Java threads\n\nTRACE           represents a Java stack trace.\n\nCPU SAMPLES     is a statistical profile of program execution.\n\n--------\n\n";
    let bare = "JAVA PROFILE 1.0.1, created Mon Aug  4 22:22:24 2008\n\n";
    for head in [documented, bare] {
        let input = format!("{head}{records}");
        let (out, _) =
            crate::support::binary::run_stdin(&["convert", "--from", "hprof", "--to", "folded"], input.as_bytes());
        // The thread's name ends in a number, so folded writes its space as a no-break space.
        assert_eq!(out, "thread\u{a0}1;A.run 4\n", "{head}");
    }
}
