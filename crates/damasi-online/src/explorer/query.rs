//! One position's answer, in the shape of lichess's opening explorer
//! (`explorer.lichess.ovh/lichess` and `/masters`): the totals, the moves most played first
//! with their results and average rating, the best-rated games and the latest ones. Made
//! from the position's aggregate rows alone (at most [`super::MAX_ROWS`], one primary-key range),
//! so its cost does not grow with the games below it.

use std::collections::HashMap;

use damasi::{Color, Move, Notation, Position};
use serde::Serialize;

use crate::db::OnlineDb;
use crate::error::ApiError;
use crate::rating::Speed;
use crate::record::Record;

use super::{GameRef, MoveRow, Source, BANDS};

/// Which games a query counts: speed classes and rating bands (all by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Per class of [`Speed::ALL`], whether it is counted.
    pub speeds: [bool; 5],
    /// Per band of [`BANDS`], whether it is counted.
    pub bands: [bool; 9],
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            speeds: [true; 5],
            bands: [true; 9],
        }
    }
}

impl Filter {
    /// Reads lichess's `speeds` (`blitz,rapid`; `ultraBullet` is understood and matches no
    /// game here, whose fastest class is bullet) and `ratings` (`1600,1800`: the bands'
    /// lower bounds); absent or empty: all.
    pub fn parse(speeds: Option<&str>, ratings: Option<&str>) -> Result<Filter, ApiError> {
        let mut f = Filter::default();
        if let Some(text) = speeds.filter(|t| !t.trim().is_empty()) {
            f.speeds = [false; 5];
            for word in text.split(',').map(str::trim) {
                if word == "ultraBullet" {
                    continue;
                }
                let i = Speed::ALL
                    .iter()
                    .position(|s| s.name() == word)
                    .ok_or_else(|| {
                        ApiError::BadRequest(format!(
                            "speeds: '{word}' is not one of ultraBullet, bullet, blitz, rapid, \
                         classical, correspondence"
                        ))
                    })?;
                f.speeds[i] = true;
            }
        }
        if let Some(text) = ratings.filter(|t| !t.trim().is_empty()) {
            f.bands = [false; 9];
            for word in text.split(',').map(str::trim) {
                let i = word
                    .parse::<i64>()
                    .ok()
                    .and_then(|r| BANDS.iter().position(|b| *b == r))
                    .ok_or_else(|| {
                        ApiError::BadRequest(format!(
                            "ratings: '{word}' is not one of the bands' lower bounds \
                             0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500"
                        ))
                    })?;
                f.bands[i] = true;
            }
        }
        Ok(f)
    }

    fn passes(&self, row: &MoveRow) -> bool {
        let speed = Speed::ALL.iter().position(|s| *s == row.speed);
        speed.is_some_and(|i| self.speeds[i]) && self.bands.get(row.band) == Some(&true)
    }
}

/// One query: a source, a position, which games, and how much to answer.
#[derive(Clone, Debug)]
pub struct Request {
    /// The source.
    pub source: Source,
    /// The position.
    pub position: Position,
    /// Which games count.
    pub filter: Filter,
    /// Most moves listed (lichess's `moves`).
    pub moves: usize,
    /// Most best-rated games listed (`topGames`).
    pub top_games: usize,
    /// Most recent games listed (`recentGames`; the masters have none).
    pub recent_games: usize,
}

/// Most moves listed; lichess's default is 12.
pub const MAX_MOVES: usize = 64;
/// Most `topGames` of the server's games (lichess's cap) and of the masters (lichess's).
pub const MAX_TOP_GAMES: [usize; 2] = [4, 15];
/// Most `recentGames`.
pub const MAX_RECENT_GAMES: usize = 4;

impl Request {
    /// A request with lichess's defaults: 12 moves, 4 top games (15 for the masters), 4
    /// recent games (none for the masters).
    pub fn new(source: Source, position: Position) -> Request {
        Request {
            source,
            position,
            filter: Filter::default(),
            moves: 12,
            top_games: MAX_TOP_GAMES[source as usize],
            recent_games: if source == Source::Masters { 0 } else { 4 },
        }
    }

    /// Reads a count parameter (`moves`, `topGames`, `recentGames`): a whole number, held to
    /// `max`.
    pub fn count(
        name: &str,
        text: Option<&str>,
        default: usize,
        max: usize,
    ) -> Result<usize, ApiError> {
        match text.map(str::trim) {
            None | Some("") => Ok(default),
            Some(t) => t
                .parse::<usize>()
                .map(|n| n.min(max))
                .map_err(|_| ApiError::BadRequest(format!("{name}: '{t}' is not a whole number"))),
        }
    }

    /// Plays lichess's `play` (moves from the position, comma-separated, in any notation the
    /// rules read) on `position`; an illegal move is an error naming it and its place.
    pub fn play(mut position: Position, play: &str) -> Result<Position, ApiError> {
        for (i, text) in play
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .enumerate()
        {
            let m = position
                .parse_move(text)
                .map_err(|e| ApiError::BadRequest(format!("play: move {} '{text}': {e}", i + 1)))?;
            position = position.play(&m);
        }
        Ok(position)
    }
}

/// A player as lichess's explorer names one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExplorerPlayer {
    /// The name (`?` when unknown).
    pub name: String,
    /// The rating when the game was played.
    pub rating: Option<i64>,
}

/// A game listed in `topGames`, `recentGames` or a move's `game`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExplorerGame {
    /// The move the game played from this position (landing notation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uci: Option<String>,
    /// The game's id: an online game's (its page is `/online/{id}`), or a master game's hash.
    pub id: String,
    /// `white`, `black`, or null for a draw.
    pub winner: Option<&'static str>,
    /// The speed class (the server's games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<&'static str>,
    /// White.
    pub white: ExplorerPlayer,
    /// Black.
    pub black: ExplorerPlayer,
    /// The year it was played.
    pub year: Option<i64>,
    /// The month it was played, as lichess writes it (`2024-05`).
    pub month: Option<String>,
}

/// A move of the position and the games that played it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerMove {
    /// The move in landing notation (`c3-c4`, `b3xd3xd5`), as the API writes moves.
    pub uci: String,
    /// The move in the federation's captured-square notation.
    pub san: String,
    /// The average of the games' average ratings (rounded down); none when no game had one.
    pub average_rating: Option<i64>,
    /// Games won by White.
    pub white: i64,
    /// Games drawn.
    pub draws: i64,
    /// Games won by Black.
    pub black: i64,
    /// The game, when exactly one played the move.
    pub game: Option<ExplorerGame>,
}

/// The answer for one position, in lichess's shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerAnswer {
    /// Games that went on from the position and White won.
    pub white: i64,
    /// Drawn.
    pub draws: i64,
    /// Black won.
    pub black: i64,
    /// The moves, most played first (ties in notation order).
    pub moves: Vec<ExplorerMove>,
    /// The best-rated games through the position: the best of each move, speed and band
    /// that pass the filter, best first.
    pub top_games: Vec<ExplorerGame>,
    /// The latest games through it, the same way (absent for the masters, as on lichess).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<ExplorerGame>>,
    /// The opening's name: none known for Turkish draughts.
    pub opening: Option<()>,
}

/// One move's rows added up.
#[derive(Default)]
struct Sum {
    counts: [i64; 3],
    rated: i64,
    rating_sum: i64,
    /// The last row's latest game: the game when only one played the move.
    last: i64,
}

/// The answer to `req`, from its position's rows.
pub async fn explore(db: &OnlineDb, req: &Request) -> Result<ExplorerAnswer, ApiError> {
    let pos = req.position;
    let rows = db.explorer_rows(req.source, pos.key()).await?;
    // The rows' moves are stored as tokens; a row whose move is not legal here belongs to
    // another position with the same 64-bit key and is left out.
    let legal: HashMap<String, Move> = pos
        .legal_moves()
        .iter()
        .map(|m| (Record::token(m), *m))
        .collect();
    let mut sums: HashMap<&str, Sum> = HashMap::new();
    let mut tops = Vec::new();
    let mut recents = Vec::new();
    for row in rows.iter().filter(|r| req.filter.passes(r)) {
        if !legal.contains_key(&row.mv) {
            continue;
        }
        let s = sums.entry(row.mv.as_str()).or_default();
        for (t, c) in s.counts.iter_mut().zip(row.counts) {
            *t += c;
        }
        s.rated += row.rated;
        s.rating_sum += row.rating_sum;
        s.last = row.last.0;
        tops.push((row.top.1, row.top.0, row.mv.as_str()));
        recents.push((row.last.1, row.last.0, row.mv.as_str()));
    }
    let landing = |mv: &str| pos.write_move(&legal[mv], Notation::Landing);
    let mut moves: Vec<(&str, Sum, String)> = sums
        .into_iter()
        .map(|(mv, s)| (mv, s, landing(mv)))
        .collect();
    moves.sort_by(|a, b| {
        let total = |s: &Sum| s.counts.iter().sum::<i64>();
        total(&b.1).cmp(&total(&a.1)).then_with(|| a.2.cmp(&b.2))
    });
    let mut totals = [0i64; 3];
    for (_, s, _) in &moves {
        for (t, c) in totals.iter_mut().zip(s.counts) {
            *t += c;
        }
    }
    moves.truncate(req.moves);
    // Best first (then the newer game), each game once.
    let pick = |mut list: Vec<(i64, i64, &'_ str)>, max: usize| {
        list.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut out: Vec<(i64, String)> = Vec::new();
        for (_, n, mv) in list {
            if out.len() < max && !out.iter().any(|(m, _)| *m == n) {
                out.push((n, landing(mv)));
            }
        }
        out
    };
    let top = pick(tops, req.top_games);
    let recent = pick(recents, req.recent_games);
    let single: Vec<i64> = moves
        .iter()
        .filter(|(_, s, _)| s.counts.iter().sum::<i64>() == 1)
        .map(|(_, s, _)| s.last)
        .collect();
    let mut wanted: Vec<i64> = top.iter().chain(&recent).map(|(n, _)| *n).collect();
    wanted.extend(&single);
    wanted.sort_unstable();
    wanted.dedup();
    let refs: HashMap<i64, GameRef> = db
        .explorer_game_refs(wanted)
        .await?
        .into_iter()
        .map(|g| (g.n, g))
        .collect();
    let shown = |n: i64, uci: Option<String>| refs.get(&n).map(|g| game_json(req.source, g, uci));
    let listed = |list: &[(i64, String)]| -> Vec<ExplorerGame> {
        list.iter()
            .filter_map(|(n, uci)| shown(*n, Some(uci.clone())))
            .collect()
    };
    Ok(ExplorerAnswer {
        white: totals[0],
        draws: totals[1],
        black: totals[2],
        top_games: listed(&top),
        recent_games: (req.source == Source::Server).then(|| listed(&recent)),
        moves: moves
            .into_iter()
            .map(|(mv, s, uci)| ExplorerMove {
                san: pos.write_move(&legal[mv], Notation::Captured),
                average_rating: (s.rated > 0).then(|| s.rating_sum.div_euclid(s.rated)),
                white: s.counts[0],
                draws: s.counts[1],
                black: s.counts[2],
                game: if s.counts.iter().sum::<i64>() == 1 {
                    shown(s.last, None)
                } else {
                    None
                },
                uci,
            })
            .collect(),
        opening: None,
    })
}

fn game_json(source: Source, g: &GameRef, uci: Option<String>) -> ExplorerGame {
    let player = |i: usize| ExplorerPlayer {
        name: g.names[i].clone().unwrap_or_else(|| "?".to_string()),
        rating: g.ratings[i],
    };
    ExplorerGame {
        uci,
        id: g.key.clone(),
        winner: g.winner.map(Color::name),
        speed: (source == Source::Server).then(|| g.speed.name()),
        white: player(0),
        black: player(1),
        year: g.year,
        month: match (g.year, g.month) {
            (Some(y), Some(m)) => Some(format!("{y:04}-{m:02}")),
            _ => None,
        },
    }
}
