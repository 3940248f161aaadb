//! PDN records of saved games, through the library's reader and writer: export keeps the tags
//! an imported game came with and writes the outcome's `Termination`; import keeps every good
//! game of a file and reports each broken one with its line.

use damasi::pdn::{read_games, write_game, PdnGame, TERMINATION_TAG};
use damasi::{Game, Notation, Outcome};
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::store::{GameRow, MoveRow, Player};
use damasi_online::record::Record;

/// A game of an import that could not be read.
#[derive(serde::Serialize)]
pub struct ImportError {
    /// Which game of the file (1 = first), counting broken games too.
    pub game: usize,
    /// The line of the fault.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

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

/// The kept tag holding an imported game's own movetext when it has variations or comments:
/// the saved game is its main line, its export writes this text back, and the page opens it in
/// a study with them all. Not a PDN tag: never exported as one.
pub const MOVETEXT: &str = "_movetext";

/// Longest movetext kept in [`MOVETEXT`]; a longer one keeps only the main line.
const MAX_MOVETEXT: usize = 64 * 1024;

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
        if let (Some(v), false) = (v.as_str(), k == RESULT_ONLY || k == MOVETEXT) {
            pdn.set_tag(k, v);
        }
    }
    let mut text = write_game(&pdn, notation);
    // An imported game with variations or comments: its own movetext, which holds them.
    if let Some(own) = kept.get(MOVETEXT).and_then(Value::as_str) {
        if let Some(at) = text.find("\n\n") {
            text.truncate(at + 2);
            text.push_str(own.trim());
            text.push('\n');
        }
    }
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

/// The movetext of each game of a PDN text, as the page cuts a file (`splitPdnGames` in
/// `assets/js/tree.js`): a game ends at its result token outside comments and variations, or
/// where the next game's tags begin.
pub fn movetexts(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut games = Vec::new();
    let (mut start, mut moved, mut depth, mut i) = (None::<usize>, false, 0usize, 0);
    let until = |from: usize, stop: u8| {
        b[from..]
            .iter()
            .position(|&c| c == stop)
            .map_or(b.len(), |k| from + k)
    };
    let mut end_game = |start: &mut Option<usize>, moved: &mut bool, at: usize| {
        if let (Some(s), true) = (*start, *moved) {
            games.push(&text[s..at]);
        }
        *start = None;
        *moved = false;
    };
    while i < b.len() {
        let c = b[i];
        let line_start = i == 0 || b[i - 1] == b'\n';
        match c {
            b'[' if depth == 0 => {
                if moved {
                    end_game(&mut start, &mut moved, i);
                }
                start = None;
                i = until(i, b'\n');
            }
            b'%' if line_start => i = until(i, b'\n'),
            b'{' => {
                start.get_or_insert(i);
                i = (until(i, b'}') + 1).min(b.len());
            }
            b';' => {
                start.get_or_insert(i);
                i = until(i, b'\n');
            }
            b'(' | b')' => {
                start.get_or_insert(i);
                depth = if c == b'(' {
                    depth + 1
                } else {
                    depth.saturating_sub(1)
                };
                moved = true;
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                start.get_or_insert(i);
                let end = b[i..]
                    .iter()
                    .position(|&c| c.is_ascii_whitespace() || b"(){};[".contains(&c))
                    .map_or(b.len(), |k| i + k);
                let word = &text[i..end];
                moved = true;
                i = end.max(i + 1);
                let result = matches!(
                    word,
                    "1-0" | "0-1" | "1/2-1/2" | "*" | "2-0" | "0-2" | "1-1" | "0-0"
                );
                if depth == 0 && result {
                    end_game(&mut start, &mut moved, i);
                }
            }
        }
    }
    end_game(&mut start, &mut moved, b.len());
    games
}

/// Whether a movetext has more than its main line: a variation or a comment.
fn annotated(movetext: &str) -> bool {
    movetext.contains(['(', '{', ';'])
}

/// Reads every game of a PDN text; a broken game is reported and the rest are kept.
pub fn read(text: &str) -> Result<Read, ApiError> {
    let mut out = Read {
        games: Vec::new(),
        errors: Vec::new(),
    };
    // Which game of the file each good game is, to find its own movetext afterwards.
    let mut index = Vec::new();
    for item in read_games(text.as_bytes()) {
        if out.games.len() + out.errors.len() == MAX_GAMES {
            return Err(ApiError::BadRequest(format!(
                "PDN: more than {MAX_GAMES} games in one import"
            )));
        }
        match item {
            Ok(pdn) => {
                index.push(out.games.len() + out.errors.len());
                out.games.push(row_of(pdn));
            }
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
    // Variations and comments, kept as the game's own movetext, when this cut of the file
    // agrees with the reader on the number of games.
    let texts = movetexts(text);
    if texts.len() == out.games.len() + out.errors.len() {
        for ((row, _), &k) in out.games.iter_mut().zip(&index) {
            let own = texts[k].trim();
            if annotated(own) && own.len() <= MAX_MOVETEXT {
                let mut tags: Map<String, Value> =
                    serde_json::from_str(&row.tags).unwrap_or_default();
                tags.insert(MOVETEXT.into(), Value::String(own.to_string()));
                row.tags = Value::Object(tags).to_string();
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
        .filter(|(k, _)| {
            !DERIVED.contains(&k.as_str()) && ![RESULT_ONLY, MOVETEXT].contains(&k.as_str())
        })
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
        draw_offers: damasi::ByColor::default(),
        pending_draw: None,
        tags: Value::Object(tags).to_string(),
    };
    (row, moves)
}
