//! A game for the offline page: the page holds no rules, it asks this for the board, the legal
//! moves, the result and the record. Exported to JavaScript as `Game`; results are plain
//! strings (JSON where there is structure, written by serde from the rules crate's views, so
//! that the page reads the same fields as from the server), errors are messages.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::wasm_bindgen;

use damasi::hub::{parse_hub_move, write_hub_move, write_hub_position};
use damasi::pdn::{self, PdnGame};
use damasi::{Game, MoveInfo, Notation, OutcomeInfo, Position};
use serde::Serialize;

/// A game: start position, moves, draw rules, PDN.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen(js_name = Game))]
pub struct WebGame {
    record: PdnGame,
}

impl Default for WebGame {
    fn default() -> Self {
        WebGame::new()
    }
}

/// The game as the page's game view sees it: the fields of the web API's game view that a
/// game without a server has (`GET /api/games/{id}`, docs/web-api.md).
#[derive(Serialize)]
struct GameView {
    start_fen: String,
    fen: String,
    side: &'static str,
    plies: Vec<PlyView>,
    legal: Vec<MoveInfo>,
    forced_capture: bool,
    outcome: OutcomeInfo,
}

/// One ply: the move, the position after it; no thinking time and no clock in the browser.
#[derive(Serialize)]
struct PlyView {
    #[serde(rename = "move")]
    mv: MoveInfo,
    fen: String,
    elapsed_ms: u64,
    clock: Option<()>,
}

/// A legal move as the offline page's board takes it.
#[derive(Serialize)]
struct LegalMove {
    /// Landing notation.
    text: String,
    from: String,
    to: String,
    /// The captured squares in the order they are jumped.
    captured: Vec<String>,
}

/// `value` as JSON: these views are plain data, which always serialise.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen(js_class = Game))]
impl WebGame {
    /// The game as the web API's game view describes it (JSON): `start_fen`, `fen`, `side`,
    /// `plies` (each `{move, fen}`), `legal`, `forced_capture` and `outcome` (`over`,
    /// `result`, `winner`, `code`, `reason`). The main page plays with it when there is no
    /// server.
    pub fn view(&self) -> String {
        let g = &self.record.game;
        let plies = g
            .history()
            .iter()
            .enumerate()
            .map(|(ply, m)| {
                let before = g.position_at(ply).expect("a position before every move");
                let after = g.position_at(ply + 1).expect("a position after every move");
                PlyView {
                    mv: MoveInfo::new(&before, m),
                    fen: after.to_fen(),
                    elapsed_ms: 0,
                    clock: None,
                }
            })
            .collect();
        let pos = g.position();
        let outcome = OutcomeInfo::of(g);
        json(&GameView {
            start_fen: g.initial_position().to_fen(),
            fen: pos.to_fen(),
            side: pos.side_to_move().name(),
            plies,
            forced_capture: !outcome.over && pos.has_capture(),
            legal: g
                .legal_moves()
                .iter()
                .map(|m| MoveInfo::new(pos, m))
                .collect(),
            outcome,
        })
    }

    /// Both sides agree to a draw (refused, as a no-op, once the game is over).
    pub fn agree_draw(&mut self) {
        if self.record.game.outcome().is_none() {
            self.record.game.agree_draw();
        }
    }

    /// A game from the start position.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new() -> WebGame {
        WebGame {
            record: PdnGame::new(Game::new()),
        }
    }

    /// A game from a FEN; the error says what is wrong with it.
    pub fn from_fen(fen: &str) -> Result<WebGame, String> {
        let pos = Position::from_fen(fen).map_err(|e| e.to_string())?;
        Ok(WebGame {
            record: PdnGame::new(Game::from_position(pos, Default::default())),
        })
    }

    /// The first game of a PDN text; the error names the line.
    pub fn from_pdn(text: &str) -> Result<WebGame, String> {
        let record = pdn::read_game(text).map_err(|e| e.to_string())?;
        Ok(WebGame { record })
    }

    /// The game as PDN (landing notation).
    pub fn pdn(&self) -> String {
        pdn::write_game(&self.record, Notation::Landing)
    }

    /// Sets a PDN tag (`White`, `Black`, `Date`, ...).
    pub fn set_tag(&mut self, name: &str, value: &str) {
        self.record.set_tag(name, value);
    }

    /// The current position as a FEN.
    pub fn fen(&self) -> String {
        self.record.game.position().to_fen()
    }

    /// The current position as a Hub position string: side to move, then 64 squares from a8
    /// to h1 (`w`/`b` men, `W`/`B` kings, `e` empty). The page draws the board from it.
    pub fn board(&self) -> String {
        write_hub_position(self.record.game.position())
    }

    /// The start position as a Hub position string (for the engine's `pos` line).
    pub fn start_board(&self) -> String {
        write_hub_position(self.record.game.initial_position())
    }

    /// The moves played in Hub notation, separated by spaces (for the engine's `moves=`).
    pub fn hub_moves(&self) -> String {
        let moves: Vec<String> = self
            .record
            .game
            .history()
            .iter()
            .map(write_hub_move)
            .collect();
        moves.join(" ")
    }

    /// The moves played in landing notation, as a JSON array.
    pub fn history(&self) -> String {
        let g = &self.record.game;
        let moves: Vec<String> = g
            .history()
            .iter()
            .enumerate()
            .map(|(ply, m)| {
                g.position_at(ply)
                    .expect("a position before every move")
                    .write_move(m, Notation::Landing)
            })
            .collect();
        json(&moves)
    }

    /// `white` or `black`.
    pub fn turn(&self) -> String {
        self.record
            .game
            .position()
            .side_to_move()
            .name()
            .to_string()
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.record.game.ply()
    }

    /// The legal moves as a JSON array of `{"text", "from", "to", "captured": [..]}` (landing
    /// notation, square names); empty once the game is over.
    pub fn legal(&self) -> String {
        let pos = self.record.game.position();
        let moves: Vec<LegalMove> = self
            .record
            .game
            .legal_moves()
            .iter()
            .map(|m| LegalMove {
                text: pos.write_move(m, Notation::Landing),
                from: m.from().to_string(),
                to: m.to().to_string(),
                captured: pos.capture_order(m).iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        json(&moves)
    }

    /// Plays a move given in landing or captured-square notation; returns it in landing
    /// notation.
    pub fn play(&mut self, text: &str) -> Result<String, String> {
        let pos = *self.record.game.position();
        let m = self
            .record
            .game
            .play_text(text)
            .map_err(|e| e.to_string())?;
        Ok(pos.write_move(&m, Notation::Landing))
    }

    /// Plays a move in Hub notation (the engine's `done move=`); returns it in landing
    /// notation.
    pub fn play_hub(&mut self, text: &str) -> Result<String, String> {
        let pos = *self.record.game.position();
        let m = parse_hub_move(&pos, text).map_err(|e| e.to_string())?;
        self.record.game.play(&m).map_err(|e| e.to_string())?;
        Ok(pos.write_move(&m, Notation::Landing))
    }

    /// Takes back the last move; false at the start.
    pub fn undo(&mut self) -> bool {
        self.record.game.undo().is_some()
    }

    /// The result in words (`Black is blocked: White wins`), or an empty string while the
    /// game goes on.
    pub fn outcome(&self) -> String {
        self.record
            .game
            .outcome()
            .map(|o| o.describe())
            .unwrap_or_default()
    }

    /// The PDN result token: `1-0`, `0-1`, `1/2-1/2`, or `*` while the game goes on.
    pub fn result(&self) -> String {
        self.record
            .game
            .outcome()
            .map_or("*", |o| o.pdn_result())
            .to_string()
    }

    /// `white` or `black` resigns (any other word changes nothing).
    pub fn resign(&mut self, color: &str) {
        if let Some(c) = damasi::Color::from_name(color) {
            self.record.game.resign(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_has_eight_moves_and_a_hub_board() {
        let g = WebGame::new();
        assert_eq!(g.legal().matches("\"text\"").count(), 8);
        assert_eq!(g.board().len(), 65);
        assert_eq!(g.turn(), "white");
        assert_eq!(g.result(), "*");
    }

    #[test]
    fn moves_in_both_notations_and_hub_numbers_round_trip_through_pdn() {
        let mut g = WebGame::new();
        assert_eq!(g.play("d3-d4").unwrap(), "d3-d4");
        // d6-d5 in pydraughts' numbering: d6 = 44, d5 = 36.
        assert_eq!(g.play_hub("44-36").unwrap(), "d6-d5");
        assert_eq!(g.hub_moves(), "20-28 44-36");
        assert_eq!(g.history(), r#"["d3-d4","d6-d5"]"#);
        let again = WebGame::from_pdn(&g.pdn()).unwrap();
        assert_eq!(again.fen(), g.fen());
        assert!(g.play("a1-a2").unwrap_err().contains("not legal"));
        assert!(g.undo());
        assert_eq!(g.ply(), 1);
    }

    #[test]
    fn captures_list_their_victims_and_the_end_is_reported() {
        let mut g = WebGame::from_fen("W:Wd4,a3:Bd5").unwrap();
        assert_eq!(
            g.legal(),
            r#"[{"text":"d4xd6","from":"d4","to":"d6","captured":["d5"]}]"#
        );
        g.play("d4xd6").unwrap();
        assert_eq!(g.outcome(), "Black has no pieces left: White wins");
        assert_eq!(g.result(), "1-0");
        assert!(WebGame::from_fen("zz").is_err());
    }

    #[test]
    fn the_view_describes_moves_as_the_web_api_does() {
        let mut g = WebGame::from_fen("W:Wd4,a3:Bd5").unwrap();
        let v = g.view();
        assert!(v.contains(r#""legal":[{"landing":"d4xd6","captured":"d4xd5","from":"d4","to":"d6","route":["d6"],"captures":["d5"],"promotion":false}]"#), "{v}");
        assert!(v.contains(r#""forced_capture":true"#), "{v}");
        assert!(v.contains(r#""outcome":{"over":false"#), "{v}");
        g.play("d4xd6").unwrap();
        let v = g.view();
        assert!(v.contains(r#""plies":[{"move":{"landing":"d4xd6""#), "{v}");
        assert!(v.contains(r#""fen":"B:Wa3,d6:B""#), "{v}");
        assert!(v.contains(r#""code":"white:no-pieces""#), "{v}");
        assert!(v.contains(r#""winner":"white""#), "{v}");
        assert!(v.contains(r#""legal":[]"#), "{v}");
        let mut d = WebGame::new();
        d.agree_draw();
        assert!(d.view().contains(r#""code":"draw:agreement""#));
    }

    #[test]
    fn the_view_json_is_pinned_field_for_field() {
        // The page reads these names; the web API's game view has the same ones.
        let mut g = WebGame::from_fen("W:Wd4,a3:Bd5").unwrap();
        let capture = r#"{"landing":"d4xd6","captured":"d4xd5","from":"d4","to":"d6","route":["d6"],"captures":["d5"],"promotion":false}"#;
        assert_eq!(
            g.view(),
            format!(
                r#"{{"start_fen":"W:Wa3,d4:Bd5","fen":"W:Wa3,d4:Bd5","side":"white","plies":[],"legal":[{capture}],"forced_capture":true,"outcome":{{"over":false,"result":"*","winner":null,"code":null,"reason":""}}}}"#
            )
        );
        g.play("d4xd6").unwrap();
        assert_eq!(
            g.view(),
            format!(
                r#"{{"start_fen":"W:Wa3,d4:Bd5","fen":"B:Wa3,d6:B","side":"black","plies":[{{"move":{capture},"fen":"B:Wa3,d6:B","elapsed_ms":0,"clock":null}}],"legal":[],"forced_capture":false,"outcome":{{"over":true,"result":"1-0","winner":"white","code":"white:no-pieces","reason":"Black has no pieces left: White wins"}}}}"#
            )
        );
    }
}
