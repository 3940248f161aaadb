//! The one runner every command goes through: to the game's owner when another process has
//! it (cluster), else here: lock the table, [`apply`] the command, store what must be stored
//! (putting the state back as it was when that fails), tell the watchers and the players,
//! tell the service's own listeners of a finished game, and re-arm the game's timer.

use std::sync::{Arc, Weak};
use std::time::Duration;

use damasi::{ByColor, Color};
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::time::Instant;

use crate::error::ApiError;

use super::accounts::Player;
use super::cluster::{self, Request};
use super::command::{apply, Command, GameEvent, Now, Reply};
use super::db::RatedResult;
use super::messages::{GameFinished, GameMessage, UserEvent, YourTurn};
use super::table::TableState;
use super::{lock, Online, Table};

/// How long a failed attempt to store a finished game waits before the next.
const FINISH_RETRY: Duration = Duration::from_secs(1);

/// `cmd` if a player may send it (the service's own commands are refused from a client).
fn players_only(cmd: Command) -> Result<Command, ApiError> {
    if cmd.is_players() {
        Ok(cmd)
    } else {
        Err(ApiError::BadRequest(
            "this message is the server's own, not a player's".into(),
        ))
    }
}

impl Online {
    /// Runs a player's command in game `id`: the one way a client acts on a game. Answers the
    /// game's `gameState` after it, the seat's colour for a join, or null.
    pub async fn run(&self, id: &str, by: &Player, cmd: Command) -> Result<Value, ApiError> {
        let cmd = self.allowed(by, cmd).await?;
        self.execute(id, Some(by), cmd, true).await
    }

    /// `cmd` if `by` may send it: a player's command, and a chat line only without a word kept
    /// out of the chats and while their chat is not muted by a moderator.
    async fn allowed(&self, by: &Player, cmd: Command) -> Result<Command, ApiError> {
        let cmd = players_only(cmd)?;
        if let Command::Chat { text } = &cmd {
            crate::chat_filter::check_chat_line(text)?;
            self.moderation().check_may_chat(by.id).await?;
        }
        Ok(cmd)
    }

    /// Runs a player's command like [`Online::run`] when the sender needs no answer but a
    /// refusal (the WebSocket: the change reaches it as an event), so none is made.
    pub async fn act(&self, id: &str, by: &Player, cmd: Command) -> Result<(), ApiError> {
        let cmd = self.allowed(by, cmd).await?;
        self.execute(id, Some(by), cmd, false).await.map(|_| ())
    }

    /// `player` takes a free seat of game `id` (`want` picks the colour if both are free);
    /// the game starts when both are taken. Answers the seat.
    pub async fn join(
        &self,
        id: &str,
        player: &Player,
        want: Option<Color>,
    ) -> Result<Color, ApiError> {
        let side = self.run(id, player, Command::Join { want }).await?;
        super::parse_color(side.as_str())?
            .ok_or_else(|| ApiError::Internal("a join answered no colour".into()))
    }

    /// Runs `cmd` for `by` (none: the service) where game `id` is kept; the answer is made
    /// only when `reply`.
    pub(super) async fn execute(
        &self,
        id: &str,
        by: Option<&Player>,
        cmd: Command,
        reply: bool,
    ) -> Result<Value, ApiError> {
        let request = || Request::Run {
            by: by.cloned(),
            cmd: cmd.clone(),
            reply,
        };
        if let Some(r) = self.forward(id, request).await {
            return r;
        }
        self.execute_here(id, by, &cmd, reply).await
    }

    /// Runs `cmd` on this process, which keeps game `id`.
    pub(super) async fn execute_here(
        &self,
        id: &str,
        by: Option<&Player>,
        cmd: &Command,
        reply: bool,
    ) -> Result<Value, ApiError> {
        let table = self.table(id).await?;
        let mut state = table.state.lock().await;
        if let (Command::Chat { .. }, Some(_)) = (cmd, by) {
            // Blocks are read at each line: one made mid-game counts from the next line on.
            let mut blocking = ByColor::default();
            if let ByColor {
                white: Some(white),
                black: Some(black),
            } = &state.seats
            {
                blocking = ByColor::new(
                    self.relations().blocks(white.id, black.id).await?,
                    self.relations().blocks(black.id, white.id).await?,
                );
            }
            state.blocking = blocking;
        }
        // A copy to put back if the command is refused or cannot be stored; none for a ping,
        // which would otherwise copy the whole game for a number.
        let before = cmd.may_roll_back().then(|| state.clone());
        let now = Now::current();
        let applied = match apply(&mut state, by, cmd, now, &self.inner.config) {
            Ok(a) => a,
            Err(e) => {
                if let Some(before) = before {
                    *state = before;
                }
                return Err(e);
            }
        };
        if let Err(e) = self.store(&table, &mut state, &applied.events).await {
            if let Some(before) = before {
                *state = before;
            }
            return Err(e);
        }
        self.announce(&table, &state, &applied.events, now);
        self.arm_timer(&table, &state);
        match applied.reply {
            Reply::Refused(e) => Err(e),
            _ if !reply => Ok(Value::Null),
            Reply::State => Ok(serde_json::to_value(GameMessage::GameState(Box::new(
                state.state(Instant::now()),
            )))
            .expect("a state serializes")),
            Reply::Seated(side) => Ok(Value::from(side.name())),
            Reply::Nothing => Ok(Value::Null),
        }
    }

    /// Stores what `events` say must be kept, in order. The first failure is answered (the
    /// runner then puts the state back); a finish that fails after a stored move is kept in
    /// memory and stored later ([`Online::finish_later`]), as the move already is.
    async fn store(
        &self,
        table: &Arc<Table>,
        state: &mut TableState,
        events: &[GameEvent],
    ) -> Result<(), ApiError> {
        let db = &self.inner.db;
        for (i, event) in events.iter().enumerate() {
            let stored = match event {
                GameEvent::Seated => db.save_game(state.row.clone()).await,
                GameEvent::Started => self.start_stored(state).await,
                GameEvent::Moved {
                    ply,
                    token,
                    elapsed_ms,
                } => {
                    let wall = super::now_ms();
                    db.add_move(&table.id, *ply, token.clone(), *elapsed_ms as i64, wall)
                        .await
                }
                GameEvent::TakenBack { ply } => {
                    db.truncate_moves(&table.id, *ply, super::now_ms()).await
                }
                GameEvent::Finished => match self.finish_stored(&table.id, state).await {
                    Err(e) if i > 0 => {
                        eprintln!(
                            "damasi: cannot store the end of game {}: {e:?}; trying again",
                            table.id
                        );
                        self.finish_later(table);
                        Ok(())
                    }
                    r => r,
                },
                GameEvent::RematchAgreed(new) => {
                    let (Some(w), Some(b)) = (state.seats.white.clone(), state.seats.black.clone())
                    else {
                        return Err(ApiError::conflict("seats-taken", "a seat is empty"));
                    };
                    // Boxed: starting the new game runs a command too.
                    let next = Box::pin(self.create_paired(&b, &w, *new)).await?;
                    state.rematch_id = Some(next.id.clone());
                    Ok(())
                }
                GameEvent::Changed
                | GameEvent::Said(_)
                | GameEvent::Presence { .. }
                | GameEvent::Notify { .. } => Ok(()),
            };
            stored?;
        }
        Ok(())
    }

    /// A game begins: both ratings are read (rated games), the row stored.
    async fn start_stored(&self, state: &mut TableState) -> Result<(), ApiError> {
        if state.row.rated {
            let speed = state.speed().name();
            for side in Color::BOTH {
                if let Some(uid) = state.row.players[side.index()] {
                    state.ratings[side] = Some(self.rating_of(uid, speed).await?);
                }
            }
        }
        self.inner.db.save_game(state.row.clone()).await
    }

    /// Stores the end of the game as the state says, with the rating changes (read and
    /// written in the same transaction, see `GameStore::finish`).
    async fn finish_stored(&self, id: &str, state: &mut TableState) -> Result<(), ApiError> {
        let rated = match (
            state.row.rated,
            state.core.game.outcome(),
            state.row.players[0],
            state.row.players[1],
        ) {
            (true, Some(outcome), Some(white), Some(black)) => Some(RatedResult {
                white,
                black,
                speed: state.speed().name().to_string(),
                outcome,
                at_ms: super::now_ms(),
            }),
            _ => None,
        };
        let code = state.row.outcome.clone().unwrap_or_default();
        state.row.diffs = self.inner.db.finish(id, code, rated).await?;
        Ok(())
    }

    /// Stores the end of a game that is over in memory only, trying again every
    /// [`FINISH_RETRY`] until the database takes it; then watchers get the rating changes.
    fn finish_later(&self, table: &Arc<Table>) {
        let weak = Arc::downgrade(table);
        let online = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(FINISH_RETRY).await;
                let Some(table) = weak.upgrade() else { return };
                let mut state = table.state.lock().await;
                match online.finish_stored(&table.id, &mut state).await {
                    Ok(()) => {
                        state.version += 1;
                        online.publish(&table, &state);
                        return;
                    }
                    Err(e) => eprintln!("damasi: game {} still not stored: {e:?}", table.id),
                }
            }
        });
    }

    /// Tells watchers, players and the service's listeners what `events` did.
    fn announce(&self, table: &Table, state: &TableState, events: &[GameEvent], at: Now) {
        let now = at.at;
        let mut published = false;
        let mut publish = |online: &Online| {
            if !std::mem::replace(&mut published, true) {
                online.publish(table, state);
            }
        };
        let full = |now| GameMessage::GameFull(Box::new(state.full(now, None)));
        for event in events {
            match event {
                GameEvent::Seated => self.emit(table, full(now), None),
                GameEvent::Started => {
                    self.emit(table, full(now), None);
                    self.tell_players(state, false);
                    self.your_turn(state, at.wall_ms);
                }
                GameEvent::Moved { .. } => {
                    publish(self);
                    self.your_turn(state, at.wall_ms);
                }
                GameEvent::TakenBack { .. } | GameEvent::Changed | GameEvent::RematchAgreed(_) => {
                    publish(self)
                }
                GameEvent::Finished => {
                    publish(self);
                    self.tell_players(state, true);
                    let finished = GameFinished {
                        id: table.id.clone(),
                        players: state.row.players,
                        outcome: state.core.game.outcome(),
                        rated: state.row.rated,
                    };
                    if let Some(cluster) = &self.inner.cluster {
                        cluster.publish_finished(&finished);
                    }
                    let _ = self.inner.finished.send(finished);
                }
                GameEvent::Said(line) => self.emit(
                    table,
                    GameMessage::ChatLine {
                        room: "player".to_string(),
                        username: line.name.clone(),
                        text: line.text.clone(),
                    },
                    line.hidden_from,
                ),
                GameEvent::Presence { side, gone } => self.emit(
                    table,
                    GameMessage::OpponentGone {
                        side: side.name().to_string(),
                        gone: *gone,
                        // No claims in correspondence games: the turn's days are the limit.
                        claim_win_in_seconds: (*gone && state.days_per_turn().is_none())
                            .then(|| self.inner.config.claim_after.as_secs()),
                    },
                    None,
                ),
                GameEvent::Notify { user, event } => self.notify(*user, event.clone()),
            }
        }
    }

    /// Sends both players their `gameStart` event, or their `gameFinish` one when `finished`.
    fn tell_players(&self, state: &TableState, finished: bool) {
        for side in Color::BOTH {
            if let Some(p) = &state.seats[side] {
                let game = Box::new(state.event_game(side));
                let event = match finished {
                    true => UserEvent::GameFinish { game },
                    false => UserEvent::GameStart { game },
                };
                self.notify(p.id, event);
            }
        }
    }

    /// Tells the service's listeners that the side to move of a correspondence game being
    /// played has its turn (see [`YourTurn`]); nothing for a live game.
    fn your_turn(&self, state: &TableState, wall_ms: i64) {
        let (Some(days), Some(limit)) = (state.days_per_turn(), state.turn_limit()) else {
            return;
        };
        if state.status != super::table::Status::Playing || state.core.game.is_over() {
            return;
        }
        let side = state.core.game.position().side_to_move();
        let Some(player) = &state.seats[side] else {
            return;
        };
        let turn = YourTurn {
            id: state.row.id.clone(),
            player: player.id,
            side,
            opponent: state.seats[!side].as_ref().map(|p| p.name.clone()),
            last_move: state.moves.last().map(str::to_string),
            days_per_turn: days,
            deadline_ms: wall_ms + limit.as_millis() as i64,
        };
        if let Some(cluster) = &self.inner.cluster {
            cluster.publish_turn(&turn);
        }
        let _ = self.inner.turns.send(turn);
    }

    /// The turns of correspondence games that begin from now on (see [`YourTurn`]), in a
    /// cluster those of every process's games.
    pub fn your_turns(&self) -> broadcast::Receiver<YourTurn> {
        self.inner.turns.subscribe()
    }

    /// The games that end from now on (see [`GameFinished`]), in a cluster those of every
    /// process's games.
    pub fn finished_games(&self) -> broadcast::Receiver<GameFinished> {
        self.inner.finished.subscribe()
    }

    /// (Re)starts the game's timer for its next deadline (abort or flag), or stops it. When it
    /// fires it sends [`Command::Deadline`], which works the deadline out again from the state
    /// as it is then; if the end cannot be stored (the database is away) it tries again every
    /// [`FINISH_RETRY`].
    pub(super) fn arm_timer(&self, table: &Arc<Table>, state: &TableState) {
        let mut slot = lock(&table.timer);
        if let Some(t) = slot.take() {
            t.abort();
        }
        let Some((at, _)) = state.deadline(self.inner.config.abort_after) else {
            return;
        };
        let weak: Weak<Table> = Arc::downgrade(table);
        let online = self.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep_until(at).await;
            // Its own task: the command re-arms the timer, which aborts this one.
            tokio::spawn(async move {
                loop {
                    let Some(table) = weak.upgrade() else { return };
                    let id = table.id.clone();
                    drop(table);
                    match online.execute(&id, None, Command::Deadline, false).await {
                        Ok(_) => return,
                        Err(ApiError::NotFound(_)) => return,
                        Err(e) if cluster::is_not_owner(&e) => return,
                        Err(e) => {
                            eprintln!("damasi: cannot end game {id} on time: {e:?}");
                            tokio::time::sleep(FINISH_RETRY).await;
                        }
                    }
                }
            });
        });
        *slot = Some(task.abort_handle());
    }
}
