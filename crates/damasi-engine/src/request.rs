//! What a search is asked: the position with its game so far, the limits, the playing level
//! the number of lines and, optionally, the root moves to compare.

use damasi::{Game, Move, Position, RuleSet};

use crate::{Level, Limits};

/// The position to search and what the game rules need to know about the game so far.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SearchRoot {
    /// The position to search.
    pub position: Position,
    /// Zobrist keys of the earlier positions of the game, oldest first (for repetitions).
    pub history: Vec<u64>,
    /// The rule set the game is played under.
    pub rules: RuleSet,
    /// Plies played since the last capture (for the rule set's no-capture limit; 0 if
    /// unknown).
    pub plies_since_capture: u32,
}

impl SearchRoot {
    /// A position with no game history, under the default rules.
    pub fn new(position: Position) -> SearchRoot {
        SearchRoot {
            position,
            history: Vec::new(),
            rules: RuleSet::default(),
            plies_since_capture: 0,
        }
    }

    /// The current position of a game, with its repetition keys, rules and capture count.
    pub fn from_game(game: &Game) -> SearchRoot {
        SearchRoot {
            position: *game.position(),
            history: game.repetition_keys().to_vec(),
            rules: *game.rules(),
            plies_since_capture: game.plies_without_capture(),
        }
    }

    /// The position after playing `moves` (which must be legal, in order) from `start`, with
    /// the history and capture count filled in. Returns the index of the first illegal move
    /// as the error.
    pub fn from_moves(
        start: Position,
        moves: &[Move],
        rules: RuleSet,
    ) -> Result<SearchRoot, usize> {
        let mut root = SearchRoot {
            position: start,
            history: Vec::new(),
            rules,
            plies_since_capture: 0,
        };
        for (i, m) in moves.iter().enumerate() {
            if !root.position.legal_moves().contains(m) {
                return Err(i);
            }
            root.history.push(root.position.key());
            root.plies_since_capture = if m.is_capture() {
                0
            } else {
                root.plies_since_capture + 1
            };
            root.position = root.position.play(m);
        }
        Ok(root)
    }
}

/// The contempt the engine plays games with, in centi-men ([`SearchRequest::contempt`]): a
/// draw counts as a fifth of a man less than nothing for the engine's side, so that it plays
/// on in a level position rather than repeat, and takes a draw only when it stands worse.
/// Analysis uses none. (Its cost against itself: `docs/engine-strength.md`.)
pub const PLAY_CONTEMPT: i32 = 20;

/// One search to run: where, how long, how well and how many lines
/// ([`crate::Engine::search`]).
#[derive(Clone, PartialEq, Debug)]
pub struct SearchRequest {
    /// The position and the game that led to it.
    pub root: SearchRoot,
    /// When to stop (depth, nodes, time, clock, or never: [`Limits::infinite`]).
    pub limits: Limits,
    /// Playing strength; below [`Level::MAX`] the engine searches less and picks among the
    /// best few moves.
    pub level: Level,
    /// Lines to report in each iteration (multi-PV; at least 1).
    pub multipv: usize,
    /// Whether a move from the opening book may be played instead of searching (games at full
    /// strength; never for analysis). Off unless asked for with [`SearchRequest::with_book`].
    pub book: bool,
    /// Only these root moves are searched (like UCI's `searchmoves`), for comparing given
    /// moves in one search; empty: every legal move. Moves that are not legal in the root are
    /// ignored, and when none is legal every legal move is searched. A restricted search plays
    /// no book move and leaves its candidates to the search even where the endgame tables
    /// would rule some out, so that each gets a score.
    pub root_moves: Vec<Move>,
    /// How much less than nothing a draw is worth to the side to move at the root, in
    /// centi-men (and as much more to its opponent): [`PLAY_CONTEMPT`] for playing a game,
    /// 0 (the default) for analysis, where a draw is worth exactly nothing to either side.
    pub contempt: i32,
}

impl SearchRequest {
    /// A search of `root` within `limits` at full strength, reporting one line.
    pub fn new(root: SearchRoot, limits: Limits) -> SearchRequest {
        SearchRequest {
            root,
            limits,
            level: Level::MAX,
            multipv: 1,
            book: false,
            root_moves: Vec::new(),
            contempt: 0,
        }
    }

    /// The same request at playing strength `level`.
    pub fn with_level(self, level: Level) -> SearchRequest {
        SearchRequest { level, ..self }
    }

    /// The same request, allowed (or not) to play a book move: for playing games.
    pub fn with_book(self, book: bool) -> SearchRequest {
        SearchRequest { book, ..self }
    }

    /// The same request reporting `multipv` lines (at least 1).
    pub fn with_multipv(self, multipv: usize) -> SearchRequest {
        SearchRequest {
            multipv: multipv.max(1),
            ..self
        }
    }

    /// The same request with `contempt` ([`SearchRequest::contempt`]; [`PLAY_CONTEMPT`] to
    /// play a game).
    pub fn with_contempt(self, contempt: i32) -> SearchRequest {
        SearchRequest { contempt, ..self }
    }

    /// The same request searching only `moves` at the root ([`SearchRequest::root_moves`]).
    pub fn with_root_moves(self, moves: Vec<Move>) -> SearchRequest {
        SearchRequest {
            root_moves: moves,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_full_strength_and_one_line_unless_told() {
        let root = SearchRoot::new(Position::start());
        let r = SearchRequest::new(root.clone(), Limits::depth(3));
        assert_eq!((r.level, r.multipv), (Level::MAX, 1));
        let r = r.with_level(Level::new(4)).with_multipv(0);
        assert_eq!((r.level, r.multipv), (Level::new(4), 1));
        assert_eq!(r.with_multipv(3).multipv, 3);
    }

    #[test]
    fn a_root_from_moves_rejects_the_first_illegal_move() {
        let start = Position::start();
        let first = start.legal_moves()[0];
        let root = SearchRoot::from_moves(start, &[first], RuleSet::default()).unwrap();
        assert_eq!(root.history, vec![start.key()]);
        assert_eq!(root.plies_since_capture, 1);
        assert_eq!(
            SearchRoot::from_moves(start, &[first, first], RuleSet::default()),
            Err(1)
        );
    }
}
