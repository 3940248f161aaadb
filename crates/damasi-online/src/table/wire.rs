//! What a table tells the world, in lichess's shapes: the `gameFull` and `gameState` messages,
//! a challenge, a player's `gameStart` / `gameFinish` game, the game export, and the time
//! control as challenges write it. Built from the state; nothing here changes it.

use damasi::{ByColor, Color, Outcome};
use tokio::time::Instant;

use crate::accounts::Player;
use crate::messages::{
    Challenge, ChallengeUser, ChatEntry, Clock as GameClock, Compat, EventGame, ExportClock,
    ExportPlayer, ExportUser, GameExport, GameFull, GameMessage, GameState, Opponent, PerfName,
    Seat, StatusName, TimeControl as ChallengeTimeControl,
};
use crate::rating;

use super::{Status, TableState};

/// A clock's start in minutes as lichess shows it (`5`, `½`, `1.5`).
fn clock_minutes(ms: i64) -> String {
    match ms {
        15_000 => "¼".into(),
        30_000 => "½".into(),
        45_000 => "¾".into(),
        90_000 => "1.5".into(),
        _ => (ms / 60_000).to_string(),
    }
}

impl TableState {
    /// A direct challenge as lichess's API writes it (`challenge`, `challengeDeclined`
    /// events and the answer to `POST /api/challenge/{username}`): its sender is the seated
    /// player, `to` the one challenged, `asked` the colour the sender asked for.
    pub fn challenge(&self, to: &Player, asked: Option<Color>, status: &str) -> Challenge {
        let user = |p: &Player, side: Option<Color>| ChallengeUser {
            id: p.name.to_ascii_lowercase(),
            name: p.name.clone(),
            title: p.title().map(str::to_string),
            rating: side
                .and_then(|side| self.ratings[side])
                .map(|r| r.rating.round() as i64),
        };
        let from = Color::BOTH
            .into_iter()
            .find(|&side| self.seats[side].is_some());
        Challenge {
            id: self.row.id.clone(),
            url: format!("/online/{}", self.row.id),
            status: status.to_string(),
            challenger: from
                .and_then(|side| self.seats[side].as_ref().map(|p| user(p, Some(side)))),
            dest_user: user(to, None),
            variant: crate::variant::of(&self.row.rules),
            rated: self.row.rated,
            speed: self.speed().name().to_string(),
            time_control: self.time_control(),
            color: asked.map_or("random", Color::name).to_string(),
            final_color: from.map(|side| side.name().to_string()),
            perf: PerfName {
                name: self.speed().name().to_string(),
            },
        }
    }

    /// The game of a player's `gameStart` or `gameFinish` event for `side`, in lichess's
    /// shape: `game.gameId`, the colour, whose turn, the opponent, the position.
    pub fn event_game(&self, side: Color) -> EventGame {
        let opponent = &self.seats[!side];
        let rating = self.ratings[!side].map(|r| r.rating.round() as i64);
        let outcome = self.core.game.outcome();
        EventGame {
            game_id: self.row.id.clone(),
            full_id: self.row.id.clone(),
            id: self.row.id.clone(),
            color: side.name().to_string(),
            fen: self.core.game.position().to_fen(),
            has_moved: self.moves.len() > side.index(),
            is_my_turn: self.status == Status::Playing
                && self.core.game.position().side_to_move() == side,
            last_move: self.moves.last().map(str::to_string),
            // The side's time: its clock, or what is left of a correspondence turn.
            seconds_left: (self.clocks_now(Instant::now())[side] / 1000) as i64,
            opponent: Opponent {
                id: opponent.as_ref().map(|p| p.name.to_ascii_lowercase()),
                username: opponent.as_ref().map(|p| p.name.clone()),
                rating,
            },
            rated: self.row.rated,
            speed: self.speed().name().to_string(),
            perf: self.speed().name().to_string(),
            source: self.source().to_string(),
            swiss_id: self.row.swiss_id().map(str::to_string),
            tournament_id: self.row.arena_id().map(str::to_string),
            status: StatusName {
                name: self.lichess_status().to_string(),
            },
            outcome: self.row.outcome.clone(),
            winner: outcome
                .and_then(|o| o.winner())
                .map(|c| c.name().to_string()),
            variant: crate::variant::of(&self.row.rules),
            compat: Compat {
                bot: true,
                board: true,
            },
        }
    }

    /// Where the game came from, in lichess's words: `swiss` or `arena` (a tournament's
    /// pairing), `friend` (a challenge), `lobby`.
    pub fn source(&self) -> &'static str {
        match (self.row.swiss_id(), self.row.arena_id(), self.row.invited) {
            (Some(_), _, _) => "swiss",
            (_, Some(_), _) => "arena",
            (_, _, Some(_)) => "friend",
            _ => "lobby",
        }
    }

    /// The game as lichess's game export writes it in JSON (`GET /game/export/{id}`), with
    /// the same `status` and `outcome` as its last state.
    pub fn export(&self) -> GameExport {
        let outcome = self.core.game.outcome();
        let player = |side: Color| ExportPlayer {
            user: self.seats[side].as_ref().map(|p| ExportUser {
                name: p.name.clone(),
                title: p.title().map(str::to_string),
                id: p.name.to_ascii_lowercase(),
            }),
            rating_diff: self.row.diffs[side.index()],
        };
        let days = self.days_per_turn();
        let variant = crate::variant::of(&self.row.rules);
        GameExport {
            id: self.row.id.clone(),
            rated: self.row.rated,
            variant: variant.key,
            speed: self.speed().name().to_string(),
            perf: self.speed().name().to_string(),
            created_at: self.row.created_ms,
            last_move_at: match self.moves.is_empty() {
                true => self.row.created_ms,
                false => self.row.turn_started_ms.unwrap_or(self.row.created_ms),
            },
            status: self.lichess_status().to_string(),
            source: self.source().to_string(),
            players: ByColor {
                white: player(Color::White),
                black: player(Color::Black),
            },
            winner: outcome
                .and_then(|o| o.winner())
                .map(|c| c.name().to_string()),
            outcome: outcome.map(|o| o.code()),
            moves: self.moves.as_str().to_string(),
            clock: days.is_none().then(|| ExportClock {
                initial: self.row.initial_ms / 1000,
                increment: self.row.increment_ms / 1000,
                total_time: (self.row.initial_ms + 40 * self.row.increment_ms) / 1000,
            }),
            days_per_turn: days,
            tournament: self.row.arena_id().map(str::to_string),
            swiss: self.row.swiss_id().map(str::to_string),
        }
    }

    /// The control as lichess's challenges write it: `{type: "clock", limit, increment,
    /// show}` (seconds) or `{type: "correspondence", daysPerTurn}`.
    pub fn time_control(&self) -> ChallengeTimeControl {
        match self.days_per_turn() {
            Some(days_per_turn) => ChallengeTimeControl::Correspondence { days_per_turn },
            None => ChallengeTimeControl::Clock {
                limit: self.row.initial_ms / 1000,
                increment: self.row.increment_ms / 1000,
                show: format!(
                    "{}+{}",
                    clock_minutes(self.row.initial_ms),
                    self.row.increment_ms / 1000
                ),
            },
        }
    }

    /// The `gameState` message as of `now`.
    pub fn state(&self, now: Instant) -> GameState {
        let clocks = self.clocks_now(now);
        let outcome = self.core.game.outcome();
        let status = self.lichess_status().to_string();
        let game = &self.core.game;
        let ply = game.ply();
        GameState {
            moves: self.moves.as_str().to_string(),
            wtime: clocks.white as i64,
            btime: clocks.black as i64,
            winc: self.row.increment_ms,
            binc: self.row.increment_ms,
            status,
            winner: outcome
                .and_then(|o| o.winner())
                .map(|c| c.name().to_string()),
            outcome: outcome.map(|o| o.code()),
            description: match (self.missed_first_move, outcome) {
                (Some(side), Some(Outcome::Aborted)) => Some(format!(
                    "Aborted: {} did not move within {}.",
                    if side == Color::White {
                        "White"
                    } else {
                        "Black"
                    },
                    match self.days_per_turn() {
                        Some(1) => "1 day".to_string(),
                        Some(days) => format!("{days} days"),
                        None => format!("{} s", self.first_move_time.as_secs()),
                    }
                )),
                (_, o) => o.map(|o| o.describe()),
            },
            first_move_ms: self.first_move_left(now),
            // A correspondence game's days a move (null for a live game).
            days_per_turn: self.days_per_turn(),
            // The legal moves of the side to move, with their routes: one message per ply
            // brings the move, the position, both clocks and what may be played next.
            legal: (self.status == Status::Playing && !game.is_over())
                .then(|| damasi::MoveInfo::legal(game.position())),
            // The last move with its route and captures, for the page to play it on the board.
            last_move: match (
                ply.checked_sub(1).and_then(|p| game.position_at(p)),
                game.history().last(),
            ) {
                (Some(before), Some(m)) => Some(damasi::MoveInfo::new(&before, m)),
                _ => None,
            },
            // A finished game's positions, one per ply from the start, to replay it.
            fens: (self.status == Status::Over).then(|| self.positions()),
            wdraw: self.draw_offer == Some(Color::White),
            bdraw: self.draw_offer == Some(Color::Black),
            wtakeback: self.takeback_offer == Some(Color::White),
            btakeback: self.takeback_offer == Some(Color::Black),
            wrematch: self.rematch.white,
            brematch: self.rematch.black,
            rematch: self.rematch_id.clone(),
            rating_diff: ByColor {
                white: self.row.diffs[0],
                black: self.row.diffs[1],
            },
            fen: game.position().to_fen(),
            ply: ply as u64,
            turn: game.position().side_to_move().name().to_string(),
            gone: ByColor {
                white: self.gone_since.white.is_some(),
                black: self.gone_since.black.is_some(),
            },
            version: self.version,
        }
    }

    /// The `gameFull` message as of `now` for `viewer`: who plays, the control, the state,
    /// `you` (the viewer's colour, or null), and the players' chat, which only the players
    /// see (spectators get an empty one, as on lichess where the players' room is theirs).
    pub fn full(&self, now: Instant, viewer: Option<&Player>) -> GameFull {
        let you = viewer.and_then(|p| self.side_of(p.id));
        let seat = |side: Color| {
            self.seats[side].as_ref().map(|p| {
                let r = self.ratings[side];
                Seat {
                    id: p.id,
                    name: p.name.clone(),
                    guest: p.guest,
                    title: p.title().map(str::to_string),
                    rating: r.map(|r| r.rating.round() as i64),
                    provisional: r.map(|r| rating::is_provisional(&r)),
                }
            })
        };
        GameFull {
            id: self.row.id.clone(),
            rated: self.row.rated,
            chat_enabled: self.row.chat,
            speed: self.speed().name().to_string(),
            variant: crate::variant::of(&self.row.rules),
            // lichess's: a correspondence game has no clock, and its days a move.
            clock: match self.days_per_turn() {
                Some(_) => None,
                None => Some(GameClock {
                    initial: self.row.initial_ms,
                    increment: self.row.increment_ms,
                }),
            },
            days_per_turn: self.days_per_turn(),
            initial_fen: "startpos".to_string(),
            created_at: self.row.created_ms,
            white: seat(Color::White),
            black: seat(Color::Black),
            chat: match you {
                Some(side) => self
                    .chat
                    .iter()
                    .filter(|l| l.hidden_from != Some(side))
                    .map(|l| ChatEntry {
                        username: l.name.clone(),
                        text: l.text.clone(),
                    })
                    .collect(),
                None => Vec::new(),
            },
            state: GameMessage::GameState(Box::new(self.state(now))),
            you: you.map(|c| c.name().to_string()),
            tournament_id: self.row.arena_id().map(str::to_string),
            swiss_id: self.row.swiss_id().map(str::to_string),
        }
    }
}
