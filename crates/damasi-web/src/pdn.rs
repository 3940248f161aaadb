//! PDN records of saved games, through the library's reader and writer: export keeps the tags
//! an imported game came with; import saves every game of a file, or none if one is broken.

use damasi::pdn::{read_games, write_game, PdnGame};
use damasi::{Color, Notation};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::record::{OutcomeInfo, Record};
use crate::store::{GameRow, Player};

/// Tags the library derives from the game itself; they are not kept from imports.
const DERIVED: &[&str] = &["Result", "GameType", "Rules", "SetUp", "FEN"];

/// Most games one import may hold.
const MAX_GAMES: usize = 1000;

fn player_name(p: Player) -> String {
    match p {
        Player::Human => "Player".into(),
        Player::Engine { level } => format!("damasi level {level}"),
    }
}

/// Writes a saved game as PDN in `notation`.
pub fn write(row: &GameRow, record: &Record, outcome: &OutcomeInfo, notation: Notation) -> String {
    let mut game = record.game().clone();
    // A result declared by the players (or a clock) is not in the moves: carry it over.
    if outcome.over && game.outcome().is_none() {
        match outcome.result.as_str() {
            "1-0" => game.resign(Color::Black),
            "0-1" => game.resign(Color::White),
            _ => game.agree_draw(),
        }
    }
    let mut pdn = PdnGame::new(game);
    pdn.set_tag("Event", "damasi game");
    pdn.set_tag("Site", "damasi");
    if let Some(date) = row.created.get(..10) {
        pdn.set_tag("Date", &date.replace('-', "."));
    }
    pdn.set_tag("White", &player_name(row.white));
    pdn.set_tag("Black", &player_name(row.black));
    let kept: Map<String, Value> = serde_json::from_str(&row.tags).unwrap_or_default();
    for (k, v) in &kept {
        if let Some(v) = v.as_str() {
            pdn.set_tag(k, v);
        }
    }
    if outcome.over {
        pdn.set_tag("Termination", &outcome.reason);
    }
    write_game(&pdn, notation)
}

/// Reads every game of a PDN text into rows ready to insert.
pub fn read(text: &str) -> Result<Vec<GameRow>, ApiError> {
    let mut rows = Vec::new();
    for item in read_games(text.as_bytes()) {
        let pdn = item.map_err(|e| ApiError::BadRequest(format!("PDN: {e}")))?;
        if rows.len() == MAX_GAMES {
            return Err(ApiError::BadRequest(format!(
                "PDN: more than {MAX_GAMES} games in one import"
            )));
        }
        rows.push(row_of(pdn)?);
    }
    if rows.is_empty() {
        return Err(ApiError::BadRequest("PDN: no game found".into()));
    }
    Ok(rows)
}

fn row_of(pdn: PdnGame) -> Result<GameRow, ApiError> {
    let record = Record::from_game(pdn.game.clone());
    let (result, reason) = match pdn.game.outcome() {
        Some(o) => (o.pdn_result().to_string(), o.describe()),
        None => ("*".to_string(), String::new()),
    };
    let reason = match pdn.tag("Termination") {
        Some(t) if result != "*" && !t.trim().is_empty() => t.to_string(),
        _ => reason,
    };
    let tags: Map<String, Value> = pdn
        .tags
        .iter()
        .filter(|(k, _)| !DERIVED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    Ok(GameRow {
        id: 0,
        created: String::new(),
        updated: String::new(),
        white: Player::Human,
        black: Player::Human,
        start_fen: record.start().to_fen(),
        moves: record.to_tokens(),
        result,
        reason,
        clock: None,
        tags: Value::Object(tags).to_string(),
        rules: record.game().rules().name(),
    })
}
