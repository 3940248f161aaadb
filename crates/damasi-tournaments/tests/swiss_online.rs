//! Swiss tournaments played through the online service: 40 programs over 9 rounds, with a
//! withdrawal before the start, a late entry, a player who never moves (withdrawn after two
//! forfeits) and a restart of the director in the middle. Every game is checked move by move
//! against the rules, stored once, and counted once.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use damasi::Notation;
use damasi::{Game, Outcome};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::{now_ms, Online, OnlineConfig};
use damasi_swiss::Tournament;
use damasi_tournaments::swiss::{Entry, SwissSettings};
use damasi_tournaments::tiebreak::Tiebreak;
use damasi_tournaments::{NewSwiss, Tournaments};
use serde_json::Value;

/// A small random number generator (xorshift), seeded: the games differ run to run only by
/// timing.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn settings(rounds: u32) -> SwissSettings {
    SwissSettings {
        name: "Kulüp Şampiyonası".into(),
        rounds,
        initial_ms: 0,
        increment_ms: 1000,
        rated: true,
        starts_ms: None,
        round_pause_ms: 0,
        entry: Entry::Anyone,
        tiebreaks: Tiebreak::FEDERATION.to_vec(),
        system: damasi_tournaments::swiss::System::Swiss,
        rules: damasi::RuleSet::default(),
        allow_bots: false,
    }
}

/// Plays a random legal move in every game of the round in play where it is the turn of a
/// player other than `absent`. Answers the tournament's view.
async fn play_moves(
    online: &Online,
    director: &Tournaments,
    id: &str,
    players: &HashMap<i64, Player>,
    absent: i64,
    rng: &mut Rng,
) -> Value {
    let view = director.show(id).await.unwrap();
    let Some(round) = view["rounds"].as_array().and_then(|r| r.last()) else {
        return view;
    };
    for g in round["games"].as_array().unwrap() {
        let (Some(gid), true) = (g["id"].as_str(), g["result"].is_null()) else {
            continue;
        };
        let Ok(table) = online.table(gid).await else {
            continue;
        };
        let (mover, text) = {
            let s = table.state.lock().await;
            if s.core.game.is_over() || s.seats.iter().any(Option::is_none) {
                continue;
            }
            let side = s.core.game.position().side_to_move();
            let Some(mover) = s.seats[side].clone() else {
                continue;
            };
            let moves = s.core.game.legal_moves();
            if moves.is_empty() || mover.id == absent {
                continue;
            }
            let m = moves.as_slice()[rng.next(moves.len())];
            (
                mover,
                s.core.game.position().write_move(&m, Notation::Landing),
            )
        };
        let _ = online
            .run(gid, &players[&mover.id], Command::Move { text })
            .await;
    }
    view
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_programs_play_nine_rounds() {
    let config = OnlineConfig {
        abort_after: Duration::from_millis(1500),
        ..OnlineConfig::default()
    };
    let online = Online::new(OnlineDb::in_memory(), config);
    let mut director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let organiser = online.accounts().add_bot("organiser", now).await.unwrap();
    let mut players = HashMap::new();
    let mut list = Vec::new();
    for i in 1..=41 {
        let p = online
            .accounts()
            .add_bot(&format!("bot{i:02}"), now)
            .await
            .unwrap();
        players.insert(p.id, p.clone());
        list.push(p);
    }
    let created = director
        .create(
            &organiser,
            NewSwiss {
                settings: settings(9),
                password: None,
            },
        )
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["status"], "created");
    for p in &list[..40] {
        director.join(&id, p, None).await.unwrap();
    }
    // Joining twice is refused; a withdrawal before the start takes the player off the list.
    let again = director.join(&id, &list[0], None).await.unwrap_err();
    assert_eq!(again.code(), "already-joined");
    director.withdraw(&id, &list[39]).await.unwrap();
    assert_eq!(director.show(&id).await.unwrap()["nbPlayers"], 39);
    // Only the organiser starts it.
    let not_yours = director.next_round_now(&id, &list[0]).await.unwrap_err();
    assert_eq!(not_yours.code(), "not-organiser");
    director.next_round_now(&id, &organiser).await.unwrap();

    let absent = list[5].id; // bot06 never moves.
    let late = &list[40]; // bot41 joins during round 1.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut late_joined = false;
    let mut restarted = false;
    let deadline = std::time::Instant::now() + Duration::from_secs(240);
    let view = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "the tournament did not finish in 240 s"
        );
        let view = play_moves(&online, &director, &id, &players, absent, &mut rng).await;
        if view["status"] == "finished" {
            break view;
        }
        let round = view["round"].as_u64().unwrap();
        if round == 1 && !late_joined {
            director.join(&id, late, None).await.unwrap();
            late_joined = true;
        }
        if round == 4 && !restarted {
            // The director stops (as a server shutting down) and a new one picks up the
            // tournament from the store.
            director.stop().await;
            drop(director);
            director = Tournaments::new(online.clone());
            director.run().await.unwrap();
            restarted = true;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    assert!(late_joined && restarted);
    let swiss = director.get(&id).await.unwrap();
    assert_eq!(swiss.rounds.len(), 9);
    assert_eq!(view["nbPlayers"], 40);

    let number = |user: i64| swiss.number_of(user).unwrap();
    let name_of: HashMap<u32, i64> = swiss
        .entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (i as u32 + 1, e.user))
        .collect();

    // Every round: each player at most once, no two players meet twice, at most one bye a
    // player; the late entry plays from round 2, the absent player is withdrawn after two
    // forfeits and not paired after.
    let mut met = HashSet::new();
    let mut byes = HashSet::new();
    let mut games = HashSet::new();
    let mut forfeits_of_absent = 0;
    for (r, round) in swiss.rounds.iter().enumerate() {
        let mut seen = HashSet::new();
        for b in &round.boards {
            assert!(
                seen.insert(b.white) && seen.insert(b.black),
                "round {} pairs a player twice",
                r + 1
            );
            assert!(
                met.insert((b.white.min(b.black), b.white.max(b.black))),
                "a rematch in round {}",
                r + 1
            );
            let g = b.game.clone().expect("every game was made");
            assert!(games.insert(g), "a game counted twice");
            if name_of[&b.white] == absent || name_of[&b.black] == absent {
                forfeits_of_absent += 1;
            }
        }
        if let Some(b) = round.bye {
            assert!(seen.insert(b));
            assert!(byes.insert(b), "player {b} had two byes");
        }
        if r == 0 {
            assert!(
                !seen.contains(&number(late.id)),
                "the late entry was in round 1"
            );
        } else {
            assert!(seen.contains(&number(late.id)) || round.bye == Some(number(late.id)));
        }
        if r >= 2 {
            assert!(
                !seen.contains(&number(absent)),
                "a withdrawn player was paired"
            );
        }
    }
    assert_eq!(forfeits_of_absent, 2);
    assert!(swiss.entrants[number(absent) as usize - 1].withdrawn);

    // Every game is stored once, legal move by move, and its result is the one counted.
    let mut stored = HashSet::new();
    for p in &list {
        for g in online.db().games_of(p.id, 1000).await.unwrap() {
            stored.insert(g.row.id);
        }
    }
    assert_eq!(
        stored, games,
        "the store holds exactly the tournament's games"
    );
    let mut points = HashMap::<u32, u32>::new();
    for round in &swiss.rounds {
        if let Some(b) = round.bye {
            *points.entry(b).or_default() += 2;
        }
        for b in &round.boards {
            let id = b.game.as_deref().unwrap();
            let (row, moves) = online.db().game(id).await.unwrap().unwrap();
            assert_eq!(row.status, "over");
            let mut game = Game::new();
            for (token, _) in &moves {
                // The store keeps `from.to.captured` (captured squares as hex bits): it must
                // be one of the legal moves.
                let legal = game.legal_moves();
                let m = legal
                    .iter()
                    .find(|m| format!("{}.{}.{:x}", m.from(), m.to(), m.captured_bits()) == *token)
                    .copied()
                    .unwrap_or_else(|| panic!("game {id}: {token} is not a legal move"));
                game.play(&m).unwrap();
            }
            let outcome: Outcome = row.outcome.as_deref().unwrap().parse().unwrap();
            let result = b.result.unwrap();
            use damasi_tournaments::swiss::BoardResult as R;
            let expected = match outcome {
                Outcome::Win {
                    winner: damasi::Color::White,
                    ..
                } => R::WhiteWins,
                Outcome::Win { .. } => R::BlackWins,
                Outcome::Draw(_) => R::Draw,
                Outcome::Aborted if moves.len() % 2 == 0 => R::WhiteForfeits,
                Outcome::Aborted => R::BlackForfeits,
            };
            assert_eq!(result, expected, "game {id}");
            if let Some(board_outcome) = game.board_outcome() {
                assert_eq!(
                    Some(board_outcome),
                    Some(outcome),
                    "game {id} ended on the board"
                );
            }
            let (w, bl) = match result {
                R::WhiteWins | R::BlackForfeits => (2, 0),
                R::BlackWins | R::WhiteForfeits => (0, 2),
                R::Draw => (1, 1),
            };
            *points.entry(b.white).or_default() += w;
            *points.entry(b.black).or_default() += bl;
        }
    }

    // The standings add the points up and are in order; the TRF export reads back with the
    // same points.
    let standings = swiss.standings();
    assert_eq!(standings.len(), 40);
    for l in &standings {
        assert_eq!(
            l.halves,
            points.get(&l.number).copied().unwrap_or(0),
            "player {}",
            l.number
        );
    }
    for w in standings.windows(2) {
        assert!((w[0].halves, &w[0].tiebreaks) >= (w[1].halves, &w[1].tiebreaks));
    }
    let trf = director.trf(&id).await.unwrap();
    let back = Tournament::from_trf(&trf).unwrap();
    assert_eq!(back.players.len(), 40);
    for l in &standings {
        let p = &back.players[l.number as usize - 1];
        assert_eq!(p.points_tenths, l.halves * 5);
        assert_eq!(p.rank, Some(l.rank));
    }
    // Results lines, one per player, best first.
    let results = damasi_tournaments::results(&swiss);
    assert_eq!(results.len(), 40);
    assert_eq!(results[0]["rank"], 1);
}

#[tokio::test]
async fn entry_rules_and_the_organisers_buttons() {
    let online = Online::in_memory();
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let org = online.accounts().add_bot("org", now).await.unwrap();
    let a = online.accounts().add_bot("alice", now).await.unwrap();
    let b = online.accounts().add_bot("bob", now).await.unwrap();
    let guest = online.accounts().guest(now).await.unwrap();

    let mut s = settings(3);
    s.name = "x".into();
    let short = director
        .create(
            &org,
            NewSwiss {
                settings: s,
                password: None,
            },
        )
        .await
        .unwrap_err();
    assert!(short.message().contains("2 to 80"), "{short:?}");

    let mut s = settings(3);
    s.initial_ms = 7;
    assert!(director
        .create(
            &org,
            NewSwiss {
                settings: s,
                password: None
            }
        )
        .await
        .is_err());

    let t = director
        .create(
            &org,
            NewSwiss {
                settings: settings(3),
                password: Some("kapalı".into()),
            },
        )
        .await
        .unwrap();
    let id = t["id"].as_str().unwrap();
    assert_eq!(t["password"], true);
    let wrong = director.join(id, &a, Some("açık")).await.unwrap_err();
    assert_eq!(wrong.code(), "wrong-password");
    assert_eq!(
        director.join(id, &a, None).await.unwrap_err().code(),
        "wrong-password"
    );
    director.join(id, &a, Some("kapalı")).await.unwrap();
    // Rated: guests may not play.
    assert_eq!(
        director
            .join(id, &guest, Some("kapalı"))
            .await
            .unwrap_err()
            .code(),
        "guests-casual-only"
    );
    // One player cannot start.
    assert_eq!(
        director.next_round_now(id, &org).await.unwrap_err().code(),
        "too-few-players"
    );
    director.join(id, &b, Some("kapalı")).await.unwrap();
    director.next_round_now(id, &org).await.unwrap();
    let v = director.show(id).await.unwrap();
    assert_eq!(v["status"], "started");
    assert_eq!(v["rounds"][0]["games"].as_array().unwrap().len(), 1);
    // A round in play cannot be skipped.
    assert_eq!(
        director.next_round_now(id, &org).await.unwrap_err().code(),
        "round-in-play"
    );
    // The organiser ends it: the unfinished round is dropped.
    director.close(id, &org).await.unwrap();
    let v = director.show(id).await.unwrap();
    assert_eq!(v["status"], "finished");
    assert_eq!(v["rounds"].as_array().unwrap().len(), 0);

    // A list of invited players.
    let mut s = settings(2);
    s.entry = Entry::List {
        names: vec!["Alice".into()],
    };
    let t = director
        .create(
            &org,
            NewSwiss {
                settings: s,
                password: None,
            },
        )
        .await
        .unwrap();
    let id = t["id"].as_str().unwrap();
    director.join(id, &a, None).await.unwrap();
    assert_eq!(
        director.join(id, &b, None).await.unwrap_err().code(),
        "not-invited"
    );
    assert_eq!(
        director.show("nothing").await.unwrap_err().code(),
        "not-found"
    );
}

#[tokio::test]
async fn a_tournament_starts_at_its_time_and_is_called_off_with_nobody() {
    let online = Online::in_memory();
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let org = online.accounts().add_bot("org", now).await.unwrap();
    let a = online.accounts().add_bot("alice", now).await.unwrap();
    let b = online.accounts().add_bot("bob", now).await.unwrap();
    let mut s = settings(1);
    s.starts_ms = Some(now + 600);
    let with_players = director
        .create(
            &org,
            NewSwiss {
                settings: s.clone(),
                password: None,
            },
        )
        .await
        .unwrap();
    let empty = director
        .create(
            &org,
            NewSwiss {
                settings: s,
                password: None,
            },
        )
        .await
        .unwrap();
    let id = with_players["id"].as_str().unwrap();
    director.join(id, &a, None).await.unwrap();
    director.join(id, &b, None).await.unwrap();
    let (_, mut updates) = director.watch(id).await.unwrap();
    let started = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let v = updates.recv().await.unwrap();
            // The first "started" view may be the one shown while the round is paired
            // (`"pairing": true`, no round yet): wait for the round.
            if v["status"] == "started" && v["rounds"][0]["games"].is_array() {
                return v;
            }
        }
    })
    .await
    .expect("the tournament started on time");
    assert_eq!(started["rounds"][0]["games"].as_array().unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(700)).await;
    let v = director.show(empty["id"].as_str().unwrap()).await.unwrap();
    assert_eq!(v["status"], "finished");
    assert_eq!(v["nbPlayers"], 0);
}

/// A correspondence Swiss (damasi's `days`: its settings keep the days a move as the
/// control): its rounds' games have no clock and their days a move, and arenas refuse days.
#[tokio::test]
async fn a_correspondence_swiss_pairs_games_of_days_a_move() {
    let online = Online::in_memory();
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let org = online.accounts().add_bot("org", now).await.unwrap();
    let a = online.accounts().add_bot("alice", now).await.unwrap();
    let b = online.accounts().add_bot("bob", now).await.unwrap();
    let days = damasi_online::NewGame::correspondence(7, true, true).unwrap();
    let mut s = settings(3);
    (s.initial_ms, s.increment_ms) = (days.initial_ms, days.increment_ms);
    let t = director
        .create(
            &org,
            NewSwiss {
                settings: s,
                password: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(t["days"], 7, "{t}");
    let id = t["id"].as_str().unwrap();
    director.join(id, &a, None).await.unwrap();
    director.join(id, &b, None).await.unwrap();
    director.next_round_now(id, &org).await.unwrap();
    let view = director.show(id).await.unwrap();
    let game = view["rounds"][0]["games"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let full = serde_json::to_value(online.full(&game, None).await.unwrap()).unwrap();
    assert_eq!(full["daysPerTurn"], 7);
    assert_eq!(full["clock"], Value::Null);
    assert_eq!(full["speed"], "correspondence");
    // The game names its tournament (lichess's swissId), and has no rematch.
    assert_eq!(full["swissId"], id);
    assert!(full.get("tournamentId").is_none(), "{full}");
    // An arena lasts minutes: its games cannot be of days.
    let arena = damasi_tournaments::arena::ArenaSettings {
        name: "Gün arenası".into(),
        minutes: 60,
        initial_ms: days.initial_ms,
        increment_ms: 0,
        rated: true,
        starts_ms: None,
        entry: Entry::Anyone,
        rules: damasi::RuleSet::default(),
        allow_bots: false,
    };
    let refused = director
        .create_arena(
            &org,
            damasi_tournaments::NewArena {
                settings: arena,
                password: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "bad-request");
}
