//! Frames and header facts fitted to a target: names it cannot hold, modules, namespaces, one root,
//! facts of other formats; what is dropped, named.

use crate::diag::Diagnostics;
use crate::error::Error;
use crate::formats::{Carries, Format};
use crate::model::{ops, Frame, FrameKind, FrameRef, NodeId, Profile};
use rustc_hash::FxHashSet;

pub(super) fn lines_merged(target: Format, diag: &mut Diagnostics) {
    diag.lacks("lines-merged", target.name(), "line numbers", || {
        format!(
            "{target} has no line numbers: line frames merged into their functions (--lines keeps them as name[line])"
        )
    });
}

/// Fits frames to what `target` can tell apart: names without the characters it cannot hold (one
/// warning per character), no module where it has none, every frame a function where it has no
/// frame kinds. Frames that become equal merge.
pub(super) fn fit_frames(profile: &mut Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    let bad = replaced_characters(profile, carries);
    for &(c, with) in &bad {
        diag.warn(sanitised_key(c), None, || format!("{target} frame names cannot hold {c:?}: written as {with:?}"));
    }
    let fits = |f: &Frame| kept(f, carries) == f.as_ref() && !bad.iter().any(|&(c, _)| f.name.contains(c));
    if profile.frames.iter().all(|(_, f)| fits(f)) {
        return;
    }
    if !carries.modules && profile.frames.iter().any(|(_, f)| f.module.is_some()) {
        diag.lacks("modules-dropped", target.name(), "modules", || {
            format!("{target} has no modules or libraries: they are dropped from frames")
        });
    }
    let fit = |frame: &Frame| {
        // A line of no named function is named by its place where its file cannot be kept.
        let name = match frame.is_anonymous_line() && !carries.modules {
            true => frame.to_string(),
            false => frame.name.clone(),
        };
        let name = name.chars().map(|ch| bad.iter().find(|&&(c, _)| c == ch).map_or(ch, |&(_, with)| with)).collect();
        Frame { name, ..kept(frame, carries).to_owned_frame() }
    };
    // Writers print only what the target holds, so frames that only lose a module or a kind need no
    // new table unless two of them become one (one of the frames that already fit, or each other),
    // or a line of no named function takes its place as its name.
    let renames = !carries.modules && profile.frames.iter().any(|(_, f)| f.is_anonymous_line() && f.module.is_some());
    if bad.is_empty() && !renames {
        // Names are kept: a fitted frame is what the frame keeps, borrowed from it.
        let mut fitted: FxHashSet<FrameRef<'_>> = FxHashSet::default();
        let collides = profile.frames.iter().filter(|(_, f)| !fits(f)).any(|(_, f)| {
            let new = kept(f, carries);
            profile.frames.contains(new) || !fitted.insert(new)
        });
        if !collides {
            return;
        }
    }
    ops::map_frames(profile, |frame| (!fits(frame)).then(|| fit(frame)));
}

/// What `frame` keeps of its module and kind in a target that `carries` so much; kinds below the
/// roots of a thread-rooted format are fitted per node, after the roots are.
fn kept<'f>(frame: &'f Frame, carries: &Carries) -> FrameRef<'f> {
    let kind = match carries.frame_kinds || carries.thread_roots || frame.kind == FrameKind::Line {
        true => frame.kind,
        false => FrameKind::Function,
    };
    FrameRef { module: frame.module.as_deref().filter(|_| carries.modules), kind, ..frame.as_ref() }
}

/// The replacements of `carries` whose character some frame name holds, found in one pass over
/// the names (most hold none of them).
fn replaced_characters(profile: &Profile, carries: &Carries) -> Vec<(char, char)> {
    let replaced: Vec<char> = carries.name_replacements.iter().map(|&(c, _)| c).collect();
    let mut found = vec![false; replaced.len()];
    for (_, frame) in profile.frames.iter().filter(|(_, f)| f.name.contains(replaced.as_slice())) {
        found.iter_mut().zip(&replaced).for_each(|(found, &c)| *found |= frame.name.contains(c));
    }
    carries
        .name_replacements
        .iter()
        .zip(found)
        .filter_map(|(&replacement, found)| found.then_some(replacement))
        .collect()
}

/// The warning key of replacing `c` in frame names: one per character, so that each replacement
/// is its own warning line.
pub(super) fn sanitised_key(c: char) -> &'static str {
    match c {
        '"' => "name-sanitised-quote",
        '\n' => "name-sanitised-newline",
        '\r' => "name-sanitised-cr",
        '\t' => "name-sanitised-tab",
        ';' => "name-sanitised-semicolon",
        _ => "name-sanitised",
    }
}

/// On the way to a format whose module is a namespace (GHC) from one whose modules are not: drops the
/// modules (library paths, files), with a warning, and splits names written `Module.label` (as
/// [`ops::qualify_names`] and inferno write cost centres in folded stacks) back into module and label, so
/// that `MAIN.MAIN` is GHC's root again. The profile's modules are namespaces from then on.
pub(super) fn into_namespaces(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    profile.meta.module_namespaces = true;
    if profile.frames.iter().any(|(_, f)| f.module.is_some()) {
        diag.lacks("modules-dropped", target.name(), "libraries and files", || {
            format!("{target} modules are code namespaces (GHC modules): the input's libraries or files are dropped")
        });
    }
    ops::map_frames(profile, |frame| {
        let split = target.split_qualified(&frame.name);
        match split {
            Some((module, label)) => {
                Some(Frame { name: label.to_string(), module: Some(module.to_string()), ..frame.clone() })
            }
            None => frame.module.is_some().then(|| Frame { module: None, ..frame.clone() }),
        }
    });
}

/// Puts the roots under one `root`, for formats with a single root (GHC's `MAIN`), with a warning:
/// all of them, unless there is one root and it is `root` already, or it is the root stack of a GHC
/// profile (`from_ghc`: MAIN's stack, even where GHC 7.2 left MAIN's cost centre undeclared).
pub(super) fn put_roots_under_one(
    profile: &mut Profile,
    root: FrameRef<'_>,
    from_ghc: bool,
    target: Format,
    diag: &mut Diagnostics,
) {
    let (first, second) = {
        let mut roots = profile.tree.roots();
        (roots.next(), roots.next())
    };
    match (first, second) {
        (None, _) => return,
        (Some(only), None) if from_ghc || profile.frames.get(profile.tree.frame(only)).as_ref() == root => return,
        _ => {}
    }
    let name = root.name;
    diag.warn("roots-adopted", None, || {
        format!("{target} has one root, {name}: the input's roots are put under a {name} added for them")
    });
    let frame = profile.frames.intern(root);
    *profile = ops::adopt_roots(profile, frame, |_| true);
}

/// Threads fitted to what `target` holds of them. Where threads are roots of their own (a Sampler
/// thread block, a speedscope profile), threads right below a pseudo-frame root (LispWorks'
/// processes below its `"Profile root"`) become roots ([`ops::threads_to_roots`]). Where there are no
/// threads (BR, Dyalog, GHC), thread and process frames are dropped, said once: their stacks are
/// kept, their own values go to their caller, and those of a thread that is a root, which no frame
/// is left to hold, go with it (how much is said). A profile of nothing but threads is refused.
pub(super) fn fit_threads(
    profile: &mut Profile,
    target: Format,
    carries: &Carries,
    diag: &mut Diagnostics,
) -> Result<(), Error> {
    if carries.thread_roots {
        if let Some(lifted) = ops::threads_to_roots(profile) {
            *profile = lifted;
        }
        return Ok(());
    }
    if carries.threads {
        return Ok(());
    }
    let tree = &profile.tree;
    let is_thread = |node: NodeId| profile.frames.get(tree.frame(node)).kind == FrameKind::Thread;
    let marked: Vec<bool> = tree.nodes().map(is_thread).collect();
    if !marked.contains(&true) {
        return Ok(());
    }
    if !marked.contains(&false) {
        let what = "it has no threads, and the profile holds nothing but threads: no frame is left to write".into();
        return Err(Error::Unrepresentable { format: target.into(), what });
    }
    let mut names: Vec<&str> =
        (profile.frames.iter()).filter(|(_, f)| f.kind == FrameKind::Thread).map(|(_, f)| f.name.as_str()).collect();
    names.sort_unstable();
    let shown = names.iter().take(3).map(|name| format!("{name:?}")).collect::<Vec<_>>().join(", ");
    let more = match names.len() {
        n if n > 3 => format!(" and {} more", n - 3),
        _ => String::new(),
    };
    let own = profile.primary_metric().map(|m| {
        let lost: f64 = tree.roots().filter(|&r| is_thread(r)).map(|r| tree.self_value(m, r).as_f64()).sum();
        (m, lost)
    });
    let lost = match own {
        Some((m, lost)) if lost != 0.0 => {
            let metric = &profile.metrics()[m];
            let amount = crate::model::significant(lost, 12);
            format!("; what threads at the roots hold of their own, with no frame below them, is dropped with them: {amount} {} of {}", metric.unit.name(), metric.name)
        }
        _ => String::new(),
    };
    diag.warn("threads-dropped", None, || {
        format!("{target} has no threads: the frames of threads and processes {shown}{more} are dropped, their stacks kept{lost}")
    });
    // Merged: stacks that were apart only by their thread are one, and the frames of the threads go.
    *profile = ops::merge_siblings(&crate::model::filter::hide(profile, &marked));
    Ok(())
}

/// Frame attrs belong to the format that wrote them (or to the formats that share one, such as
/// where a function is defined): any other target drops them, by name.
pub(super) fn drop_foreign_frame_attrs(profile: &mut Profile, target: Format, diag: &mut Diagnostics) {
    let mut dropped: Vec<String> = Vec::new();
    for attrs in profile.frame_attrs.values_mut() {
        attrs.retain(|(key, _)| {
            let keep = target.keeps_frame_attr(key);
            if !keep && !dropped.contains(key) {
                dropped.push(key.clone());
            }
            keep
        });
    }
    profile.frame_attrs.retain(|_, attrs| !attrs.is_empty());
    if !dropped.is_empty() {
        let keys = dropped.join(", ");
        diag.lacks("frame-attrs-dropped", target.name(), &keys, || {
            format!("{target} has no place for per-frame facts {keys}: dropped")
        });
    }
}

pub(super) fn report_dropped_header(profile: &Profile, target: Format, carries: &Carries, diag: &mut Diagnostics) {
    let meta = &profile.meta;
    if let (Some(title), false) = (&meta.title, carries.title) {
        diag.lacks("title-dropped", target.name(), "title", || format!("{target} has no title: {title:?} is dropped"));
    }
    if let (Some(ts), false) = (&meta.timestamp, carries.timestamp) {
        diag.lacks("timestamp-dropped", target.name(), "timestamp", || {
            format!("{target} has no timestamp: {ts:?} is dropped")
        });
    }
    if let (Some(iv), false) = (meta.interval, carries.interval) {
        diag.lacks("interval-dropped", target.name(), "interval", || {
            format!("{target} has no sampling interval: {iv:?} is dropped")
        });
    }
    let foreign_attrs = meta.attrs.iter().map(|(k, _)| -> &str { k }).filter(|k| !target.keeps_attr(k));
    // What a report says of itself, where the target has no place for it (the timer's cost, the kind).
    let report = meta.report.stated().into_iter().filter(|&fact| !target.keeps_report_fact(fact));
    // A key stated more than once (callgrind's `desc:` lines) is named once.
    let mut named = FxHashSet::default();
    let all = foreign_attrs.chain(report.map(|fact| -> &str { fact.label() }));
    let foreign: Vec<&str> = all.filter(|&key| named.insert(key)).collect();
    if !foreign.is_empty() {
        let keys = foreign.join(", ");
        diag.lacks("attrs-dropped", target.name(), &format!("header facts {keys}"), || {
            format!("{target} has no place for header facts {keys}: dropped")
        });
    }
}
