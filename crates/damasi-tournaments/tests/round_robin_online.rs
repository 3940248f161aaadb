//! A double round robin of 8 programs through the online service, run to the end: 14 rounds
//! of the Berger tables, every game replayed against the rules, every two players met twice
//! with the colours reversed, and the standings and tie-breaks (Sonneborn-Berger, direct
//! encounter, wins, Koya) worked out again here from the games' results, with code of the
//! test's own, equal to what the view, the results and the TRF show.

use std::collections::HashMap;
use std::time::Duration;

use damasi::{Game, Notation, Outcome};
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::{now_ms, Online};
use damasi_swiss::Tournament;
use damasi_tournaments::swiss::{BoardResult, Entry, SwissSettings, System};
use damasi_tournaments::tiebreak::Tiebreak;
use damasi_tournaments::{NewSwiss, Tournaments};
use serde_json::Value;

/// A seeded xorshift: the games differ run to run only by timing.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Plays a random legal move in every game of the round in play; answers the view.
async fn play_moves(
    online: &Online,
    director: &Tournaments,
    id: &str,
    players: &HashMap<i64, Player>,
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
            if moves.is_empty() {
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

/// White's and Black's half points.
fn halves(r: BoardResult) -> (u32, u32) {
    match r {
        BoardResult::WhiteWins | BoardResult::BlackForfeits => (2, 0),
        BoardResult::BlackWins | BoardResult::WhiteForfeits => (0, 2),
        BoardResult::Draw => (1, 1),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_programs_play_a_double_round_robin() {
    let online = Online::in_memory();
    let director = Tournaments::new(online.clone());
    director.run().await.unwrap();
    let now = now_ms();
    let organiser = online.accounts().add_bot("organiser", now).await.unwrap();
    let mut players = HashMap::new();
    let mut list = Vec::new();
    for i in 1..=8 {
        let p = online
            .accounts()
            .add_bot(&format!("rr{i}"), now)
            .await
            .unwrap();
        players.insert(p.id, p.clone());
        list.push(p);
    }
    let settings = SwissSettings {
        name: "Çift devreli lig".into(),
        rounds: 1,
        // Enough time for a random game to end on the board (with no time at the start, Black
        // loses on time after White's first move).
        initial_ms: 300_000,
        increment_ms: 0,
        rated: true,
        starts_ms: None,
        round_pause_ms: 0,
        entry: Entry::Anyone,
        tiebreaks: Tiebreak::ROUND_ROBIN.to_vec(),
        rules: damasi::RuleSet::default(),
        system: System::DoubleRoundRobin,
        allow_bots: false,
    };
    let created = director
        .create(
            &organiser,
            NewSwiss {
                settings,
                password: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(created["system"], "roundRobin");
    assert_eq!(created["double"], true);
    let id = created["id"].as_str().unwrap().to_string();
    // Joined in reverse order: all rated alike, so numbered by name.
    for p in list.iter().rev() {
        director.join(&id, p, None).await.unwrap();
    }
    assert_eq!(director.show(&id).await.unwrap()["nbRounds"], 14);
    director.next_round_now(&id, &organiser).await.unwrap();
    // Entries are closed once it has started.
    let late = online.accounts().add_bot("late", now).await.unwrap();
    let refused = director.join(&id, &late, None).await.unwrap_err();
    assert_eq!(refused.code(), "tournament-closed");

    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    let view = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "the round robin did not finish in 300 s"
        );
        let view = play_moves(&online, &director, &id, &players, &mut rng).await;
        if view["status"] == "finished" {
            break view;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let s = director.get(&id).await.unwrap();
    let names: Vec<String> = s.entrants.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, (1..=8).map(|i| format!("rr{i}")).collect::<Vec<_>>());
    assert_eq!(s.rounds.len(), 14);
    assert_eq!(view["nbRounds"], 14);

    // Every round pairs everybody once; every two players meet twice, once with each colour;
    // no byes.
    let mut colours: HashMap<(u32, u32), u32> = HashMap::new();
    for (r, round) in s.rounds.iter().enumerate() {
        assert_eq!(round.boards.len(), 4, "round {}", r + 1);
        assert_eq!(round.bye, None);
        let mut seen: Vec<u32> = round
            .boards
            .iter()
            .flat_map(|b| [b.white, b.black])
            .collect();
        seen.sort();
        assert_eq!(seen, (1..=8).collect::<Vec<_>>(), "round {}", r + 1);
        for b in &round.boards {
            *colours.entry((b.white, b.black)).or_default() += 1;
        }
    }
    for a in 1..=8u32 {
        for b in 1..=8u32 {
            if a != b {
                assert_eq!(colours.get(&(a, b)), Some(&1), "{a} White against {b}");
            }
        }
    }

    // Every game replayed move by move against the rules, its result the one counted.
    // `results[(a, b)]`: the half points `a` scored against `b`, over both games; `won[a]`
    // the games `a` won over the board.
    let mut score = [0u32; 9];
    let mut against = [[0u32; 9]; 9];
    let mut won = [0u32; 9];
    for round in &s.rounds {
        for b in &round.boards {
            let gid = b.game.as_deref().expect("every game was made");
            let (row, moves) = online.db().game(gid).await.unwrap().unwrap();
            let mut game = Game::new();
            for (token, _) in &moves {
                let legal = game.legal_moves();
                let m = legal
                    .iter()
                    .find(|m| format!("{}.{}.{:x}", m.from(), m.to(), m.captured_bits()) == *token)
                    .copied()
                    .unwrap_or_else(|| panic!("game {gid}: {token} is not a legal move"));
                game.play(&m).unwrap();
            }
            let outcome: Outcome = row.outcome.as_deref().unwrap().parse().unwrap();
            let result = b.result.expect("every game is over");
            let expected = match outcome {
                Outcome::Win {
                    winner: damasi::Color::White,
                    ..
                } => BoardResult::WhiteWins,
                Outcome::Win { .. } => BoardResult::BlackWins,
                Outcome::Draw(_) => BoardResult::Draw,
                Outcome::Aborted if moves.len() % 2 == 0 => BoardResult::WhiteForfeits,
                Outcome::Aborted => BoardResult::BlackForfeits,
            };
            assert_eq!(result, expected, "game {gid}");
            let (w, bl) = halves(result);
            score[b.white as usize] += w;
            score[b.black as usize] += bl;
            against[b.white as usize][b.black as usize] += w;
            against[b.black as usize][b.white as usize] += bl;
            match result {
                BoardResult::WhiteWins => won[b.white as usize] += 1,
                BoardResult::BlackWins => won[b.black as usize] += 1,
                _ => {}
            }
        }
    }
    assert_eq!(score.iter().sum::<u32>(), 56 * 2, "56 games");

    // The tie-breaks, worked out here: SB in quarter points, Koya in half points (14 games:
    // an opponent counts with 7 points or more, 14 half points).
    let sb = |a: usize| -> u32 { (1..=8).map(|o| score[o] * against[a][o]).sum() };
    let koya = |a: usize| -> u32 {
        (1..=8)
            .filter(|&o| o != a && score[o] >= 14)
            .map(|o| against[a][o])
            .sum()
    };
    // Direct encounter among those equal on points and SB (everybody has met everybody).
    let de = |a: usize| -> u32 {
        (1..=8)
            .filter(|&o| o != a && score[o] == score[a] && sb(o) == sb(a))
            .map(|o| against[a][o])
            .sum()
    };
    let mut order: Vec<usize> = (1..=8).collect();
    let key = |a: usize| (score[a], sb(a), de(a), won[a], koya(a));
    order.sort_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));

    let standings = view["standings"].as_array().unwrap();
    let trf = director.trf(&id).await.unwrap();
    assert!(trf.contains("XXR 14"), "{trf}");
    let back = Tournament::from_trf(&trf).unwrap();
    assert_eq!(back.players.len(), 8);
    for (rank, &a) in order.iter().enumerate() {
        let line = &standings[rank];
        assert_eq!(line["username"], format!("rr{a}"), "{line}");
        assert_eq!(line["rank"], rank + 1);
        assert_eq!(line["points"].as_f64(), Some(score[a] as f64 / 2.0));
        let tb: Vec<f64> = line["tieBreaks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(
            tb,
            vec![
                sb(a) as f64 / 4.0,
                de(a) as f64 / 2.0,
                won[a] as f64,
                koya(a) as f64 / 2.0
            ],
            "player {a}"
        );
        let p = &back.players[a - 1];
        assert_eq!(p.points_tenths, score[a] * 5, "player {a} in the TRF");
        assert_eq!(p.rank, Some(rank as u32 + 1), "player {a} in the TRF");
        assert_eq!(p.rounds.len(), 14);
    }
    assert_eq!(
        view["tieBreaks"],
        serde_json::json!(["SB", "DE", "WON", "KS"])
    );
}
