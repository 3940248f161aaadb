//! The front-end kit ([`damasi_online::frontend`]): the engine's seat plays a game under the
//! game's own rules to the end those rules give it, and the lease of a role.

use damasi::{Color, RuleSet};
use damasi_online::brain::Brain;
use damasi_online::command::Command;
use damasi_online::frontend::EngineSeat;
use damasi_online::{NewGame, Online};

/// Issue #43's done-when: an engine game that reaches the no-capture limit under the game's
/// rules ends by it. A person plays the first legal move each turn (a capture when one is
/// due, the rules make it so) against the engine's seat at level 1, in a game under
/// `turkish; no-capture-limit 6`: the game ends drawn by that limit, its last six plies
/// without a capture, long before either side could run out of men.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_seat_plays_a_game_to_its_rules_no_capture_end() {
    let online = Online::in_memory();
    let brain = Brain::new();
    let person = online.accounts().add_bot("ayse", 0).await.unwrap();
    let engine = online.accounts().add_bot("engine-seat", 0).await.unwrap();
    let rules = RuleSet::from_name("turkish; no-capture-limit 6").unwrap();
    let new = NewGame {
        initial_ms: 600_000,
        increment_ms: 0,
        rated: false,
        chat: false,
        rules,
    };
    let game = online.create_paired(&person, &engine, new).await.unwrap();
    let seat = EngineSeat {
        player: engine,
        side: Color::Black,
        level: 1,
    };
    let mut plies = 0;
    let state = loop {
        let state = online.snapshot(&game.id).await.unwrap();
        if state.outcome.is_some() {
            break state;
        }
        assert!(plies < 200, "no end after {plies} plies: {}", state.moves);
        if seat.to_move(&state) {
            seat.play(&online, &brain, &game.id, &state, rules)
                .await
                .unwrap();
        } else {
            assert_eq!(state.turn, "white");
            let first = &state.legal.as_ref().unwrap()[0];
            let text = first.landing.clone();
            online
                .run(&game.id, &person, Command::Move { text })
                .await
                .unwrap();
        }
        plies += 1;
    };
    assert_eq!(
        state.outcome.as_deref(),
        Some("draw:no-capture-limit"),
        "{}",
        state.moves
    );
    // Replayed by the rules library: the last six plies capture nothing, the game is over.
    let mut replay = damasi::Game::with_rules(rules);
    let moves: Vec<&str> = state.moves.split_whitespace().collect();
    for m in &moves {
        replay.play_text(m).unwrap();
    }
    assert!(moves.len() >= 6);
    assert!(
        moves[moves.len() - 6..].iter().all(|m| !m.contains('x')),
        "{}",
        state.moves
    );
    assert!(replay.outcome().is_some());
}

/// A process alone holds every role: its first term begins at once.
#[tokio::test]
async fn a_process_alone_leads_from_the_start() {
    let online = Online::in_memory();
    let terms = online.lead("test-role").await.unwrap();
    assert_eq!(*terms.borrow(), Some(1));
}
