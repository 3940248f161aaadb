//! Learning: the rules course, the federation's ten worked examples and tactics puzzles, with
//! their endpoints (`/api/learn/...`, `/api/puzzles...`).
//!
//! The data lives in `crates/damasi-web/learn/` and is built into the binary:
//!
//! - `course.json`: lessons of short interactive steps ([`Course`]); each step has a position,
//!   a [`Goal`] and the moves that reach it (`accepted`, landing notation as the rules library
//!   writes it, so a page may compare the `landing` text of `POST /api/move` with them).
//! - `examples.json`: the ten worked examples of the federation's rule text ([`Examples`]).
//! - `puzzles.json`: positions from engine self-play where exactly one move wins
//!   (`damasi puzzles generate`), with the solution line and a rating ([`Puzzle`]).
//!
//! A player's puzzle rating is Glicko-2 as for games ([`rate_attempt`]): each attempt is a
//! game against the puzzle, whose rating counts as a fixed opponent.

use std::sync::OnceLock;

use axum::extract::Path;
use axum::Json;
use damasi::{Game, Move, MoveInfo, Position};
use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use crate::error::{ApiError, ApiJson, ApiQuery, HttpError};

/// The course file as built in.
pub const COURSE_JSON: &str = include_str!("../learn/course.json");
/// The federation examples file as built in.
pub const EXAMPLES_JSON: &str = include_str!("../learn/examples.json");
/// The puzzles file as built in.
pub const PUZZLES_JSON: &str = include_str!("../learn/puzzles.json");

/// A text in English and Turkish.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Text {
    /// English.
    pub en: String,
    /// Turkish.
    pub tr: String,
}

/// What a step asks for; `accepted` lists exactly the legal moves that do it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Goal {
    /// Move a piece to `to` (from `from`, if given).
    Reach {
        /// The piece's square, if the step names one.
        from: Option<String>,
        /// The square to reach.
        to: String,
    },
    /// Any move of the piece on `from`.
    Piece {
        /// The piece's square.
        from: String,
    },
    /// The position has a single legal move: play it.
    OnlyMove,
    /// Capture the most pieces: every legal move (they all capture `count` pieces; when
    /// `captured` is given, exactly those).
    MaxCapture {
        /// Pieces every legal move captures.
        count: u32,
        /// The captured squares, when every legal move captures the same ones.
        captured: Option<Vec<String>>,
    },
    /// Promote a man.
    Promote,
    /// End the game with a win for the side to move.
    Win,
    /// End the game in a draw.
    Draw,
}

/// One interactive step of a lesson.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Step {
    /// Stable identifier, unique in the course.
    pub id: String,
    /// Short title.
    pub title: Text,
    /// The explanation and the task.
    pub text: Text,
    /// The position (FEN).
    pub fen: String,
    /// Moves played from `fen` before the step starts (for repetitions); the board shows the
    /// position after them.
    #[serde(default)]
    pub history: Vec<String>,
    /// What the player must do.
    pub goal: Goal,
    /// The moves that do it, in landing notation.
    pub accepted: Vec<String>,
    /// Shown after a wrong try.
    pub wrong: Text,
}

/// A lesson: a few steps on one rule.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Lesson {
    /// Stable identifier.
    pub id: String,
    /// Title.
    pub title: Text,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// The rules course.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Course {
    /// File format version (1).
    pub format: u32,
    /// The course's title.
    pub title: Text,
    /// The lessons, in order.
    pub lessons: Vec<Lesson>,
}

/// The position before an example's position and the move that led to it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Setup {
    /// The earlier position.
    pub fen: String,
    /// The move from it to the example's position.
    #[serde(rename = "move")]
    pub mv: String,
}

/// One worked example of the federation's rule text.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Example {
    /// Stable identifier (`federation-N`).
    pub id: String,
    /// The example's number in the text (1..=10).
    pub number: u32,
    /// The example's title.
    pub title: Text,
    /// What the text says about it.
    pub statement: Text,
    /// The solution explained.
    pub explanation: Text,
    /// The position (FEN).
    pub fen: String,
    /// The position and move before, for the examples that start one move earlier.
    pub setup: Option<Setup>,
    /// The text's answer in its captured-square notation.
    pub answer: String,
    /// The captured squares in order, as the text gives them.
    pub captured: Vec<String>,
    /// Where the capture ends, when the text says.
    pub end: Option<String>,
    /// Whether the text lets the player choose among several captures.
    pub choice: bool,
    /// Every legal move (all of them are right answers), landing notation.
    pub accepted: Vec<String>,
    /// Shown after a wrong try.
    pub wrong: Text,
}

/// The federation's worked examples.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Examples {
    /// File format version (1).
    pub format: u32,
    /// Where the examples come from.
    pub source: String,
    /// How the positions were transcribed.
    pub note: Text,
    /// The examples, in the text's order.
    pub examples: Vec<Example>,
}

/// One tactics puzzle.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Puzzle {
    /// Stable identifier.
    pub id: String,
    /// The position; the side to move solves.
    pub fen: String,
    /// `white` or `black`: the solving side.
    pub side: String,
    /// The solution in landing notation: the winning move, the reply, the next winning move,
    /// ...; odd length, ends with a move of the solving side.
    pub solution: Vec<String>,
    /// Difficulty on the Glicko scale.
    pub rating: u32,
    /// Short tags (`quiet`, `sacrifice`, `capture`, `promotion`, `king`, `endgame`,
    /// `tablebase`).
    #[serde(default)]
    pub themes: Vec<String>,
    /// Depth at which the engine first kept the winning move.
    #[serde(default)]
    pub found_depth: u32,
    /// Legal moves in the position.
    #[serde(default)]
    pub legal_moves: u32,
}

#[derive(Deserialize)]
struct PuzzleFile {
    puzzles: Vec<Puzzle>,
}

/// The built-in course (the file is checked by the tests; a broken one is a build fault).
pub fn course() -> &'static Course {
    static COURSE: OnceLock<Course> = OnceLock::new();
    COURSE.get_or_init(|| serde_json::from_str(COURSE_JSON).expect("learn/course.json is valid"))
}

/// The built-in federation examples.
pub fn examples() -> &'static Examples {
    static EXAMPLES: OnceLock<Examples> = OnceLock::new();
    EXAMPLES
        .get_or_init(|| serde_json::from_str(EXAMPLES_JSON).expect("learn/examples.json is valid"))
}

/// The built-in puzzles, by rising rating.
pub fn puzzles() -> &'static [Puzzle] {
    static PUZZLES: OnceLock<Vec<Puzzle>> = OnceLock::new();
    PUZZLES.get_or_init(|| {
        let file: PuzzleFile =
            serde_json::from_str(PUZZLES_JSON).expect("learn/puzzles.json is valid");
        let mut all = file.puzzles;
        all.sort_by(|a, b| a.rating.cmp(&b.rating).then(a.id.cmp(&b.id)));
        all
    })
}

/// The puzzle with identifier `id`.
pub fn puzzle(id: &str) -> Option<&'static Puzzle> {
    puzzles().iter().find(|p| p.id == id)
}

/// How many puzzles near the asked rating [`near_rating`] chooses among.
pub const NEAREST: usize = 8;

/// A puzzle close to `rating`: one of the [`NEAREST`] puzzles nearest to it that are not in
/// `exclude`, the `pick`-th (modulo their number). `None` when every puzzle is excluded.
pub fn near_rating(rating: f64, exclude: &[&str], pick: usize) -> Option<&'static Puzzle> {
    let mut candidates: Vec<&Puzzle> = puzzles()
        .iter()
        .filter(|p| !exclude.contains(&p.id.as_str()))
        .collect();
    candidates.sort_by(|a, b| {
        let da = (a.rating as f64 - rating).abs();
        let db = (b.rating as f64 - rating).abs();
        da.total_cmp(&db).then(a.id.cmp(&b.id))
    });
    candidates.truncate(NEAREST);
    if candidates.is_empty() {
        return None;
    }
    Some(candidates[pick % candidates.len()])
}

/// A player's puzzle rating (Glicko-2).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct PuzzleRating {
    /// The rating (1500 for a new player).
    pub rating: f64,
    /// Its deviation (350 for a new player).
    pub deviation: f64,
    /// Its volatility (0.06 for a new player).
    pub volatility: f64,
}

impl Default for PuzzleRating {
    fn default() -> Self {
        let r = Glicko2Rating::new();
        PuzzleRating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

/// The deviation a puzzle's rating is taken to have (it is an estimate, not measured).
pub const PUZZLE_DEVIATION: f64 = 80.0;

/// The player's new rating after an attempt at a puzzle rated `puzzle_rating`: a win when
/// `solved`, a loss otherwise (Glicko-2, one attempt per rating period, as lichess's
/// puzzles). Out-of-range inputs (not finite, deviation not positive) start from a new
/// player's rating.
pub fn rate_attempt(player: PuzzleRating, puzzle_rating: f64, solved: bool) -> PuzzleRating {
    let valid = player.rating.is_finite()
        && player.deviation.is_finite()
        && player.deviation > 0.0
        && player.volatility.is_finite()
        && player.volatility > 0.0;
    let p = if valid {
        PuzzleRating {
            rating: player.rating.clamp(0.0, 4000.0),
            deviation: player.deviation.min(350.0),
            volatility: player.volatility.min(0.2),
        }
    } else {
        PuzzleRating::default()
    };
    let me = Glicko2Rating {
        rating: p.rating,
        deviation: p.deviation,
        volatility: p.volatility,
    };
    let puzzle = Glicko2Rating {
        rating: puzzle_rating,
        deviation: PUZZLE_DEVIATION,
        volatility: 0.06,
    };
    let outcome = if solved {
        Outcomes::WIN
    } else {
        Outcomes::LOSS
    };
    let (n, _) = glicko2(&me, &puzzle, &outcome, &Glicko2Config::new());
    PuzzleRating {
        rating: n.rating,
        deviation: n.deviation,
        volatility: n.volatility,
    }
}

/// The result of an attempt at a puzzle.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    /// Whether every move sent was right.
    pub correct: bool,
    /// Whether the puzzle is solved (every move of the solution found, or the game won).
    pub complete: bool,
    /// The opponent's answer to the last move sent, when the solution goes on.
    pub reply: Option<MoveInfo>,
    /// For a wrong move: the move the solution plays there.
    pub expected: Option<MoveInfo>,
    /// The position now: after the last right move and the reply (or before the wrong move).
    pub fen: String,
    /// Moves of the solving side still to find (0 when complete or wrong).
    pub remaining: usize,
}

/// Checks the solving side's `moves` (any notation, in order, without the replies) against
/// puzzle `p`. A move is right when it is the solution's move, or when it wins the game at
/// once. Errors: an illegal or ambiguous move (422), more moves than the solution has (400).
pub fn check_attempt(p: &Puzzle, moves: &[String]) -> Result<Attempt, ApiError> {
    let start = Position::from_fen(&p.fen)
        .map_err(|e| ApiError::Internal(format!("puzzle {}: {e}", p.id)))?;
    let solver_moves = p.solution.len().div_ceil(2);
    if moves.len() > solver_moves {
        return Err(ApiError::BadRequest(format!(
            "moves: the solution has {solver_moves} moves of the solving side, not {}",
            moves.len()
        )));
    }
    let me = start.side_to_move();
    let mut game = Game::from_position(start, damasi::RuleSet::default());
    let mut reply = None;
    for (i, text) in moves.iter().enumerate() {
        let pos = *game.position();
        let expected: Move = pos
            .parse_move(&p.solution[2 * i])
            .map_err(|e| ApiError::Internal(format!("puzzle {}: {e}", p.id)))?;
        let m = pos
            .parse_move(crate::api::check_move_text(text)?)
            .map_err(|e| ApiError::from(e).prefixed(&format!("moves[{i}]")))?;
        let mut after = game.clone();
        after.play(&m)?;
        let wins = after.outcome().and_then(|o| o.winner()) == Some(me);
        if m != expected && !wins {
            return Ok(Attempt {
                correct: false,
                complete: false,
                reply: None,
                expected: Some(MoveInfo::new(&pos, &expected)),
                fen: pos.to_fen(),
                remaining: 0,
            });
        }
        game = after;
        let last = i + 1 == solver_moves;
        if wins || last {
            return Ok(Attempt {
                correct: true,
                complete: true,
                reply: None,
                expected: None,
                fen: game.position().to_fen(),
                remaining: 0,
            });
        }
        let pos = *game.position();
        let r = pos
            .parse_move(&p.solution[2 * i + 1])
            .map_err(|e| ApiError::Internal(format!("puzzle {}: {e}", p.id)))?;
        game.play(&r)?;
        reply = Some(MoveInfo::new(&pos, &r));
    }
    Ok(Attempt {
        correct: true,
        complete: false,
        reply,
        expected: None,
        fen: game.position().to_fen(),
        remaining: solver_moves - moves.len(),
    })
}

/// `GET /api/learn/course`: the rules course (the file `learn/course.json`).
pub async fn course_json() -> Json<&'static Course> {
    Json(course())
}

/// `GET /api/learn/examples`: the federation's worked examples.
pub async fn examples_json() -> Json<&'static Examples> {
    Json(examples())
}

/// A puzzle as `GET /api/puzzles...` shows it: without its solution.
#[derive(Serialize)]
pub struct PuzzleView {
    /// Identifier.
    pub id: String,
    /// The position; the side to move solves.
    pub fen: String,
    /// `white` or `black`.
    pub side: String,
    /// The puzzle's rating.
    pub rating: u32,
    /// Tags.
    pub themes: Vec<String>,
    /// Moves of the solving side in the solution.
    pub moves: usize,
}

impl PuzzleView {
    fn of(p: &Puzzle) -> PuzzleView {
        PuzzleView {
            id: p.id.clone(),
            fen: p.fen.clone(),
            side: p.side.clone(),
            rating: p.rating,
            themes: p.themes.clone(),
            moves: p.solution.len().div_ceil(2),
        }
    }
}

/// Query of `GET /api/puzzles`.
#[derive(Deserialize)]
pub struct PuzzleQuery {
    /// The player's rating (default 1500).
    pub rating: Option<f64>,
    /// Identifiers not to give (comma-separated), e.g. the puzzles just played.
    pub exclude: Option<String>,
}

/// `GET /api/puzzles?rating=R[&exclude=ID,ID]`: a puzzle near rating R.
pub async fn next_puzzle(
    ApiQuery(q): ApiQuery<PuzzleQuery>,
) -> Result<Json<PuzzleView>, HttpError> {
    let rating = q.rating.unwrap_or(1500.0);
    if !rating.is_finite() {
        return Err(ApiError::BadRequest("rating: not a number".into()).into());
    }
    let exclude: Vec<&str> = q
        .exclude
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut bytes = [0u8; 8];
    let pick = match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes) as usize,
        Err(_) => 0,
    };
    near_rating(rating, &exclude, pick)
        .map(|p| Json(PuzzleView::of(p)))
        .ok_or_else(|| ApiError::NotFound("no puzzle left to give".into()))
        .map_err(HttpError)
}

fn find(id: &str) -> Result<&'static Puzzle, ApiError> {
    puzzle(id).ok_or_else(|| {
        let shown: String = id.chars().take(40).collect();
        ApiError::NotFound(format!("no such puzzle: {shown}"))
    })
}

/// `GET /api/puzzles/{id}`.
pub async fn show_puzzle(Path(id): Path<String>) -> Result<Json<PuzzleView>, HttpError> {
    Ok(Json(PuzzleView::of(find(&id)?)))
}

/// Body of `POST /api/puzzles/{id}/attempt`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptRequest {
    /// The solving side's moves so far, in order (any notation), without the replies.
    pub moves: Vec<String>,
    /// The player's puzzle rating, to be updated when the attempt ends.
    pub player: Option<PuzzleRating>,
}

/// Answer of `POST /api/puzzles/{id}/attempt`.
#[derive(Serialize)]
pub struct AttemptAnswer {
    /// The check's result.
    #[serde(flatten)]
    pub attempt: Attempt,
    /// The whole solution, once the attempt has ended (solved or wrong).
    pub solution: Option<Vec<String>>,
    /// The player's new rating, once the attempt has ended, if `player` was sent.
    pub player: Option<PuzzleRating>,
}

/// `POST /api/puzzles/{id}/attempt {moves[, player]}`: checks the moves.
pub async fn attempt(
    Path(id): Path<String>,
    ApiJson(req): ApiJson<AttemptRequest>,
) -> Result<Json<AttemptAnswer>, HttpError> {
    let p = find(&id)?;
    if req.moves.is_empty() {
        return Err(ApiError::BadRequest("moves: at least one move".into()).into());
    }
    let attempt = check_attempt(p, &req.moves)?;
    let ended = attempt.complete || !attempt.correct;
    let player = match (ended, req.player) {
        (true, Some(r)) => Some(rate_attempt(r, p.rating as f64, attempt.correct)),
        _ => None,
    };
    Ok(Json(AttemptAnswer {
        solution: ended.then(|| p.solution.clone()),
        attempt,
        player,
    }))
}
