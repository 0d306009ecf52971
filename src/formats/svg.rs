//! Flame graphs as interactive SVG, drawn by inferno (the Rust port of Brendan Gregg's
//! `flamegraph.pl`): the picture most people want from a profile, opened in any browser (click to
//! zoom, Ctrl-F to search). Written only.
//!
//! ```text
//! <?xml version="1.0" standalone="no"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" …>
//! <svg version="1.1" width="1200" height="…" … xmlns="http://www.w3.org/2000/svg" …>
//!   … <g><title>CL-USER::FIB (75 samples, 68.18%)</title><rect x="…" … /><text …>CL-USER::FIB</text></g> …
//! ```
//!
//! **Writing**: the profile's stacks, as folded-stack lines ([`super::folded`]), go to
//! `inferno::flamegraph::from_lines`: each frame a box as wide as its inclusive count, callees
//! above callers, siblings in name order, colours from a hash of each name (the same profile always
//! gives the same file). The title is the profile's title, else "Flame Graph"; the count is named
//! after the metric the conversion chose (`--metric`).
//!
//! **Lost**: what folded stacks lose (every metric but one, modules, line numbers, per-function
//! counts, header facts but the title), and the order of siblings. inferno leaves out boxes
//! narrower than 0.1 pixel, whose counts stay in their callers' boxes.

use super::{folded, Carries, Format, Sniff};
use crate::error::Error;
use crate::model::Profile;
use std::borrow::Cow;
use std::io::Write;

/// What a flame graph shows: folded stacks and a title.
pub(crate) const CARRIES: Carries = Carries { title: true, ..folded::CARRIES };

/// An SVG is never read.
pub(crate) fn sniff(_head: &[u8]) -> Sniff {
    Sniff::No
}

/// Writes `profile` (projected onto [`CARRIES`]) as a flame graph.
pub(crate) fn write(profile: &Profile, out: &mut dyn Write) -> Result<(), Error> {
    let Some(metric) = profile.metrics().first().filter(|_| profile.total(0).as_f64() != 0.0) else {
        // inferno draws nothing and fails: say why instead.
        return Err(Error::Unrepresentable {
            format: Format::Svg.into(),
            what: "a flame graph is drawn from counts, and this profile's are all 0".into(),
        });
    };
    let mut stacks = Vec::new();
    folded::write(profile, &mut stacks)?;
    // Frame names are UTF-8 in the model, and so are the folded lines made of them.
    let stacks = String::from_utf8(stacks).map_err(|_| Error::Unrepresentable {
        format: Format::Svg.into(),
        what: "a frame name that is not UTF-8".into(),
    })?;
    let mut options = inferno::flamegraph::Options::default();
    options.title = profile.meta.title.clone().unwrap_or_else(|| "Flame Graph".into());
    options.count_name = metric.name.clone();
    options.hash = true;
    let lines: Vec<Cow<'_, str>> = stacks.lines().map(single_count).collect();
    inferno::flamegraph::from_lines(&mut options, lines.iter().map(|line| line.as_ref()), out)?;
    Ok(())
}

/// The folded line `line`, made safe from inferno's reading of `stack 12 34` as a differential line
/// (two counts): in a frame name that ends in a space and a number (`Listener 1`), that space
/// becomes a no-break space, which looks the same in the picture. Every frame of the stack is
/// changed alike, so that a frame is one box whether it ends a stack or not.
fn single_count(line: &str) -> Cow<'_, str> {
    let Some((stack, count)) = line.rsplit_once(' ') else { return line.into() };
    let ends_in_number = |frame: &str| frame.rsplit_once(' ').is_some_and(|(_, tail)| looks_like_a_count(tail));
    if !stack.split(';').any(ends_in_number) {
        return line.into();
    }
    let frames: Vec<Cow<'_, str>> = stack
        .split(';')
        .map(|frame| match frame.rsplit_once(' ') {
            Some((head, tail)) if looks_like_a_count(tail) => format!("{head}\u{a0}{tail}").into(),
            _ => frame.into(),
        })
        .collect();
    format!("{} {count}", frames.join(";")).into()
}

/// What inferno takes for a count: digits, with a fraction or not.
fn looks_like_a_count(text: &str) -> bool {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    !text.is_empty() && whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leaf_that_ends_in_a_number_is_not_a_second_count() {
        assert_eq!(single_count("root;Listener 1 5"), "root;Listener\u{a0}1 5");
        assert_eq!(single_count("root;x 2.5 7"), "root;x\u{a0}2.5 7");
        assert_eq!(single_count("root;Listener 1a 5"), "root;Listener 1a 5");
        assert_eq!(single_count("root 1;leaf 5"), "root\u{a0}1;leaf 5");
        assert_eq!(single_count("leaf 5"), "leaf 5");
    }
}
