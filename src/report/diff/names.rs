//! Names that survive runs: what differs between two runs of one program taken out of names.

use crate::model::Profile;
use regex::Regex;

/// The parts of a name that differ between two runs or builds of one program, and what each becomes
/// ([`names_across_runs`]), in the order they are applied:
/// - a Java lambda's or hidden class's suffixes (`Work$$Lambda$93+0x00007f1b9c009000.27319466` as
///   JFR names it, `Foo$$Lambda$14/0x0000000800c03000`, `Foo$$Lambda/0x…` of JDK 21): its class
///   number, address and identity hash, so that the lambda is `Work$$Lambda`;
/// - py-spy's thread and process frames (`thread (9505): MainThread`, `thread (0x7f3a…)`,
///   `process 4242:"python3 app.py"`): their ids, so that threads match by name;
/// - an address (`0x7f3a…`, a JIT's code): `0x…`;
/// - a Rust symbol's build hash (`::h0123456789abcdef`);
/// - the number GCC gives a function's clone (`.constprop.3`, `.isra.0`, `.part.1`, `.cold.2`,
///   `.lto_priv.0`);
/// - the pid in a JIT's perf map or dump (`perf-4242.map`, `jitted-4242-17.so`);
/// - the numbers of a JFR event handler class the JDK generates per run
///   (`EventHandler1386_1795905053094-20000`);
/// - the line in a py-spy frame of its raw (folded) output, `render (work.py:36)`: which line of a
///   function a run's samples land on shifts with the phase of the run it caught, and a function is
///   one row as a profile of line frames (py-spy's speedscope files, pprof) is compared by
///   function: `render (work.py)`.
const RUN_SPECIFIC: [(&str, &str); 10] = [
    (r"\$\$Lambda(?:\$[0-9]+)?(?:[+/]0x[0-9a-fA-F]+)?(?:\.[0-9]+)?", "$$$$Lambda"),
    (r"^(thread|process) \((?:0x)?[0-9a-fA-F]+\)", "$1 (…)"),
    (r"^process [0-9]+:", "process …:"),
    (r"0x[0-9a-fA-F]{4,}", "0x…"),
    (r"::h[0-9a-f]{16}$", ""),
    (r"\.(isra|constprop|part|cold|lto_priv|llvm)\.[0-9]+", ".$1"),
    (r"perf-[0-9]+\.map", "perf-PID.map"),
    (r"jitted-[0-9]+-[0-9]+\.so", "jitted-PID.so"),
    (r"EventHandler[0-9]+_[0-9]+-[0-9]+", "EventHandler"),
    (r"^(.+ \([^():;]+\.pyx?):[0-9]+\)$", "$1)"),
];

/// Renames the frames of `profile` so that one function of two runs or builds has one name: the
/// parts of `RUN_SPECIFIC` replaced in each name and module. An unsymbolicated frame of a library
/// (samply's `0x1a49b` in `libm.so.6`) is an offset in that library, the same in every run of one
/// build: it keeps its address and is named by its library too, as the Firefox Profiler names it
/// (`libm.so.6!0x1a49b`, which the firefox reader gives already), so that two such frames stay two
/// rows. Returns each frame it renamed: its name before and after.
pub fn names_across_runs(profile: &mut Profile) -> Vec<(String, String)> {
    static RULES: std::sync::OnceLock<Vec<(Regex, &'static str)>> = std::sync::OnceLock::new();
    // The patterns are constants, each valid.
    let rules =
        RULES.get_or_init(|| RUN_SPECIFIC.iter().filter_map(|(p, to)| Some((Regex::new(p).ok()?, *to))).collect());
    // The text with every rule applied; `None` where no rule changed it.
    let rewrite = |text: &str| -> Option<String> {
        let mut out: Option<String> = None;
        for (pattern, to) in rules {
            let current = out.as_deref().unwrap_or(text);
            if let std::borrow::Cow::Owned(replaced) = pattern.replace_all(current, *to) {
                out = Some(replaced);
            }
        }
        out
    };
    let mut renamed = Vec::new();
    crate::model::ops::map_frames(profile, |frame| {
        if is_library_offset(&frame.name) {
            return None;
        }
        let comparable = match frame.module.as_deref().filter(|_| is_address(&frame.name)) {
            Some(library) => {
                let library = library.rsplit(['/', '\\']).next().unwrap_or(library);
                crate::model::Frame { name: format!("{library}!{}", frame.name), ..frame.clone() }
            }
            None => {
                let (name, module) = (rewrite(&frame.name), frame.module.as_deref().and_then(rewrite));
                if name.is_none() && module.is_none() {
                    return None;
                }
                crate::model::Frame {
                    name: name.unwrap_or_else(|| frame.name.clone()),
                    module: module.or_else(|| frame.module.clone()),
                    ..frame.clone()
                }
            }
        };
        renamed.push((shown(frame), shown(&comparable)));
        Some(comparable)
    });
    renamed
}

/// A frame's name, and its module where it has one: `0x1a49b in libm.so.6`.
fn shown(frame: &crate::model::Frame) -> String {
    match &frame.module {
        Some(module) => format!("{} in {module}", frame.name),
        None => frame.name.clone(),
    }
}

/// Whether `name` is an address named by its library, `libm.so.6!0x1a49b`.
fn is_library_offset(name: &str) -> bool {
    name.split_once('!').is_some_and(|(library, address)| !library.is_empty() && is_address(address))
}

/// Whether `name` is a bare address, `0x1a49b`.
fn is_address(name: &str) -> bool {
    name.strip_prefix("0x").is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The names producers give frames that are no code of the program: V8's `(idle)`, `(program)`,
/// `(garbage collector)` and `(root)`, Go's `runtime._GC`, `runtime._System`,
/// `runtime._ExternalCode` and `runtime._VDSO`, and Go's asynchronous preemption landing on a
/// goroutine (`runtime.asyncPreempt`: 4 % to 21 % of unchanged CPU runs on a loaded machine, with
/// the scheduler's load, as an interrupt comes). The gate reports them but does not gate them by
/// default: idling, collecting or being preempted more is a symptom, not a function that regressed.
const PSEUDO: [&str; 9] = [
    "(idle)",
    "(program)",
    "(garbage collector)",
    "(root)",
    "runtime._GC",
    "runtime._System",
    "runtime._ExternalCode",
    "runtime._VDSO",
    "runtime.asyncPreempt",
];

/// The beginnings of the names of Linux's interrupt entry frames (`asm_sysvec_reschedule_ipi`,
/// `irqentry_exit_to_user_mode`): the machine's interrupts landing on the program, which perf
/// records in its stacks and which come and go with the machine's other work, not the program's.
const INTERRUPTS: [&str; 6] =
    ["asm_sysvec_", "asm_common_interrupt", "irqentry_", "sysvec_", "__sysvec_", "__irq_exit_rcu"];

/// Whether a frame of `name` is a producer's pseudo-frame ([`PSEUDO`]), py-spy's thread or process
/// frame (`thread (…): MainThread`), or a Linux interrupt's entry ([`INTERRUPTS`]).
pub(super) fn is_pseudo(name: &str) -> bool {
    PSEUDO.contains(&name)
        || name.starts_with("thread (")
        || name.starts_with("process ")
        || INTERRUPTS.iter().any(|start| name.starts_with(start))
}
