//! The only way into a game: a typed [`Command`], and [`apply`], which works out what it does
//! to a table's state and what follows from it ([`GameEvent`]s), with no I/O and no waiting.
//!
//! Every edge builds a `Command`: the WebSocket deserializes the page's messages straight into
//! it, the Board API's handlers make one per route, the cluster carries it to a game's owner,
//! and the service's own timers send [`Command::Deadline`]. The runner
//! ([`super::Online::run`]) locks the table, calls [`apply`], stores what the events say must
//! be stored (rolling the state back if that fails), tells the watchers, and re-arms the
//! game's timer, the same way for every command.
//!
//! Adding a command: a variant here, its arm in [`apply`], and the edges' parsers.

use damasi::{ByColor, Color, DrawReason, Outcome, WinReason};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::error::ApiError;

use super::accounts::Player;
use super::messages::{ChallengeRef, UserEvent};
use super::table::{abandonment, ChatLine, Deadline, Status, TableState};
use super::{NewGame, OnlineConfig};

/// What somebody (or the service itself) asks of one game. The page's WebSocket messages are
/// this enum's JSON (`{"t": "move", "move": "c3-c4"}`, `{"t": "draw", "yes": false}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "camelCase")]
pub enum Command {
    /// Take a free seat (`want`: the colour, if both are free). Starts the game when both are
    /// taken.
    Join {
        /// The colour asked for.
        #[serde(default, with = "crate::messages::side_serde")]
        want: Option<Color>,
    },
    /// Play a move (any notation the rules library reads).
    Move {
        /// The move's text.
        #[serde(rename = "move")]
        text: String,
    },
    /// Resign.
    Resign,
    /// Abort (before both sides have moved), or withdraw an open game or a challenge.
    Abort,
    /// Offer a draw (`yes`), accept the opponent's (`yes` while they offer), or decline or
    /// withdraw one (`no`).
    Draw {
        /// Offer or accept (true), decline or withdraw (false).
        #[serde(default = "yes")]
        yes: bool,
    },
    /// Propose a takeback, accept the opponent's, or decline or withdraw one.
    Takeback {
        /// Propose or accept (true), decline or withdraw (false).
        #[serde(default = "yes")]
        yes: bool,
    },
    /// Say something in the players' chat.
    Chat {
        /// The line.
        #[serde(default)]
        text: String,
    },
    /// Claim the win (`win`) or a draw because the opponent has been gone long enough.
    Claim {
        /// The win (true) or a draw (false).
        #[serde(default = "yes")]
        win: bool,
    },
    /// Ask for a rematch of the finished game (it starts when both have asked).
    Rematch,
    /// The challenged player declines a direct challenge.
    Decline {
        /// Why (lichess's decline reasons: `generic`, `later`, `tooFast`, ...).
        #[serde(default)]
        reason: String,
    },
    /// The service: the game's timer fired (an abort or a flag may be due).
    Deadline,
    /// The service: an open game nobody joined in time is withdrawn.
    Expire,
    /// The service: a connection of a player opened or closed.
    Presence {
        /// Whose connection.
        #[serde(with = "crate::messages::side_serde::required")]
        side: Color,
        /// Opened (true) or closed.
        open: bool,
    },
    /// The service: a measured round trip of a player's connection.
    Lag {
        /// Whose connection.
        #[serde(with = "crate::messages::side_serde::required")]
        side: Color,
        /// The round trip (ms).
        rtt_ms: u64,
    },
}

fn yes() -> bool {
    true
}

impl Command {
    /// Whether a player sends this command (the others come from the service itself and are
    /// refused from a client).
    pub fn is_players(&self) -> bool {
        !matches!(
            self,
            Command::Deadline | Command::Expire | Command::Presence { .. } | Command::Lag { .. }
        )
    }

    /// Whether applying this command may be refused or store something, so that the runner
    /// must be able to put the state back: not a connection's presence or lag ping, which
    /// only note what they measured.
    pub fn may_roll_back(&self) -> bool {
        !matches!(self, Command::Presence { .. } | Command::Lag { .. })
    }
}

/// What a command did, for the runner to store and announce.
#[derive(Clone, Debug)]
pub enum GameEvent {
    /// A seat was taken; the game waits for the other (the row is stored, watchers get the
    /// whole game).
    Seated,
    /// Both seats are taken: the game began (ratings are read, the row stored, both players
    /// told `gameStart`).
    Started,
    /// A move was played: it is stored before anyone hears of it.
    Moved {
        /// The game's ply count before the move.
        ply: usize,
        /// The move as stored.
        token: String,
        /// Thinking time charged (ms).
        elapsed_ms: u64,
    },
    /// Plies were taken back: the game now has `ply` plies.
    TakenBack {
        /// The ply count left.
        ply: usize,
    },
    /// Offers, rematch requests or presence changed: watchers get the new state.
    Changed,
    /// A line in the players' chat.
    Said(ChatLine),
    /// A player's last connection closed (`gone`) or one came back.
    Presence {
        /// Whose.
        side: Color,
        /// Gone (true) or back.
        gone: bool,
    },
    /// Both players asked for a rematch: a new game with the colours swapped is to start.
    RematchAgreed(NewGame),
    /// The game ended (the state already says how); stored with the rating changes, then
    /// both players are told `gameFinish`.
    Finished,
    /// Something for one account's event stream (a declined or withdrawn challenge).
    Notify {
        /// The account.
        user: i64,
        /// The event.
        event: UserEvent,
    },
}

/// What the one who sent the command gets back.
#[derive(Debug)]
pub enum Reply {
    /// The game's state after the command (`gameState`).
    State,
    /// The seat taken (a join).
    Seated(Color),
    /// Nothing (a chat line, a decline, a service command).
    Nothing,
    /// A refusal that still changed the game (a move that came after the mover's flag fell:
    /// the game is lost on time, and the move is refused).
    Refused(ApiError),
}

/// What [`apply`] worked out.
#[derive(Debug)]
pub struct Applied {
    /// What happened, in order.
    pub events: Vec<GameEvent>,
    /// The answer to the sender.
    pub reply: Reply,
}

impl Applied {
    fn new(events: Vec<GameEvent>, reply: Reply) -> Applied {
        Applied { events, reply }
    }

    fn unchanged(reply: Reply) -> Applied {
        Applied::new(Vec::new(), reply)
    }
}

/// The moment a command is applied: the monotonic clock the game's times run on, and the
/// wall clock the stored rows keep.
#[derive(Clone, Copy, Debug)]
pub struct Now {
    /// For the clocks.
    pub at: Instant,
    /// Milliseconds since 1970 (stored).
    pub wall_ms: i64,
}

impl Now {
    /// This moment.
    pub fn current() -> Now {
        Now {
            at: Instant::now(),
            wall_ms: crate::now_ms(),
        }
    }
}

/// Applies `cmd`, sent by `by` (none: the service), to `state` at `now`. On an error the state
/// may be half changed: the runner puts it back as it was.
pub fn apply(
    state: &mut TableState,
    by: Option<&Player>,
    cmd: &Command,
    now: Now,
    config: &OnlineConfig,
) -> Result<Applied, ApiError> {
    let player = || {
        by.ok_or_else(|| ApiError::Unauthorized("this needs a player: log in or be a guest".into()))
    };
    match cmd {
        Command::Join { want } => join(state, player()?, *want, now),
        Command::Move { text } => play(state, player()?, text, now),
        Command::Resign => {
            state.check_playing()?;
            let side = state.seat_of(player()?)?;
            finish(
                state,
                Some(Outcome::Win {
                    winner: !side,
                    reason: WinReason::Resignation,
                }),
                Vec::new(),
            )
        }
        Command::Abort => abort(state, player()?),
        Command::Draw { yes } => draw(state, player()?, *yes, now),
        Command::Takeback { yes } => takeback(state, player()?, *yes, now),
        Command::Chat { text } => {
            let line = state.say(player()?, text)?;
            Ok(Applied::new(vec![GameEvent::Said(line)], Reply::Nothing))
        }
        Command::Claim { win } => claim(state, player()?, *win, now, config),
        Command::Rematch => rematch(state, player()?),
        Command::Decline { reason } => decline(state, player()?, reason),
        Command::Deadline => deadline(state, now, config),
        Command::Expire => {
            // Answers the state when it withdrew the game, nothing when it was not open.
            if state.status != Status::Open {
                return Ok(Applied::unchanged(Reply::Nothing));
            }
            let canceled = state.row.invited.map(|to| canceled(to, &state.row.id));
            finish(
                state,
                Some(Outcome::Aborted),
                canceled.into_iter().collect(),
            )
        }
        Command::Presence { side, open } => Ok(presence(state, *side, *open, now)),
        Command::Lag { side, rtt_ms } => {
            state.lag[*side].observe_round_trip(std::time::Duration::from_millis(*rtt_ms));
            Ok(Applied::unchanged(Reply::Nothing))
        }
    }
}

/// lichess's `challengeCanceled` event about game `id`.
pub(super) fn canceled_event(id: &str) -> UserEvent {
    UserEvent::ChallengeCanceled {
        challenge: ChallengeRef {
            id: id.to_string(),
            status: "canceled".to_string(),
        },
    }
}

/// The `challengeCanceled` event for `to` about game `id`.
fn canceled(to: i64, id: &str) -> GameEvent {
    GameEvent::Notify {
        user: to,
        event: canceled_event(id),
    }
}

/// Ends the game with `outcome` (none: the board's own ending), after `before`.
fn finish(
    state: &mut TableState,
    outcome: Option<Outcome>,
    mut after: Vec<GameEvent>,
) -> Result<Applied, ApiError> {
    state.finish(outcome);
    after.insert(0, GameEvent::Finished);
    Ok(Applied::new(after, Reply::State))
}

fn join(
    state: &mut TableState,
    player: &Player,
    want: Option<Color>,
    now: Now,
) -> Result<Applied, ApiError> {
    let was_open = state.status == Status::Open;
    let side = state.sit(player, want)?;
    if !was_open {
        // Already seated here: the seat back, nothing changes.
        return Ok(Applied::unchanged(Reply::Seated(side)));
    }
    state.start(now.at);
    let event = if state.status == Status::Playing {
        state.row.turn_started_ms = Some(now.wall_ms);
        GameEvent::Started
    } else {
        GameEvent::Seated
    };
    Ok(Applied::new(vec![event], Reply::Seated(side)))
}

fn play(
    state: &mut TableState,
    player: &Player,
    text: &str,
    now: Now,
) -> Result<Applied, ApiError> {
    let prepared = state.prepare_move(player, text, now.at)?;
    if prepared.flagged {
        let outcome = state.core.game.lose_on_time(prepared.side)?;
        let mut done = finish(state, None, Vec::new())?;
        done.reply = Reply::Refused(ApiError::game_over(&outcome));
        return Ok(done);
    }
    let moved = GameEvent::Moved {
        ply: state.core.game.ply(),
        token: prepared.token(),
        elapsed_ms: prepared.elapsed_ms,
    };
    state.apply_move(&prepared, now.at)?;
    state.row.turn_started_ms = Some(now.wall_ms);
    let mut events = vec![moved];
    if state.core.game.is_over() {
        // The board's own ending (no move left, a draw by the rules): stored after the move.
        state.finish(None);
        events.push(GameEvent::Finished);
    }
    Ok(Applied::new(events, Reply::State))
}

fn abort(state: &mut TableState, player: &Player) -> Result<Applied, ApiError> {
    state.seat_of(player)?;
    match state.status {
        Status::Over => state.check_playing()?,
        Status::Open => {}
        Status::Playing if state.core.game.can_abort() => {}
        Status::Playing => {
            return Err(ApiError::conflict(
                "too-late-to-abort",
                "both sides have moved: the game can no longer be aborted",
            ))
        }
    }
    // A direct challenge withdrawn by its sender (lichess's `challenge/{id}/cancel`).
    let withdrawn = (state.status == Status::Open)
        .then_some(state.row.invited)
        .flatten()
        .map(|to| canceled(to, &state.row.id));
    finish(
        state,
        Some(Outcome::Aborted),
        withdrawn.into_iter().collect(),
    )
}

fn draw(state: &mut TableState, player: &Player, yes: bool, now: Now) -> Result<Applied, ApiError> {
    state.check_playing()?;
    let side = state.seat_of(player)?;
    if yes {
        if state.draw_offer == Some(!side) {
            return finish(
                state,
                Some(Outcome::Draw(DrawReason::Agreement)),
                Vec::new(),
            );
        }
        if state.draw_offer == Some(side) {
            // Already offered: nothing changes, nobody is told again.
            return Ok(Applied::unchanged(Reply::State));
        }
        TableState::check_offer(&mut state.draw_offered, side, now.at, "draw offer")?;
        state.draw_offer = Some(side);
    } else if state.draw_offer == Some(!side) {
        // The opponent answered: the proposer may offer again at once.
        state.draw_offer = None;
        state.draw_offered[!side] = None;
    } else if state.draw_offer == Some(side) {
        // Withdrawn: offering again waits (see `table::OFFER_REPEAT`).
        state.draw_offer = None;
    } else {
        return Ok(Applied::unchanged(Reply::State));
    }
    state.version += 1;
    Ok(Applied::new(vec![GameEvent::Changed], Reply::State))
}

/// A takeback: `yes` proposes the proposer's own last move (one ply, or two when the opponent
/// has replied) or accepts the opponent's standing proposal; `no` declines or withdraws.
fn takeback(
    state: &mut TableState,
    player: &Player,
    yes: bool,
    now: Now,
) -> Result<Applied, ApiError> {
    state.check_playing()?;
    let side = state.seat_of(player)?;
    let mut events = Vec::new();
    if !yes {
        match state.takeback_offer {
            Some(proposer) if proposer == !side => {
                // The opponent answered: the proposer may propose again at once.
                state.takeback_offered[proposer] = None;
            }
            Some(_) => {}
            None => return Ok(Applied::unchanged(Reply::State)),
        }
        state.takeback_offer = None;
    } else if state.takeback_offer == Some(side) {
        // Already proposed: nothing changes, nobody is told again.
        return Ok(Applied::unchanged(Reply::State));
    } else if let Some(proposer) = state.takeback_offer.filter(|&p| p == !side) {
        let to_move = state.core.game.position().side_to_move();
        let plies = if to_move == proposer { 2 } else { 1 };
        if state.core.game.ply() < plies {
            return Err(ApiError::conflict(
                "nothing-to-take-back",
                "there is no move to take back",
            ));
        }
        for _ in 0..plies {
            state.core.take_back(now.at)?;
            state.moves.pop();
        }
        state.row.turn_started_ms = Some(now.wall_ms);
        state.takeback_offer = None;
        state.takeback_offered[proposer] = None;
        state.draw_offer = None;
        events.push(GameEvent::TakenBack {
            ply: state.core.game.ply(),
        });
    } else {
        let own_moves = if state.core.game.position().side_to_move() == side {
            2
        } else {
            1
        };
        if state.core.game.history().len() < own_moves {
            return Err(ApiError::conflict(
                "nothing-to-take-back",
                "you have no move to take back",
            ));
        }
        TableState::check_offer(
            &mut state.takeback_offered,
            side,
            now.at,
            "takeback proposal",
        )?;
        state.takeback_offer = Some(side);
    }
    state.version += 1;
    events.push(GameEvent::Changed);
    Ok(Applied::new(events, Reply::State))
}

fn claim(
    state: &mut TableState,
    player: &Player,
    win: bool,
    now: Now,
    config: &OnlineConfig,
) -> Result<Applied, ApiError> {
    state.check_playing()?;
    let side = state.seat_of(player)?;
    if state.days_per_turn().is_some() {
        // Nobody is expected to stay connected for days: the turn's days are the limit.
        return Err(ApiError::conflict(
            "no-claim-correspondence",
            "a correspondence game cannot be claimed: the opponent has the turn's days to move",
        ));
    }
    let gone = state.gone_since[!side];
    let long_enough =
        gone.is_some_and(|g| now.at.saturating_duration_since(g) >= config.claim_after);
    if !long_enough {
        return Err(ApiError::conflict(
            "opponent-present",
            format!(
                "the opponent can be claimed against only after {} s away",
                config.claim_after.as_secs()
            ),
        ));
    }
    let outcome = if win {
        abandonment(!side)
    } else {
        Outcome::Draw(DrawReason::Agreement)
    };
    finish(state, Some(outcome), Vec::new())
}

fn rematch(state: &mut TableState, player: &Player) -> Result<Applied, ApiError> {
    let side = state.seat_of(player)?;
    if state.status != Status::Over {
        return Err(ApiError::conflict(
            "not-over",
            "a rematch can be asked for once the game is over",
        ));
    }
    if state.row.event.is_some() {
        // As on lichess: a tournament pairs its own games.
        return Err(ApiError::conflict(
            "tournament-game",
            "a tournament's game has no rematch: the tournament pairs the next one",
        ));
    }
    if state.rematch_id.is_some() || state.rematch[side] {
        return Ok(Applied::unchanged(Reply::State));
    }
    state.rematch[side] = true;
    state.version += 1;
    let mut events = vec![GameEvent::Changed];
    if state.rematch == ByColor::new(true, true) {
        if state.seats.iter().any(Option::is_none) {
            return Err(ApiError::conflict("seats-taken", "a seat is empty"));
        }
        events.insert(
            0,
            GameEvent::RematchAgreed(NewGame {
                initial_ms: state.row.initial_ms,
                increment_ms: state.row.increment_ms,
                rated: state.row.rated,
                chat: state.row.chat,
                rules: state.row.rules,
            }),
        );
    }
    Ok(Applied::new(events, Reply::State))
}

fn decline(state: &mut TableState, player: &Player, reason: &str) -> Result<Applied, ApiError> {
    if state.row.invited != Some(player.id) || state.status != Status::Open {
        return Err(ApiError::conflict(
            "no-such-challenge",
            "there is no challenge to you waiting in this game",
        ));
    }
    let event = UserEvent::ChallengeDeclined {
        challenge: Box::new(state.challenge(player, None, "declined")),
        decline_reason: reason.to_string(),
    };
    let told: Vec<GameEvent> = state
        .seats
        .iter()
        .flatten()
        .map(|p| GameEvent::Notify {
            user: p.id,
            event: event.clone(),
        })
        .collect();
    let mut done = finish(state, Some(Outcome::Aborted), told)?;
    done.reply = Reply::Nothing;
    Ok(done)
}

/// The timer fired: the deadline is worked out again from the state as it is now (a move, an
/// offer or a lag measurement may have moved it), so a stale timer never ends a game early.
fn deadline(state: &mut TableState, now: Now, config: &OnlineConfig) -> Result<Applied, ApiError> {
    let Some((due, what)) = state.deadline(config.abort_after) else {
        return Ok(Applied::unchanged(Reply::Nothing));
    };
    if due > now.at {
        return Ok(Applied::unchanged(Reply::Nothing));
    }
    let outcome = match what {
        Deadline::Abort => {
            state.missed_first_move = Some(state.core.game.position().side_to_move());
            Some(Outcome::Aborted)
        }
        Deadline::Flag(side) => {
            // Zeroes the clock and ends the game on time.
            state.core.game.lose_on_time(side)?;
            None
        }
    };
    let mut done = finish(state, outcome, Vec::new())?;
    done.reply = Reply::Nothing;
    Ok(done)
}

/// A player with no connection left is marked gone (the opponent may claim after a while); a
/// returning one is marked back.
fn presence(state: &mut TableState, side: Color, open: bool, now: Now) -> Applied {
    if open {
        state.connections[side] += 1;
        if state.gone_since[side].take().is_none() {
            return Applied::unchanged(Reply::Nothing);
        }
    } else {
        state.connections[side] = state.connections[side].saturating_sub(1);
        if state.connections[side] > 0 || state.status != Status::Playing {
            return Applied::unchanged(Reply::Nothing);
        }
        state.gone_since[side] = Some(now.at);
    }
    state.version += 1;
    Applied::new(
        vec![
            GameEvent::Presence { side, gone: !open },
            GameEvent::Changed,
        ],
        Reply::Nothing,
    )
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_record;
