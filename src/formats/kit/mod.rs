//! The reader and writer kit: what several format modules share, below them and naming none of them.

pub(crate) mod count_names;
pub(crate) mod time;
