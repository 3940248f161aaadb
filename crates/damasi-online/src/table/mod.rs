//! One online game between two people (or programs): the seats, the game with its clocks, the
//! offers between the players, chat, and who is connected. The server's clock is the truth:
//! a move's time runs from the moment the server sent the previous one to the moment the move
//! arrives, less a lag compensation drawn from a small quota (see [`Lag`]), so a player with a
//! slow line is not flagged for the network's time, and one who claims a lag cannot gain more
//! than the quota allows.
//!
//! The state is plain data with methods that say what a request does to it; the service
//! ([`super::Online`]) holds each table behind a lock, saves every change before it is
//! acknowledged, and runs the timers (abort, flag) that end a game with nobody there.

mod chat;
mod lag;
mod wire;

pub use chat::{clean_chat, ChatLine, CHAT_KEPT, CHAT_MAX};
pub use lag::{Lag, LAG_COMP_MAX, LAG_QUOTA_GAIN, LAG_QUOTA_MAX, LAG_QUOTA_START};

use std::collections::VecDeque;
use std::time::Duration;

use damasi::{ByColor, Color, Game, Move, Notation, Outcome, Position, TimeControl, WinReason};
use tokio::time::Instant;

use crate::error::ApiError;
use crate::live::LiveGame;
use crate::record::Record;
use crate::{days_per_turn, DAY_MS};

use super::accounts::Player;
use super::db::{OnlineGameRow, RatingRow};
use super::rating::Speed;

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Waiting for someone to take the free seat.
    Open,
    /// Both seats taken: playing.
    Playing,
    /// Over (see the game's outcome).
    Over,
}

impl Status {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Playing => "playing",
            Status::Over => "over",
        }
    }
}

/// A side may make a draw offer (or a takeback proposal) again only once the opponent has
/// answered its last one, or this long after it (so that offers cannot be toggled to flood the
/// opponent's screen).
pub const OFFER_REPEAT: Duration = Duration::from_secs(10);

/// The state of one online game.
#[derive(Clone, Debug)]
pub struct TableState {
    /// The stored row.
    pub row: OnlineGameRow,
    /// White's and Black's players, once seated.
    pub seats: ByColor<Option<Player>>,
    /// Their ratings in this game's speed class when the game began (rated games).
    pub ratings: ByColor<Option<RatingRow>>,
    /// The game with its clocks, the time charged for every ply, and when the side to move's
    /// turn began while the game is played (the live-game core the local referee shares).
    pub core: LiveGame<Instant>,
    /// Every ply in landing notation.
    pub moves: MoveTexts,
    /// Open, playing or over.
    pub status: Status,
    /// A draw offer waiting for an answer: the side that made it.
    pub draw_offer: Option<Color>,
    /// A takeback proposal waiting for an answer: the side that made it.
    pub takeback_offer: Option<Color>,
    /// When each side last made a draw offer the opponent has not answered since (see
    /// [`OFFER_REPEAT`]).
    pub draw_offered: ByColor<Option<Instant>>,
    /// When each side last proposed a takeback the opponent has not answered since.
    pub takeback_offered: ByColor<Option<Instant>>,
    /// Who asked for a rematch after the game.
    pub rematch: ByColor<bool>,
    /// The rematch's id once both asked.
    pub rematch_id: Option<String>,
    /// The last chat lines.
    pub chat: VecDeque<ChatLine>,
    /// Whether each side blocks the other (their chat lines are hidden from it); read again
    /// before every chat line.
    pub blocking: ByColor<bool>,
    /// Each player's lag and compensation quota.
    pub lag: ByColor<Lag>,
    /// Open connections (sockets, streams) of each player.
    pub connections: ByColor<u32>,
    /// Since when each player has had no connection, during the game.
    pub gone_since: ByColor<Option<Instant>>,
    /// How long each side has for its first move (the service's `abort_after`).
    pub first_move_time: Duration,
    /// The side that did not make its first move in time, when that aborted the game.
    pub missed_first_move: Option<Color>,
    /// Goes up with every change of the state (not with chat lines). It starts at the time
    /// the game was made, or loaded again (ms since 1970), so it keeps growing across restarts
    /// and takeovers: a watcher can drop any state older than one it has (a late event
    /// after a resync).
    pub version: u64,
}

impl TableState {
    /// A new game waiting for its players.
    pub fn new(row: OnlineGameRow) -> TableState {
        let row_version = row.created_ms.max(0) as u64;
        let mut game = Game::from_position(Position::start(), row.rules);
        if days_per_turn(row.initial_ms, row.increment_ms).is_none() {
            // A correspondence game has no chess clock: each turn has its days (see
            // `TableState::turn_limit`).
            // A control of no minutes (0+1) starts each clock with its increment, at least
            // 3 s, as lichess's does: otherwise Black, whose first move is free but charged
            // its increment, would have nothing to be charged from.
            let increment = row.increment_ms.max(0) as u64;
            let initial = match row.initial_ms.max(0) as u64 {
                0 => increment.max(3_000),
                initial => initial,
            };
            game = game.with_time_control(TimeControl {
                initial: Duration::from_millis(initial),
                increment: Duration::from_millis(increment),
            });
        }
        TableState {
            row,
            seats: ByColor::default(),
            ratings: ByColor::default(),
            core: LiveGame::new(game),
            moves: MoveTexts::default(),
            status: Status::Open,
            draw_offer: None,
            takeback_offer: None,
            draw_offered: ByColor::default(),
            takeback_offered: ByColor::default(),
            rematch: ByColor::default(),
            rematch_id: None,
            chat: VecDeque::new(),
            blocking: ByColor::default(),
            lag: ByColor::default(),
            connections: ByColor::default(),
            gone_since: ByColor::default(),
            first_move_time: Duration::from_secs(30),
            missed_first_move: None,
            version: row_version,
        }
    }

    /// Rebuilds a stored game: its moves replayed with their stored times, so the clocks come
    /// out exactly as they were; the current turn continues from `turn_started`.
    pub fn restore(
        row: OnlineGameRow,
        seats: ByColor<Option<Player>>,
        moves: &[(String, i64)],
        turn_started: Option<Instant>,
    ) -> Result<TableState, ApiError> {
        let mut t = TableState::new(row);
        let control = t.core.game.clock().map(|c| c.control());
        t.core = LiveGame::replay(
            Position::start(),
            t.row.rules,
            control,
            moves
                .iter()
                .map(|(tok, ms)| (tok.as_str(), (*ms).max(0) as u64)),
        )?;
        let mut pos = Position::start();
        for m in t.core.game.history() {
            t.moves.push(&pos.write_move(m, Notation::Landing));
            pos = pos.play(m);
        }
        t.seats = seats;
        t.status = match t.row.status.as_str() {
            "open" => Status::Open,
            "over" => Status::Over,
            _ => Status::Playing,
        };
        if t.status == Status::Over {
            if let Some(o) = t.row.outcome.as_deref().and_then(|c| c.parse().ok()) {
                if let Err(e) = t.core.restore_outcome(o) {
                    eprintln!("damasi-online: game {}: stored outcome: {e}", t.row.id);
                }
            }
        } else {
            t.core.turn_started = turn_started;
        }
        Ok(t)
    }

    /// The side `player` plays here, if seated.
    pub fn side_of(&self, player: i64) -> Option<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .find(|&s| self.seats[s].as_ref().is_some_and(|p| p.id == player))
    }

    /// The side `player` plays, or a 403 saying they do not play here.
    pub fn seat_of(&self, player: &Player) -> Result<Color, ApiError> {
        self.side_of(player.id).ok_or_else(|| ApiError::Forbidden {
            code: "not-a-player",
            message: "you do not play in this game".into(),
        })
    }

    /// The game's status as lichess names it: `created`, `started`, or the end's
    /// ([`crate::messages::lichess_status`]; `aborted` for a game over without an outcome).
    pub fn lichess_status(&self) -> &'static str {
        match (self.status, self.core.game.outcome()) {
            (Status::Over, None) => "aborted",
            (status, outcome) => {
                crate::messages::game_status(status == Status::Open, outcome.as_ref())
            }
        }
    }

    /// The speed class of the time control.
    pub fn speed(&self) -> Speed {
        Speed::of(self.row.initial_ms, self.row.increment_ms)
    }

    /// The days a move of a correspondence game (none for a live one).
    pub fn days_per_turn(&self) -> Option<i64> {
        days_per_turn(self.row.initial_ms, self.row.increment_ms)
    }

    /// How long each turn of a correspondence game may last: its days. Every move gives the
    /// side to move the whole of it again, and the side's first move has it too (instead of
    /// the live games' 30 s), so a friend has time to see the game at all.
    pub fn turn_limit(&self) -> Option<Duration> {
        self.days_per_turn()
            .map(|d| Duration::from_millis((d * DAY_MS) as u64))
    }

    /// Time left as of `now` to the side to move of a correspondence game being played, for
    /// its turn (ms).
    pub fn turn_left(&self, now: Instant) -> Option<u64> {
        let limit = self.turn_limit()?;
        if self.status != Status::Playing || self.core.game.is_over() {
            return None;
        }
        let spent = Duration::from_millis(self.elapsed_now(now));
        Some(limit.saturating_sub(spent).as_millis() as u64)
    }

    /// Checks the game is being played.
    pub fn check_playing(&self) -> Result<(), ApiError> {
        match self.status {
            Status::Playing => Ok(()),
            Status::Open => Err(ApiError::conflict(
                "not-started",
                "the game has not started: a seat is still free",
            )),
            Status::Over => Err(match self.core.game.outcome() {
                Some(o) => ApiError::game_over(&o),
                None => ApiError::conflict("game-over", "the game is over"),
            }),
        }
    }

    /// Time used on the current move as of `now` (ms).
    pub fn elapsed_now(&self, now: Instant) -> u64 {
        self.core.elapsed_now(now)
    }

    /// Both sides' time left as of `now` (ms), White's first.
    pub fn clocks_now(&self, now: Instant) -> ByColor<u64> {
        if let Some(limit) = self.turn_limit() {
            // Correspondence: the side to move has what is left of its turn, the other a
            // whole turn (its next one).
            let full = limit.as_millis() as u64;
            let to_move = self.core.game.position().side_to_move();
            // A turn that ran out shows nothing left.
            let flagged = self
                .core
                .game
                .outcome()
                .is_some_and(|o| matches!(o.reason_code(), "time" | "timeout-cannot-win"));
            let left = |side: Color| match self.turn_left(now) {
                Some(left) if side == to_move => left,
                _ if flagged && side == to_move => 0,
                _ => full,
            };
            return ByColor::from_fn(left);
        }
        // Neither side's first move is timed.
        let running = self.status == Status::Playing
            && !self.core.game.is_over()
            && self.core.game.ply() >= 2;
        self.core.clocks_now(now, running).unwrap_or_default()
    }

    /// Takes the free seat for `player`: `want` picks a colour if both are free. Returns the
    /// side taken. A player already seated here gets their own side back.
    pub fn sit(&mut self, player: &Player, want: Option<Color>) -> Result<Color, ApiError> {
        if let Some(side) = self.side_of(player.id) {
            return Ok(side);
        }
        if self.status != Status::Open {
            return Err(ApiError::conflict(
                "seats-taken",
                "both seats of this game are taken",
            ));
        }
        // The sender of a direct challenge sits first; the other seat is the invited one's.
        let sender_seated = self.seats.iter().any(Option::is_some);
        if sender_seated && self.row.invited.is_some_and(|u| u != player.id) {
            return Err(ApiError::Forbidden {
                code: "challenge-not-yours",
                message: "this game is a challenge to another player".into(),
            });
        }
        player.check_may_play(self.row.rated)?;
        let free: Vec<Color> = [Color::White, Color::Black]
            .into_iter()
            .filter(|&s| self.seats[s].is_none())
            .collect();
        let side = match want {
            Some(w) if free.contains(&w) => w,
            Some(w) => {
                return Err(ApiError::conflict(
                    "seat-taken",
                    format!("the {} seat is taken", w.name()),
                ))
            }
            None => *free.first().ok_or_else(|| {
                ApiError::conflict("seats-taken", "both seats of this game are taken")
            })?,
        };
        self.seats[side] = Some(player.clone());
        self.row.players[side.index()] = Some(player.id);
        self.version += 1;
        Ok(side)
    }

    /// Starts the game once both seats are taken: White's turn begins now.
    pub fn start(&mut self, now: Instant) {
        if self.seats.iter().all(Option::is_some) && self.status == Status::Open {
            self.status = Status::Playing;
            self.row.status = Status::Playing.as_str().into();
            self.core.start_turn(now);
            self.version += 1;
        }
    }

    /// Checks a move by `player` and works out its charged time as of `now`; nothing changes.
    pub fn prepare_move(
        &self,
        player: &Player,
        text: &str,
        now: Instant,
    ) -> Result<PreparedMove, ApiError> {
        self.check_playing()?;
        let side = self.seat_of(player)?;
        let to_move = self.core.game.position().side_to_move();
        if side != to_move {
            return Err(ApiError::conflict("not-your-turn", "it is not your turn"));
        }
        let m = self.core.game.position().parse_move(text)?;
        // Neither side's first move is timed (lichess's convention): each has
        // `first_move_time` to make it, or the game is aborted.
        let raw = if self.core.game.ply() < 2 {
            0
        } else {
            self.elapsed_now(now)
        };
        let mut lag = self.lag[side];
        let comp = lag.compensate(raw);
        let mut elapsed = raw - comp;
        if self.core.game.ply() == 1 {
            // Black's first move earns nothing, as White's (the clock's rule for the game's
            // first move): it is charged its increment, which it gets back.
            if let Some(c) = self.core.game.clock() {
                let inc = c.control().increment;
                if c.remaining(side) > inc {
                    elapsed = inc.as_millis() as u64;
                }
            }
        }
        let flagged = match self.turn_limit() {
            // Correspondence: the turn's days are over (a first move late is the abort's).
            Some(limit) => {
                self.core.game.ply() >= 2 && Duration::from_millis(self.elapsed_now(now)) > limit
            }
            None => self
                .core
                .game
                .clock()
                .is_some_and(|c| c.is_flagged(side, Duration::from_millis(elapsed))),
        };
        Ok(PreparedMove {
            side,
            m,
            elapsed_ms: elapsed,
            lag,
            flagged,
        })
    }

    /// Plays a prepared move at `now`. The mover's draw offer stands; the opponent's offers
    /// and any takeback proposal lapse.
    pub fn apply_move(&mut self, p: &PreparedMove, now: Instant) -> Result<(), ApiError> {
        let landing = self
            .core
            .game
            .position()
            .write_move(&p.m, Notation::Landing);
        self.core.play(&p.m, p.elapsed_ms, now)?;
        self.moves.push(&landing);
        self.lag[p.side] = p.lag;
        self.takeback_offer = None;
        if self.draw_offer == Some(!p.side) {
            self.draw_offer = None;
        }
        self.version += 1;
        Ok(())
    }

    /// Lets `side` make a new offer of the kind whose last offers are in `offered` (stamping
    /// it now), or refuses it with a 429 `offer-too-soon` (and `Retry-After`) while its last
    /// one, unanswered, is less than [`OFFER_REPEAT`] old.
    pub fn check_offer(
        offered: &mut ByColor<Option<Instant>>,
        side: Color,
        now: Instant,
        what: &str,
    ) -> Result<(), ApiError> {
        let last = &mut offered[side];
        if let Some(at) = *last {
            let since = now.saturating_duration_since(at);
            if since < OFFER_REPEAT {
                let wait = OFFER_REPEAT - since;
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                return Err(ApiError::Limited {
                    code: "offer-too-soon",
                    message: format!(
                        "a {what} may be made again once the opponent has answered, or in {secs} s"
                    ),
                    retry_after: Some(secs),
                });
            }
        }
        *last = Some(now);
        Ok(())
    }

    /// Ends the game with `outcome` (declared off the board, or the board's own ending).
    pub fn finish(&mut self, outcome: Option<Outcome>) {
        if let Some(o) = outcome {
            if self.core.game.outcome().is_none() {
                let _ = self.core.game.end(o);
            }
        }
        self.status = Status::Over;
        self.row.status = Status::Over.as_str().into();
        self.row.outcome = self.core.game.outcome().map(|o| o.code());
        self.core.turn_started = None;
        self.draw_offer = None;
        self.takeback_offer = None;
        self.version += 1;
    }

    /// The position before the first ply and after each, as FEN.
    pub fn positions(&self) -> Vec<String> {
        let mut pos = *self.core.game.initial_position();
        let mut out = vec![pos.to_fen()];
        for m in self.core.game.history() {
            pos = pos.play(m);
            out.push(pos.to_fen());
        }
        out
    }

    /// Time left for the side to move to make its first move (ms), while it has not.
    pub fn first_move_left(&self, now: Instant) -> Option<u64> {
        if self.status != Status::Playing || self.core.game.is_over() || self.core.game.ply() >= 2 {
            return None;
        }
        if self.turn_limit().is_some() {
            // Correspondence: the first move has the turn's days, which the clock shows.
            return None;
        }
        let spent = Duration::from_millis(self.elapsed_now(now));
        Some(self.first_move_time.saturating_sub(spent).as_millis() as u64)
    }

    /// When the running timer should fire: the abort deadline before both sides have moved,
    /// else the flag of the side to move (plus the lag it may still be owed). In a
    /// correspondence game both are the end of the turn's days ([`TableState::turn_limit`]),
    /// counted from the turn's start, which is stored (so a restart finds the same deadline).
    pub fn deadline(&self, abort_after: Duration) -> Option<(Instant, Deadline)> {
        if self.status != Status::Playing || self.core.game.is_over() {
            return None;
        }
        let started = self.core.turn_started?;
        if let Some(limit) = self.turn_limit() {
            let what = if self.core.game.ply() < 2 {
                Deadline::Abort
            } else {
                Deadline::Flag(self.core.game.position().side_to_move())
            };
            return Some((started + limit, what));
        }
        if self.core.game.ply() < 2 {
            return Some((started + abort_after, Deadline::Abort));
        }
        let side = self.core.game.position().side_to_move();
        let clock = self.core.game.clock()?;
        let grace = self.lag[side].grace_ms();
        Some((
            started + clock.remaining(side) + Duration::from_millis(grace),
            Deadline::Flag(side),
        ))
    }

    /// Adds a chat line from `player`.
    pub fn say(&mut self, player: &Player, text: &str) -> Result<ChatLine, ApiError> {
        if !self.row.chat {
            return Err(ApiError::Forbidden {
                code: "chat-off",
                message: "chat is turned off in this game".into(),
            });
        }
        let side = self.seat_of(player)?;
        let text = clean_chat(text);
        if text.is_empty() || text.chars().count() > CHAT_MAX {
            return Err(ApiError::BadRequest(format!(
                "a chat line has 1 to {CHAT_MAX} characters"
            )));
        }
        let opponent = !side;
        let line = ChatLine {
            name: player.name.clone(),
            text,
            hidden_from: self.blocking[opponent].then_some(opponent),
        };
        self.chat.push_back(line.clone());
        while self.chat.len() > CHAT_KEPT {
            self.chat.pop_front();
        }
        Ok(line)
    }
}

/// A checked move, ready to be saved and played.
#[derive(Clone, Debug)]
pub struct PreparedMove {
    /// The mover.
    pub side: Color,
    /// The move.
    pub m: Move,
    /// Thinking time charged, after lag compensation (ms).
    pub elapsed_ms: u64,
    /// The mover's lag record after this move.
    pub lag: Lag,
    /// Whether the mover's time had run out before the move arrived.
    pub flagged: bool,
}

impl PreparedMove {
    /// The move as the database keeps it.
    pub fn token(&self) -> String {
        Record::token(&self.m)
    }
}

/// What a timer's deadline is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deadline {
    /// No first move from one side in time: the game is aborted.
    Abort,
    /// The side's flag falls.
    Flag(Color),
}

/// The outcome when `loser` abandoned the game: a win for the other side.
pub fn abandonment(loser: Color) -> Outcome {
    Outcome::Win {
        winner: !loser,
        reason: WinReason::Abandonment,
    }
}

/// Every ply of a game in landing notation, kept as the one space-separated text the wire
/// sends (`GameState::moves`): a state copies it instead of joining a string per ply, and
/// the runner's copy of a table before each command (to put back on failure) makes two
/// allocations for it instead of one per ply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveTexts {
    text: String,
    /// Where each ply's text starts in `text`.
    starts: Vec<u32>,
}

impl MoveTexts {
    /// Adds a ply.
    pub fn push(&mut self, landing: &str) {
        if !self.starts.is_empty() {
            self.text.push(' ');
        }
        self.starts.push(self.text.len() as u32);
        self.text.push_str(landing);
    }

    /// Removes the last ply (a takeback).
    pub fn pop(&mut self) {
        if let Some(start) = self.starts.pop() {
            // The space before it goes too (none before the first ply).
            self.text.truncate((start as usize).saturating_sub(1));
        }
    }

    /// How many plies.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// No ply yet.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The last ply.
    pub fn last(&self) -> Option<&str> {
        self.starts.last().map(|&s| &self.text[s as usize..])
    }

    /// Every ply, separated by spaces, as the wire writes them.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod move_texts_tests {
    use super::MoveTexts;

    #[test]
    fn plies_are_added_and_taken_back_as_the_wire_writes_them() {
        let mut m = MoveTexts::default();
        assert!(m.is_empty());
        assert_eq!((m.as_str(), m.last()), ("", None));
        m.push("c3-c4");
        m.push("f6-f5");
        m.push("c4xc6xe6");
        assert_eq!(m.as_str(), "c3-c4 f6-f5 c4xc6xe6");
        assert_eq!((m.len(), m.last()), (3, Some("c4xc6xe6")));
        m.pop();
        assert_eq!((m.as_str(), m.last()), ("c3-c4 f6-f5", Some("f6-f5")));
        m.pop();
        m.pop();
        assert_eq!((m.as_str(), m.len()), ("", 0));
        // Nothing to take back: nothing changes.
        m.pop();
        m.push("b3-b4");
        assert_eq!((m.as_str(), m.len()), ("b3-b4", 1));
    }
}
