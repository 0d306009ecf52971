//! Warnings collected while reading, converting and writing.
//!
//! Readers and writers never print: they push [`Warning`]s into [`Diagnostics`], and the binary prints
//! them on stderr, one line each. A warning that repeats (the same `;` replaced in a thousand frame
//! names) is kept once with a count, so the person at the terminal reads one line per kind of loss.

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
            None => self.warnings.push(Warning { key, position, message: message(), repeats: 0 }),
        }
    }

    /// Takes the warnings of `other`, counting those whose kind is here already as repeats.
    pub fn absorb(&mut self, other: Diagnostics) {
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
