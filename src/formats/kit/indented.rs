//! Stacks written as a tree of indented lines, a frame a line, as several profilers print a call
//! tree or an inverted one: each line at most one level deeper than the line before it, and a line
//! with no line one level deeper right after it ends a stack, the frames of the lines it is below
//! and its own, which weighs that line's weight. A reader finds each line's depth, weight and frame
//! ([`TreeLine`], [`Level`]); [`Indented`] refuses a line that skips a level and gives the stacks to
//! a [`StackSink`].

use super::sink::{Order, Reason, StackSink};
use crate::error::{ParseError, ParseErrorKind};
use crate::model::FrameId;
use crate::text::Line;

/// How a format's indented lines are stacks (of the samples of the event being read:
/// [`StackSink::event_metric`]).
#[derive(Clone, Copy)]
pub(crate) struct Tree {
    /// The order of a stack's frames, its outermost line's first: root first for a call tree,
    /// leaf first for an inverted one (the function sampled at the left, its callers below it).
    pub(crate) order: Order,
    /// The number the format gives its outermost level, which the error of a line that skips a level
    /// counts from: 0, or 1 where the format's documentation numbers its levels from 1.
    pub(crate) first_level: i64,
}

/// A line of the tree as its reader found it: its depth and its weight.
pub(crate) struct TreeLine<'l, 'a> {
    /// The line, for its errors.
    pub(crate) line: &'l Line<'a>,
    /// Its depth, 0 the outermost.
    pub(crate) depth: usize,
    /// The byte of the line its depth shows at (where its indentation ends): where the error of a line
    /// that skips a level is.
    pub(crate) at: usize,
    /// Its weight, or the error of the text that should have been one. A line that also skips a level
    /// is refused for that, as it is read first.
    pub(crate) weight: Result<i64, ParseError>,
}

/// A line's level: its frame, and why the stacks it ends are left out where its reader leaves them
/// out (a thread's idle wait).
#[derive(Clone, Copy)]
pub(crate) struct Level {
    /// The line's frame.
    pub(crate) frame: FrameId,
    /// Why a stack this line ends is left out, if it is.
    pub(crate) left_out: Option<&'static Reason>,
}

impl From<FrameId> for Level {
    /// The level of a line of `frame` whose stacks are all kept.
    fn from(frame: FrameId) -> Level {
        Level { frame, left_out: None }
    }
}

/// A tree of indented lines being read (see the module documentation).
#[derive(Default)]
pub(crate) struct Indented {
    /// The levels of the last line, outermost first.
    levels: Vec<Level>,
    /// The last line's weight.
    weight: i64,
}

impl Indented {
    /// Reads a line of a tree written as `tree` says: the error of a line more than one level deeper
    /// than the line before it, else the error of its weight; else the line before it ends its stack,
    /// given to `sink`, unless this one is below it, and this line's level is what `level` makes of
    /// the levels it is below, outermost first.
    pub(crate) fn line(
        &mut self,
        tree: Tree,
        line: TreeLine<'_, '_>,
        sink: &mut StackSink,
        level: impl FnOnce(&[Level], &mut StackSink) -> Level,
    ) -> Result<(), ParseError> {
        if line.depth > self.levels.len() {
            let previous = self.levels.len() as i64 - 1 + tree.first_level;
            let kind = ParseErrorKind::DepthJump { previous, found: line.depth as i64 + tree.first_level };
            return Err(line.line.error_at(line.at, kind));
        }
        let weight = line.weight?;
        if line.depth < self.levels.len() {
            self.end_stack(tree, sink);
        }
        self.levels.truncate(line.depth);
        let level = level(&self.levels, sink);
        self.levels.push(level);
        self.weight = weight;
        Ok(())
    }

    /// Ends the tree: its last line ends a stack, if there is one.
    pub(crate) fn end(&mut self, tree: Tree, sink: &mut StackSink) {
        if !self.levels.is_empty() {
            self.end_stack(tree, sink);
        }
        self.levels.clear();
    }

    /// Gives `sink` the stack the last line ends, or leaves it out where that line's level says why.
    fn end_stack(&self, tree: Tree, sink: &mut StackSink) {
        match self.levels.last().and_then(|level| level.left_out) {
            Some(reason) => sink.leave_out(reason, None, self.weight),
            None => sink.add(tree.order, self.levels.iter().map(|level| level.frame), sink.event_metric(), self.weight),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::error::{FormatName, Position};
    use crate::model::{FrameRef, Metric, Profile, Value};

    static IDLE: Reason = Reason::new("idle", |stacks, weight| format!("{stacks} idle stacks: {weight}"));

    /// Reads `lines` (depth, name, weight) as a tree written as `tree` says; a frame named `idle`
    /// ends stacks that are left out. The stacks, `a;b 2`, in the order the sink was given their
    /// frames, with the warnings; or the error's text.
    fn read(tree: Tree, lines: &[(usize, &str, Result<i64, &str>)]) -> Result<(Vec<String>, String), String> {
        let mut sink = StackSink::new(FormatName("test"), vec![Metric::samples()]);
        let mut indented = Indented::default();
        for (at, &(depth, name, weight)) in lines.iter().enumerate() {
            let line = Line::joined("    x", Position::line(at as u64 + 1, 0), FormatName("test"));
            let weight = weight
                .map_err(|text| line.error(ParseErrorKind::InvalidNumber { field: "a weight", text: text.into() }));
            let tree_line = TreeLine { line: &line, depth, at: 4, weight };
            indented
                .line(tree, tree_line, &mut sink, |above, sink| {
                    assert_eq!(above.len(), depth);
                    let frame = sink.frame(FrameRef::function(name));
                    Level { frame, left_out: (name == "idle").then_some(&IDLE) }
                })
                .map_err(|error| error.to_string())?;
        }
        indented.end(tree, &mut sink);
        let mut diag = Diagnostics::default();
        let profile = sink.finish(None, &mut diag).map_err(|error| error.to_string())?;
        Ok((folded(&profile), diag.lines(false).join("\n")))
    }

    /// Each stack of `profile` that weighs something, root first, `a;b 2`.
    fn folded(profile: &Profile) -> Vec<String> {
        let name = |node| profile.frames.get(profile.tree.frame(node)).name.clone();
        let weighed = profile.tree.nodes().filter(|&node| profile.tree.self_value(0, node) != Value::Int(0));
        let stack = |node| profile.tree.ancestors(node).into_iter().chain([node]).map(name).collect::<Vec<_>>();
        weighed.map(|node| format!("{} {}", stack(node).join(";"), profile.tree.self_value(0, node))).collect()
    }

    const CALL_TREE: Tree = Tree { order: Order::RootFirst, first_level: 0 };

    /// a, a b (ends a;b 2), a c (ends a;c 3), d (ends d 4): a line with none below it ends a stack.
    #[test]
    fn each_line_with_none_below_it_ends_a_stack() {
        let lines = [(0, "a", Ok(1)), (1, "b", Ok(2)), (1, "c", Ok(3)), (0, "d", Ok(4))];
        let (stacks, warnings) = read(CALL_TREE, &lines).unwrap();
        assert_eq!(stacks, ["a;b 2", "a;c 3", "d 4"]);
        assert_eq!(warnings, "");
    }

    /// An inverted tree (the sampled function at the left, its callers below it) gives its stacks
    /// leaf first: f called by g called by main is main;g;f.
    #[test]
    fn an_inverted_tree_gives_its_stacks_leaf_first() {
        let inverted = Tree { order: Order::LeafFirst, ..CALL_TREE };
        let lines = [(0, "f", Ok(5)), (1, "g", Ok(5)), (2, "main", Ok(5))];
        assert_eq!(read(inverted, &lines).unwrap().0, ["main;g;f 5"]);
    }

    /// The stack a line of a left-out level ends is counted in the reason's warning, not added; a
    /// line below it ends a stack that is kept.
    #[test]
    fn the_stacks_a_left_out_line_ends_are_left_out() {
        let lines = [(0, "a", Ok(9)), (1, "idle", Ok(4)), (1, "b", Ok(5)), (2, "idle", Ok(1)), (0, "idle", Ok(6))];
        let (stacks, warnings) = read(CALL_TREE, &lines).unwrap();
        assert_eq!(stacks, Vec::<String>::new());
        assert!(warnings.contains("3 idle stacks: 11"), "{warnings}");
        let lines = [(0, "idle", Ok(2)), (1, "b", Ok(2))];
        assert_eq!(read(CALL_TREE, &lines).unwrap().0, ["idle;b 2"]);
    }

    /// A line two levels deeper than the last is refused at its indentation's end, its depths
    /// counted as the format counts them; a skipped level is said before a bad weight.
    #[test]
    fn a_line_that_skips_a_level_is_refused() {
        let error = read(CALL_TREE, &[(0, "a", Ok(1)), (2, "b", Ok(1))]).unwrap_err();
        assert!(error.contains("line 2, column 5") && error.contains("depth jumps from 0 to 2"), "{error}");
        let from_one = Tree { first_level: 1, ..CALL_TREE };
        let error = read(from_one, &[(1, "a", Err("x"))]).unwrap_err();
        assert!(error.contains("depth jumps from 0 to 2"), "{error}");
        let error = read(from_one, &[(0, "a", Ok(1)), (1, "b", Err("x"))]).unwrap_err();
        assert!(error.contains("a weight") && error.contains("line 2"), "{error}");
    }
}
