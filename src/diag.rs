//! Warnings collected while reading, converting and writing.
//!
//! Readers and writers never print: they push [`Warning`]s into [`Diagnostics`], and the binary prints
//! them on stderr, one line each. A warning that repeats (the same `;` replaced in a thousand frame
//! names) is kept once with a count, so the person at the terminal reads one line per kind of loss.
//! What a target merely has no place for (a header fact, modules, line numbers) is said in one line
//! per target ([`Diagnostics::lines`]), unless each is asked for (`-v`): the losses of numbers (a
//! metric dropped, time rounded away) keep a line each, so that they are not buried.

use crate::error::Position;
use std::fmt;

/// One warning, with the position of its first occurrence where it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Groups repeats of the same warning.
    pub key: &'static str,
    /// Where it first occurred in the input, if it is about the input.
    pub position: Option<Position>,
    /// What happened.
    pub message: String,
    /// How many more times it occurred after the first.
    pub repeats: u64,
    /// Set when all it says is that a target has no place for something: then it is named with the
    /// target's other such things in one line.
    pub lacking: Option<Lacking>,
}

/// Something a target has no place for, named briefly (`timestamp`, `modules`, `metric entries`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lacking {
    /// The target's name.
    pub target: &'static str,
    /// What it has no place for.
    pub what: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(position) = &self.position {
            write!(f, "{position}: ")?;
        }
        f.write_str(&self.message)?;
        match self.repeats {
            0 => Ok(()),
            1 => write!(f, " (and once more)"),
            n => write!(f, " (and {n} more times)"),
        }
    }
}

/// The warnings of one run, in the order they first occurred.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    warnings: Vec<Warning>,
}

impl Diagnostics {
    /// Records a warning; a second warning with the same `key` only counts as a repeat.
    pub fn warn(&mut self, key: &'static str, position: Option<Position>, message: impl FnOnce() -> String) {
        match self.warnings.iter_mut().find(|w| w.key == key) {
            Some(existing) => existing.repeats += 1,
            None => self.warnings.push(Warning { key, position, message: message(), repeats: 0, lacking: None }),
        }
    }

    /// Records that `target` has no place for `what`: said with the target's other such things in
    /// one line, or as `message` where each is asked for.
    pub fn lacks(&mut self, key: &'static str, target: &'static str, what: &str, message: impl FnOnce() -> String) {
        if !self.has(key) {
            let lacking = Some(Lacking { target, what: what.to_string() });
            self.warnings.push(Warning { key, position: None, message: message(), repeats: 0, lacking });
        }
    }

    /// The lines to print, in the order the warnings first occurred: one per warning, but the things
    /// each target has no place for together in one line (`svg has no place for: timestamp,
    /// interval`) unless `verbose`.
    pub fn lines(&self, verbose: bool) -> Vec<String> {
        // Per target, what it lacks; a line is its text or the index of its target's group.
        let mut groups: Vec<(&'static str, Vec<&str>)> = Vec::new();
        let mut lines: Vec<Result<String, usize>> = Vec::new();
        for warning in &self.warnings {
            let Some(lacking) = warning.lacking.as_ref().filter(|_| !verbose) else {
                lines.push(Ok(warning.to_string()));
                continue;
            };
            match groups.iter().position(|(target, _)| *target == lacking.target) {
                Some(group) => groups[group].1.push(&lacking.what),
                None => {
                    lines.push(Err(groups.len()));
                    groups.push((lacking.target, vec![&lacking.what]));
                }
            }
        }
        let group_line = |(target, what): &(&str, Vec<&str>)| {
            format!("{target} has no place for: {} (-v names each)", what.join(", "))
        };
        lines.into_iter().map(|line| line.unwrap_or_else(|group| group_line(&groups[group]))).collect()
    }

    /// Takes the warnings of `other`, counting those whose kind is here already as repeats.
    pub(crate) fn absorb(&mut self, other: Diagnostics) {
        for warning in other.warnings {
            match self.warnings.iter_mut().find(|w| w.key == warning.key) {
                Some(existing) => existing.repeats += warning.repeats + 1,
                None => self.warnings.push(warning),
            }
        }
    }

    /// Records a finished warning as it is (to re-label warnings from another collector).
    pub fn push(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }

    /// The warnings so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Removes and returns the warnings so far.
    pub fn take(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// Whether there is a warning with `key`.
    pub fn has(&self, key: &str) -> bool {
        self.warnings.iter().any(|w| w.key == key)
    }
}
