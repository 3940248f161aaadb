//! A game as the bot reads it from the online service's `gameFull`: who sits where, the
//! position, the legal moves with their routes, the clocks and how it ended.

use damasi::{Color, Outcome, Position, Square};
use serde::Deserialize;
use serde_json::Value;

/// A legal move as the service describes it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Legal {
    /// Landing notation (what the bot plays).
    pub landing: String,
    /// Start square.
    pub from: String,
    /// End square.
    pub to: String,
}

/// A seat's player.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Seat {
    /// Account id.
    pub id: i64,
    /// Account name.
    pub name: String,
}

/// One game, as of one `gameFull`.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// White's and Black's players.
    pub seats: [Option<Seat>; 2],
    /// The position now.
    pub position: Position,
    /// The legal moves of the side to move while the game is played.
    pub legal: Vec<Legal>,
    /// Moves played, in the service's storage notation.
    pub plies: usize,
    /// The last move, as written in the game's move list.
    pub last_move: Option<String>,
    /// White's and Black's clocks in ms.
    pub clocks: [u64; 2],
    /// Time left for the first move of the side to move, before any is made.
    pub first_move_ms: Option<u64>,
    /// Not begun (a seat is free).
    pub open: bool,
    /// How it ended, if it has.
    pub outcome: Option<Outcome>,
    /// Which side offers a draw.
    pub draw_offer: Option<Color>,
    /// Rated.
    pub rated: bool,
    /// A correspondence game's days a move (none for a live game).
    pub days_per_turn: Option<u64>,
}

impl GameView {
    /// Reads a `gameFull` message.
    pub fn from_full(full: &Value) -> Result<GameView, String> {
        let state = &full["state"];
        let text = |v: &Value, what: &str| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("gameFull without {what}"))
        };
        let seat = |v: &Value| {
            serde_json::from_value::<Option<Seat>>(v.clone())
                .ok()
                .flatten()
        };
        let fen = text(&state["fen"], "state.fen")?;
        let position = Position::from_fen(&fen).map_err(|e| format!("gameFull fen: {e}"))?;
        let legal = match &state["legal"] {
            Value::Null => Vec::new(),
            v => serde_json::from_value(v.clone()).map_err(|e| format!("gameFull legal: {e}"))?,
        };
        let moves = state["moves"].as_str().unwrap_or("");
        let outcome = state["outcome"]
            .as_str()
            .map(|c| {
                c.parse::<Outcome>()
                    .map_err(|e| format!("gameFull outcome: {e}"))
            })
            .transpose()?;
        let draw_offer = if state["wdraw"].as_bool() == Some(true) {
            Some(Color::White)
        } else if state["bdraw"].as_bool() == Some(true) {
            Some(Color::Black)
        } else {
            None
        };
        Ok(GameView {
            id: text(&full["id"], "id")?,
            seats: [seat(&full["white"]), seat(&full["black"])],
            position,
            legal,
            plies: moves.split_whitespace().count(),
            last_move: moves.split_whitespace().last().map(str::to_string),
            clocks: [
                state["wtime"].as_u64().unwrap_or(0),
                state["btime"].as_u64().unwrap_or(0),
            ],
            first_move_ms: state["firstMoveMs"].as_u64(),
            open: state["status"].as_str() == Some("created"),
            outcome,
            draw_offer,
            rated: full["rated"].as_bool().unwrap_or(false),
            days_per_turn: full["daysPerTurn"].as_u64(),
        })
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.side_to_move()
    }

    /// Whether the game is being played (both seated, not over).
    pub fn playing(&self) -> bool {
        !self.open && self.outcome.is_none()
    }

    /// The side account `player` plays, if any.
    pub fn side_of(&self, player: i64) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&c| self.seat(c).is_some_and(|s| s.id == player))
    }

    /// The player of `side`.
    pub fn seat(&self, side: Color) -> Option<&Seat> {
        self.seats[usize::from(side == Color::Black)].as_ref()
    }

    /// The legal moves from `from`.
    pub fn moves_from(&self, from: Square) -> Vec<&Legal> {
        let from = from.to_string();
        self.legal.iter().filter(|m| m.from == from).collect()
    }

    /// Whether the side to move must capture (every legal move is a capture).
    pub fn must_capture(&self) -> bool {
        self.legal.first().is_some_and(|m| m.landing.contains('x'))
    }
}

/// A clock reading as people read it: `m:ss`, or `h:mm:ss` from an hour.
pub fn clock_text(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    let (h, m, s) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_game_full_is_read() {
        let full = json!({
            "type": "gameFull", "id": "abcd1234", "rated": false,
            "white": {"id": 3, "name": "tg-ali", "guest": true},
            "black": null,
            "state": {
                "fen": "W:Wa2:Bh7", "moves": "", "wtime": 600000, "btime": 600000,
                "status": "created", "outcome": null, "legal": null, "wdraw": false, "bdraw": false
            }
        });
        let g = GameView::from_full(&full).unwrap();
        assert!(g.open && !g.playing());
        assert_eq!(g.side_of(3), Some(Color::White));
        assert_eq!(g.side_of(4), None);
        assert_eq!(g.plies, 0);
    }

    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        assert_eq!(clock_text(600_000), "10:00");
        assert_eq!(clock_text(59_001), "1:00");
        assert_eq!(clock_text(5_400_000), "1:30:00");
        assert_eq!(clock_text(0), "0:00");
    }
}
