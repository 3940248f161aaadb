//! Tests of `command`.

use super::*;
use crate::db::OnlineGameRow;
use std::time::Duration;

/// A signed-up player `p{id}` (also used by `wire_record`).
pub(super) fn player(id: i64) -> Player {
    Player {
        id,
        name: format!("p{id}"),
        guest: false,
        bot: false,
    }
}

/// A new game of a minute a side, waiting for its players (also used by `wire_record`).
pub(super) fn open_game(rated: bool) -> TableState {
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
    assert_eq!((s.moves.as_str(), s.moves.len()), ("c3-c4", 1));
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
