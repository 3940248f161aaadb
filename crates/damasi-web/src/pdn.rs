//! PDN records of saved games, through the library's reader and writer: export keeps the tags
//! an imported game came with and writes the outcome's `Termination`; import keeps every good
//! game of a file and reports each broken one with its line.

use damasi::pdn::{read_games, write_game, PdnGame, TERMINATION_TAG};
use damasi::{Game, Notation, Outcome};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::games::ImportError;
use crate::record::Record;
use crate::store::{GameRow, MoveRow, Player};

/// Tags the library derives from the game itself; they are not kept from imports.
const DERIVED: &[&str] = &[
    "Result",
    "GameType",
    "Rules",
    "SetUp",
    "FEN",
    "Termination",
    "TimeControl",
];

/// The kept tag that marks an imported game whose result came without a reason (a `1-0`
/// with no `Termination` tag, and a board that does not explain it): the library reads it as
/// a resignation or an agreed draw, but nothing says so, so the export writes no `Termination`
/// and the page says only who won. Not a PDN tag: never exported.
pub const RESULT_ONLY: &str = "_result_only";

/// Most games one import may hold.
const MAX_GAMES: usize = 1000;

fn player_name(p: Player) -> String {
    match p {
        Player::Human => "Player".into(),
        Player::Engine { level } => format!("damasi level {level}"),
    }
}

/// Writes a saved game as PDN in `notation`.
pub fn write(row: &GameRow, game: &Game, notation: Notation) -> String {
    let mut pdn = PdnGame::new(game.clone());
    pdn.set_tag("Event", "damasi game");
    pdn.set_tag("Site", "damasi");
    if let Some(date) = row.created.get(..10) {
        pdn.set_tag("Date", &date.replace('-', "."));
    }
    pdn.set_tag("White", &player_name(row.white));
    pdn.set_tag("Black", &player_name(row.black));
    let kept: Map<String, Value> = serde_json::from_str(&row.tags).unwrap_or_default();
    for (k, v) in &kept {
        if let (Some(v), false) = (v.as_str(), k == RESULT_ONLY) {
            pdn.set_tag(k, v);
        }
    }
    let text = write_game(&pdn, notation);
    if !kept.contains_key(RESULT_ONLY) {
        return text;
    }
    // The record said only the result: so does its export (no invented reason).
    let line = format!("[{TERMINATION_TAG} ");
    let mut out = String::with_capacity(text.len());
    let mut in_tags = true;
    for l in text.split_inclusive('\n') {
        if in_tags && l.starts_with(&line) {
            continue;
        }
        in_tags &= l.starts_with('[');
        out.push_str(l);
    }
    out
}

/// Whether a saved game's result is one an imported record gave without a reason.
pub fn result_only(tags: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(tags).is_ok_and(|t| t.contains_key(RESULT_ONLY))
}

/// What an import read: the good games as rows ready to insert, and the broken ones.
pub struct Read {
    /// Each good game and its moves.
    pub games: Vec<(GameRow, Vec<MoveRow>)>,
    /// Each broken game: where and why.
    pub errors: Vec<ImportError>,
}

/// Reads every game of a PDN text; a broken game is reported and the rest are kept.
pub fn read(text: &str) -> Result<Read, ApiError> {
    let mut out = Read {
        games: Vec::new(),
        errors: Vec::new(),
    };
    for item in read_games(text.as_bytes()) {
        if out.games.len() + out.errors.len() == MAX_GAMES {
            return Err(ApiError::BadRequest(format!(
                "PDN: more than {MAX_GAMES} games in one import"
            )));
        }
        match item {
            Ok(pdn) => out.games.push(row_of(pdn)),
            Err(e) => {
                // The message without the "line N (game M): " the fields already say.
                let full = e.to_string();
                let message = full
                    .split_once("): ")
                    .map_or(full.as_str(), |(_, m)| m)
                    .to_string();
                out.errors.push(ImportError {
                    game: e.game,
                    line: e.line,
                    message,
                })
            }
        }
    }
    Ok(out)
}

fn row_of(pdn: PdnGame) -> (GameRow, Vec<MoveRow>) {
    let game = &pdn.game;
    let mut tags: Map<String, Value> = pdn
        .tags
        .iter()
        .filter(|(k, _)| !DERIVED.contains(&k.as_str()) && k.as_str() != RESULT_ONLY)
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let declared = game
        .outcome()
        .is_some_and(|o| !o.is_on_board() && o != Outcome::Aborted);
    if declared && pdn.tag(TERMINATION_TAG).is_none() {
        tags.insert(RESULT_ONLY.into(), Value::String("1".into()));
    }
    let moves = game
        .history()
        .iter()
        .enumerate()
        .map(|(ply, m)| {
            let clock = game.clock_at(ply + 1);
            MoveRow {
                token: Record::token(m),
                elapsed_ms: 0,
                white_ms: clock.map(|c| c.remaining(damasi::Color::White).as_millis() as i64),
                black_ms: clock.map(|c| c.remaining(damasi::Color::Black).as_millis() as i64),
            }
        })
        .collect();
    let row = GameRow {
        id: 0,
        created: String::new(),
        updated: String::new(),
        white: Player::Human,
        black: Player::Human,
        start_fen: game.initial_position().to_fen(),
        rules: game.rules().name(),
        time_control: game.clock().map(|c| c.control()),
        outcome: game.outcome().map(|o| o.code()),
        plies: game.ply() as i64,
        turn_started_ms: None,
        paused_ms: None,
        draw_offers: [0, 0],
        pending_draw: None,
        tags: Value::Object(tags).to_string(),
    };
    (row, moves)
}
