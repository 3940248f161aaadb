//! The opening book: positions near the start with the engine's own deep-search score of each
//! good move, so that a game at full strength starts with well-searched moves, played at once,
//! and with variety among the moves that are about as good as the best.
//!
//! The book is a text file (docs/book.md), one position per line:
//!
//! ```text
//! # comments and blank lines are skipped
//! W:Wa2,b2,...:Ba7,...;d3-d4 12 18;c3-c4 8 18
//! ```
//!
//! a FEN, then for each book move `;MOVE SCORE DEPTH`: the move in landing notation, its score
//! in centi-men for the side to move, and the depth of the search that gave it. `damasi book
//! build` writes it (see [`build`]); [`Book::builtin`] is the one shipped in the binary.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use damasi::{Move, Notation, Position};

/// One move of a book position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its score in centi-men from the side to move's view, from a search of `depth` plies.
    pub score: i32,
    /// The depth of that search.
    pub depth: u32,
}

/// A book position: where, and its moves, best first.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BookEntry {
    /// The position.
    pub position: Position,
    /// Its book moves, best first.
    pub moves: Vec<BookMove>,
}

/// An opening book: positions by Zobrist key.
#[derive(Clone, Default, Debug)]
pub struct Book {
    entries: HashMap<u64, BookEntry>,
    /// Keys in the order the file gave them, so that writing keeps the order.
    order: Vec<u64>,
}

/// Why a book file could not be read: the line (1-based) and what is wrong with it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BookError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for BookError {}

/// Whether games use the book when nothing says otherwise (the Hub's `book` parameter, the web
/// app's and the terminal game's engine moves). On: the shipped book (160 positions, depth-14
/// searches) against no book at 0.1 s a move from the start position scored +17 ± 29 Elo over
/// 123 games (SPRT -20,20 accepted H1). The depth-10 book before it lost (-58 ± 56, H0), since
/// the engine's own search goes deeper than 10 plies there.
pub const USE_BY_DEFAULT: bool = true;

/// How far below the best move a book move may score and still be played, in centi-men.
pub const DEFAULT_MARGIN: i32 = 8;

/// The book shipped in the binary (`book/damasi.book` of this crate).
const BUILTIN: &str = include_str!("../book/damasi.book");

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// The book shipped with damasi.
    pub fn builtin() -> &'static Book {
        static BOOK: OnceLock<Book> = OnceLock::new();
        BOOK.get_or_init(|| Book::parse(BUILTIN).expect("the shipped book is valid"))
    }

    /// Reads a book file's text.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut book = Book::new();
        for (i, raw) in text.lines().enumerate() {
            let err = |message: String| BookError {
                line: i + 1,
                message,
            };
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or("").trim();
            let position =
                Position::from_fen(fen).map_err(|e| err(format!("bad FEN '{fen}': {e}")))?;
            let mut moves = Vec::new();
            for part in parts {
                let fields: Vec<&str> = part.split_whitespace().collect();
                let [mv, score, depth] = fields[..] else {
                    return Err(err(format!(
                        "expected 'MOVE SCORE DEPTH' after ';', found '{}'",
                        part.trim()
                    )));
                };
                let mv = position
                    .parse_move(mv)
                    .map_err(|e| err(format!("move '{mv}': {e}")))?;
                let score = score
                    .parse()
                    .map_err(|_| err(format!("score '{score}' is not a whole number")))?;
                let depth = depth
                    .parse()
                    .map_err(|_| err(format!("depth '{depth}' is not a whole number")))?;
                if moves.iter().any(|m: &BookMove| m.mv == mv) {
                    return Err(err(format!("move '{}' is listed twice", fields[0])));
                }
                moves.push(BookMove { mv, score, depth });
            }
            if moves.is_empty() {
                return Err(err("a position without moves".into()));
            }
            if book.get(&position).is_some() {
                return Err(err(format!("position '{fen}' is listed twice")));
            }
            book.insert(position, moves);
        }
        Ok(book)
    }

    /// Adds (or replaces) a position's moves; they are kept best first.
    pub fn insert(&mut self, position: Position, mut moves: Vec<BookMove>) {
        moves.sort_by_key(|m| -m.score);
        let key = position.key();
        if self
            .entries
            .insert(key, BookEntry { position, moves })
            .is_none()
        {
            self.order.push(key);
        }
    }

    /// The book's moves for `position`, best first, if it is in the book.
    pub fn get(&self, position: &Position) -> Option<&BookEntry> {
        self.entries
            .get(&position.key())
            .filter(|e| e.position == *position)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The positions in file order.
    pub fn entries(&self) -> impl Iterator<Item = &BookEntry> {
        self.order.iter().map(|k| &self.entries[k])
    }

    /// A move to play in `position`: one of the moves scoring at most `margin` below the best,
    /// chosen by `random` (any 64-bit number; equal numbers give equal choices), the better
    /// ones more often. `None` if the position is not in the book.
    pub fn pick(&self, position: &Position, margin: i32, random: u64) -> Option<BookMove> {
        let entry = self.get(position)?;
        let best = entry.moves.first()?.score;
        let good: Vec<&BookMove> = entry
            .moves
            .iter()
            .filter(|m| m.score >= best - margin.max(0))
            .collect();
        // Weights from margin + 1 (the best) down to 1 (at the margin).
        let weight = |m: &BookMove| (margin.max(0) - (best - m.score) + 1) as u64;
        let total: u64 = good.iter().map(|m| weight(m)).sum();
        let mut ticket = random % total.max(1);
        for m in &good {
            if ticket < weight(m) {
                return Some(**m);
            }
            ticket -= weight(m);
        }
        good.first().map(|m| **m)
    }

    /// The book as the text of a book file.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        for e in self.entries() {
            out.push_str(&e.position.to_fen());
            for m in &e.moves {
                out.push_str(&format!(
                    ";{} {} {}",
                    e.position.write_move(&m.mv, Notation::Landing),
                    m.score,
                    m.depth
                ));
            }
            out.push('\n');
        }
        out
    }
}

/// A random number for [`Book::pick`] that differs from call to call (clock and a counter,
/// mixed by SplitMix64): games should not repeat, but no cryptographic strength is needed.
pub fn fresh_random() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut z = crate::clock::unix_nanos()
        ^ COUNTER
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .rotate_left(17);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How `damasi book build` makes a book.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Plies from the start position the book reaches.
    pub plies: u32,
    /// Depth of the search of every move of every book position.
    pub depth: u32,
    /// Moves within this many centi-men of the best are kept and followed.
    pub margin: i32,
    /// Moves scored in each position (multi-PV lines): the best few are enough to find those
    /// within the margin, and each line costs a search.
    pub lines: usize,
    /// The book stops growing at this many positions (the nearest the start come first).
    pub max_positions: usize,
    /// Search threads.
    pub threads: usize,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

/// Builds a book from `start`: every position reached by book moves within `options.plies`
/// plies (breadth first, up to `options.max_positions`) is searched to `options.depth` with
/// its best `options.lines` moves scored (multi-PV), and the moves scoring within
/// `options.margin` of the best are kept and followed. A position with only one
/// legal move is passed through without a search. `progress` is told each position as it is
/// done, with the number still waiting.
pub fn build(
    start: Position,
    options: BuildOptions,
    progress: &mut dyn FnMut(&BookEntry, usize),
) -> Book {
    use crate::{Engine, EngineOptions, Limits, SearchControl, SearchRequest, SearchRoot};
    let mut engine = Engine::new(EngineOptions {
        hash_mb: options.hash_mb,
        threads: options.threads,
    });
    let mut book = Book::new();
    // Breadth first, so that a position reached by transposition is searched once.
    let mut frontier = vec![start];
    for ply in 0..options.plies {
        let mut next = Vec::new();
        let waiting = frontier.len();
        for (i, pos) in frontier.into_iter().enumerate() {
            if book.len() >= options.max_positions {
                return book;
            }
            if book.get(&pos).is_some() {
                continue;
            }
            let legal = pos.legal_moves();
            let moves: Vec<BookMove> = if legal.len() == 1 {
                vec![BookMove {
                    mv: legal[0],
                    score: 0,
                    depth: 0,
                }]
            } else if legal.is_empty() {
                continue;
            } else {
                engine.new_game();
                let request =
                    SearchRequest::new(SearchRoot::new(pos), Limits::depth(options.depth))
                        .with_multipv(options.lines.clamp(1, legal.len()));
                let control = std::sync::Arc::new(SearchControl::new());
                let mut last: HashMap<Move, BookMove> = HashMap::new();
                engine.search(&request, &control, &mut |info| {
                    if let Some(&mv) = info.pv.first() {
                        last.insert(
                            mv,
                            BookMove {
                                mv,
                                score: info.score.0,
                                depth: info.depth,
                            },
                        );
                    }
                });
                // Lines of earlier iterations that fell out of the best few are stale.
                let deepest = last.values().map(|m| m.depth).max().unwrap_or(0);
                let mut scored: Vec<BookMove> =
                    last.into_values().filter(|m| m.depth == deepest).collect();
                scored.sort_by_key(|m| -m.score);
                let best = scored.first().map_or(0, |m| m.score);
                scored.retain(|m| m.score >= best - options.margin);
                scored
            };
            if ply + 1 < options.plies {
                next.extend(moves.iter().map(|m| pos.play(&m.mv)));
            }
            book.insert(pos, moves);
            progress(book.get(&pos).expect("just inserted"), waiting - i - 1);
        }
        frontier = next;
    }
    book
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(p: &Position, s: &str) -> Move {
        p.parse_move(s).unwrap()
    }

    #[test]
    fn reads_and_writes_the_file_format() {
        let start = Position::start();
        let text = format!("# a book\n\n{};d3-d4 12 16;c3-c4 5 16\n", start.to_fen());
        let book = Book::parse(&text).unwrap();
        assert_eq!(book.len(), 1);
        let e = book.get(&start).unwrap();
        assert_eq!(e.moves[0].mv, mv(&start, "d3-d4"));
        assert_eq!((e.moves[0].score, e.moves[0].depth), (12, 16));
        let again = Book::parse(&book.to_text("made by a test")).unwrap();
        assert_eq!(again.get(&start), book.get(&start));
    }

    #[test]
    fn bad_lines_say_where_and_what() {
        let start = Position::start().to_fen();
        let cases = [
            ("W:Wz9:Bh7;a2-a3 1 1", "bad FEN"),
            (&format!("{start};d3-d5 1 1")[..], "move 'd3-d5'"),
            (&format!("{start};d3-d4 x 1")[..], "score 'x'"),
            (&format!("{start};d3-d4 1")[..], "MOVE SCORE DEPTH"),
            (&start[..], "without moves"),
            (&format!("{start};d3-d4 1 1;d3-d4 2 2")[..], "twice"),
        ];
        for (line, what) in cases {
            let e = Book::parse(&format!("# header\n{line}\n")).unwrap_err();
            assert_eq!(e.line, 2, "{line}");
            assert!(e.message.contains(what), "{line}: {}", e.message);
        }
    }

    #[test]
    fn picks_only_moves_within_the_margin_and_each_of_them_sometimes() {
        let start = Position::start();
        let text = format!("{};d3-d4 20 10;c3-c4 15 10;a3-a4 -40 10\n", start.to_fen());
        let book = Book::parse(&text).unwrap();
        let mut seen = std::collections::HashSet::new();
        for r in 0..200u64 {
            let m = book.pick(&start, 8, r).unwrap().mv;
            assert_ne!(m, mv(&start, "a3-a4"), "40 below the best");
            seen.insert(m);
        }
        assert_eq!(seen.len(), 2);
        // With no margin only the best is played.
        assert!((0..50).all(|r| book.pick(&start, 0, r).unwrap().mv == mv(&start, "d3-d4")));
        // Out of the book: nothing.
        let after = start.play(&mv(&start, "d3-d4"));
        assert_eq!(book.pick(&after, 8, 1), None);
    }

    #[test]
    fn the_shipped_book_is_legal_and_starts_at_the_start() {
        let book = Book::builtin();
        assert!(book.get(&Position::start()).is_some());
        for e in book.entries() {
            let legal = e.position.legal_moves();
            let best = e.moves[0].score;
            for m in &e.moves {
                assert!(legal.contains(&m.mv));
                assert!(m.score <= best);
            }
        }
    }

    #[test]
    fn a_tiny_build_scores_every_start_move_and_follows_the_good_ones() {
        let options = BuildOptions {
            plies: 2,
            depth: 3,
            margin: 1_000,
            lines: 100,
            max_positions: 100,
            threads: 1,
            hash_mb: 8,
        };
        let mut seen = 0;
        let book = build(Position::start(), options, &mut |_, _| seen += 1);
        let root = book.get(&Position::start()).unwrap();
        // A margin of ten men keeps every legal move of the start position.
        assert_eq!(root.moves.len(), Position::start().legal_moves().len());
        // Each is followed: the book has the start and one position after each move.
        assert_eq!(book.len(), 1 + root.moves.len());
        assert_eq!(seen, book.len());
        assert!(root.moves.windows(2).all(|w| w[0].score >= w[1].score));

        // Two lines and a cap of three positions: the start's best two, then two more.
        let small = BuildOptions {
            lines: 2,
            max_positions: 3,
            ..options
        };
        let book = build(Position::start(), small, &mut |_, _| {});
        assert_eq!(book.get(&Position::start()).unwrap().moves.len(), 2);
        assert_eq!(book.len(), 3);
    }
}
