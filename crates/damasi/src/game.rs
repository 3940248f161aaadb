//! Games: a start position, the moves played, and every way a game ends. On the board
//! (the rules' "End of the game"): no pieces or no legal move loses, mutual block, one piece
//! each and threefold repetition draw, and the rule set's options (no-capture limit, "king
//! beats lone man"), named by a [`RuleSet`] so a record can say which rules it was played
//! under. Off the board: resignation, agreement, loss on time (a draw when the opponent
//! [`cannot_win`]), forfeits, adjudication and abort. Each [`Outcome`] has a stable code.
//!
//! A game may carry a [`Clock`]: [`Game::play_timed`] charges each move's thinking time, which
//! the referee measures. A finished game stays finished: [`Game::take_back`] is refused once
//! it is over.
//!
//! ```
//! use std::time::Duration;
//! use damasi::{Game, GameError, Outcome, DrawReason};
//! use damasi::{Color, TimeControl, WinReason};
//!
//! let mut game = Game::new().with_time_control(TimeControl::from_secs(300, 2));
//! let d4 = game.position().parse_move("d3-d4").unwrap();
//! game.play_timed(&d4, Duration::from_secs(9)).unwrap(); // the first move is not timed
//! let e5 = game.position().parse_move("e6-e5").unwrap();
//! game.play_timed(&e5, Duration::from_secs(10)).unwrap();
//! assert_eq!(game.clock().unwrap().remaining(Color::Black), Duration::from_secs(292));
//! game.agree_draw();
//! assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Agreement)));
//! assert_eq!(game.outcome().unwrap().code(), "draw:agreement");
//! assert!(game.legal_moves().is_empty());
//! assert!(matches!(game.take_back(), Err(GameError::Over(_))));
//! ```

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use crate::clock::{Clock, TimeControl};
use crate::color::Color;
use crate::moves::{Move, MoveList};
use crate::notation::{MoveError, Notation};
use crate::position::Position;

/// The rules a game is played under: the federation's rules plus the options listed in the
/// rules (docs/rules.md, "Rule-set options"), all off by default.
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

/// How a game ended: on the board, or off it (resignation, agreement, time, forfeit,
/// adjudication, abort). Each outcome has a stable machine code ([`Outcome::code`], read back
/// by [`str::parse`]) for records, databases and APIs, and an English sentence
/// ([`Outcome::describe`]) for people.
///
/// ```
/// use damasi::{Color, Outcome, WinReason};
///
/// let o = Outcome::Win { winner: Color::Black, reason: WinReason::Time };
/// assert_eq!(o.code(), "black:time");
/// assert_eq!("black:time".parse::<Outcome>(), Ok(o));
/// assert_eq!(o.describe(), "White ran out of time: Black wins");
/// assert_eq!(o.pdn_result(), "0-1");
/// ```
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
    /// The game was called off before it really began (no result, nothing rated).
    Aborted,
}

/// Why a side won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WinReason {
    /// The loser, to move, has no pieces left.
    NoPieces,
    /// The loser, to move, has pieces but none can move (and the winner could move).
    Blocked,
    /// One king against one man, under the `king-beats-lone-man` option.
    KingBeatsLoneMan,
    /// The loser resigned.
    Resignation,
    /// The loser's time ran out.
    Time,
    /// The loser tried to play an illegal move where the referee forfeits it (engine matches).
    IllegalMove,
    /// The loser is a program that crashed or stopped answering.
    EngineFailure,
    /// An arbiter (or a match runner's adjudication rule) gave the game to the winner.
    Adjudication,
    /// The loser left the game and did not come back in time.
    Abandonment,
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
    /// The `no-capture-limit` option's number of plies passed without a capture.
    NoCaptureLimit,
    /// The players agreed to a draw.
    Agreement,
    /// A side's time ran out, but its opponent has no pieces that could ever win.
    TimeoutCannotWin,
    /// An arbiter (or a match runner's adjudication rule) declared the game drawn.
    Adjudication,
}

impl WinReason {
    /// Every reason, in code order.
    pub const ALL: [WinReason; 9] = [
        WinReason::NoPieces,
        WinReason::Blocked,
        WinReason::KingBeatsLoneMan,
        WinReason::Resignation,
        WinReason::Time,
        WinReason::IllegalMove,
        WinReason::EngineFailure,
        WinReason::Adjudication,
        WinReason::Abandonment,
    ];

    /// The stable machine code, e.g. `no-pieces`, `resignation`, `time`.
    pub fn code(self) -> &'static str {
        match self {
            WinReason::NoPieces => "no-pieces",
            WinReason::Blocked => "blocked",
            WinReason::KingBeatsLoneMan => "king-beats-lone-man",
            WinReason::Resignation => "resignation",
            WinReason::Time => "time",
            WinReason::IllegalMove => "illegal-move",
            WinReason::EngineFailure => "engine-failure",
            WinReason::Adjudication => "adjudication",
            WinReason::Abandonment => "abandonment",
        }
    }

    /// Whether the board itself decided (the rules, not a player, clock or arbiter).
    pub fn is_on_board(self) -> bool {
        matches!(
            self,
            WinReason::NoPieces | WinReason::Blocked | WinReason::KingBeatsLoneMan
        )
    }
}

impl DrawReason {
    /// Every reason, in code order.
    pub const ALL: [DrawReason; 7] = [
        DrawReason::OnePieceEach,
        DrawReason::Repetition,
        DrawReason::MutualBlock,
        DrawReason::NoCaptureLimit,
        DrawReason::Agreement,
        DrawReason::TimeoutCannotWin,
        DrawReason::Adjudication,
    ];

    /// The stable machine code, e.g. `one-piece-each`, `agreement`.
    pub fn code(self) -> &'static str {
        match self {
            DrawReason::OnePieceEach => "one-piece-each",
            DrawReason::Repetition => "repetition",
            DrawReason::MutualBlock => "mutual-block",
            DrawReason::NoCaptureLimit => "no-capture-limit",
            DrawReason::Agreement => "agreement",
            DrawReason::TimeoutCannotWin => "timeout-cannot-win",
            DrawReason::Adjudication => "adjudication",
        }
    }

    /// Whether the board and the rules decided (not the players, a clock or an arbiter).
    pub fn is_on_board(self) -> bool {
        matches!(
            self,
            DrawReason::OnePieceEach
                | DrawReason::Repetition
                | DrawReason::MutualBlock
                | DrawReason::NoCaptureLimit
        )
    }
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw(_) | Outcome::Aborted => None,
        }
    }

    /// Whether the board and the rules ended the game (the moves explain the outcome); false
    /// for resignation, agreement, time, forfeits, adjudication and aborts.
    pub fn is_on_board(&self) -> bool {
        match self {
            Outcome::Win { reason, .. } => reason.is_on_board(),
            Outcome::Draw(reason) => reason.is_on_board(),
            Outcome::Aborted => false,
        }
    }

    /// The reason's code alone: `resignation`, `repetition`, `aborted`, ... (the value of a
    /// PDN `Termination` tag).
    pub fn reason_code(&self) -> &'static str {
        match self {
            Outcome::Win { reason, .. } => reason.code(),
            Outcome::Draw(reason) => reason.code(),
            Outcome::Aborted => "aborted",
        }
    }

    /// The stable machine code: `white:<reason>` or `black:<reason>` for a win, `draw:<reason>`
    /// for a draw, `aborted`. [`str::parse`] reads it back.
    pub fn code(&self) -> String {
        match self {
            Outcome::Win { winner, reason } => format!("{}:{}", winner.name(), reason.code()),
            Outcome::Draw(reason) => format!("draw:{}", reason.code()),
            Outcome::Aborted => "aborted".to_string(),
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
                    WinReason::KingBeatsLoneMan => {
                        format!("king against a lone man: {winner} wins")
                    }
                    WinReason::Resignation => format!("{loser} resigns: {winner} wins"),
                    WinReason::Time => format!("{loser} ran out of time: {winner} wins"),
                    WinReason::IllegalMove => {
                        format!("{loser} forfeits by an illegal move: {winner} wins")
                    }
                    WinReason::EngineFailure => {
                        format!("{loser}'s engine failed: {winner} wins")
                    }
                    WinReason::Adjudication => format!("adjudicated: {winner} wins"),
                    WinReason::Abandonment => format!("{loser} left the game: {winner} wins"),
                }
            }
            Outcome::Draw(reason) => match reason {
                DrawReason::OnePieceEach => "draw: one piece each".to_string(),
                DrawReason::Repetition => "draw: threefold repetition".to_string(),
                DrawReason::MutualBlock => "draw: both sides blocked".to_string(),
                DrawReason::NoCaptureLimit => "draw: no-capture limit reached".to_string(),
                DrawReason::Agreement => "draw: agreed".to_string(),
                DrawReason::TimeoutCannotWin => {
                    "draw: time ran out, but the opponent cannot win".to_string()
                }
                DrawReason::Adjudication => "draw: adjudicated".to_string(),
            },
            Outcome::Aborted => "game aborted".to_string(),
        }
    }

    /// The PDN result token: `1-0` White wins, `0-1` Black wins, `1/2-1/2` draw, `*` for an
    /// aborted game (the PDN 3.0 game-result tokens of the chess tradition, which pydraughts
    /// also writes; readers of this crate accept `2-0`, `0-2` and `1-1` as well).
    pub fn pdn_result(&self) -> &'static str {
        match self {
            Outcome::Aborted => "*",
            _ => match self.winner() {
                Some(Color::White) => "1-0",
                Some(Color::Black) => "0-1",
                None => "1/2-1/2",
            },
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Why an outcome code was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeCodeError(pub String);

impl fmt::Display for OutcomeCodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "outcome code '{}': expected 'white:REASON', 'black:REASON', 'draw:REASON' or 'aborted'",
            self.0
        )
    }
}

impl std::error::Error for OutcomeCodeError {}

impl std::str::FromStr for Outcome {
    type Err = OutcomeCodeError;

    fn from_str(s: &str) -> Result<Outcome, OutcomeCodeError> {
        let err = || OutcomeCodeError(s.chars().take(64).collect());
        if s == "aborted" {
            return Ok(Outcome::Aborted);
        }
        let (who, reason) = s.split_once(':').ok_or_else(err)?;
        match who {
            "draw" => DrawReason::ALL
                .into_iter()
                .find(|r| r.code() == reason)
                .map(Outcome::Draw)
                .ok_or_else(err),
            _ => {
                // The names exactly as `code` writes them.
                let winner = Color::from_name(who)
                    .filter(|c| c.name() == who)
                    .ok_or_else(err)?;
                WinReason::ALL
                    .into_iter()
                    .find(|r| r.code() == reason)
                    .map(|reason| Outcome::Win { winner, reason })
                    .ok_or_else(err)
            }
        }
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

/// Why a move or an action could not be carried out in a game.
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
    /// The game is over: nothing more can be played, taken back or declared.
    Over(Outcome),
    /// No move has been played, so there is nothing to take back.
    NothingToTakeBack,
    /// The game can no longer be aborted: both sides have moved.
    TooLateToAbort,
    /// The outcome is decided by the board and the rules; it cannot be declared.
    NotDeclarable(Outcome),
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
            GameError::NothingToTakeBack => f.write_str("no move to take back"),
            GameError::TooLateToAbort => {
                f.write_str("the game can be aborted only before both sides have moved")
            }
            GameError::NotDeclarable(o) => write!(
                f,
                "'{}' is decided by the board; it cannot be declared",
                o.describe()
            ),
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

/// Whether `side` can never win from `pos` under `rules`, whatever is played: it has a single
/// piece. Every sequence then ends in one piece each (a draw) before it could take the last
/// enemy piece, and one piece cannot block two or more; under `king-beats-lone-man` a lone king
/// still wins against a lone man, so a lone king facing men can win.
pub fn cannot_win(pos: &Position, side: Color, rules: &RuleSet) -> bool {
    if pos.count(side) != 1 {
        return false;
    }
    !(rules.king_beats_lone_man && pos.kings_of(side) != 0 && pos.men_of(!side) != 0)
}

/// A game: rules, start position, moves played (with the clocks after each when the game is
/// timed), a redo stack, and any result declared off the board. The position after every ply
/// is kept, so going back costs nothing, and repetitions are counted as the moves are played,
/// so every move costs the same however long the game.
///
/// A finished game stays finished: nothing can be played, taken back or declared in it.
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
    /// `seen[i]`: how many times position `i` had occurred in its run when it was reached.
    seen: Vec<u32>,
    /// Occurrences of each position of the current run (since the last irreversible move).
    run_counts: HashMap<Position, u32>,
    /// The clocks at every position when the game is timed (empty otherwise).
    clocks: Vec<Clock>,
    moves: Vec<Move>,
    /// Moves taken back, the next one to redo last.
    redo_stack: Vec<Move>,
    /// An outcome declared off the board: resignation, agreement, time, forfeit, abort.
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
            seen: vec![1],
            run_counts: HashMap::from([(start, 1)]),
            clocks: Vec::new(),
            moves: Vec::new(),
            redo_stack: Vec::new(),
            declared: None,
        }
    }

    /// The same game played with clocks under `control`, both full. Call it before the first
    /// move: the moves already played are treated as untimed.
    pub fn with_time_control(mut self, control: TimeControl) -> Game {
        self.clocks = vec![Clock::new(control); self.positions.len()];
        self
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The clocks now, if the game is timed.
    pub fn clock(&self) -> Option<&Clock> {
        self.clocks.last()
    }

    /// The clocks after `ply` plies (0 = at the start), if the game is timed.
    pub fn clock_at(&self, ply: usize) -> Option<&Clock> {
        self.clocks.get(ply)
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
        *self.seen.last().expect("never empty") as usize
    }

    /// Plies played since the last capture (or since the start).
    pub fn plies_without_capture(&self) -> u32 {
        *self.quiet_plies.last().expect("never empty")
    }

    /// The outcome the board and the rules give now, ignoring anything declared: the board
    /// ([`position_outcome`]), else threefold repetition, else the no-capture limit.
    pub fn board_outcome(&self) -> Option<Outcome> {
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

    /// The result, if the game is over: a declared result (resignation, agreement, time,
    /// forfeit, adjudication, abort), else [`Game::board_outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        self.declared.or_else(|| self.board_outcome())
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Plays a move. It must be legal and the game not over. In a timed game the move is
    /// charged no time (see [`Game::play_timed`]). Playing the move that [`Game::redo`] would
    /// play keeps the rest of the redo stack; any other move clears it.
    pub fn play(&mut self, m: &Move) -> Result<(), GameError> {
        self.play_timed(m, Duration::ZERO)
    }

    /// Plays a move that took its player `elapsed` to find, charging it to the mover's clock
    /// when the game is timed. If the mover's time had run out the move is not played, the
    /// game ends on time ([`Game::lose_on_time`]) and the error says so.
    pub fn play_timed(&mut self, m: &Move, elapsed: Duration) -> Result<(), GameError> {
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
        let mut clock = self.clock().copied();
        if let Some(c) = clock.as_mut() {
            if c.charge(pos.side_to_move(), elapsed).is_err() {
                return Err(GameError::Over(self.lose_on_time(pos.side_to_move())?));
            }
        }
        if self.redo_stack.last() == Some(m) {
            self.redo_stack.pop();
        } else {
            self.redo_stack.clear();
        }
        self.push(*m, clock);
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

    /// Appends a move known to be legal, with the clocks after it.
    fn push(&mut self, m: Move, clock: Option<Clock>) {
        let before = *self.position();
        let after = before.play(&m);
        let i = self.positions.len();
        let run = if before.is_irreversible(&m) {
            self.run_counts.clear();
            i
        } else {
            *self.run_start.last().expect("never empty")
        };
        let quiet = if m.is_capture() {
            0
        } else {
            self.plies_without_capture().saturating_add(1)
        };
        let seen = self.run_counts.entry(after).or_insert(0);
        *seen += 1;
        self.seen.push(*seen);
        self.positions.push(after);
        self.keys.push(after.key());
        self.run_start.push(run);
        self.quiet_plies.push(quiet);
        if let Some(c) = clock {
            self.clocks.push(c);
        }
        self.moves.push(m);
    }

    /// Removes the last move, keeping the repetition counts right.
    fn pop(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        let gone = self
            .positions
            .pop()
            .expect("one position per move and the start");
        let run = self.run_start.pop().expect("parallel to positions");
        self.keys.pop();
        self.quiet_plies.pop();
        self.seen.pop();
        if self.clocks.len() > self.positions.len() {
            self.clocks.pop();
        }
        if run == self.positions.len() {
            // The move taken back was irreversible: count the run before it again (once per
            // such take-back, not per move).
            let start = *self.run_start.last().expect("never empty");
            self.run_counts.clear();
            for p in &self.positions[start..] {
                *self.run_counts.entry(*p).or_insert(0) += 1;
            }
        } else if let Some(n) = self.run_counts.get_mut(&gone) {
            *n -= 1;
            if *n == 0 {
                self.run_counts.remove(&gone);
            }
        }
        Some(m)
    }

    /// Takes back the last move (and its clock charge) while the game is in progress, and
    /// puts it on the redo stack. A finished game stays finished: refused once it is over,
    /// whether on the board or by a declared result.
    pub fn take_back(&mut self) -> Result<Move, GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        let m = self.pop().ok_or(GameError::NothingToTakeBack)?;
        self.redo_stack.push(m);
        Ok(m)
    }

    /// [`Game::take_back`] without the reason: the move taken back, or `None` when the game is
    /// over or no move has been played.
    pub fn undo(&mut self) -> Option<Move> {
        self.take_back().ok()
    }

    /// Plays again the last move taken back (charged no time). Returns it, or `None` if there
    /// is none or the game is over.
    pub fn redo(&mut self) -> Option<Move> {
        if !self.can_redo() {
            return None;
        }
        let m = self.redo_stack.pop()?;
        let clock = self.clock().copied().map(|mut c| {
            let _ = c.charge(self.position().side_to_move(), Duration::ZERO);
            c
        });
        self.push(m, clock);
        Some(m)
    }

    /// Whether [`Game::take_back`] would take a move back: one was played and the game goes on.
    pub fn can_undo(&self) -> bool {
        !self.moves.is_empty() && self.outcome().is_none()
    }

    /// Whether [`Game::redo`] would play a move.
    pub fn can_redo(&self) -> bool {
        !self.redo_stack.is_empty() && self.outcome().is_none()
    }

    /// The moves [`Game::redo`] would play, next one last.
    pub fn redo_moves(&self) -> &[Move] {
        &self.redo_stack
    }

    /// Ends the game with an outcome decided off the board: resignation, agreement, time,
    /// forfeit (illegal move, failed engine), adjudication, abandonment, or abort (only before
    /// both sides have moved). Refused when the game is already over, and for outcomes that
    /// only the board decides (no pieces, blocked, one piece each, ...).
    pub fn end(&mut self, outcome: Outcome) -> Result<(), GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        if outcome.is_on_board() {
            return Err(GameError::NotDeclarable(outcome));
        }
        if outcome == Outcome::Aborted && !self.can_abort() {
            return Err(GameError::TooLateToAbort);
        }
        self.declared = Some(outcome);
        Ok(())
    }

    /// Whether the game may still be aborted: it goes on and at most one move was played.
    pub fn can_abort(&self) -> bool {
        self.ply() < 2 && self.outcome().is_none()
    }

    /// `loser` resigns. Does nothing if the game is already over.
    pub fn resign(&mut self, loser: Color) {
        let _ = self.end(Outcome::Win {
            winner: !loser,
            reason: WinReason::Resignation,
        });
    }

    /// The players agree to a draw. Does nothing if the game is already over.
    pub fn agree_draw(&mut self) {
        let _ = self.end(Outcome::Draw(DrawReason::Agreement));
    }

    /// The outcome when `loser`'s time runs out now: a win for the opponent, or a draw when
    /// the opponent [`cannot_win`] from the current position.
    pub fn time_outcome(&self, loser: Color) -> Outcome {
        if cannot_win(self.position(), !loser, &self.rules) {
            Outcome::Draw(DrawReason::TimeoutCannotWin)
        } else {
            Outcome::Win {
                winner: !loser,
                reason: WinReason::Time,
            }
        }
    }

    /// `loser`'s time ran out: its clock shows zero and the game ends on time (see
    /// [`Game::time_outcome`]). Refused when the game is already over.
    pub fn lose_on_time(&mut self, loser: Color) -> Result<Outcome, GameError> {
        let outcome = self.time_outcome(loser);
        self.end(outcome)?;
        if let Some(c) = self.clocks.last_mut() {
            c.flag(loser);
        }
        Ok(outcome)
    }

    /// Sets a declared result read from a record, without checking the board. Used by the PDN
    /// reader for results the moves do not explain.
    pub(crate) fn declare(&mut self, outcome: Outcome) {
        self.declared = Some(outcome);
    }

    /// The result declared off the board (resignation, agreement, time, ...), if any.
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
