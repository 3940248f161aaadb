//! Games as the web app describes and stores them: each move described for the page (notation
//! in both styles, route, captured squares), how the game stands, and moves as storage tokens.

use std::time::Duration;

use damasi::{Game, Move, Notation, Outcome, Position, RuleSet, Square, TimeControl};
use serde::Serialize;

use crate::error::ApiError;

/// A legal move as the page and API clients see it.
#[derive(Serialize, Clone, Debug)]
pub struct MoveInfo {
    /// Landing notation, e.g. `b3xd3xd5`.
    pub landing: String,
    /// The federation's captured-square notation, e.g. `b3xc3xd4`.
    pub captured: String,
    /// Start square.
    pub from: String,
    /// End square.
    pub to: String,
    /// The squares the piece lands on, in order, ending with `to` (one square for a quiet move).
    pub route: Vec<String>,
    /// The squares of the captured pieces, in the order they are jumped.
    pub captures: Vec<String>,
    /// Whether a man is promoted by this move.
    pub promotion: bool,
}

impl MoveInfo {
    /// Describes legal move `m` of `pos`.
    pub fn new(pos: &Position, m: &Move) -> MoveInfo {
        MoveInfo {
            landing: pos.write_move(m, Notation::Landing),
            captured: pos.write_move(m, Notation::Captured),
            from: m.from().to_string(),
            to: m.to().to_string(),
            route: route(pos, m).iter().map(Square::to_string).collect(),
            captures: pos.capture_order(m).iter().map(Square::to_string).collect(),
            promotion: m.is_promotion(),
        }
    }
}

/// The landing squares of a move, ending with its end square.
fn route(pos: &Position, m: &Move) -> Vec<Square> {
    pos.route(m).into_iter().skip(1).collect()
}

/// The legal moves of `pos`, described.
pub fn legal_infos(pos: &Position) -> Vec<MoveInfo> {
    pos.legal_moves()
        .iter()
        .map(|m| MoveInfo::new(pos, m))
        .collect()
}

/// How a game ended, or that it goes on.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct OutcomeInfo {
    /// Whether the game is over.
    pub over: bool,
    /// PDN result: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// `white`, `black`, or none for a draw or a game in progress.
    pub winner: Option<String>,
    /// The outcome's machine code ([`Outcome::code`]), e.g. `black:time`; none while the game
    /// goes on. Pages translate this, not `reason`.
    pub code: Option<String>,
    /// Why the game ended, in English, e.g. "draw: one piece each"; empty while it goes on.
    pub reason: String,
}

impl OutcomeInfo {
    /// A game in progress.
    pub fn ongoing() -> OutcomeInfo {
        OutcomeInfo {
            over: false,
            result: "*".into(),
            winner: None,
            code: None,
            reason: String::new(),
        }
    }

    /// The library's outcome, described.
    pub fn from_outcome(o: &Outcome) -> OutcomeInfo {
        OutcomeInfo {
            over: true,
            result: o.pdn_result().into(),
            winner: o.winner().map(|c| c.name().to_string()),
            code: Some(o.code()),
            reason: o.describe(),
        }
    }

    /// The outcome of `game`, or that it goes on.
    pub fn of(game: &Game) -> OutcomeInfo {
        game.outcome()
            .map_or_else(OutcomeInfo::ongoing, |o| OutcomeInfo::from_outcome(&o))
    }
}

/// A game rebuilt from stored moves, and the helpers that write moves for storage.
#[derive(Clone, Debug)]
pub struct Record {
    game: Game,
}

impl Record {
    /// A game starting at `start` under `rules`, timed by `control` if given.
    pub fn new(start: Position, rules: RuleSet, control: Option<TimeControl>) -> Record {
        let game = Game::from_position(start, rules);
        Record {
            game: match control {
                Some(c) => game.with_time_control(c),
                None => game,
            },
        }
    }

    /// Replays stored moves (each a [`Record::token`] and its thinking time in ms): the clocks
    /// come out exactly as they were, since they are pure arithmetic on those times.
    pub fn replay<'a>(
        start: Position,
        rules: RuleSet,
        control: Option<TimeControl>,
        moves: impl IntoIterator<Item = (&'a str, u64)>,
    ) -> Result<Record, ApiError> {
        let mut record = Record::new(start, rules, control);
        for (ply, (token, elapsed)) in moves.into_iter().enumerate() {
            let m = resolve_token(record.game.position(), token).ok_or_else(|| {
                ApiError::Internal(format!(
                    "stored move {ply} '{token}' is not legal in its game"
                ))
            })?;
            record
                .game
                .play_timed(&m, Duration::from_millis(elapsed))
                .map_err(|e| ApiError::Internal(format!("stored move {ply} '{token}': {e}")))?;
        }
        Ok(record)
    }

    /// [`Record::replay`] of a space-separated list of tokens, thinking times from `elapsed`.
    pub fn from_tokens(
        start: Position,
        rules: RuleSet,
        control: Option<TimeControl>,
        tokens: &str,
        elapsed: impl Fn(usize) -> u64,
    ) -> Result<Record, ApiError> {
        Record::replay(
            start,
            rules,
            control,
            tokens
                .split_whitespace()
                .enumerate()
                .map(|(i, t)| (t, elapsed(i))),
        )
    }

    /// The library's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game, handed over.
    pub fn into_game(self) -> Game {
        self.game
    }

    /// A move as a compact identity token `from.to.captured` (captured as hex bits), the form
    /// the database keeps: it does not depend on how notation is written.
    pub fn token(m: &Move) -> String {
        format!("{}.{}.{:x}", m.from(), m.to(), m.captured_bits())
    }
}

fn resolve_token(pos: &Position, token: &str) -> Option<Move> {
    let mut parts = token.split('.');
    let from: Square = parts.next()?.parse().ok()?;
    let to: Square = parts.next()?.parse().ok()?;
    let captured = u64::from_str_radix(parts.next()?, 16).ok()?;
    pos.legal_moves()
        .iter()
        .find(|m| m.from() == from && m.to() == to && m.captured_bits() == captured)
        .copied()
}
