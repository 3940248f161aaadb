//! Games as the web app stores them: moves as storage tokens, and a game rebuilt from them.
//! (How a move and a game's end are described for the page is the rules crate's
//! `damasi::MoveInfo` and `damasi::OutcomeInfo`.)

use std::time::Duration;

use damasi::{Game, Move, Position, RuleSet, Square, TimeControl};

use crate::error::ApiError;

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
