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

use damasi::{Color, DrawReason, Outcome, WinReason};
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
        #[serde(default, with = "super::table::side_serde")]
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
        #[serde(with = "super::table::side_serde::required")]
        side: Color,
        /// Opened (true) or closed.
        open: bool,
    },
    /// The service: a measured round trip of a player's connection.
    Lag {
        /// Whose connection.
        #[serde(with = "super::table::side_serde::required")]
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
            state.lag[side.index()].observe_round_trip(std::time::Duration::from_millis(*rtt_ms));
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
        state.draw_offered[(!side).index()] = None;
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
                state.takeback_offered[proposer.index()] = None;
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
        state.takeback_offered[proposer.index()] = None;
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
    let gone = state.gone_since[(!side).index()];
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
    if state.rematch_id.is_some() || state.rematch[side.index()] {
        return Ok(Applied::unchanged(Reply::State));
    }
    state.rematch[side.index()] = true;
    state.version += 1;
    let mut events = vec![GameEvent::Changed];
    if state.rematch == [true, true] {
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
    let i = side.index();
    if open {
        state.connections[i] += 1;
        if state.gone_since[i].take().is_none() {
            return Applied::unchanged(Reply::Nothing);
        }
    } else {
        state.connections[i] = state.connections[i].saturating_sub(1);
        if state.connections[i] > 0 || state.status != Status::Playing {
            return Applied::unchanged(Reply::Nothing);
        }
        state.gone_since[i] = Some(now.at);
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
mod tests {
    use super::*;
    use crate::db::OnlineGameRow;
    use std::time::Duration;

    fn player(id: i64) -> Player {
        Player {
            id,
            name: format!("p{id}"),
            guest: false,
            bot: false,
        }
    }

    fn open_game(rated: bool) -> TableState {
        open_game_of(rated, 60_000, 0)
    }

    fn open_game_of(rated: bool, initial_ms: i64, increment_ms: i64) -> TableState {
        TableState::new(OnlineGameRow {
            id: "g1".into(),
            created_ms: 0,
            players: [None, None],
            initial_ms,
            increment_ms,
            rated,
            chat: true,
            status: "open".into(),
            outcome: None,
            turn_started_ms: None,
            diffs: [None, None],
            invited: None,
            rules: damasi::RuleSet::default(),
            event: None,
        })
    }

    fn at(start: Instant, ms: u64) -> Now {
        Now {
            at: start + Duration::from_millis(ms),
            wall_ms: ms as i64,
        }
    }

    fn run(s: &mut TableState, by: Option<&Player>, cmd: Command, now: Now) -> Applied {
        apply(s, by, &cmd, now, &OnlineConfig::default()).unwrap()
    }

    /// A game between `white` and `black`, both seated at `start`.
    fn started(white: &Player, black: &Player, start: Instant) -> TableState {
        let mut s = open_game(false);
        let want = Some(Color::White);
        run(&mut s, Some(white), Command::Join { want }, at(start, 0));
        run(
            &mut s,
            Some(black),
            Command::Join { want: None },
            at(start, 0),
        );
        s
    }

    fn mv(text: &str) -> Command {
        Command::Move { text: text.into() }
    }

    /// 0+1 (no minutes, a second a move) starts each clock with 3 s, as lichess does: both
    /// first moves are free, and the game goes on with each side's increment added.
    #[test]
    fn a_control_of_no_minutes_starts_each_clock_with_seconds() {
        let (w, b) = (player(1), player(2));
        let start = Instant::now();
        let mut s = open_game_of(false, 0, 1000);
        let want = Some(Color::White);
        run(&mut s, Some(&w), Command::Join { want }, at(start, 0));
        run(&mut s, Some(&b), Command::Join { want: None }, at(start, 0));
        run(&mut s, Some(&w), mv("c3-c4"), at(start, 5_000));
        // Black thinks 10 s over its first move: free.
        run(&mut s, Some(&b), mv("f6-f5"), at(start, 15_000));
        run(&mut s, Some(&w), mv("c4-c5"), at(start, 16_000));
        assert_eq!(s.status, Status::Playing);
        let clock = s.core.game.clock().unwrap();
        // White: 3 s, its first move free, then 1 s spent and 1 s earned.
        assert_eq!(clock.remaining(Color::White), Duration::from_secs(3));
        assert_eq!(clock.remaining(Color::Black), Duration::from_secs(3));
    }

    #[test]
    fn a_tournament_game_has_no_rematch() {
        let (w, b) = (player(1), player(2));
        let start = Instant::now();
        for event in [None, Some("swiss/club1".to_string())] {
            let mut s = started(&w, &b, start);
            s.row.event = event.clone();
            run(&mut s, Some(&w), mv("c3-c4"), at(start, 10));
            run(&mut s, Some(&b), Command::Resign, at(start, 20));
            let asked = apply(
                &mut s,
                Some(&w),
                &Command::Rematch,
                at(start, 30),
                &OnlineConfig::default(),
            );
            match event {
                None => assert!(asked.is_ok()),
                Some(_) => assert_eq!(asked.unwrap_err().code(), "tournament-game"),
            }
        }
    }

    /// The game's lichess `status` in its last state and in both players' `gameFinish`, and
    /// damasi's exact outcome and the winner beside it.
    fn says_at_the_end(s: &TableState, status: &str, outcome: &str, winner: Option<&str>) {
        let state = s.state(Instant::now());
        assert_eq!(
            (
                state.status.as_str(),
                state.outcome.as_deref(),
                state.winner.as_deref()
            ),
            (status, Some(outcome), winner)
        );
        for side in Color::BOTH {
            let event = s.event_game(side);
            assert_eq!(
                (event.status.name.as_str(), event.outcome.as_deref()),
                (status, Some(outcome))
            );
            assert_eq!(event.winner.as_deref(), winner);
        }
    }

    #[test]
    fn an_ended_game_says_lichess_status_and_keeps_damasis_reason() {
        let (w, b) = (player(1), player(2));
        let start = Instant::now();
        let opened = |s: &mut TableState| {
            run(s, Some(&w), mv("c3-c4"), at(start, 10));
            run(s, Some(&b), mv("f6-f5"), at(start, 20));
        };
        // A resignation is lichess's `resign`.
        let mut s = started(&w, &b, start);
        opened(&mut s);
        run(&mut s, Some(&b), Command::Resign, at(start, 30));
        says_at_the_end(&s, "resign", "white:resignation", Some("white"));
        // A draw agreed is `draw`.
        let mut s = started(&w, &b, start);
        opened(&mut s);
        run(&mut s, Some(&w), Command::Draw { yes: true }, at(start, 30));
        run(&mut s, Some(&b), Command::Draw { yes: true }, at(start, 40));
        says_at_the_end(&s, "draw", "draw:agreement", None);
        // A flag (White's minute runs out on its second move) is `outoftime`.
        let mut s = started(&w, &b, start);
        opened(&mut s);
        run(&mut s, None, Command::Deadline, at(start, 200_000));
        says_at_the_end(&s, "outoftime", "black:time", Some("black"));
        // An abort is `aborted`.
        let mut s = started(&w, &b, start);
        run(&mut s, Some(&w), Command::Abort, at(start, 10));
        says_at_the_end(&s, "aborted", "aborted", None);
        // Ends declared off the board by the service.
        for (outcome, status) in [
            (
                Outcome::Win {
                    winner: Color::White,
                    reason: damasi::WinReason::Abandonment,
                },
                "timeout",
            ),
            (
                Outcome::Draw(damasi::DrawReason::TimeoutCannotWin),
                "outoftime",
            ),
        ] {
            let mut s = started(&w, &b, start);
            opened(&mut s);
            s.finish(Some(outcome));
            let winner = outcome.winner().map(Color::name);
            says_at_the_end(&s, status, &outcome.code(), winner);
        }
        // Before the end: `created` while a seat is free, `started` while played.
        let mut s = open_game(false);
        assert_eq!(s.state(start).status, "created");
        run(&mut s, Some(&w), Command::Join { want: None }, at(start, 0));
        run(&mut s, Some(&b), Command::Join { want: None }, at(start, 0));
        assert_eq!(s.state(start).status, "started");
        assert_eq!(s.event_game(Color::White).status.name, "started");
    }

    #[test]
    fn the_page_messages_are_commands() {
        let parse = |s: &str| serde_json::from_str::<Command>(s).unwrap();
        assert_eq!(parse(r#"{"t":"move","move":"c3-c4"}"#), mv("c3-c4"));
        assert_eq!(parse(r#"{"t":"draw"}"#), Command::Draw { yes: true });
        assert_eq!(
            parse(r#"{"t":"takeback","yes":false}"#),
            Command::Takeback { yes: false }
        );
        assert_eq!(parse(r#"{"t":"claim"}"#), Command::Claim { win: true });
        assert_eq!(
            parse(r#"{"t":"join","want":"black"}"#),
            Command::Join {
                want: Some(Color::Black)
            }
        );
        assert_eq!(parse(r#"{"t":"join"}"#), Command::Join { want: None });
        assert!(serde_json::from_str::<Command>(r#"{"t":"join","want":"green"}"#).is_err());
        assert!(serde_json::from_str::<Command>(r#"{"t":"fly"}"#).is_err());
        // The cluster sends them as JSON too: a round trip keeps them.
        let p = Command::Presence {
            side: Color::Black,
            open: false,
        };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Command>(&text).unwrap(), p);
        assert!(!p.is_players());
        assert!(mv("c3-c4").is_players());
    }

    #[test]
    fn a_game_starts_when_both_seats_are_taken_and_moves_follow_the_rules() {
        let start = Instant::now();
        let (a, b) = (player(1), player(2));
        let mut s = open_game(false);
        let first = run(
            &mut s,
            Some(&a),
            Command::Join {
                want: Some(Color::White),
            },
            at(start, 0),
        );
        assert!(matches!(first.events[..], [GameEvent::Seated]));
        assert!(matches!(first.reply, Reply::Seated(Color::White)));
        let second = run(
            &mut s,
            Some(&b),
            Command::Join { want: None },
            at(start, 10),
        );
        assert!(matches!(second.events[..], [GameEvent::Started]));
        assert!(matches!(second.reply, Reply::Seated(Color::Black)));
        assert_eq!(s.status, Status::Playing);
        assert_eq!(s.row.turn_started_ms, Some(10));
        // Black may not move first; White's move is stored as ply 0 with its time.
        let cfg = OnlineConfig::default();
        let err = apply(&mut s, Some(&b), &mv("f6-f5"), at(start, 20), &cfg).unwrap_err();
        assert_eq!(err.code(), "not-your-turn");
        let moved = run(&mut s, Some(&a), mv("c3-c4"), at(start, 1_010));
        match &moved.events[..] {
            [GameEvent::Moved {
                ply: 0, elapsed_ms, ..
            }] => assert!(*elapsed_ms <= 1_000),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.moves, vec!["c3-c4"]);
        // A spectator's command is refused before anything changes.
        let err = apply(
            &mut s,
            Some(&player(9)),
            &Command::Resign,
            at(start, 1_020),
            &cfg,
        )
        .unwrap_err();
        assert_eq!(err.code(), "not-a-player");
        // Resigning ends the game for the other side.
        let done = run(&mut s, Some(&b), Command::Resign, at(start, 1_030));
        assert!(matches!(done.events[..], [GameEvent::Finished]));
        assert_eq!(s.status, Status::Over);
        assert_eq!(
            s.row.outcome.as_deref(),
            Some(
                Outcome::Win {
                    winner: Color::White,
                    reason: WinReason::Resignation
                }
                .code()
                .as_str()
            )
        );
    }

    #[test]
    fn the_timer_ends_a_game_only_when_its_deadline_is_due() {
        let start = Instant::now();
        let (a, b) = (player(1), player(2));
        let mut s = started(&a, &b, start);
        // 30 s to make the first move: a timer that fires early changes nothing.
        let early = run(&mut s, None, Command::Deadline, at(start, 29_000));
        assert!(early.events.is_empty());
        assert_eq!(s.status, Status::Playing);
        let due = run(&mut s, None, Command::Deadline, at(start, 30_000));
        assert!(matches!(due.events[..], [GameEvent::Finished]));
        assert_eq!(
            s.row.outcome.as_deref(),
            Some(Outcome::Aborted.code().as_str())
        );
    }

    #[test]
    fn a_move_after_the_flag_fell_loses_on_time_and_is_refused() {
        let start = Instant::now();
        let (a, b) = (player(1), player(2));
        let mut s = started(&a, &b, start);
        run(&mut s, Some(&a), mv("c3-c4"), at(start, 1_000));
        run(&mut s, Some(&b), mv("f6-f5"), at(start, 2_000));
        // White's minute (plus at most the lag quota) is gone.
        let late = run(&mut s, Some(&a), mv("d3-d4"), at(start, 2_000 + 62_000));
        assert!(matches!(late.events[..], [GameEvent::Finished]));
        match late.reply {
            Reply::Refused(e) => assert_eq!(e.code(), "game-over"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            s.core.game.outcome().and_then(|o| o.winner()),
            Some(Color::Black)
        );
    }

    #[test]
    fn a_takeback_accepted_after_the_reply_undoes_two_plies() {
        let start = Instant::now();
        let (a, b) = (player(1), player(2));
        let mut s = started(&a, &b, start);
        run(&mut s, Some(&a), mv("c3-c4"), at(start, 100));
        run(&mut s, Some(&b), mv("f6-f5"), at(start, 200));
        // White proposes taking back c3-c4; Black has replied, so two plies go.
        run(
            &mut s,
            Some(&a),
            Command::Takeback { yes: true },
            at(start, 300),
        );
        assert_eq!(s.takeback_offer, Some(Color::White));
        let undone = run(
            &mut s,
            Some(&b),
            Command::Takeback { yes: true },
            at(start, 400),
        );
        assert!(matches!(
            undone.events[..],
            [GameEvent::TakenBack { ply: 0 }, GameEvent::Changed]
        ));
        assert!(s.moves.is_empty());
        assert_eq!(s.core.game.ply(), 0);
    }

    #[test]
    fn a_declined_challenge_tells_its_sender() {
        let start = Instant::now();
        let (a, b) = (player(1), player(2));
        let mut s = open_game(false);
        s.row.invited = Some(b.id);
        run(
            &mut s,
            Some(&a),
            Command::Join {
                want: Some(Color::White),
            },
            at(start, 0),
        );
        // Only the one challenged may decline.
        let cfg = OnlineConfig::default();
        let decline = Command::Decline {
            reason: "later".into(),
        };
        let err = apply(&mut s, Some(&player(3)), &decline, at(start, 1), &cfg).unwrap_err();
        assert_eq!(err.code(), "no-such-challenge");
        let done = run(&mut s, Some(&b), decline, at(start, 2));
        match &done.events[..] {
            [GameEvent::Finished, GameEvent::Notify { user: 1, event }] => {
                let event = serde_json::to_value(event).unwrap();
                assert_eq!(event["type"], "challengeDeclined");
                assert_eq!(event["declineReason"], "later");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.status, Status::Over);
    }
}

#[cfg(test)]
mod wire_record {
    use super::*;
    use crate::db::OnlineGameRow;

    /// The typed messages after one move write every field of the lines recorded from the
    /// `json!` builders they replaced (`crate::messages::tests`), with the same values; the
    /// state adds the last move (`lastMove`), which the old lines did not have.
    #[test]
    fn typed_messages_write_the_recorded_lines() {
        let mut s = TableState::new(OnlineGameRow {
            id: "g1".into(),
            created_ms: 0,
            players: [None, None],
            initial_ms: 60_000,
            increment_ms: 0,
            rated: false,
            chat: true,
            status: "open".into(),
            outcome: None,
            turn_started_ms: None,
            diffs: [None, None],
            invited: None,
            rules: damasi::RuleSet::default(),
            event: None,
        });
        let p = |id: i64| Player {
            id,
            name: format!("p{id}"),
            guest: false,
            bot: false,
        };
        let start = Instant::now();
        let now = Now {
            at: start,
            wall_ms: 0,
        };
        let cfg = OnlineConfig::default();
        let want = Some(Color::White);
        apply(&mut s, Some(&p(1)), &Command::Join { want }, now, &cfg).unwrap();
        apply(
            &mut s,
            Some(&p(2)),
            &Command::Join { want: None },
            now,
            &cfg,
        )
        .unwrap();
        let mv = Command::Move {
            text: "c3-c4".into(),
        };
        apply(&mut s, Some(&p(1)), &mv, now, &cfg).unwrap();
        use crate::messages::tests::{CHALLENGE, FULL, START, STATE};
        use crate::messages::{GameMessage, UserEvent};
        use serde_json::Value;
        let recorded = |line: &str| serde_json::from_str::<Value>(line).unwrap();
        let without_last_move = |mut v: Value| {
            let last = v.as_object_mut().unwrap().remove("lastMove").unwrap();
            (v, last)
        };
        let state = serde_json::to_value(GameMessage::GameState(Box::new(s.state(start)))).unwrap();
        let (state, last) = without_last_move(state);
        assert_eq!(state, recorded(STATE));
        assert_eq!(last["landing"], "c3-c4");
        assert_eq!(last["from"], "c3");
        assert_eq!(last["route"], serde_json::json!(["c4"]));
        let mut full =
            serde_json::to_value(GameMessage::GameFull(Box::new(s.full(start, Some(&p(1))))))
                .unwrap();
        let (inner, _) = without_last_move(full["state"].take());
        full["state"] = inner;
        assert_eq!(full, recorded(FULL));
        let start_event = UserEvent::GameStart {
            game: Box::new(s.event_game(Color::White)),
        };
        assert_eq!(serde_json::to_value(start_event).unwrap(), recorded(START));
        let challenge = s.challenge(&p(2), None, "created");
        assert_eq!(
            serde_json::to_value(challenge).unwrap(),
            recorded(CHALLENGE)
        );
    }
}
