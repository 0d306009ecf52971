//! macOS `sample` text (`macos-sample`), against `inferno-collapse-sample`: the project's own
//! hand-written report (fixtures/README.md, macos-sample) beside what inferno-collapse-sample 0.12.8
//! made of it, and the binary where it is installed.

use crate::support::binary::{fixture, output_of_installed, run};
use crate::support::sorted_lines;

/// The main thread's line, which proftool names by all its text.
const MAIN_THREAD: &str = "Thread_8123   DispatchQueue_1: com.apple.main-thread  (serial)";

/// What inferno makes of the main thread's line: its function rule takes the text before `(` as
/// the function and the rest up to `)` as the binary.
const MAIN_THREAD_BY_INFERNO: &str =
    "Thread_8123   DispatchQueue_1: com.apple.main-thread  (serial`Thread_8123   DispatchQueue_1: com.apple.main-thread";

/// The stack the report lists twice, `_platform_memmove` at offsets 96 (70 samples) and 112 (50):
/// proftool adds their samples up (120), where inferno keeps the last line's alone (50).
const LISTED_TWICE: &str = "Thread_8124: walk-worker;libsystem_pthread`thread_start;libsystem_pthread`_pthread_start;walk`std::sys::pal::unix::thread::Thread::new::thread_start;walk`core::ops::function::FnOnce::call_once{{vtable.shim}};walk`std::sys::backtrace::__rust_begin_short_backtrace;walk`walk::worker::run;walk`walk::tree::walk;walk`walk::tree::walk;walk`walk::tree::Node::children;walk`<alloc::vec::Vec<T> as core::clone::Clone>::clone;libsystem_platform`_platform_memmove";

/// The stack that ends in `pread` (3 samples), which inferno leaves out as an idle wait (its name
/// ends in `read`) and proftool keeps (only `read` itself is one).
const PREAD: &str = "Thread_8123   DispatchQueue_1: com.apple.main-thread  (serial);dyld`start;walk`main;walk`std::rt::lang_start_internal;walk`std::rt::lang_start::_{{closure}};walk`std::sys::backtrace::__rust_begin_short_backtrace;walk`walk::main;walk`walk::tree::Tree::load;libsystem_kernel`pread 3";

/// inferno's stacks of the report with the three documented differences (module documentation of
/// `src/formats/macos_sample.rs`) made proftool's way, sorted.
fn as_proftool_reads_it(inferno: &str) -> Vec<String> {
    let mut lines: Vec<String> = inferno
        .lines()
        .map(|line| line.replacen(MAIN_THREAD_BY_INFERNO, MAIN_THREAD, 1))
        .map(|line| match line.strip_prefix(LISTED_TWICE) {
            Some(" 50") => format!("{LISTED_TWICE} 120"),
            _ => line,
        })
        .chain([PREAD.to_string()])
        .collect();
    lines.sort();
    lines
}

/// The report reads to inferno's stacks, but for the differences [`as_proftool_reads_it`] makes:
/// frames ``binary`function`` (`.dylib` dropped, `(.llvm.…)` and argument lists cut), Rust names
/// tidied, a frame `???` of its binary, each stack's samples those of its last line, the stacks
/// that end in an idle wait left out (said on stderr with their samples). Its lines' counts, added
/// by hand: 399 samples in stacks (3 + 4 on the main thread, 380 on the worker, 12 on the third),
/// 849 in the 4 idle stacks (`read` 9, `__ulock_wait` 400, `__psynch_cvwait` 36, `kevent` 404): 3
/// threads of 416.
#[test]
fn a_sample_report_reads_as_inferno_collapses_it() {
    let (out, err) = run(&["convert", "--to", "folded"], &fixture("macos-sample/walk.sample"));
    let inferno = std::fs::read_to_string(fixture("macos-sample/inferno/walk.folded")).unwrap();
    assert_eq!(sorted_lines(&out), as_proftool_reads_it(&inferno));
    let total: u64 = out.lines().map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap()).sum();
    assert_eq!(total, 399);
    assert!(err.contains("4 stacks that end in a thread's idle wait") && err.contains(": 849 samples"), "{err}");
}

/// The report's first line gives the interval and the process.
#[test]
fn a_sample_report_has_its_interval_and_process() {
    let (out, _) = crate::support::binary::info("macos-sample/walk.sample");
    assert!(out.contains("title      walk (pid 4242)") && out.contains("interval   1ms"), "{out}");
}

/// Where `inferno-collapse-sample` is installed (CI installs inferno), it collapses the report to
/// proftool's stacks, but for the differences [`as_proftool_reads_it`] makes.
#[test]
fn a_sample_report_agrees_with_inferno_collapse_sample() {
    let path = fixture("macos-sample/walk.sample");
    let Some(inferno) = output_of_installed("inferno-collapse-sample", &[], &path) else { return };
    let (out, _) = run(&["convert", "-q", "--to", "folded"], &path);
    assert_eq!(sorted_lines(&out), as_proftool_reads_it(&inferno));
}
