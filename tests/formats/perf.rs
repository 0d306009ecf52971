//! Linux `perf script` text (`perf`), against `inferno-collapse-perf` where it is installed: the
//! same stacks and weights, many blocks read by several threads, field lists without the DSO or
//! the period, C++ anonymous namespaces, a recording cut in a header.

use crate::support::binary::{fixture, output_of_installed, proftool, run};

/// Folded lines, sorted: inferno writes its stacks in another order.
fn sorted(folded: &str) -> Vec<String> {
    let mut lines: Vec<String> = folded.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// The stacks of `edge.perf` as inferno-collapse-perf 0.12.8 collapses it with `--tid` (its output,
/// checked line by line against the file): the first event (`cycles`) only, weighed by its periods;
/// a process-name frame `(java)` dropped; an empty symbol as a space; the java sample, of another
/// event (`instructions`), 0 of cycles: no line, as inferno writes none. The sample without frames,
/// which inferno drops, is its command alone, as stackcollapse-perf.pl keeps it.
#[test]
fn perf_script_reads_as_inferno_collapses_it() {
    let (out, _) = run(&["convert", "-q", "--perf-tid", "--to", "folded"], &fixture("perf/edge.perf"));
    let expected = [
        "V8_WorkerThread-24636/25607 257597",
        "V8_WorkerThread-24636/25607; ;[libc.so.6];v8::internal::Foo 260000",
        "false-?/64414;[unknown] 34467",
        // inferno drops every frame whose symbol starts with `(`: proftool keeps this C++ one.
        "swapper-?/0;(anonymous namespace)::rest_init;native_safe_halt 100000",
    ];
    assert_eq!(sorted(&out), expected);
    // The other event is a metric of its own.
    let (out, _) = run(&["convert", "-q", "--metric", "instructions", "--to", "folded"], &fixture("perf/edge.perf"));
    assert!(out.contains("java;net/http.(*Client).Do;org/mozilla/Context:::call;org/mozilla/Inner:::run_[i] 500\n"));
}

/// `inferno-collapse-perf`'s folded output of `file` (a fixture) with `args`, where it is installed.
fn inferno_collapse_perf(file: &str, args: &[&str]) -> Option<String> {
    inferno_collapse_perf_of(&fixture(file), args)
}

/// `inferno-collapse-perf`'s folded output of the file at `path` with `args`, where it is installed.
fn inferno_collapse_perf_of(path: &std::path::Path, args: &[&str]) -> Option<String> {
    output_of_installed("inferno-collapse-perf", args, path)
}

/// Folded lines without the frames of C++ anonymous namespaces, which inferno drops (their time
/// then its caller's), lines of one stack added up, sorted.
fn without_anonymous_namespaces(folded: &[String]) -> Vec<String> {
    let mut stacks = std::collections::BTreeMap::<String, u64>::new();
    for line in folded {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let frames: Vec<&str> = stack.split(';').filter(|f| !f.starts_with("(anonymous namespace)")).collect();
        *stacks.entry(frames.join(";")).or_default() += count.parse::<u64>().unwrap();
    }
    stacks.into_iter().map(|(stack, count)| format!("{stack} {count}")).collect()
}

/// Every real recording collapses to the same stacks and weights as `inferno-collapse-perf` (with
/// `--pid`, `--tid` and `--all` as `--perf-pid`, `--perf-tid` and `--perf-annotate`), where inferno
/// is installed: with call chains or without (`no-callchain.perf`, one frame a sample), with source
/// lines (`srcline.perf`, skipped by both), cut in a header (`cut-in-header.perf`: the cut line left
/// out, as inferno leaves out a header of another event). inferno misses
/// a period that two spaces separate from its event (`250000  cpu-clock:`, as perf pads events of
/// a file with two) and counts 1 per sample there: the samples metric of that event is compared.
/// inferno drops the frames of C++ anonymous namespaces (`anon.perf`), which proftool keeps: they
/// are taken out of proftool's stacks for the comparison.
#[test]
fn perf_script_agrees_with_inferno_collapse_perf() {
    for (file, metric) in [
        ("work.perf", "cpu-clock"),
        ("pid-cpu.perf", "cpu-clock"),
        ("two-events.perf", "cpu-clock samples"),
        ("edge.perf", "cycles"),
        ("no-callchain.perf", "cpu-clock"),
        ("cut-in-header.perf", "cpu-clock"),
        ("srcline.perf", "cpu-clock"),
        ("anon.perf", "cpu-clock"),
    ] {
        for (ours, theirs) in [
            (None, None),
            (Some("--perf-pid"), Some("--pid")),
            (Some("--perf-tid"), Some("--tid")),
            (Some("--perf-annotate"), Some("--all")),
        ] {
            let mut args = vec!["convert", "-q", "--metric", metric, "--to", "folded"];
            args.extend(ours);
            let (out, _) = run(&args, &fixture(&format!("perf/{file}")));
            let Some(expected) = inferno_collapse_perf(&format!("perf/{file}"), theirs.as_slice()) else { return };
            // inferno writes no line for a stack of another event; proftool writes it with 0. A sample
            // without frames, its command alone to proftool (no `;`), inferno leaves out.
            let ours: Vec<String> =
                sorted(&out).into_iter().filter(|l| !l.ends_with(" 0") && l.contains(';')).collect();
            assert_eq!(without_anonymous_namespaces(&ours), sorted(&expected), "{file} {ours:?}");
        }
    }
}

/// A recording of many blocks, which several threads read (each from a record's blank line),
/// collapses as inferno-collapse-perf collapses it: three recordings one after another, twelve
/// times (1.5 MB, about twelve of the reader's 128 KiB blocks, records across their ends).
#[test]
fn a_perf_script_of_many_blocks_agrees_with_inferno_collapse_perf() {
    let recordings =
        ["work.perf", "pid-cpu.perf", "anon.perf"].map(|f| std::fs::read(fixture(&format!("perf/{f}"))).unwrap());
    let text = recordings.concat().repeat(12);
    let path = std::env::temp_dir().join(format!("proftool-many-blocks-{}.perf", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let expected = inferno_collapse_perf_of(&path, &["--tid"]);
    let (out, _) = run(&["convert", "-q", "--perf-tid", "--to", "folded"], &path);
    std::fs::remove_file(&path).unwrap();
    let Some(expected) = expected else { return };
    assert!(
        text.len() > 1_400_000 && expected.lines().count() >= 14,
        "{} bytes, {} stacks",
        text.len(),
        expected.lines().count()
    );
    assert_eq!(without_anonymous_namespaces(&sorted(&out)), sorted(&expected));
}

/// `-F` field lists that leave out the DSO (`-F comm,tid,period,ip,sym`) or the period, the event
/// and the DSO (`-F comm,pid,tid,time,ip,sym`) give the stacks of the same recording printed with
/// the default fields and `-F +srcline` (`srcline.perf`), as inferno-collapse-perf collapses it
/// (inferno itself reads no frame of a file without DSOs). Without periods a sample weighs one:
/// inferno's weights divided by the period every sample of that recording has, 1001001 ns (perf
/// record -F 999).
#[test]
fn perf_field_lists_without_dso_or_period_read_the_same_stacks() {
    let Some(expected) = inferno_collapse_perf("perf/srcline.perf", &[]) else { return };
    let recording = std::fs::read_to_string(fixture("perf/srcline.perf")).unwrap();
    let headers = recording.lines().filter(|l| l.starts_with("perfwork")).count();
    assert_eq!(recording.matches("    1001001 cpu-clock: \n").count(), headers);
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &fixture("perf/fields-no-dso.perf"));
    assert_eq!(sorted(&out), sorted(&expected));
    let in_samples: Vec<String> = sorted(&expected)
        .iter()
        .map(|line| {
            let (stack, weight) = line.rsplit_once(' ').unwrap();
            let weight: u64 = weight.parse().unwrap();
            assert_eq!(weight % 1001001, 0, "{line}");
            format!("{stack} {}", weight / 1001001)
        })
        .collect();
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("perf/fields-no-period.perf"));
    assert_eq!(sorted(&out), in_samples, "{err}");
}

/// C++ functions of an anonymous namespace are functions: `(anonymous namespace)::checksum` keeps
/// its own time. `perf report --stdio --no-children --sort sym` on the recording `anon.perf` was
/// printed from (perf 6.1, `make-world.sh` with KEEP=1) gives it 22.22 % self, of 90 samples:
/// 20 samples, 20 × 1001001 ns; `(anonymous namespace)::fill` 36.67 %, 33 samples.
#[test]
fn perf_keeps_functions_of_anonymous_namespaces() {
    let summary = proftool()
        .args(["summary", "-q", "--format", "csv", "--metric", "samples"])
        .arg(fixture("perf/anon.perf"))
        .assert()
        .success();
    let out = String::from_utf8(summary.get_output().stdout.clone()).unwrap();
    let self_samples = |name: &str| {
        let row = out.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap_or_else(|| panic!("{name}: {out}"));
        row.split(',').nth(1).unwrap().to_string()
    };
    assert_eq!(self_samples("(anonymous namespace)::checksum"), "20");
    assert_eq!(self_samples("(anonymous namespace)::fill"), "33");
    let (out, _) = run(&["convert", "-q", "--metric", "cpu-clock", "--to", "folded"], &fixture("perf/anon.perf"));
    let checksum: u64 = out
        .lines()
        .filter(|l| l.rsplit_once(' ').unwrap().0.ends_with(";(anonymous namespace)::checksum"))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(checksum, 20 * 1001001);
}

/// A recording without call chains (`perf record` without `-g`) cut in the middle of its 21st
/// header line: the 20 whole samples, each one frame of 1001001 ns (`head -n 20` of perf script's
/// output), and no metric made of the cut line's remains (once `cpu-clock samples` beside the
/// samples of an event named by nothing).
#[test]
fn perf_cut_in_a_header_reads_the_whole_samples() {
    let info = proftool().arg("info").arg(fixture("perf/cut-in-header.perf")).assert().success();
    let (out, err) = (&info.get_output().stdout, &info.get_output().stderr);
    let (out, err) = (String::from_utf8_lossy(out), String::from_utf8_lossy(err));
    let metrics: Vec<&str> = out.lines().filter(|l| l.starts_with("metric")).collect();
    assert_eq!(
        metrics,
        [
            "metric     cpu-clock (time, ns, additive): total 20020020",
            "metric     samples (samples, count, additive): total 20"
        ],
        "{out}"
    );
    assert!(err.contains("line 21"), "{err}");
    assert!(err.contains("the input ends in the middle of a line, which is left out"), "{err}");
}

/// Threads named with a space and a number (`io worker 17`, as Firefox's `FS Broker 5906`) are read
/// with their whole name and their thread id (threads.perf, perf 6.1), where inferno-collapse-perf
/// takes the number for the thread id and names the thread `io_worker`: the same stacks and weights
/// otherwise. The kernel frames' source lines of `-F +srcline` (`  [kernel.kallsyms][ffffffff…]`)
/// are skipped as the others (threads-srcline.perf: the same stacks).
#[test]
fn thread_names_ending_in_a_number_and_kernel_source_lines() {
    let (text, _) = run(&["convert", "-q", "--perf-tid", "--to", "folded"], &fixture("perf/threads.perf"));
    assert!(text.contains("\nio_worker_17-?/14658;") && text.contains("\ncalc_3-?/14659;"), "{text}");
    let args = ["convert", "-q", "--metric", "cpu-clock", "--to", "folded"];
    let (out, _) = run(&args, &fixture("perf/threads.perf"));
    let (srcline, stderr) =
        run(&["convert", "--metric", "cpu-clock", "--to", "folded"], &fixture("perf/threads-srcline.perf"));
    assert_eq!(srcline, out);
    // 85 source lines, 34 of them `  [kernel.kallsyms][…]`, as `grep -c '^  '` counts them.
    assert!(stderr.contains("85 source lines (perf script -F +srcline) skipped"), "{stderr}");
    let Some(expected) = inferno_collapse_perf("perf/threads.perf", &[]) else { return };
    let inferno_names = out.replace("io_worker_17;", "io_worker;").replace("calc_3;", "calc;");
    assert_eq!(sorted(&inferno_names), sorted(&expected));
}

/// A sample without frames is its command alone, as stackcollapse-perf.pl keeps it (no-frames.perf,
/// records of threads.perf, one without its frames; FlameGraph's stackcollapse-perf.pl gives
/// `perfthreads 1001001` and the three other stacks below, with `io_worker` for `io_worker_17`), and
/// said.
#[test]
fn a_sample_without_frames_is_its_command() {
    let (out, stderr) = run(&["convert", "--metric", "cpu-clock", "--to", "folded"], &fixture("perf/no-frames.perf"));
    let expected = [
        "io_worker_17;start_thread;__GI___libc_write 1001001",
        "io_worker_17;start_thread;__GI___libc_write;entry_SYSCALL_64_after_hwframe;do_syscall_64 1001001",
        "perfthreads 1001001",
        "perfthreads;start_thread;calc_work 2002002",
    ];
    assert_eq!(sorted(&out), expected);
    assert!(stderr.contains("1 sample without frames kept as their command alone"), "{stderr}");
}

/// A raw `perf.data` (perf 6.1's header starts `PERFILE2` and its size, 104) is answered with the
/// command that prints it as text, whatever it is called and whether or not `--from perf` names it:
/// the file's first 16 bytes, which hold nothing of the machine that recorded it.
#[test]
fn a_raw_perf_data_is_answered_with_perf_script() {
    let dir = crate::support::binary::temp();
    let path = dir.path().join("perf.data");
    std::fs::write(&path, b"PERFILE2\x68\0\0\0\0\0\0\0").unwrap();
    for args in [&["info"][..], &["info", "--from", "perf"][..]] {
        let stderr = crate::support::binary::failure(proftool().args(args).arg(&path));
        assert!(stderr.contains("the content is a raw perf.data recording (binary): print it with `perf script -i perf.data > out.perf`"), "{stderr}");
    }
}

/// simpleperf's `report_sample.py` text (hand-written with its format strings, fixtures/README.md):
/// tab-separated fields, told by content and read as perf. The Firefox Profiler, which reads it with
/// its perf importer (profiler-cli 0.10.0, `thread samples-top-down --include-idle`), counts
/// `RenderThread`'s 3 samples as `__start_thread;render` 1 and `…;render;leaf` 2, and `org.example`'s 2 as
/// `main;parse` 1 and `main;parse;memcpy` 1; here, by count too (`--metric samples`), and by the
/// periods of `cpu-clock` (ns) by default: `parse`'s own sample holds 2,000,000.
#[test]
fn simpleperfs_report_sample_text_reads_as_perf() {
    let path = fixture("perf/simpleperf.perf");
    let (out, _) = run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &path);
    let expected = [
        "RenderThread;__start_thread;render 1",
        "RenderThread;__start_thread;render;leaf 2",
        "org.example;main;parse 1",
        "org.example;main;parse;memcpy 1",
    ];
    assert_eq!(sorted(&out), expected);
    let (text, _) = crate::support::binary::info("perf/simpleperf.perf");
    assert!(text.contains("format     perf (recognised by content)"), "{text}");
    assert!(text.contains("metric     cpu-clock (time, ns, additive): total 6000000"), "{text}");
}

/// perf script's other printings of one recording (perf 6.1, `make-fixtures.sh`): the time of day
/// before the time (`tod.perf`), side-band events among the samples (`side-band.perf`), no command
/// (`no-comm.perf`) read as the default fields are: `perf report --children --sort sym` gives 6
/// samples, `leaf` all 6 self, `parse_input` 2 of them; without `comm` the thread is `:13647`, as perf
/// names a thread whose command it does not know. Without `ip` (`no-ip.perf`) each sample is its
/// command alone, 6 × 1001001 ns, the file not said to be cut short.
#[test]
fn perf_script_field_lists_and_side_band_events_read_the_same_samples() {
    let expected =
        ["perfwork;__libc_start_call_main;main;leaf 4", "perfwork;__libc_start_call_main;main;parse_input;leaf 2"];
    for file in ["tod.perf", "side-band.perf"] {
        let (out, err) = run(&["convert", "--metric", "samples", "--to", "folded"], &fixture(&format!("perf/{file}")));
        assert_eq!(sorted(&out), expected, "{file} {err}");
    }
    let (_, err) = run(&["convert", "--to", "folded"], &fixture("perf/side-band.perf"));
    assert!(
        err.contains("12 lines of side-band events (PERF_RECORD_MMAP, COMM, MMAP2, SWITCH, FINISHED_ROUND, EXIT"),
        "{err}"
    );
    let (out, _) = run(&["convert", "-q", "--metric", "samples", "--to", "folded"], &fixture("perf/no-comm.perf"));
    assert_eq!(sorted(&out), expected.map(|l| l.replace("perfwork;", ":13647;")));
    let (out, err) = run(&["convert", "--metric", "cpu-clock", "--to", "folded"], &fixture("perf/no-ip.perf"));
    assert_eq!(out, "perfwork 6006006\n");
    assert!(!err.contains("cut short") && !err.contains("does not look like"), "{err}");
}

/// A tracepoint's samples (`tracepoint.perf`): its fields after its name are no frame; `perf report`
/// gives 6 `cpu-clock` samples (6006006 ns) and 1 `sched:sched_switch`, in `__schedule`. Inlined frames
/// of `--call-graph dwarf` (`dwarf.perf`, and with `-F +srcline`, `dwarf-srcline.perf`) are frames of
/// their own, the same in both: `perf report --children` gives `render` and `parse_input` 3 of 6 each.
#[test]
fn perf_tracepoints_and_inlined_frames() {
    let (out, _) = run(
        &["convert", "-q", "--metric", "sched:sched_switch samples", "--to", "folded"],
        &fixture("perf/tracepoint.perf"),
    );
    let switch: Vec<String> = sorted(&out).into_iter().filter(|l| !l.ends_with(" 0")).collect();
    assert_eq!(
        switch,
        ["perfwork;__libc_start_call_main;main;parse_input;leaf;asm_sysvec_apic_timer_interrupt;irqentry_exit_to_user_mode;schedule;__schedule 1"]
    );
    let (text, _) = crate::support::binary::info("perf/tracepoint.perf");
    assert!(text.contains("metric     cpu-clock (time, ns, additive): total 6006006"), "{text}");
    let args = ["convert", "-q", "--metric", "cpu-clock", "--to", "folded"];
    let (dwarf, _) = run(&args, &fixture("perf/dwarf.perf"));
    let (srcline, _) = run(&args, &fixture("perf/dwarf-srcline.perf"));
    assert_eq!(dwarf, srcline);
    assert_eq!(
        sorted(&dwarf),
        [
            "perfwork;_start;__libc_start_main_impl;__libc_start_call_main;main;parse_input;middle;leaf 3003003",
            "perfwork;_start;__libc_start_main_impl;__libc_start_call_main;main;render;leaf 3003003",
        ]
    );
}
