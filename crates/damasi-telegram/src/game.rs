//! A game as the bot reads it from the online service's `gameFull`: who sits where, the
//! position, the legal moves with their routes, the clocks and how it ended.

use damasi::{ByColor, Color, MoveInfo, Outcome, Position, Square};
use damasi_online::messages::{GameFull, GameMessage};

/// A legal move as the service describes it.
pub type Legal = MoveInfo;

/// A seat's player, as the online core's `gameFull` gives it (name, title, rating).
pub use damasi_online::messages::Seat;

/// One game, as of one `gameFull`.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// White's and Black's players.
    pub seats: ByColor<Option<Seat>>,
    /// The position now.
    pub position: Position,
    /// The legal moves of the side to move while the game is played.
    pub legal: Vec<Legal>,
    /// Moves played, in the service's storage notation.
    pub plies: usize,
    /// The last move, as written in the game's move list.
    pub last_move: Option<String>,
    /// White's and Black's clocks in ms.
    pub clocks: ByColor<u64>,
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
    pub fn from_full(full: &GameFull) -> Result<GameView, String> {
        let GameMessage::GameState(state) = &full.state else {
            return Err("gameFull without its state".into());
        };
        let position = Position::from_fen(&state.fen).map_err(|e| format!("gameFull fen: {e}"))?;
        let outcome = state
            .outcome
            .as_deref()
            .map(|c| {
                c.parse::<Outcome>()
                    .map_err(|e| format!("gameFull outcome: {e}"))
            })
            .transpose()?;
        let draw_offer = if state.wdraw {
            Some(Color::White)
        } else if state.bdraw {
            Some(Color::Black)
        } else {
            None
        };
        Ok(GameView {
            id: full.id.clone(),
            seats: ByColor::new(full.white.clone(), full.black.clone()),
            position,
            legal: state.legal.clone().unwrap_or_default(),
            plies: state.moves.split_whitespace().count(),
            last_move: state.moves.split_whitespace().last().map(str::to_string),
            clocks: ByColor::new(state.wtime.max(0) as u64, state.btime.max(0) as u64),
            first_move_ms: state.first_move_ms,
            open: state.status == "created",
            outcome,
            draw_offer,
            rated: full.rated,
            days_per_turn: full.days_per_turn.map(|d| d.max(0) as u64),
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
        Color::BOTH
            .into_iter()
            .find(|&c| self.seat(c).is_some_and(|s| s.id == player))
    }

    /// The player of `side`.
    pub fn seat(&self, side: Color) -> Option<&Seat> {
        self.seats[side].as_ref()
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

    #[test]
    fn a_game_full_is_read() {
        // A line as the service sends it: an open game, White seated.
        let line = r#"{"type": "gameFull", "id": "abcd1234", "rated": false, "chatEnabled": true,
            "speed": "rapid", "variant": {"key": "standard", "name": "Standard", "rules": "turkish",
            "noCaptureLimit": null, "kingBeatsLoneMan": false}, "clock": {"initial": 600000,
            "increment": 0}, "daysPerTurn": null, "initialFen": "startpos", "createdAt": 0,
            "white": {"id": 3, "name": "tg-ali", "guest": true, "rating": null, "provisional": null},
            "black": null, "chat": [], "you": null,
            "state": {"type": "gameState", "fen": "W:Wa2:Bh7", "moves": "", "wtime": 600000,
                "btime": 600000, "winc": 0, "binc": 0, "status": "created", "winner": null,
                "outcome": null, "description": null, "firstMoveMs": null, "daysPerTurn": null,
                "legal": null, "fens": null, "wdraw": false, "bdraw": false, "wtakeback": false,
                "btakeback": false, "wrematch": false, "brematch": false, "rematch": null,
                "ratingDiff": {"white": null, "black": null}, "ply": 0, "turn": "white",
                "gone": {"white": false, "black": false}, "version": 1}}"#;
        let GameMessage::GameFull(full) = serde_json::from_str(line).unwrap() else {
            panic!("not a gameFull");
        };
        let g = GameView::from_full(&full).unwrap();
        assert!(g.open && !g.playing());
        assert_eq!(g.side_of(3), Some(Color::White));
        assert_eq!(g.side_of(4), None);
        assert_eq!(g.plies, 0);
        assert_eq!(g.clocks, ByColor::new(600_000, 600_000));
    }

    #[test]
    fn clocks_read_as_minutes_and_seconds() {
        assert_eq!(clock_text(600_000), "10:00");
        assert_eq!(clock_text(59_001), "1:00");
        assert_eq!(clock_text(5_400_000), "1:30:00");
        assert_eq!(clock_text(0), "0:00");
    }
}
