//! Reading text lines with a bounded length.
//!
//! `BufRead::read_line` and `read_until` grow their buffer for as long as no newline comes,
//! so one endless line (a stray binary file, `/dev/zero`, a hostile peer) takes all memory.
//! [`read_line`] keeps at most a given number of bytes: a longer line is read to its end and
//! dropped, and the caller is told so ([`LineRead::TooLong`]) and can report it without
//! echoing it. The engine's Hub protocol loop, the match runner's and the bot's Hub clients
//! and `damasi play` read their input with it (the rules crate's PDN reader bounds its lines
//! itself, with `BufRead::take`).
//!
//! ```
//! use damasi_engine::line_reader::{read_line, LineRead};
//!
//! let mut input: &[u8] = b"d3-d4\nxxxxxxxxxxxxxxxx\nquit";
//! let mut buf = Vec::new();
//! assert_eq!(read_line(&mut input, &mut buf, 8).unwrap(), LineRead::Line);
//! assert_eq!(buf, b"d3-d4");
//! assert_eq!(read_line(&mut input, &mut buf, 8).unwrap(), LineRead::TooLong);
//! assert!(buf.is_empty());
//! assert_eq!(read_line(&mut input, &mut buf, 8).unwrap(), LineRead::Line);
//! assert_eq!(buf, b"quit");
//! assert_eq!(read_line(&mut input, &mut buf, 8).unwrap(), LineRead::End);
//! ```

use std::io::{self, BufRead};

/// Longest protocol line read, in bytes (a Hub `pos` line with a long game is a few KiB).
pub const MAX_LINE: usize = 64 * 1024;

/// What [`read_line`] found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LineRead {
    /// A line (without its `\n`) is in the buffer.
    Line,
    /// A line longer than the limit was read to its end and dropped; the buffer is empty.
    TooLong,
    /// End of input: no byte was left.
    End,
}

/// Reads the next line of `input` into `buf` (cleared first; the `\n` is not kept, a `\r`
/// before it is) if it has at most `max` bytes; a longer line is consumed to its end and
/// dropped, holding no more than `max` bytes (plus one chunk of the reader) in memory. The
/// last line counts even without a `\n`. Interrupted reads are retried; other I/O errors are
/// returned (what was read of the line is then lost).
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<LineRead> {
    buf.clear();
    let mut any = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => LineRead::End,
                (true, true) => LineRead::TooLong,
                (true, false) => LineRead::Line,
            });
        }
        any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if !too_long {
            if buf.len() + part.len() > max {
                too_long = true;
                buf.clear();
                buf.shrink_to(max);
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines_and_the_last_one_without_a_newline() {
        let mut input: &[u8] = b"ping\r\n\nquit";
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf, 10).unwrap(), LineRead::Line);
        assert_eq!(buf, b"ping\r");
        assert_eq!(read_line(&mut input, &mut buf, 10).unwrap(), LineRead::Line);
        assert_eq!(buf, b"");
        assert_eq!(read_line(&mut input, &mut buf, 10).unwrap(), LineRead::Line);
        assert_eq!(buf, b"quit");
        assert_eq!(read_line(&mut input, &mut buf, 10).unwrap(), LineRead::End);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let mut input: &[u8] = b"abcd\nabcde\n";
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf, 4).unwrap(), LineRead::Line);
        assert_eq!(buf, b"abcd");
        assert_eq!(
            read_line(&mut input, &mut buf, 4).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(read_line(&mut input, &mut buf, 4).unwrap(), LineRead::End);
    }

    #[test]
    fn a_long_line_is_skipped_in_bounded_memory() {
        let mut text = vec![b'x'; 4 << 20];
        text.extend_from_slice(b"\nping\n");
        text.extend(std::iter::repeat(b'y').take(100));
        let mut input = io::BufReader::new(&text[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buf, 1000).unwrap(),
            LineRead::TooLong
        );
        assert!(buf.is_empty());
        // The buffer never held more than the limit and one chunk of the reader.
        assert!(buf.capacity() <= 1000 + 8 * 1024, "{}", buf.capacity());
        assert_eq!(
            read_line(&mut input, &mut buf, 1000).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"ping");
        assert_eq!(
            read_line(&mut input, &mut buf, 10).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(read_line(&mut input, &mut buf, 10).unwrap(), LineRead::End);
    }
}
