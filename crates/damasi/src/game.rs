//! Games: a start position, the moves played, and how the game ends (RULES.md "End of the
//! game"): no pieces or no legal move loses, mutual block, one piece each and threefold
//! repetition draw, agreement and resignation; optional no-capture limit and "king beats lone
//! man" rules, named by a [`RuleSet`] so a record can say which rules it was played under.
//!
//! ```
//! use damasi::game::{Game, Outcome, DrawReason};
//!
//! let mut game = Game::new();
//! game.play_text("d3-d4").unwrap();
//! assert_eq!(game.ply(), 1);
//! assert_eq!(game.outcome(), None);
//! game.agree_draw();
//! assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Agreement)));
//! assert!(game.legal_moves().is_empty());
//! ```

use std::fmt;

use crate::color::Color;
use crate::moves::{Move, MoveList};
use crate::notation::{MoveError, Notation};
use crate::position::Position;

/// The rules a game is played under: the federation's rules plus the options RULES.md lists,
/// all off by default.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RuleSet {
    /// Draw after this many plies in a row without a capture (seed 000 9.4 uses 50).
    pub no_capture_limit: Option<u32>,
    /// One king against one man wins for the king's side instead of the one-piece-each draw
    /// (seed 002).
    pub king_beats_lone_man: bool,
}

/// Why a rule-set name was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSetError(pub String);

impl fmt::Display for RuleSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule set: {}", self.0)
    }
}

impl std::error::Error for RuleSetError {}

impl RuleSet {
    /// The name of the rule set as records carry it: `turkish` for the default rules, then
    /// each option after a `; `, e.g. `turkish; no-capture-limit 50; king-beats-lone-man`.
    pub fn name(&self) -> String {
        let mut s = String::from("turkish");
        if let Some(n) = self.no_capture_limit {
            s.push_str(&format!("; no-capture-limit {n}"));
        }
        if self.king_beats_lone_man {
            s.push_str("; king-beats-lone-man");
        }
        s
    }

    /// Reads a name written by [`RuleSet::name`]. Case, spaces around `;` and the order of
    /// the options do not matter; an unknown or repeated option is an error.
    pub fn from_name(name: &str) -> Result<RuleSet, RuleSetError> {
        let mut parts = name.split(';').map(str::trim);
        let base = parts.next().unwrap_or("");
        if !base.eq_ignore_ascii_case("turkish") {
            return Err(RuleSetError(format!(
                "'{name}' does not start with 'turkish'"
            )));
        }
        let mut rules = RuleSet::default();
        for part in parts {
            let lower = part.to_ascii_lowercase();
            let words: Vec<&str> = lower.split_whitespace().collect();
            match words.as_slice() {
                ["king-beats-lone-man"] if !rules.king_beats_lone_man => {
                    rules.king_beats_lone_man = true;
                }
                ["no-capture-limit", n] if rules.no_capture_limit.is_none() => {
                    let n: u32 = n.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        RuleSetError(format!(
                            "'{part}': the limit must be a whole number of plies above 0"
                        ))
                    })?;
                    rules.no_capture_limit = Some(n);
                }
                _ => {
                    return Err(RuleSetError(format!(
                        "unknown or repeated option '{part}' (known: 'no-capture-limit N', \
                         'king-beats-lone-man')"
                    )))
                }
            }
        }
        Ok(rules)
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for RuleSet {
    type Err = RuleSetError;
    fn from_str(s: &str) -> Result<RuleSet, RuleSetError> {
        RuleSet::from_name(s)
    }
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The side that won.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw(DrawReason),
}

/// Why a side won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WinReason {
    /// The loser, to move, has no pieces left.
    NoPieces,
    /// The loser, to move, has pieces but none can move (and the winner could move).
    Blocked,
    /// The loser resigned.
    Resignation,
    /// One king against one man, under the `king-beats-lone-man` option.
    KingBeatsLoneMan,
}

/// Why a game was drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// Each side has exactly one piece (man or king).
    OnePieceEach,
    /// The same placement with the same side to move occurred for the third time.
    Repetition,
    /// The side to move is blocked and the other side would be blocked too (seed 000 9.5).
    MutualBlock,
    /// The players agreed to a draw.
    Agreement,
    /// The `no-capture-limit` option's number of plies passed without a capture.
    NoCaptureLimit,
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw(_) => None,
        }
    }

    /// A sentence for people: `draw: one piece each`, `Black is blocked: White wins`.
    pub fn describe(&self) -> String {
        match *self {
            Outcome::Win { winner, reason } => {
                let loser = !winner;
                match reason {
                    WinReason::NoPieces => format!("{loser} has no pieces left: {winner} wins"),
                    WinReason::Blocked => format!("{loser} is blocked: {winner} wins"),
                    WinReason::Resignation => format!("{loser} resigns: {winner} wins"),
                    WinReason::KingBeatsLoneMan => {
                        format!("king against a lone man: {winner} wins")
                    }
                }
            }
            Outcome::Draw(reason) => match reason {
                DrawReason::OnePieceEach => "draw: one piece each".to_string(),
                DrawReason::Repetition => "draw: threefold repetition".to_string(),
                DrawReason::MutualBlock => "draw: both sides blocked".to_string(),
                DrawReason::Agreement => "draw: agreed".to_string(),
                DrawReason::NoCaptureLimit => "draw: no-capture limit reached".to_string(),
            },
        }
    }

    /// The PDN result token: `1-0` White wins, `0-1` Black wins, `1/2-1/2` draw (the PDN 3.0
    /// game-result tokens of the chess tradition, which pydraughts also writes; readers of this
    /// crate accept `2-0`, `0-2` and `1-1` as well).
    pub fn pdn_result(&self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// How the game stands from the board alone, under `rules`: the side to move has no pieces or
/// no legal move, mutual block, one piece each, or (with the option) king against lone man.
/// Repetition, the no-capture limit, agreement and resignation need the history: see
/// [`Game::outcome`].
pub fn position_outcome(pos: &Position, rules: &RuleSet) -> Option<Outcome> {
    let us = pos.side_to_move();
    let them = !us;
    if pos.count(us) == 0 {
        return Some(Outcome::Win {
            winner: them,
            reason: WinReason::NoPieces,
        });
    }
    if pos.count(them) == 0 {
        // Not reachable by play (the side that lost its last piece is to move), but a set-up
        // position may say so: the side with pieces has won.
        return Some(Outcome::Win {
            winner: us,
            reason: WinReason::NoPieces,
        });
    }
    // One piece each ends the game at once, before anything is played from it.
    if pos.count(us) == 1 && pos.count(them) == 1 {
        if rules.king_beats_lone_man {
            for c in Color::BOTH {
                if pos.kings_of(c) != 0 && pos.men_of(!c) != 0 {
                    return Some(Outcome::Win {
                        winner: c,
                        reason: WinReason::KingBeatsLoneMan,
                    });
                }
            }
        }
        return Some(Outcome::Draw(DrawReason::OnePieceEach));
    }
    if !pos.has_legal_move() {
        if !pos.with_side_to_move(them).has_legal_move() {
            return Some(Outcome::Draw(DrawReason::MutualBlock));
        }
        return Some(Outcome::Win {
            winner: them,
            reason: WinReason::Blocked,
        });
    }
    None
}

/// Why a move could not be played in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The move is not legal in the current position.
    Illegal {
        /// The move, in landing notation as far as it can be written.
        played: String,
        /// The legal moves, in landing notation.
        legal: Vec<String>,
    },
    /// The move text was not understood, not legal or ambiguous.
    Notation(MoveError),
    /// The game is over.
    Over(Outcome),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Illegal { played, legal } => write!(
                f,
                "{played} is not legal here; legal moves: {}",
                legal.join(" ")
            ),
            GameError::Notation(e) => e.fmt(f),
            GameError::Over(o) => write!(f, "the game is over ({})", o.describe()),
        }
    }
}

// No `source`: the Display of `Notation` already says what the `MoveError` says, and an error
// chain that held it too would print it twice.
impl std::error::Error for GameError {}

impl From<MoveError> for GameError {
    fn from(e: MoveError) -> GameError {
        GameError::Notation(e)
    }
}

/// A game: rules, start position, moves played, a redo stack and any result declared by the
/// players. The position after every ply is kept, so going back costs nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    rules: RuleSet,
    /// `positions[i]` is the position after `i` plies; `positions[0]` the start.
    positions: Vec<Position>,
    /// Zobrist keys of `positions`, kept apart so the engine can borrow them as a slice.
    keys: Vec<u64>,
    /// `run_start[i]`: index of the first position after the last irreversible move played
    /// before position `i` (0 if none). Positions before it can never occur again.
    run_start: Vec<usize>,
    /// `quiet_plies[i]`: plies without a capture before position `i`.
    quiet_plies: Vec<u32>,
    moves: Vec<Move>,
    /// Moves taken back, the next one to redo last.
    redo_stack: Vec<Move>,
    /// A resignation or agreed draw.
    declared: Option<Outcome>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    /// A game from the start position under the default rules.
    pub fn new() -> Game {
        Game::from_position(Position::start(), RuleSet::default())
    }

    /// A game from the start position under `rules`.
    pub fn with_rules(rules: RuleSet) -> Game {
        Game::from_position(Position::start(), rules)
    }

    /// A game from a set-up position under `rules`. Repetitions and the no-capture count start
    /// from this position.
    pub fn from_position(start: Position, rules: RuleSet) -> Game {
        Game {
            rules,
            positions: vec![start],
            keys: vec![start.key()],
            run_start: vec![0],
            quiet_plies: vec![0],
            moves: Vec::new(),
            redo_stack: Vec::new(),
            declared: None,
        }
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The position the game started from.
    pub fn initial_position(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions
            .last()
            .expect("a game always has its start position")
    }

    /// The moves played, first to last.
    pub fn history(&self) -> &[Move] {
        &self.moves
    }

    /// Number of plies played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The position after `ply` plies (0 = the start), or `None` past the current ply.
    pub fn position_at(&self, ply: usize) -> Option<Position> {
        self.positions.get(ply).copied()
    }

    /// The legal moves in the current position; empty once the game is over.
    pub fn legal_moves(&self) -> MoveList {
        if self.outcome().is_some() {
            MoveList::new()
        } else {
            self.position().legal_moves()
        }
    }

    /// How many times the current placement, with the same side to move, has occurred in the
    /// game so far (1 the first time).
    pub fn repetition_count(&self) -> usize {
        let now = self.position();
        let start = *self.run_start.last().expect("never empty");
        self.positions[start..]
            .iter()
            .filter(|p| p.key() == now.key() && *p == now)
            .count()
    }

    /// Plies played since the last capture (or since the start).
    pub fn plies_without_capture(&self) -> u32 {
        *self.quiet_plies.last().expect("never empty")
    }

    /// The result, if the game is over: a declared result (resignation, agreement), else the
    /// board ([`position_outcome`]), else threefold repetition, else the no-capture limit.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.declared {
            return Some(o);
        }
        if let Some(o) = position_outcome(self.position(), &self.rules) {
            return Some(o);
        }
        if self.repetition_count() >= 3 {
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        if let Some(n) = self.rules.no_capture_limit {
            if self.plies_without_capture() >= n {
                return Some(Outcome::Draw(DrawReason::NoCaptureLimit));
            }
        }
        None
    }

    /// Plays a move. It must be legal and the game not over. Playing the move that [`Game::redo`]
    /// would play keeps the rest of the redo stack; any other move clears it.
    pub fn play(&mut self, m: &Move) -> Result<(), GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        let pos = *self.position();
        let legal = pos.legal_moves();
        if !legal.contains(m) {
            return Err(GameError::Illegal {
                played: describe_move(m),
                legal: legal
                    .iter()
                    .map(|l| pos.write_move(l, Notation::Landing))
                    .collect(),
            });
        }
        if self.redo_stack.last() == Some(m) {
            self.redo_stack.pop();
        } else {
            self.redo_stack.clear();
        }
        self.push(*m);
        Ok(())
    }

    /// Reads a move in any notation [`Position::parse_move`] accepts and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        let m = self.position().parse_move(text)?;
        self.play(&m)?;
        Ok(m)
    }

    /// Appends a move known to be legal.
    fn push(&mut self, m: Move) {
        let before = *self.position();
        let after = before.play(&m);
        let i = self.positions.len();
        let run = if before.is_irreversible(&m) {
            i
        } else {
            *self.run_start.last().expect("never empty")
        };
        let quiet = if m.is_capture() {
            0
        } else {
            self.plies_without_capture().saturating_add(1)
        };
        self.positions.push(after);
        self.keys.push(after.key());
        self.run_start.push(run);
        self.quiet_plies.push(quiet);
        self.moves.push(m);
    }

    /// Takes back the last move and puts it on the redo stack; also withdraws a resignation or
    /// agreed draw. Returns the move taken back, or `None` if no move had been played (a
    /// declared result is withdrawn all the same).
    pub fn undo(&mut self) -> Option<Move> {
        self.declared = None;
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        self.run_start.pop();
        self.quiet_plies.pop();
        self.redo_stack.push(m);
        Some(m)
    }

    /// Plays again the last move taken back. Returns it, or `None` if there is none or the
    /// game is over (a result was declared after the undo).
    pub fn redo(&mut self) -> Option<Move> {
        if !self.can_redo() {
            return None;
        }
        let m = self.redo_stack.pop()?;
        self.push(m);
        Some(m)
    }

    /// Whether [`Game::undo`] would change anything: a move to take back or a declared result.
    pub fn can_undo(&self) -> bool {
        !self.moves.is_empty() || self.declared.is_some()
    }

    /// Whether [`Game::redo`] would play a move.
    pub fn can_redo(&self) -> bool {
        !self.redo_stack.is_empty() && self.outcome().is_none()
    }

    /// The moves [`Game::redo`] would play, next one last.
    pub fn redo_moves(&self) -> &[Move] {
        &self.redo_stack
    }

    /// `loser` resigns. Does nothing if the game is already over.
    pub fn resign(&mut self, loser: Color) {
        if self.outcome().is_none() {
            self.declared = Some(Outcome::Win {
                winner: !loser,
                reason: WinReason::Resignation,
            });
        }
    }

    /// The players agree to a draw. Does nothing if the game is already over.
    pub fn agree_draw(&mut self) {
        if self.outcome().is_none() {
            self.declared = Some(Outcome::Draw(DrawReason::Agreement));
        }
    }

    /// Sets a declared result read from a record (resignation or agreement), without checking
    /// the board. Used by the PDN reader for results the moves do not explain.
    pub(crate) fn declare(&mut self, outcome: Outcome) {
        self.declared = Some(outcome);
    }

    /// The result declared by the players (resignation or agreement), if any.
    pub fn declared_outcome(&self) -> Option<Outcome> {
        self.declared
    }

    /// Zobrist keys of the positions since the last irreversible move (a capture, a man's
    /// forward step, a promotion) up to and including the current position, oldest first.
    /// Only these can repeat: an engine checks its search positions against them.
    pub fn repetition_keys(&self) -> &[u64] {
        let start = *self.run_start.last().expect("never empty");
        &self.keys[start..]
    }
}

/// A move written without its position, for error messages about moves that are not legal
/// (so no route is known).
fn describe_move(m: &Move) -> String {
    let sep = if m.is_capture() { 'x' } else { '-' };
    let mut s = format!("{}{sep}{}", m.from(), m.to());
    if m.is_promotion() {
        s.push_str("=K");
    }
    s
}
