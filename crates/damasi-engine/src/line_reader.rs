//! Reading protocol lines with a bounded length: the rules library's
//! [`damasi::line_reader`], with the protocol's limit. One endless line (a stray binary
//! file, `/dev/zero`) is skipped to its end keeping at most [`MAX_LINE`] bytes in memory.

pub use damasi::line_reader::{read_line, LineRead};

/// Longest protocol line read, in bytes (a Hub `pos` line with a long game is a few KiB).
pub const MAX_LINE: usize = 64 * 1024;
