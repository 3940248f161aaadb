//! What a page is sent about a move and about a game's end (the `serde` feature): the web
//! app's JSON API and the WebAssembly build's `Game` describe moves and outcomes with these,
//! so the two answer the page field for field alike.

use serde::{Deserialize, Serialize};

use crate::{Game, Move, MoveList, Notation, Outcome, Position};

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
        if m.is_capture() {
            MoveInfo::among(pos, m, &pos.legal_moves())
        } else {
            MoveInfo::among(pos, m, &MoveList::new())
        }
    }

    /// Every legal move of `pos`, described.
    pub fn legal(pos: &Position) -> Vec<MoveInfo> {
        let legal = pos.legal_moves();
        legal
            .iter()
            .map(|m| MoveInfo::among(pos, m, &legal))
            .collect()
    }

    /// [`MoveInfo::new`] with the position's legal moves generated once for all of them
    /// (its texts check a capture against the others). An online game sends every legal move
    /// with every state, so this is written for speed: no formatting machinery, and a quiet
    /// move's two texts are one.
    fn among(pos: &Position, m: &Move, legal: &MoveList) -> MoveInfo {
        let landing = pos.write_move_among(m, Notation::Landing, legal);
        let (captured, route, captures) = if m.is_capture() {
            // The page wants the landings, not the start square.
            let (landings, victims) = pos.landings_and_victims(m);
            (
                pos.write_move_among(m, Notation::Captured, legal),
                landings.iter().map(|s| s.name()).collect(),
                victims.iter().map(|s| s.name()).collect(),
            )
        } else {
            (landing.clone(), vec![m.to().name()], Vec::new())
        };
        MoveInfo {
            landing,
            captured,
            from: m.from().name(),
            to: m.to().name(),
            route,
            captures,
            promotion: m.is_promotion(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn described<'a>(all: &'a [MoveInfo], landing: &str) -> &'a MoveInfo {
        all.iter()
            .find(|i| i.landing == landing)
            .unwrap_or_else(|| panic!("{landing} is not among the legal moves"))
    }

    /// Worked by hand from the rules: White's man on b3 takes c3 (landing on d3), turns and
    /// takes d4 (landing on d5); Black's h7 is not in reach. It is White's only legal move.
    #[test]
    fn a_capture_is_described_with_its_route_and_its_victims() {
        let pos = Position::from_fen("W:Wb3:Bc3,d4,h7").unwrap();
        let all = MoveInfo::legal(&pos);
        assert_eq!(all.len(), 1);
        let m = described(&all, "b3xd3xd5");
        assert_eq!(m.captured, "b3xc3xd4");
        assert_eq!((m.from.as_str(), m.to.as_str()), ("b3", "d5"));
        assert_eq!(m.route, ["d3", "d5"]);
        assert_eq!(m.captures, ["c3", "d4"]);
        assert!(!m.promotion);
        // One move described alone reads the same as among all.
        let alone = MoveInfo::new(&pos, &pos.parse_move("b3xd5").unwrap());
        assert_eq!(&alone, m);
    }

    /// The start position: 8 moves (perft 1 in the rules), the third rank's men stepping
    /// forward, every one quiet.
    #[test]
    fn quiet_moves_have_one_text_and_one_landing() {
        let pos = Position::start();
        let all = MoveInfo::legal(&pos);
        assert_eq!(all.len(), 8);
        let m = described(&all, "d3-d4");
        assert_eq!(m.captured, "d3-d4");
        assert_eq!(m.route, ["d4"]);
        assert!(m.captures.is_empty());
        assert_eq!(&MoveInfo::new(&pos, &pos.parse_move("d3-d4").unwrap()), m);
    }

    /// Two moves with the same captured piece and different stops: the captured-square texts
    /// tell them apart with `>`, as the notation's own example shows.
    #[test]
    fn a_king_with_two_stops_gets_two_texts() {
        let pos = Position::from_fen("B:Wa3,h2:BKa8,h7").unwrap();
        let mut texts: Vec<String> = MoveInfo::legal(&pos)
            .into_iter()
            .map(|i| i.captured)
            .collect();
        texts.sort();
        assert_eq!(texts, ["a8xa3>a1", "a8xa3>a2"]);
    }
}
