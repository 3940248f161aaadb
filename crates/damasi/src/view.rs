//! What a page is sent about a move and about a game's end (the `serde` feature): the web
//! app's JSON API and the WebAssembly build's `Game` describe moves and outcomes with these,
//! so the two answer the page field for field alike.

use serde::{Deserialize, Serialize};

use crate::{Game, Move, Notation, Outcome, Position, Square};

/// A legal move as the page and API clients see it.
///
/// ```
/// use damasi::{MoveInfo, Position};
///
/// let pos = Position::start();
/// let m = pos.parse_move("d3-d4")?;
/// let info = MoveInfo::new(&pos, &m);
/// assert_eq!((info.from.as_str(), info.route.as_slice()), ("d3", &["d4".to_string()][..]));
/// # Ok::<(), damasi::MoveError>(())
/// ```
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
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
            // The route starts with the start square: the page wants the landings.
            route: pos.route(m).iter().skip(1).map(Square::to_string).collect(),
            captures: pos.capture_order(m).iter().map(Square::to_string).collect(),
            promotion: m.is_promotion(),
        }
    }

    /// Every legal move of `pos`, described.
    pub fn legal(pos: &Position) -> Vec<MoveInfo> {
        pos.legal_moves()
            .iter()
            .map(|m| MoveInfo::new(pos, m))
            .collect()
    }
}

/// How a game ended, or that it goes on.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
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

    /// An outcome, described.
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
