//! A game as the web app keeps it: a start position and the moves played, each move described
//! for the page (notation in both styles, route, captured squares), and how the game stands.

use damasi::{Color, Game, GameError, Move, Notation, Outcome, Position, RuleSet, Square};
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
    /// Why the game ended, e.g. "draw: one piece each"; empty while it goes on.
    pub reason: String,
}

impl OutcomeInfo {
    /// A game in progress.
    pub fn ongoing() -> OutcomeInfo {
        OutcomeInfo {
            over: false,
            result: "*".into(),
            winner: None,
            reason: String::new(),
        }
    }

    /// A win for `winner`, for `reason`.
    pub fn win(winner: Color, reason: String) -> OutcomeInfo {
        OutcomeInfo {
            over: true,
            result: if winner == Color::White { "1-0" } else { "0-1" }.into(),
            winner: Some(winner.name().to_string()),
            reason,
        }
    }

    /// The library's outcome, described.
    pub fn from_outcome(o: &Outcome) -> OutcomeInfo {
        OutcomeInfo {
            over: true,
            result: o.pdn_result().into(),
            winner: o.winner().map(|c| c.name().to_string()),
            reason: o.describe(),
        }
    }

    /// A draw, for `reason`.
    pub fn draw(reason: String) -> OutcomeInfo {
        OutcomeInfo {
            over: true,
            result: "1/2-1/2".into(),
            winner: None,
            reason,
        }
    }
}

/// A game being played: rules, start position and moves, on top of [`damasi::Game`].
#[derive(Clone, Debug)]
pub struct Record {
    game: Game,
}

impl Record {
    /// A game starting at `start` under `rules`.
    pub fn new(start: Position, rules: RuleSet) -> Record {
        Record {
            game: Game::from_position(start, rules),
        }
    }

    /// A record of a game read elsewhere (a PDN import); its declared result is not kept.
    pub fn from_game(game: Game) -> Record {
        let mut record = Record::new(*game.initial_position(), *game.rules());
        for m in game.history() {
            // The moves were legal in `game`, so they are legal here.
            let _ = record.game.play(m);
        }
        record
    }

    /// The library's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        self.game.initial_position()
    }

    /// The position now.
    pub fn current(&self) -> &Position {
        self.game.position()
    }

    /// Every position of the game, the start first.
    pub fn positions(&self) -> Vec<Position> {
        (0..=self.game.ply())
            .filter_map(|i| self.game.position_at(i))
            .collect()
    }

    /// The moves played.
    pub fn moves(&self) -> &[Move] {
        self.game.history()
    }

    /// Plays a legal move of the current position; refuses when the game is over.
    pub fn push(&mut self, m: Move) -> Result<(), ApiError> {
        self.game.play(&m).map_err(|e| match e {
            GameError::Over(o) => {
                ApiError::Conflict(format!("the game is over ({})", o.describe()))
            }
            other => ApiError::Conflict(other.to_string()),
        })
    }

    /// Takes back the last `plies` moves (as many as there are).
    pub fn take_back(&mut self, plies: usize) {
        for _ in 0..plies {
            if self.game.undo().is_none() {
                break;
            }
        }
    }

    /// The moves as compact identity tokens `from.to.captured` (captured as hex bits), the
    /// form the database keeps: it does not depend on how notation is written.
    pub fn to_tokens(&self) -> String {
        self.moves()
            .iter()
            .map(|m| format!("{}.{}.{:x}", m.from(), m.to(), m.captured_bits()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Rebuilds a record from [`Record::to_tokens`] output.
    pub fn from_tokens(start: Position, rules: RuleSet, tokens: &str) -> Result<Record, ApiError> {
        let mut record = Record::new(start, rules);
        for token in tokens.split_whitespace() {
            let m = resolve_token(record.current(), token).ok_or_else(|| {
                ApiError::Internal(format!("stored move '{token}' is not legal in its game"))
            })?;
            record.push(m)?;
        }
        Ok(record)
    }

    /// How the game stands by the rules (no resignation, agreement or time).
    pub fn outcome(&self) -> OutcomeInfo {
        match self.game.outcome() {
            Some(o) => OutcomeInfo::from_outcome(&o),
            None => OutcomeInfo::ongoing(),
        }
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
