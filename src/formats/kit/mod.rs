//! What readers build with, below the format modules and naming none of them: a reader keeps its
//! grammar and hands the rest to the kit.
//!
//! - [`sink`]: stacks into a profile, root first or leaf first, with what is left out counted and
//!   said once per reason, and the errors of an input cut short or of nothing found;
//! - [`lines`]: a text format of stacks as a grammar of lines ([`lines::StackLines`]), read by one
//!   driver;
//! - [`indented`]: stacks written as a tree of indented lines, a frame a line
//!   ([`indented::Indented`]), as call trees and inverted ones are printed;
//! - [`parts`]: reports in parts, a header, a body of stacks and what follows it ([`parts::Parts`]);
//! - [`call_graph`]: a caller graph (functions' own figures, calls' shares of their callees)
//!   made a tree, each function's figures shared among its paths and exact;
//! - [`source_frame`]: the frame of a function named where its source is (JavaScript's
//!   profilers), with one rule for anonymous functions;
//! - [`string_table`]: strings each held once, numbered in order (pprof's, the Firefox Profiler's
//!   and callgrind's tables);
//! - [`v8_profile`]: V8's CPU profile document, which a `.cpuprofile` is and a Chrome trace holds;
//!   [`v8_profile_writer`]: its call frames and its samples in time order, written;
//! - [`wire`]: the top-level fields of a protocol buffer, walked without decoding it (pprof's and
//!   OTLP's sniffers and errors);
//! - [`sample_types`]: a pprof-style sample type (`cpu`/`nanoseconds`) as a metric, and what its
//!   period says of its sampling (pprof's and OTLP's readers);
//! - [`csv_fields`]: the fields of a line of comma-separated values (the Windows profilers'
//!   exports);
//! - [`count_names`], [`time`]: what writers share (a count's name, dates), and an interval written
//!   in words (`every 1 millisecond`).

pub(crate) mod call_graph;
pub(crate) mod count_names;
pub(crate) mod csv_fields;
pub(crate) mod indented;
pub(crate) mod lines;
pub(crate) mod parts;
pub(crate) mod sample_types;
pub(crate) mod sink;
pub(crate) mod source_frame;
pub(crate) mod string_table;
pub(crate) mod time;
pub(crate) mod v8_profile;
pub(crate) mod v8_profile_writer;
pub(crate) mod wire;
