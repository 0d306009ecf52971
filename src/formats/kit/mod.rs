//! What readers build with, below the format modules and naming none of them: a reader keeps its
//! grammar and hands the rest to the kit.
//!
//! - [`sink`]: stacks into a profile, root first or leaf first, with what is left out counted and
//!   said once per reason, and the errors of an input cut short or of nothing found;
//! - [`lines`]: a text format of stacks as a grammar of lines ([`lines::StackLines`]), read by one
//!   driver, and stacks written as indented lines ([`lines::Indented`]);
//! - [`source_frame`]: the frame of a function named where its source is (JavaScript's
//!   profilers), with one rule for anonymous functions;
//! - [`v8_profile`]: V8's CPU profile document, which a `.cpuprofile` is and a Chrome trace holds;
//! - [`count_names`], [`time`]: what writers share (a count's name, dates).

pub(crate) mod count_names;
pub(crate) mod lines;
pub(crate) mod sink;
pub(crate) mod source_frame;
pub(crate) mod time;
pub(crate) mod v8_profile;
