//! Names that survive runs: what differs between two runs of one program taken out of names.

use crate::model::Profile;
use regex::Regex;

/// The parts of a name that differ between two runs or builds of one program, and what each becomes
/// ([`names_across_runs`]): an address (`0x7f3a…`, a JIT's code or a hidden class), a Rust symbol's
/// build hash (`::h0123456789abcdef`), the number GCC gives a function's clone (`.constprop.3`,
/// `.isra.0`, `.part.1`, `.cold.2`, `.lto_priv.0`), a Java lambda's class number (`$$Lambda$123`),
/// and the pid in a JIT's perf map or dump (`perf-4242.map`, `jitted-4242-17.so`).
const RUN_SPECIFIC: [(&str, &str); 6] = [
    (r"0x[0-9a-fA-F]{4,}", "0x…"),
    (r"::h[0-9a-f]{16}$", ""),
    (r"\.(isra|constprop|part|cold|lto_priv|llvm)\.[0-9]+", ".$1"),
    (r"\$\$Lambda\$[0-9]+", "$$$$Lambda"),
    (r"perf-[0-9]+\.map", "perf-PID.map"),
    (r"jitted-[0-9]+-[0-9]+\.so", "jitted-PID.so"),
];

/// Renames the frames of `profile` so that one function of two runs or builds has one name: the
/// parts of [`RUN_SPECIFIC`] replaced in each name and module. Returns how many frames it renamed.
pub fn names_across_runs(profile: &mut Profile) -> usize {
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
    let mut renamed = 0;
    crate::model::ops::map_frames(profile, |frame| {
        let (name, module) = (rewrite(&frame.name), frame.module.as_deref().and_then(rewrite));
        if name.is_none() && module.is_none() {
            return None;
        }
        renamed += 1;
        Some(crate::model::Frame {
            name: name.unwrap_or_else(|| frame.name.clone()),
            module: module.or_else(|| frame.module.clone()),
            ..frame.clone()
        })
    });
    renamed
}
