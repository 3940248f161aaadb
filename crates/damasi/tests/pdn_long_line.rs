//! The PDN reader in bounded memory: a huge line (here 64 MiB, streamed from a reader that
//! never holds it) is reported as an error that does not echo it, the games after it are
//! read, and the reader's memory never grows with the line. Its own test binary, so that the
//! allocation counter sees nothing else.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use damasi::pdn::{read_games, PdnErrorKind, MAX_LINE};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn note_alloc(size: usize) {
    let now = IN_USE.fetch_add(size, Ordering::SeqCst) + size;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every call is passed on to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc(new_size);
        IN_USE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A prefix, then `len` bytes of `fill` generated on the fly, then a suffix.
struct Huge {
    prefix: Vec<u8>,
    fill: u8,
    left: usize,
    suffix: Vec<u8>,
}

impl Read for Huge {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(out.len());
            out[..n].copy_from_slice(&self.prefix[..n]);
            self.prefix.drain(..n);
            return Ok(n);
        }
        if self.left > 0 {
            let n = self.left.min(out.len());
            out[..n].fill(self.fill);
            self.left -= n;
            return Ok(n);
        }
        let n = self.suffix.len().min(out.len());
        out[..n].copy_from_slice(&self.suffix[..n]);
        self.suffix.drain(..n);
        Ok(n)
    }
}

#[test]
fn a_huge_line_is_an_error_in_bounded_memory_and_the_next_game_reads() {
    let len = 64 << 20;
    let input = Huge {
        prefix: b"[Event \"first\"]\n1. d3-d4 ".to_vec(),
        fill: b'x',
        left: len,
        suffix: b"\n*\n\n[Event \"second\"]\n1. d3-d4 e6-e5 *\n".to_vec(),
    };
    let before = IN_USE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let results: Vec<_> = read_games(std::io::BufReader::new(input)).collect();
    let peak = PEAK.load(Ordering::SeqCst) - before;

    // The line's bytes and its characters (4 bytes each) at the limit, and a little more:
    // never the line itself (64 MiB, or 256 MiB as characters).
    assert!(
        peak < 6 * MAX_LINE,
        "the reader used {} MiB for a {} MiB line",
        peak >> 20,
        len >> 20
    );
    assert_eq!(results.len(), 2, "{results:?}");
    let err = results[0].as_ref().unwrap_err();
    assert_eq!((err.line, err.game), (2, 1));
    assert!(
        matches!(&err.kind, PdnErrorKind::Syntax(m) if m.contains("longer than")),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.len() < 200 && !message.contains("xxx"), "{message}");
    let second = results[1].as_ref().unwrap();
    assert_eq!(second.tag("Event"), Some("second"));
    assert_eq!(second.game.ply(), 2);
}
