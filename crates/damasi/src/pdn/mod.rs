//! Game records in PDN (Portable Draughts Notation), the draughts form of chess's PGN.
//!
//! Writing ([`write_game`]) gives the Seven Tag Roster (`Event`, `Site`, `Date`, `Round`,
//! `White`, `Black`, `Result`), then `[GameType "30"]` (Turkish draughts), then
//! `[Rules "..."]` when the game was not played under the default rules (the
//! [`RuleSet::name`], e.g. `turkish; no-capture-limit 50`), then `[SetUp "1"]` and
//! `[FEN "..."]` when it did not start from the start position, then any other tags. The
//! movetext has move numbers, moves in landing notation (or captured-square notation on
//! request) without the `=K` promotion mark (the PDN move grammar has none; the board implies
//! it), and the result token `1-0`, `0-1`, `1/2-1/2` or `*`.
//!
//! Reading ([`read_games`]) streams a file of many games. It accepts tags in any order,
//! move numbers (`12.`, `12...`), comments (`{..}`, `;` to the end of the line), variations
//! `(..)` (skipped, nested), NAGs (`$3`), move suffixes (`!`, `?!`), the result tokens of every
//! PDN version (`2-0`, `0-2`, `1-1`, `0-0` too), `%` escape lines, squares as numbers 1..64
//! (a1 = 1, b1 = 2, .., h8 = 64, as pydraughts writes them) and every move notation
//! [`Position::parse_move`] reads. A game that cannot be read (bad tag, GameType other than 30,
//! bad FEN or rule set, illegal move) is reported with its line number and what is wrong; the
//! reader then skips to the end of that game and reads the next. Memory stays bounded on any
//! input: a line longer than [`MAX_LINE`] is skipped without being held, and is such an
//! error.
//!
//! The writer adds `[TimeControl "..."]` for a timed game and `[Termination "..."]` with the
//! outcome's reason code ([`Outcome::reason_code`]: `resignation`, `time`, `agreement`,
//! `aborted`, ...) for a finished one. A result token that the board does not explain (the
//! game is not over after the last move) is read with the `Termination` tag: a reason code or
//! one of PGN's words (`time forfeit`, `abandoned`, `adjudication`, `rules infraction`) names
//! the reason; without one it is kept as a resignation (`1-0`, `0-1`) or an agreed draw
//! (`1/2-1/2`). When the board has
//! ended the game, the board decides and a contradicting token is ignored (the `Result` tag in
//! [`PdnGame::tags`] still holds what the file said). Moves after the end of the game (by the
//! rules the game is played under, draws included) are an error.
//!
//! ```
//! use damasi::pdn::{read_games, write_game, PdnGame};
//! use damasi::{Game, Notation};
//!
//! let mut game = Game::new();
//! game.play_text("d3-d4").unwrap();
//! game.play_text("e6-e5").unwrap();
//! let text = write_game(&PdnGame::new(game.clone()), Notation::Landing);
//! assert!(text.contains("[GameType \"30\"]"));
//! assert!(text.contains("1. d3-d4 e6-e5 *"));
//!
//! let read: Vec<_> = read_games(text.as_bytes()).collect();
//! assert_eq!(read.len(), 1);
//! assert_eq!(read[0].as_ref().unwrap().game.history(), game.history());
//! ```

use std::fmt;

use crate::clock::TimeControl;
use crate::color::Color;
use crate::fen::FenError;
use crate::game::{DrawReason, Game, GameError, Outcome, RuleSet, RuleSetError, WinReason};
use crate::notation::Notation;
use crate::position::Position;
use crate::square::Square;

/// The PDN game type number of Turkish draughts.
pub const GAME_TYPE: u32 = 30;

/// The tag naming the rule set, written when it is not the default.
pub const RULES_TAG: &str = "Rules";

/// The Seven Tag Roster, in the order PDN writes it, with the values used when unknown.
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Tags whose value the writer derives from the game itself.
const DERIVED_TAGS: [&str; 7] = [
    "Result",
    "GameType",
    RULES_TAG,
    "SetUp",
    "FEN",
    TERMINATION_TAG,
    TIME_CONTROL_TAG,
];

/// The tag saying how the game ended, written with the outcome's reason code
/// ([`Outcome::reason_code`]: `resignation`, `time`, `repetition`, `aborted`, ...).
pub const TERMINATION_TAG: &str = "Termination";

/// The tag with the game's time control, in the PGN form (`2700`, `180+2`).
pub const TIME_CONTROL_TAG: &str = "TimeControl";

/// Longest tag name or value, and longest move or comment word, read before the input is
/// called broken: real records stay far below; the cap bounds memory on hostile input.
const MAX_TOKEN: usize = 4096;

/// Longest line read, in bytes. A longer line is never held in memory: it is read to its end,
/// dropped and reported as a [`PdnErrorKind::Syntax`] error of its game (which is then
/// skipped, like any broken game). Writers wrap movetext at 80 columns; a whole game of tens
/// of thousands of plies on one line stays under this.
pub const MAX_LINE: usize = 1 << 20;

/// A game record: the tags as read or set (name, value), in order, and the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs in file order. The writer takes `Result`, `GameType`, `Rules`, `SetUp` and
    /// `FEN` from the game instead of from here.
    pub tags: Vec<(String, String)>,
    /// The game: rules, start position, moves, result.
    pub game: Game,
}

impl PdnGame {
    /// A record of `game` with no tags yet.
    pub fn new(game: Game) -> PdnGame {
        PdnGame {
            tags: Vec::new(),
            game,
        }
    }

    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` to `value`, replacing an existing one or adding it at the end.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }
}

/// What is wrong with a PDN game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdnErrorKind {
    /// The input could not be read (an I/O error); reading stops.
    Io(String),
    /// The text is not PDN here: a broken tag, an unclosed comment or variation.
    Syntax(String),
    /// The `GameType` tag names another game than Turkish draughts.
    GameType(String),
    /// The `FEN` tag does not describe a valid position.
    Fen(FenError),
    /// The rule-set tag is not understood.
    Rules(RuleSetError),
    /// A move could not be played.
    Move {
        /// The move's number and side, e.g. `12.` or `12...`.
        number: String,
        /// The move as written.
        text: String,
        /// Why it could not be played.
        error: GameError,
    },
}

/// A game that could not be read: where (line, and which game of the input) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnError {
    /// Line of the input (1 = first) where the fault is.
    pub line: usize,
    /// Which game of the input (1 = first), counting broken games too.
    pub game: usize,
    /// What is wrong.
    pub kind: PdnErrorKind,
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (game {}): ", self.line, self.game)?;
        match &self.kind {
            PdnErrorKind::Io(e) => write!(f, "cannot read the input: {e}"),
            PdnErrorKind::Syntax(e) => write!(f, "{e}"),
            PdnErrorKind::GameType(v) => write!(
                f,
                "GameType \"{v}\" is not Turkish draughts (GameType {GAME_TYPE})"
            ),
            PdnErrorKind::Fen(e) => write!(f, "FEN tag: {e}"),
            PdnErrorKind::Rules(e) => write!(f, "{RULES_TAG} tag: {e}"),
            PdnErrorKind::Move {
                number,
                text,
                error,
            } => write!(f, "move {number} {text}: {error}"),
        }
    }
}

impl std::error::Error for PdnError {}

/// The PDN move number of the move played at `ply` (0-based) from `start`: `1.` for White's
/// first move, `1...` for Black's.
fn move_number(start: Color, ply: usize) -> String {
    let k = ply + usize::from(start == Color::Black);
    if k % 2 == 0 {
        format!("{}.", k / 2 + 1)
    } else {
        format!("{}...", k / 2 + 1)
    }
}

mod lexer;
mod read;
mod write;

pub use read::{read_game, read_games, PdnReader};
pub use write::{pdn_date, write_game, write_games};
