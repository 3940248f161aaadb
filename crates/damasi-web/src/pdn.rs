//! PDN records of saved games: export and import.

use damasi::{Notation, Position};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::record::{OutcomeInfo, Record};
use crate::store::{GameRow, Player};

fn player_name(p: Player) -> String {
    match p {
        Player::Human => "Player".into(),
        Player::Engine { level } => format!("damasi level {level}"),
    }
}

/// Writes a saved game as PDN, keeping imported tags.
pub fn write(row: &GameRow, record: &Record, outcome: &OutcomeInfo) -> String {
    let mut tags: Vec<(String, String)> = Vec::new();
    let kept: Map<String, Value> = serde_json::from_str(&row.tags).unwrap_or_default();
    let mut set = |k: &str, v: String| {
        if let Some(t) = tags.iter_mut().find(|(key, _)| key == k) {
            t.1 = v;
        } else {
            tags.push((k.to_string(), v));
        }
    };
    set("Event", "damasi game".into());
    set(
        "Date",
        row.created
            .get(..10)
            .unwrap_or("????.??.??")
            .replace('-', "."),
    );
    set("White", player_name(row.white));
    set("Black", player_name(row.black));
    for (k, v) in &kept {
        if let Some(v) = v.as_str() {
            set(k, v.to_string());
        }
    }
    set("Result", outcome.result.clone());
    set("GameType", "30".into());
    if *record.start() != Position::start() {
        set("FEN", record.start().to_fen());
    }
    set("Rules", row.rules.clone());
    if outcome.over {
        set("Termination", outcome.reason.clone());
    }
    let mut out = String::new();
    for (k, v) in &tags {
        out.push_str(&format!(
            "[{k} \"{}\"]\n",
            v.replace('\\', "\\\\").replace('"', "\\\"")
        ));
    }
    out.push('\n');
    let mut line = String::new();
    let mut pos = *record.start();
    let black_first = pos.side_to_move() == damasi::Color::Black;
    for (i, m) in record.moves().iter().enumerate() {
        let ply = i + usize::from(black_first);
        let mut token = String::new();
        if ply % 2 == 0 {
            token.push_str(&format!("{}. ", ply / 2 + 1));
        } else if i == 0 {
            token.push_str(&format!("{}... ", ply / 2 + 1));
        }
        token.push_str(&pos.write_move(m, Notation::Landing));
        pos = pos.play(m);
        if line.len() + token.len() > 78 {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clear();
        }
        line.push_str(&token);
        line.push(' ');
    }
    line.push_str(&outcome.result);
    out.push_str(line.trim_end());
    out.push_str("\n\n");
    out
}

/// Reads every game of a PDN text into rows ready to insert.
pub fn read(text: &str) -> Result<Vec<GameRow>, ApiError> {
    let mut games = Vec::new();
    let mut tags = Map::new();
    let mut moves = String::new();
    let mut in_moves = false;
    let flush = |tags: &mut Map<String, Value>, moves: &mut String, games: &mut Vec<GameRow>| {
        if tags.is_empty() && moves.trim().is_empty() {
            return Ok(());
        }
        let row = game_row(
            std::mem::take(tags),
            &std::mem::take(moves),
            games.len() + 1,
        )?;
        games.push(row);
        Ok::<(), ApiError>(())
    };
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            if in_moves {
                flush(&mut tags, &mut moves, &mut games)?;
                in_moves = false;
            }
            let inner = t.trim_start_matches('[').trim_end_matches(']');
            let (key, value) = inner
                .split_once(char::is_whitespace)
                .ok_or_else(|| ApiError::BadRequest(format!("PDN: cannot read tag line '{t}'")))?;
            let value = value.trim().trim_matches('"').replace("\\\"", "\"");
            tags.insert(key.to_string(), Value::String(value));
        } else if !t.is_empty() {
            in_moves = true;
            moves.push_str(t);
            moves.push(' ');
        }
    }
    flush(&mut tags, &mut moves, &mut games)?;
    if games.is_empty() {
        return Err(ApiError::BadRequest("PDN: no game found".into()));
    }
    Ok(games)
}

fn game_row(tags: Map<String, Value>, text: &str, n: usize) -> Result<GameRow, ApiError> {
    let tag = |k: &str| tags.get(k).and_then(Value::as_str).map(str::to_string);
    let start = match tag("FEN") {
        Some(f) => Position::from_fen(&f)
            .map_err(|e| ApiError::BadRequest(format!("PDN game {n}: bad FEN tag: {e}")))?,
        None => Position::start(),
    };
    let rules =
        crate::api::parse_rules(tag("Rules").as_deref().filter(|r| r.starts_with("turkish")))?;
    let mut record = Record::new(start, rules);
    // Strip comments, then read tokens: move numbers and results are skipped.
    let mut clean = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = (depth - 1).max(0),
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    let mut result = "*".to_string();
    for raw in clean.split_whitespace() {
        let token = raw.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() {
            continue;
        }
        if ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1"].contains(&token) {
            result = match token {
                "2-0" => "1-0",
                "0-2" => "0-1",
                "1-1" => "1/2-1/2",
                t => t,
            }
            .to_string();
            continue;
        }
        let m = record.current().parse_move(token).map_err(|e| {
            ApiError::BadRequest(format!(
                "PDN game {n}, move {}: {e}",
                record.moves().len() + 1
            ))
        })?;
        record.push(m)?;
    }
    let natural = record.outcome();
    let (result, reason) = if natural.over {
        (natural.result, natural.reason)
    } else if result != "*" {
        let reason = tag("Termination").unwrap_or_else(|| format!("result {result} as recorded"));
        (result, reason)
    } else {
        (result, String::new())
    };
    Ok(GameRow {
        id: 0,
        created: String::new(),
        updated: String::new(),
        white: Player::Human,
        black: Player::Human,
        start_fen: start.to_fen(),
        moves: record.to_tokens(),
        result,
        reason,
        clock: None,
        tags: Value::Object(tags).to_string(),
        rules: record.game().rules().name(),
    })
}
