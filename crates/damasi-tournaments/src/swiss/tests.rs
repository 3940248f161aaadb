//! The Swiss state's rules, checked on hand-worked tournaments.

use super::*;
use crate::tiebreak::Tiebreak;
use std::collections::HashSet;

fn round_robin(system: System) -> Swiss {
    let settings = SwissSettings {
        name: "Round robin".into(),
        // Set at the start for a round robin.
        rounds: 3,
        initial_ms: 60_000,
        increment_ms: 0,
        rated: false,
        starts_ms: None,
        round_pause_ms: 0,
        entry: Entry::Anyone,
        tiebreaks: Tiebreak::ROUND_ROBIN.to_vec(),
        rules: damasi::RuleSet::default(),
        system,
        allow_bots: false,
    };
    Swiss::new("rr".into(), (1, "org".into()), 0, settings, Colour::White).unwrap()
}

/// Joins players `p1`, `p2`, ... rated so that `pN` gets pairing number N.
fn with_players(system: System, n: u32) -> Swiss {
    let mut s = round_robin(system);
    for i in 1..=n {
        s.join(i as i64 + 10, &format!("p{i}"), 2000 - i * 10)
            .unwrap();
    }
    s
}

#[test]
fn five_players_each_rest_once_and_meet_once() {
    let mut s = round_robin(System::RoundRobin);
    // Joined in the reverse order of their ratings: numbered by rating at the start.
    for i in (1..=5u32).rev() {
        s.join(i as i64 + 10, &format!("p{i}"), 2000 - i * 10)
            .unwrap();
    }
    assert_eq!(s.nb_rounds(), 5);
    s.start().unwrap();
    let names: Vec<&str> = s.entrants.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["p1", "p2", "p3", "p4", "p5"]);
    assert_eq!(
        s.join(99, "late", 1500).unwrap_err(),
        SwissError::Refused(
            "tournament-closed",
            "the tournament takes no more entries".into()
        )
    );
    let mut rests = [0; 5];
    let mut met = HashSet::new();
    for r in 1..=5 {
        let round = s.pair_next(r).unwrap().expect("a round").clone();
        assert_eq!(round.boards.len(), 2, "round {r}");
        let rest = round.bye.expect("a rest every round");
        rests[rest as usize - 1] += 1;
        // While it is in play the rest shows as a zero-point bye.
        assert_eq!(
            s.entries()[rest as usize - 1].last().unwrap().result,
            ResultCode::ZeroPointBye
        );
        for (i, b) in round.boards.iter().enumerate() {
            assert!(met.insert((b.white.min(b.black), b.white.max(b.black))));
            assert!(b.white != rest && b.black != rest);
            // White wins every game.
            s.record_board(i, BoardResult::WhiteWins, r);
        }
    }
    assert_eq!(rests, [1; 5]);
    assert_eq!(met.len(), 10);
    assert_eq!(s.status, Status::Finished);
    // Points: a game won as White is a point, the rest none.
    let mut whites = [0u32; 5];
    for round in &s.rounds {
        for b in &round.boards {
            whites[b.white as usize - 1] += 2;
        }
    }
    for l in s.standings() {
        assert_eq!(l.halves, whites[l.number as usize - 1]);
    }
    // The report: every player has five rounds, one of them `0000 - Z`, and the type of
    // tournament on line 092.
    let trf = crate::export_trf(&s);
    assert!(trf.contains("092 Individual: round robin"), "{trf}");
    assert!(trf.contains("XXR 5"), "{trf}");
    let back = Tournament::from_trf(&trf).unwrap();
    for p in &back.players {
        assert_eq!(p.rounds.len(), 5);
        let rests: Vec<_> = p
            .rounds
            .iter()
            .filter(|e| e.result == ResultCode::ZeroPointBye && e.opponent.is_none())
            .collect();
        assert_eq!(rests.len(), 1, "{trf}");
        assert_eq!(p.points_tenths, whites[p.number as usize - 1] * 5);
    }
}

#[test]
fn a_round_robin_has_three_to_twenty_four_players() {
    let mut s = with_players(System::RoundRobin, 2);
    let e = s.start().unwrap_err();
    assert!(
        matches!(&e, SwissError::Refused("too-few-players", m) if m.contains("3 to 24")),
        "{e:?}"
    );
    let mut s = with_players(System::DoubleRoundRobin, 24);
    assert_eq!(
        s.join(99, "p25", 1000).unwrap_err(),
        SwissError::Refused(
            "tournament-full",
            "the round robin is full (24 players)".into()
        )
    );
    assert_eq!(s.nb_rounds(), 46);
    s.start().unwrap();
    assert_eq!(s.settings.rounds, 46);
    let mut settings = round_robin(System::RoundRobin).settings;
    settings.entry = Entry::List {
        names: vec!["a".into(), "b".into()],
    };
    let e = settings.check().unwrap_err();
    assert!(e.to_string().starts_with("conditions.allowList:"), "{e}");
}

#[test]
fn a_withdrawn_players_games_are_forfeits() {
    // Four players: round 1 is 1-4, 2-3; round 2 4-3, 1-2; round 3 2-4, 3-1.
    let mut s = with_players(System::RoundRobin, 4);
    s.start().unwrap();
    // 2 and 3 withdraw before round 1 is paired: their game is not played (both rest).
    s.withdraw(12).unwrap();
    s.withdraw(13).unwrap();
    let round = s.pair_next(1).unwrap().unwrap().clone();
    assert_eq!(round.boards.len(), 1);
    assert_eq!((round.boards[0].white, round.boards[0].black), (1, 4));
    assert!(s.record_board(0, BoardResult::WhiteWins, 1));
    // Rounds 2 and 3: every game has a withdrawn player, a forfeit at once.
    for r in 2..=3 {
        let round = s.pair_next(r).unwrap().unwrap().clone();
        assert!(round.boards.iter().all(|b| b.game.is_none()));
        assert!(s.in_play().is_none(), "round {r} is complete at once");
    }
    assert_eq!(s.status, Status::Finished);
    let entries = s.entries();
    use ResultCode as R;
    let codes = |n: usize| entries[n - 1].iter().map(|e| e.result).collect::<Vec<_>>();
    assert_eq!(codes(1), [R::Win, R::ForfeitWin, R::ForfeitWin]);
    assert_eq!(codes(2), [R::ZeroPointBye, R::ForfeitLoss, R::ForfeitLoss]);
    assert_eq!(codes(3), [R::ZeroPointBye, R::ForfeitLoss, R::ForfeitLoss]);
    assert_eq!(codes(4), [R::Loss, R::ForfeitWin, R::ForfeitWin]);
    let points: Vec<(u32, u32)> = s.standings().iter().map(|l| (l.number, l.halves)).collect();
    assert_eq!(points, [(1, 6), (4, 4), (2, 0), (3, 0)]);
}

#[test]
fn a_swiss_stored_before_the_system_is_a_swiss() {
    let s = with_players(System::Swiss, 3);
    let mut stored = serde_json::to_value(&s).unwrap();
    stored["settings"].as_object_mut().unwrap().remove("system");
    let back: Swiss = serde_json::from_value(stored).unwrap();
    assert_eq!(back.settings.system, System::Swiss);
}

/// TRF's end date (line 052) is the day the tournament finished, not the day its last
/// round was paired (a correspondence round lasts days); its start (042) is round 1's.
#[test]
fn the_report_ends_on_the_day_it_finished() {
    const DAY: i64 = 86_400_000;
    // 2026-01-01 00:00 UTC.
    let mut now = 1_767_225_600_000;
    let mut s = with_players(System::RoundRobin, 3);
    s.start().unwrap();
    while s.status != Status::Finished {
        let round = s.pair_next(now).unwrap().expect("a round").clone();
        // Each round's game takes three days.
        now += 3 * DAY;
        for i in 0..round.boards.len() {
            s.record_board(i, BoardResult::WhiteWins, now);
        }
    }
    assert_eq!(s.rounds.len(), 3);
    assert_eq!(s.finished_ms, Some(now));
    let trf = crate::export_trf(&s);
    assert!(trf.contains("\n042 2026/01/01\n"), "{trf}");
    assert!(trf.contains("\n052 2026/01/10\n"), "{trf}");
    // Stored and read back, it keeps the day; one stored before it was kept reads as
    // none, and its report ends on its last round's day as before.
    let mut stored = serde_json::to_value(&s).unwrap();
    let back: Swiss = serde_json::from_value(stored.clone()).unwrap();
    assert_eq!(back.finished_ms, Some(now));
    stored.as_object_mut().unwrap().remove("finishedMs");
    let old: Swiss = serde_json::from_value(stored).unwrap();
    assert_eq!(old.finished_ms, None);
    assert!(crate::export_trf(&old).contains("\n052 2026/01/07\n"));
}
