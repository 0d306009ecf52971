//! Writing a Chrome trace: each thread's samples as a CPU profile, or its slices at their times,
//! or its call tree as a flame chart of slices.

use super::{DISPLAY_TIME_UNIT, FORMAT};
use crate::error::Error;
use crate::formats::json::push_string;
use crate::formats::kit::v8_profile_writer::{
    add_weights, micros, push_call_frame, push_list, span_of_samples, weigh_time, Layout,
};
use crate::formats::spec::Writing;
use crate::model::{slice_edges, Edge, MetricKind, NodeId, Profile, Slice, TimedSample};

/// Writes `profile` (projected onto [`CARRIES`](super::CARRIES) and fitted by [`fit`](super::fit):
/// time in µs, roots that are threads without time of their own) as a Chrome trace.
pub(crate) fn write(profile: &Profile, Writing { out, options, .. }: Writing<'_>) -> Result<(), Error> {
    let tree = &profile.tree;
    let inclusive = inclusive_nanoseconds(profile)?;
    let children = tree.children();
    let mut slices = slices_by_root(profile);
    let mut cpu_profiles = cpu_profiles(profile);
    let mut json = String::with_capacity(1 << 16);
    json.push_str("{\"traceEvents\":[\n{\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":0,\"args\":{\"name\":\"proftool\"}}");
    for (i, &root) in children.roots().iter().enumerate() {
        let tid = itoa::Buffer::new().format(i + 1).to_string();
        json.push_str(",\n{\"name\":\"thread_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":");
        json.push_str(&tid);
        json.push_str(",\"args\":{\"name\":");
        push_string(&mut json, &crate::formats::shared::written_name(profile.frames.get(tree.frame(root))));
        json.push_str("}}");
        if let Some((samples, span)) = cpu_profiles.as_mut().and_then(|p| p[i].take()) {
            let layout = Layout::of_samples(&samples, span, tree.len(), options.max_samples, FORMAT)?;
            push_cpu_profile(&mut json, profile, root, &layout, i + 1);
            continue;
        }
        // Each node's begin with where its slice starts: where the timeline has it, else callees
        // one after another from their caller's start; and after its callees its end.
        let mut stack: Vec<Step> = Vec::new();
        match slices.as_mut().map(|s| std::mem::take(&mut s[i])).filter(|s| !s.is_empty()) {
            Some(slices) => stack = steps_of_slices(&slices),
            None => push_callees(&mut stack, children.of_node(root), 0, &inclusive),
        }
        while let Some(step) = stack.pop() {
            match step {
                Step::Begin(node, start) => {
                    push_event(&mut json, profile, node, Phase::Begin, start, &tid);
                    stack.push(Step::End(node, start + inclusive[node.index()]));
                    push_callees(&mut stack, children.of_node(node), start, &inclusive);
                }
                Step::End(node, end) => push_event(&mut json, profile, node, Phase::End, end, &tid),
                Step::Slice(node, at, Phase::Begin) => push_event(&mut json, profile, node, Phase::Begin, at, &tid),
                Step::Slice(node, at, Phase::End) => push_event(&mut json, profile, node, Phase::End, at, &tid),
            }
            if json.len() >= 1 << 16 {
                out.write_all(json.as_bytes())?;
                json.clear();
            }
        }
    }
    json.push_str("\n],\"displayTimeUnit\":");
    push_string(&mut json, profile.meta.attr(DISPLAY_TIME_UNIT).unwrap_or("ms"));
    json.push_str("}\n");
    out.write_all(json.as_bytes())?;
    Ok(())
}

/// Each thread's samples (by its root's place among the roots) and the span (µs) they weigh its
/// time over as a CPU profile's samples weigh it, where the timeline's samples weigh the time of
/// every thread that has time (a trace that carries CPU profiles is read for them alone), it has
/// no slices and no frame is a source line (a call frame is a function: two lines of one would be
/// one) and none below a thread is named `(root)` (which would be read as V8's root, no frame);
/// `None` for a thread without samples.
pub(super) fn cpu_profiles(profile: &Profile) -> Option<Vec<Option<ThreadSamples>>> {
    let (tree, timeline) = (&profile.tree, profile.timeline.as_ref()?);
    let time = profile.metric_of_kind(MetricKind::Time)?;
    let children = tree.children();
    let roots = children.roots();
    let lines = || tree.nodes().any(|n| profile.frames.get(tree.frame(n)).line.is_some());
    let named_root = |&root: &NodeId| children.of_node(root).iter().any(|&n| profile.frames.get(tree.frame(n)).name == "(root)");
    if timeline.samples().is_empty() || !timeline.slices().is_empty() || lines() || roots.iter().any(named_root) {
        return None;
    }
    let root_of = tree.root_places();
    let mut by_root: Vec<Vec<TimedSample>> = vec![Vec::new(); roots.len()];
    // Each sample once: the trace holds its time, not its count (a speedscope timeline weighs a
    // sample by its ns).
    let once = |s: &TimedSample| TimedSample { weight: 1, ..*s };
    timeline.samples().iter().for_each(|s| by_root[root_of[s.node.index()]].push(once(s)));
    // What the samples weigh, thread by thread over each one's span: every node's time, where
    // they are CPU profiles (a thread without samples has none).
    let mut weighs = vec![0i64; tree.len()];
    let mut profiles = Vec::with_capacity(roots.len());
    for samples in by_root {
        if samples.is_empty() {
            profiles.push(None);
            continue;
        }
        let span = span_of_samples(tree, time, &samples, micros(timeline.start));
        add_weights(&samples, span, &mut weighs);
        profiles.push(Some((samples, span)));
    }
    weigh_time(tree, time, &weighs).then_some(())?;
    Some(profiles)
}

/// The `Profile` and `ProfileChunk` events of the CPU profile of the thread `root` (tid `tid`), its
/// samples laid out in `layout`: the thread's nodes in pre-order, ids from 2 (1 is V8's `(root)`,
/// which the thread's root is), each with its parent's id; the chunk at the profile's end.
fn push_cpu_profile(json: &mut String, profile: &Profile, root: NodeId, layout: &Layout, tid: usize) {
    let (tree, children) = (&profile.tree, profile.tree.children());
    let id = format!("0x{tid:x}");
    let head = |json: &mut String, name: &str, ts: i64| {
        json.push_str(",\n{\"name\":\"");
        json.push_str(name);
        json.push_str("\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"ph\":\"P\",\"id\":\"");
        json.push_str(&id);
        json.push_str("\",\"ts\":");
        json.push_str(itoa::Buffer::new().format(ts));
        json.push_str(",\"pid\":1,\"tid\":");
        json.push_str(itoa::Buffer::new().format(tid));
        json.push_str(",\"args\":{\"data\":{");
    };
    head(json, "Profile", layout.start);
    json.push_str("\"startTime\":");
    json.push_str(itoa::Buffer::new().format(layout.start));
    json.push_str("}}}");
    head(json, "ProfileChunk", layout.end);
    json.push_str("\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}}");
    let mut ids = vec![0u64; tree.len()];
    ids[root.index()] = 1;
    let mut urls: Vec<&str> = Vec::new();
    let mut stack: Vec<NodeId> = children.of_node(root).iter().rev().copied().collect();
    let mut next = 2;
    while let Some(node) = stack.pop() {
        ids[node.index()] = next;
        next += 1;
        json.push_str(",{\"id\":");
        json.push_str(itoa::Buffer::new().format(ids[node.index()]));
        push_call_frame(json, profile, node, &mut urls);
        json.push_str(",\"parent\":");
        json.push_str(itoa::Buffer::new().format(tree.parent(node).map_or(1, |p| ids[p.index()])));
        json.push('}');
        stack.extend(children.of_node(node).iter().rev());
    }
    json.push_str("],\"samples\":[");
    push_list(json, layout.samples.iter().map(|s| s.map_or(1, |n| ids[n.index()])));
    json.push_str("]},\"timeDeltas\":[");
    push_list(json, layout.deltas.iter().copied());
    json.push_str("],\"endTime\":");
    json.push_str(itoa::Buffer::new().format(layout.end));
    json.push_str("}}}");
}

/// A thread's samples, each once, and the span (µs) they weigh its time over.
type ThreadSamples = (Vec<TimedSample>, (i64, i64));

/// A slice to begin at its start and lay its callees out in it, or to end at its end (ns); or a
/// begin or end of a slice of the timeline, whose callees have theirs.
#[derive(Clone, Copy)]
enum Step {
    Begin(NodeId, i128),
    End(NodeId, i128),
    Slice(NodeId, i128, Phase),
}

/// The slices of the profile's timeline by the root (thread) they are under, in the order they
/// begin; `None` where it has none.
fn slices_by_root(profile: &Profile) -> Option<Vec<Vec<Slice>>> {
    let (tree, timeline) = (&profile.tree, profile.timeline.as_ref()?);
    if timeline.slices().is_empty() {
        return None;
    }
    // Each node's root's place among the roots, the order threads are written in.
    let root_of = tree.root_places();
    let mut by_root: Vec<Vec<Slice>> = vec![Vec::new(); tree.roots().count()];
    timeline.slices().iter().for_each(|s| by_root[root_of[s.node.index()]].push(*s));
    Some(by_root)
}

/// The begins and ends of `slices` ([`slice_edges`]), reversed to be popped.
fn steps_of_slices(slices: &[Slice]) -> Vec<Step> {
    let steps = slice_edges(slices).into_iter().rev().map(|edge| match edge {
        Edge::Begin(s) => Step::Slice(s.node, i128::from(s.start), Phase::Begin),
        Edge::End(s) => Step::Slice(s.node, i128::from(s.end), Phase::End),
    });
    steps.collect()
}

/// The inclusive time of every node in whole nanoseconds (the fit rounded the time to them), added
/// up as integers so that a callee that ends with its caller ends at the caller's very timestamp.
fn inclusive_nanoseconds(profile: &Profile) -> Result<Vec<i128>, Error> {
    let tree = &profile.tree;
    let Some(time) = profile.metric_of_kind(MetricKind::Time) else {
        return Ok(vec![0; tree.len()]);
    };
    let mut inclusive = Vec::with_capacity(tree.len());
    for micros in tree.self_values(time).to_f64() {
        let nanos = (micros * 1e3).round();
        if !nanos.is_finite() || nanos.abs() >= 2f64.powi(100) {
            return Err(Error::Unrepresentable {
                format: FORMAT,
                what: format!("the time {micros} us: slices are finite"),
            });
        }
        inclusive.push(nanos as i128);
    }
    for node in tree.nodes().rev() {
        if let Some(parent) = tree.parent(node) {
            inclusive[parent.index()] += inclusive[node.index()];
        }
    }
    Ok(inclusive)
}

/// Pushes the begins of `callees` with their starts, one after another from `start`, the first on
/// top; callees without time have no slice (speedscope, which ends the slices of a time before it
/// begins others, would end a caller before a slice of no length at its end).
fn push_callees(stack: &mut Vec<Step>, callees: &[NodeId], start: i128, inclusive: &[i128]) {
    let from = stack.len();
    let mut at = start;
    for &callee in callees.iter().filter(|c| inclusive[c.index()] > 0) {
        stack.push(Step::Begin(callee, at));
        at += inclusive[callee.index()];
    }
    stack[from..].reverse();
}

/// The begin or the end of a slice.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Begin,
    End,
}

/// One `B` or `E` event of `node`'s slice at `nanos`, with the frame's name. A begin has `args`
/// where the frame has a module or is a source line (`filename`, `line`: speedscope shows them
/// in the frame's name, Perfetto beside it); an end has empty ones, so that no end is taken for a
/// slice of no length: of a begin and an end at one time speedscope takes the begin first only
/// if both have the same name and args, and would otherwise begin a slice that follows one of its
/// name (a cousin) inside the slice that ends (the end then closes the innermost open slice of its
/// name, as speedscope and proftool close it; Perfetto closes the innermost).
fn push_event(json: &mut String, profile: &Profile, node: NodeId, phase: Phase, nanos: i128, tid: &str) {
    let frame = profile.frames.get(profile.tree.frame(node));
    json.push_str(",\n{\"name\":");
    push_string(json, &crate::formats::shared::written_name(frame));
    json.push_str(if phase == Phase::Begin { ",\"ph\":\"B\",\"ts\":" } else { ",\"ph\":\"E\",\"ts\":" });
    push_micros(json, nanos);
    json.push_str(",\"pid\":1,\"tid\":");
    json.push_str(tid);
    if phase == Phase::End {
        json.push_str(",\"args\":{}");
    } else if frame.module.is_some() || frame.line.is_some() {
        json.push_str(",\"args\":{");
        if let Some(module) = &frame.module {
            json.push_str("\"filename\":");
            push_string(json, module);
        }
        if let Some(line) = frame.line {
            json.push_str(if frame.module.is_some() { ",\"line\":" } else { "\"line\":" });
            json.push_str(itoa::Buffer::new().format(line));
        }
        json.push('}');
    }
    json.push('}');
}

/// Whole nanoseconds as µs, in decimal: digits, and after a point the nanoseconds where there are
/// any (`1.5`, `12.034`), so that two equal times are written, and read back, as one number.
fn push_micros(json: &mut String, nanos: i128) {
    json.push_str(itoa::Buffer::new().format(nanos / 1000));
    let fraction = (nanos % 1000).unsigned_abs();
    if fraction != 0 {
        let digits = format!(".{fraction:03}");
        json.push_str(digits.trim_end_matches('0'));
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::*;
    use crate::diag::Diagnostics;
    use crate::formats::{ConvertOptions, ReadOptions};

    /// A stack 100,000 slices deep, as B events then E events out of order in the file: read
    /// without recursion, each slice 2 µs of its own (1 before its callee, 1 after); written as nested X
    /// slices, read again and written to the same bytes.
    #[test]
    fn deep_stacks_read_and_write_without_recursion() {
        let depth = 100_000;
        let mut json = String::from("[");
        for i in 0..depth {
            json.push_str(&format!("{{\"name\":\"f{}\",\"ph\":\"B\",\"ts\":{i},\"pid\":1,\"tid\":1}},", i % 7));
        }
        // The ends, the innermost first, in reverse file order: time order puts them right.
        let ends: Vec<String> =
            (0..depth).map(|i| format!("{{\"ph\":\"E\",\"ts\":{},\"pid\":1,\"tid\":1}}", 2 * depth - i)).collect();
        json.push_str(&ends.into_iter().rev().collect::<Vec<_>>().join(","));
        json.push(']');
        let profile = read(&mut json.as_bytes(), &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        assert_eq!(profile.max_depth(), Some(depth as u32));
        assert_eq!(profile.total(0).as_f64(), 2.0 * depth as f64);
        let mut out = Vec::new();
        write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let again = read(&mut &out[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        assert_eq!((again.max_depth(), again.total(0)), (profile.max_depth(), profile.total(0)));
        let mut twice = Vec::new();
        write(&again, Writing::new(&mut twice, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        assert!(twice == out);
    }

    /// The slices of a timeline are written at their times, nested as they were: a's callee b
    /// ends when c begins (b's end first), a ends last.
    #[test]
    fn slices_of_the_timeline_keep_their_times() {
        let json = br#"[{"name":"a","ph":"X","ts":100,"dur":10.25,"tid":3},{"name":"b","ph":"X","ts":101,"dur":3,"tid":3},
            {"name":"c","ph":"X","ts":104,"dur":3,"tid":3}]"#;
        let profile = read(&mut &json[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let mut out = Vec::new();
        write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let text = String::from_utf8(out).unwrap();
        let events: Vec<(&str, &str)> = (text.lines())
            .filter_map(|l| Some((l.split('"').nth(3)?, l.split("\"ts\":").nth(1)?.split(',').next()?)))
            .filter(|(name, _)| ["a", "b", "c"].contains(name))
            .collect();
        let phases: Vec<&str> = text.lines().filter_map(|l| l.split("\"ph\":\"").nth(1)).map(|p| &p[..1]).collect();
        assert_eq!(events, [("a", "100"), ("b", "101"), ("b", "104"), ("c", "104"), ("c", "107"), ("a", "110.25")]);
        assert_eq!(phases, ["M", "M", "B", "B", "E", "B", "E", "E"]);
    }

    /// The writer's flame chart (a profile without a timeline): callees one after another from their caller's start, its own time
    /// after them (a: 10.25 − 2.5 − 3 = 4.75 µs of its own), fractions of µs as they are; each slice
    /// a begin and an end with its name, a source line with its file and line in its begin's args.
    #[test]
    fn slices_are_laid_out_as_a_flame_chart() {
        let json =
            br#"[{"name":"a","ph":"X","ts":100,"dur":10.25,"tid":3},{"name":"b","ph":"X","ts":101,"dur":2.5,"tid":3,
            "args":{"filename":"f.py","line":9}},{"name":"c","ph":"X","ts":104,"dur":3,"tid":3}]"#;
        let mut profile = read(&mut &json[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        profile.timeline = None;
        let mut out = Vec::new();
        write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let text = String::from_utf8(out).unwrap();
        let slices: Vec<&str> =
            text.lines().filter(|l| l.contains(r#""ph":"B""#) || l.contains(r#""ph":"E""#)).collect();
        let args = r#""args":{"filename":"f.py","line":9}"#;
        assert_eq!(
            slices,
            [
                r#"{"name":"a","ph":"B","ts":0,"pid":1,"tid":1},"#.to_string(),
                format!(r#"{{"name":"b","ph":"B","ts":0,"pid":1,"tid":1,{args}}},"#),
                r#"{"name":"b","ph":"E","ts":2.5,"pid":1,"tid":1,"args":{}},"#.to_string(),
                r#"{"name":"c","ph":"B","ts":2.5,"pid":1,"tid":1},"#.to_string(),
                r#"{"name":"c","ph":"E","ts":5.5,"pid":1,"tid":1,"args":{}},"#.to_string(),
                r#"{"name":"a","ph":"E","ts":10.25,"pid":1,"tid":1,"args":{}}"#.to_string(),
            ]
        );
        assert!(text.contains(
            r#""name":"thread_name","cat":"__metadata","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"tid 3"}}"#
        ));
        assert!(text.ends_with("],\"displayTimeUnit\":\"ms\"}\n"), "{text}");
    }

    /// Times are added up in whole nanoseconds, not in floating point: callees of 0.1 and 0.2 µs
    /// end at 0.3 µs, the very number their caller ends at (in floating point 0.1 + 0.2 is
    /// 0.30000000000000004, and a viewer would close the caller first).
    #[test]
    fn a_callee_that_ends_with_its_caller_ends_at_its_timestamp() {
        let stacks =
            b"[{\"name\":\"p\",\"ph\":\"X\",\"ts\":0,\"dur\":0.3},{\"name\":\"x\",\"ph\":\"X\",\"ts\":0,\"dur\":0.1},
            {\"name\":\"y\",\"ph\":\"X\",\"ts\":0.1,\"dur\":0.2}]";
        let profile = read(&mut &stacks[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let mut out = Vec::new();
        write(&profile, Writing::new(&mut out, &ConvertOptions::default(), &mut Diagnostics::default())).unwrap();
        let text = String::from_utf8(out).unwrap();
        let ends: Vec<&str> = text.lines().filter(|l| l.contains(r#""ph":"E""#)).collect();
        assert_eq!(
            ends,
            [
                r#"{"name":"x","ph":"E","ts":0.1,"pid":1,"tid":1,"args":{}},"#,
                r#"{"name":"y","ph":"E","ts":0.3,"pid":1,"tid":1,"args":{}},"#,
                r#"{"name":"p","ph":"E","ts":0.3,"pid":1,"tid":1,"args":{}}"#,
            ]
        );
    }
}
