//! Tests of one format each, against the format's own tools.

// Valgrind's callgrind files against callgrind_annotate.
mod callgrind;
