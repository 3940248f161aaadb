//! The Berger tables of FIDE Handbook C.05 Annex 1, as published (typed here from the
//! printed tables, White first), against `damasi_swiss::berger`; and the properties every
//! round robin of 3 to 24 players must have.

use damasi_swiss::berger::{self, BergerError};

/// The published tables, one round a line, the pairs `WHITE-BLACK` in the order of the boards.
const TABLE_4: &str = "
1-4, 2-3
4-3, 1-2
2-4, 3-1";

const TABLE_6: &str = "
1-6, 2-5, 3-4
6-4, 5-3, 1-2
2-6, 3-1, 4-5
6-5, 1-4, 2-3
3-6, 4-2, 5-1";

const TABLE_8: &str = "
1-8, 2-7, 3-6, 4-5
8-5, 6-4, 7-3, 1-2
2-8, 3-1, 4-7, 5-6
8-6, 7-5, 1-4, 2-3
3-8, 4-2, 5-1, 6-7
8-7, 1-6, 2-5, 3-4
4-8, 5-3, 6-2, 7-1";

const TABLE_10: &str = "
1-10, 2-9, 3-8, 4-7, 5-6
10-6, 7-5, 8-4, 9-3, 1-2
2-10, 3-1, 4-9, 5-8, 6-7
10-7, 8-6, 9-5, 1-4, 2-3
3-10, 4-2, 5-1, 6-9, 7-8
10-8, 9-7, 1-6, 2-5, 3-4
4-10, 5-3, 6-2, 7-1, 8-9
10-9, 1-8, 2-7, 3-6, 4-5
5-10, 6-4, 7-3, 8-2, 9-1";

const TABLE_12: &str = "
1-12, 2-11, 3-10, 4-9, 5-8, 6-7
12-7, 8-6, 9-5, 10-4, 11-3, 1-2
2-12, 3-1, 4-11, 5-10, 6-9, 7-8
12-8, 9-7, 10-6, 11-5, 1-4, 2-3
3-12, 4-2, 5-1, 6-11, 7-10, 8-9
12-9, 10-8, 11-7, 1-6, 2-5, 3-4
4-12, 5-3, 6-2, 7-1, 8-11, 9-10
12-10, 11-9, 1-8, 2-7, 3-6, 4-5
5-12, 6-4, 7-3, 8-2, 9-1, 10-11
12-11, 1-10, 2-9, 3-8, 4-7, 5-6
6-12, 7-5, 8-4, 9-3, 10-2, 11-1";

const TABLE_14: &str = "
1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
14-8, 9-7, 10-6, 11-5, 12-4, 13-3, 1-2
2-14, 3-1, 4-13, 5-12, 6-11, 7-10, 8-9
14-9, 10-8, 11-7, 12-6, 13-5, 1-4, 2-3
3-14, 4-2, 5-1, 6-13, 7-12, 8-11, 9-10
14-10, 11-9, 12-8, 13-7, 1-6, 2-5, 3-4
4-14, 5-3, 6-2, 7-1, 8-13, 9-12, 10-11
14-11, 12-10, 13-9, 1-8, 2-7, 3-6, 4-5
5-14, 6-4, 7-3, 8-2, 9-1, 10-13, 11-12
14-12, 13-11, 1-10, 2-9, 3-8, 4-7, 5-6
6-14, 7-5, 8-4, 9-3, 10-2, 11-1, 12-13
14-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7
7-14, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1";

/// A table: its rounds, each the `(white, black)` pairs in board order.
type Table = Vec<Vec<(u32, u32)>>;

fn parse(table: &str) -> Table {
    table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            line.split(',')
                .map(|pair| {
                    let (w, b) = pair.trim().split_once('-').unwrap();
                    (w.parse().unwrap(), b.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

fn tables() -> Vec<(u32, Table)> {
    vec![
        (4, parse(TABLE_4)),
        (6, parse(TABLE_6)),
        (8, parse(TABLE_8)),
        (10, parse(TABLE_10)),
        (12, parse(TABLE_12)),
        (14, parse(TABLE_14)),
    ]
}

#[test]
fn even_numbers_of_players_play_the_published_tables() {
    for (n, table) in tables() {
        assert_eq!(berger::round_count(n, false), Ok(n - 1));
        assert_eq!(table.len() as u32, n - 1);
        for (i, expected) in table.iter().enumerate() {
            let round = i as u32 + 1;
            let p = berger::pair_round(n, round, false).unwrap();
            assert_eq!(&p.pairs, expected, "{n} players, round {round}");
            assert_eq!(p.bye, None);
        }
    }
}

#[test]
fn odd_numbers_of_players_have_a_bye_against_the_missing_number() {
    for (n, table) in tables() {
        let players = n - 1;
        assert_eq!(berger::round_count(players, false), Ok(n - 1));
        for (i, full) in table.iter().enumerate() {
            let round = i as u32 + 1;
            let p = berger::pair_round(players, round, false).unwrap();
            let expected: Vec<(u32, u32)> = full
                .iter()
                .copied()
                .filter(|&(w, b)| w != n && b != n)
                .collect();
            let bye = full
                .iter()
                .find_map(|&(w, b)| (w == n).then_some(b).or((b == n).then_some(w)));
            assert_eq!(p.pairs, expected, "{players} players, round {round}");
            assert_eq!(p.bye, bye, "{players} players, round {round}");
        }
    }
}

#[test]
fn a_double_round_robin_swaps_the_last_two_rounds_of_the_first_cycle() {
    // Annex 1: in a double round robin the second cycle is the table with colours reversed,
    // and the order of the last two rounds of the first cycle is reversed.
    for (n, table) in tables() {
        let cycle = (n - 1) as usize;
        assert_eq!(berger::round_count(n, true), Ok(2 * (n - 1)));
        let mut first: Vec<usize> = (0..cycle).collect();
        first.swap(cycle - 2, cycle - 1);
        for (i, &t) in first.iter().enumerate() {
            let round = i as u32 + 1;
            let p = berger::pair_round(n, round, true).unwrap();
            assert_eq!(p.pairs, table[t], "{n} players, double, round {round}");
        }
        for (t, published) in table.iter().enumerate() {
            let round = (cycle + t) as u32 + 1;
            let p = berger::pair_round(n, round, true).unwrap();
            let reversed: Vec<(u32, u32)> = published.iter().map(|&(w, b)| (b, w)).collect();
            assert_eq!(p.pairs, reversed, "{n} players, double, round {round}");
        }
    }
    // Four players written out: 1-4 2-3 | 2-4 3-1 | 4-3 1-2 || 4-1 3-2 | 3-4 2-1 | 4-2 1-3.
    let four: Table = berger::schedule(4, true)
        .unwrap()
        .into_iter()
        .map(|p| p.pairs)
        .collect();
    assert_eq!(
        four,
        parse("1-4, 2-3\n2-4, 3-1\n4-3, 1-2\n4-1, 3-2\n3-4, 2-1\n4-2, 1-3")
    );
}

/// Each player's games in a schedule: (round index, opponent, white?), byes apart.
struct Record {
    games: Vec<Vec<(usize, u32, bool)>>,
    byes: Vec<Vec<usize>>,
}

fn record(players: u32, rounds: &[damasi_swiss::Pairing]) -> Record {
    let mut r = Record {
        games: vec![Vec::new(); players as usize + 1],
        byes: vec![Vec::new(); players as usize + 1],
    };
    for (i, p) in rounds.iter().enumerate() {
        let mut seen = vec![false; players as usize + 1];
        let mut sit = |x: u32| {
            assert!((1..=players).contains(&x), "{players} players: number {x}");
            assert!(
                !seen[x as usize],
                "{players} players: {x} twice in round {i}"
            );
            seen[x as usize] = true;
        };
        for &(w, b) in &p.pairs {
            sit(w);
            sit(b);
            r.games[w as usize].push((i, b, true));
            r.games[b as usize].push((i, w, false));
        }
        if let Some(b) = p.bye {
            sit(b);
            r.byes[b as usize].push(i);
        }
        assert!(
            seen[1..].iter().all(|&s| s),
            "{players} players: someone missing"
        );
        assert_eq!(p.bye.is_some(), players % 2 == 1);
    }
    r
}

#[test]
fn every_pair_meets_once_a_cycle_and_nobody_plays_twice_in_a_round() {
    for players in berger::MIN_PLAYERS..=berger::MAX_PLAYERS {
        let single = berger::schedule(players, false).unwrap();
        let cycle = (players + players % 2 - 1) as usize;
        assert_eq!(single.len(), cycle);
        let r = record(players, &single);
        for x in 1..=players {
            let mut opponents: Vec<u32> = r.games[x as usize].iter().map(|g| g.1).collect();
            opponents.sort();
            let all: Vec<u32> = (1..=players).filter(|&y| y != x).collect();
            assert_eq!(opponents, all, "{players} players, player {x}");
            // Single cycle: whites and blacks differ by 1 for even numbers of players (an odd
            // number of games); with a bye they are equal (the game against the missing
            // number is always of the player's more frequent colour in the table).
            let whites = r.games[x as usize].iter().filter(|g| g.2).count() as i64;
            let blacks = r.games[x as usize].len() as i64 - whites;
            let difference = if players % 2 == 0 { 1 } else { 0 };
            assert_eq!(
                (whites - blacks).abs(),
                difference,
                "{players} players, player {x}: {whites} whites, {blacks} blacks"
            );
            assert_eq!(
                r.byes[x as usize].len(),
                (players % 2) as usize,
                "{players} players, player {x}: byes"
            );
        }

        let double = berger::schedule(players, true).unwrap();
        assert_eq!(double.len(), 2 * cycle);
        let r = record(players, &double);
        for x in 1..=players {
            let games = &r.games[x as usize];
            for y in (1..=players).filter(|&y| y != x) {
                let met: Vec<bool> = games.iter().filter(|g| g.1 == y).map(|g| g.2).collect();
                assert_eq!(met.len(), 2, "{players} players: {x} and {y}");
                assert_ne!(met[0], met[1], "{players} players: {x} and {y}'s colours");
                // Once in each cycle.
                let rounds: Vec<usize> = games.iter().filter(|g| g.1 == y).map(|g| g.0).collect();
                assert!(rounds[0] < cycle && rounds[1] >= cycle);
            }
            let whites = games.iter().filter(|g| g.2).count();
            assert_eq!(2 * whites, games.len(), "{players} players, player {x}");
            let byes = &r.byes[x as usize];
            if players % 2 == 1 {
                assert_eq!(byes.len(), 2);
                assert!(byes[0] < cycle && byes[1] >= cycle);
            } else {
                assert!(byes.is_empty());
            }
        }
    }
}

#[test]
fn nobody_plays_three_games_in_a_row_with_one_colour_in_consecutive_rounds() {
    // What the swap of the first cycle's last two rounds is for (even numbers of players,
    // where everybody plays every round).
    for players in (berger::MIN_PLAYERS..=berger::MAX_PLAYERS).filter(|n| n % 2 == 0) {
        for double in [false, true] {
            let r = record(players, &berger::schedule(players, double).unwrap());
            for x in 1..=players {
                let colours: Vec<bool> = r.games[x as usize].iter().map(|g| g.2).collect();
                assert!(
                    colours.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
                    "{players} players, double {double}, player {x}: {colours:?}"
                );
            }
        }
    }
}

#[test]
fn the_player_drawn_against_the_missing_number_has_the_bye() {
    // 5 players use the table of 6: in round 1 (1-6) player 1 sits out, in round 2 (6-4)
    // player 4, then 2, 5 and 3.
    let byes: Vec<Option<u32>> = berger::schedule(5, false)
        .unwrap()
        .iter()
        .map(|p| p.bye)
        .collect();
    assert_eq!(byes, [Some(1), Some(4), Some(2), Some(5), Some(3)]);
    // A bye is printed as `P 0`, last, after the count of pairs and byes.
    let text = berger::pair_round(5, 1, false).unwrap().to_pairs_format();
    assert_eq!(text, "3\n2 5\n3 4\n1 0\n");
}

#[test]
fn numbers_outside_the_tables_are_errors() {
    for players in [0, 1, 2, 25, 100] {
        assert_eq!(
            berger::pair_round(players, 1, false),
            Err(BergerError::Players(players))
        );
        assert!(berger::round_count(players, true).is_err());
    }
    assert_eq!(
        berger::pair_round(6, 0, false),
        Err(BergerError::Round {
            round: 0,
            rounds: 5
        })
    );
    assert_eq!(
        berger::pair_round(6, 6, false),
        Err(BergerError::Round {
            round: 6,
            rounds: 5
        })
    );
    assert_eq!(
        berger::pair_round(7, 15, true),
        Err(BergerError::Round {
            round: 15,
            rounds: 14
        })
    );
    assert!(berger::pair_round(7, 14, true).is_ok());
    assert!(berger::pair_round(24, 46, true).is_ok());
}
