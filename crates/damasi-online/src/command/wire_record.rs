//! The typed messages against the lines recorded from the `json!` builders they replaced.

use super::tests::{open_game, player};
use super::*;

/// The typed messages after one move write every field of the lines recorded from the
/// `json!` builders they replaced (`crate::messages::tests`), with the same values; the
/// state adds the last move (`lastMove`), which the old lines did not have.
#[test]
fn typed_messages_write_the_recorded_lines() {
    let mut s = open_game(false);
    let start = Instant::now();
    let now = Now {
        at: start,
        wall_ms: 0,
    };
    let cfg = OnlineConfig::default();
    let want = Some(Color::White);
    apply(&mut s, Some(&player(1)), &Command::Join { want }, now, &cfg).unwrap();
    apply(
        &mut s,
        Some(&player(2)),
        &Command::Join { want: None },
        now,
        &cfg,
    )
    .unwrap();
    let mv = Command::Move {
        text: "c3-c4".into(),
    };
    apply(&mut s, Some(&player(1)), &mv, now, &cfg).unwrap();
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
    let mut full = serde_json::to_value(GameMessage::GameFull(Box::new(
        s.full(start, Some(&player(1))),
    )))
    .unwrap();
    let (inner, _) = without_last_move(full["state"].take());
    full["state"] = inner;
    assert_eq!(full, recorded(FULL));
    let start_event = UserEvent::GameStart {
        game: Box::new(s.event_game(Color::White)),
    };
    assert_eq!(serde_json::to_value(start_event).unwrap(), recorded(START));
    let challenge = s.challenge(&player(2), None, "created");
    assert_eq!(
        serde_json::to_value(challenge).unwrap(),
        recorded(CHALLENGE)
    );
}
