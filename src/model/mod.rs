//! The canonical profile model: one call tree that every reader produces and every writer consumes.
//!
//! See `docs/model.md` for the design in one page. The pieces:
//!
//! - [`Profile`]: header facts ([`Meta`]), declared [`Metric`]s, interned [`Frame`]s, the [`CallTree`]
//!   and per-function facts ([`FunctionFacts`]).
//! - [`ReportFacts`]: what a profiler's own report says about itself ([`Meta::report`]).
//! - [`SourceLocation`]: where a frame's code is defined (the frame attr [`DEFINED_AT`]).
//! - [`CallTree`]: an arena of nodes, parents before children, one self value per metric per node.
//! - [`Timeline`]: when each sample was taken, where the source says, beside the tree.
//! - [`dump`]: the canonical text form used by golden tests and `proftool dump`-style review.
//! - [`ops`]: operations over whole profiles (normalising for comparison).
//! - [`filter`]: pprof's stack filters (`--focus`, `--ignore`, `--hide`, `--thread`) and `--fn`'s subtrees.

pub mod dump;
pub mod filter;
mod frame;
mod metric;
pub mod ops;
mod profile;
mod report;
mod source;
mod timeline;
mod tree;

pub use frame::{Frame, FrameId, FrameKind, FrameRef, FrameTable};
pub use metric::{
    decimal_sum, nanoseconds_per, significant, Aggregation, Metric, MetricKind, Repr, Sampling, Unit, Value, Values,
};
pub use profile::{FunctionFacts, Meta, Profile, StatedTotal, Total, TotalSource, DURATION, ROUTINE};
pub use report::{DerivedColumns, ReportFact, ReportFacts, ReportKind};
pub use source::{SourceLocation, DEFINED_AT};
pub use timeline::{slice_edges, Edge, Slice, TimedSample, Timeline};
pub(crate) use tree::ChildIndex;
pub use tree::{CallTree, Children, NodeId, Visit, Walk};

/// Keeps the elements of `v` whose position `keep` marks true, in order.
pub(crate) fn retain_by_mask<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut marks = keep.iter();
    v.retain(|_| marks.next().copied().unwrap_or(false));
}
