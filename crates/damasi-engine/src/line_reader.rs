//! Reading protocol lines with a bounded length. `BufRead::read_line` grows its buffer as
//! long as no newline comes, so one endless line (a stray binary file, `/dev/zero`) would
//! take all memory; here a line longer than the limit is skipped to its end, keeping at most
//! the limit in memory.

use std::io::{self, BufRead};

/// Longest protocol line read, in bytes (a Hub `pos` line with a long game is a few KiB).
pub const MAX_LINE: usize = 64 * 1024;

/// What [`read_line`] found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LineRead {
    /// A line (without its newline) is in the buffer.
    Line,
    /// A line longer than the limit was skipped; the buffer is empty.
    TooLong,
    /// End of input.
    End,
}

/// Reads the next line of `input` into `buf` (cleared first; the newline is not kept), if it
/// has at most `max` bytes; a longer line is read to its end and dropped. The last line
/// counts even without a newline.
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
