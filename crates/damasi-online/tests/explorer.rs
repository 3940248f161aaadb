//! The opening explorer built from a handful of games with known results, ratings and speeds,
//! every number of its answers checked against counts worked out by hand; the masters kept
//! apart; a game counted once however often it is offered; a PDN import that skips the broken
//! games and counts a file once; and a game played through the online core counted as it
//! ends.

use std::time::Duration;

use damasi::{DrawReason, Outcome, Position, WinReason};
use damasi_online::command::Command;
use damasi_online::db::OnlineDb;
use damasi_online::explorer::query::ExplorerMove;
use damasi_online::explorer::sources::game_of;
use damasi_online::explorer::{
    explore, import_masters, ExploredGame, ExplorerAnswer, Filter, GameFacts, Request, Source,
};
use damasi_online::rating::Speed;
use damasi_online::{NewGame, Online};

const WHITE: Option<Outcome> = Some(Outcome::Win {
    winner: damasi::Color::White,
    reason: WinReason::Resignation,
});
const BLACK: Option<Outcome> = Some(Outcome::Win {
    winner: damasi::Color::Black,
    reason: WinReason::Resignation,
});
const DRAW: Option<Outcome> = Some(Outcome::Draw(DrawReason::Agreement));

/// A server game: its key, moves, result, speed, players' ratings and time.
fn server_game(
    key: &str,
    moves: &[&str],
    outcome: Option<Outcome>,
    speed: Speed,
    ratings: [i64; 2],
    at_ms: i64,
) -> ExploredGame {
    // The moves are checked by the rules library: an illegal one fails here.
    let game = game_of(moves).unwrap();
    let facts = GameFacts {
        names: [Some(format!("{key}w")), Some(format!("{key}b"))],
        ratings: [Some(ratings[0]), Some(ratings[1])],
        speed: Some(speed),
        at_ms,
        year: Some(2026),
        month: Some(5),
    };
    ExploredGame::new(Source::Server, key.into(), &game, outcome, facts).unwrap()
}

/// The five server games of the tests:
///
/// | game | moves | result | speed | ratings (average, band) |
/// |---|---|---|---|---|
/// | A | c3-c4 f6-f5 | 1-0 | blitz | 1600, 1800 (1700, 1600) |
/// | B | c3-c4 f6-f5 | draw | blitz | 1500, 1500 (1500, 1400) |
/// | C | c3-c4 a6-a5 | 0-1 | rapid | 2000, 2100 (2050, 2000) |
/// | D | e3-e4 f6-f5 | 1-0 | bullet | 1000, 1001 (1000, 1000) |
/// | E | e3-e4 | draw | classical | 900, 1000 (950, 0) |
fn five_games() -> Vec<ExploredGame> {
    vec![
        server_game(
            "gameA",
            &["c3-c4", "f6-f5"],
            WHITE,
            Speed::Blitz,
            [1600, 1800],
            1000,
        ),
        server_game(
            "gameB",
            &["c3-c4", "f6-f5"],
            DRAW,
            Speed::Blitz,
            [1500, 1500],
            2000,
        ),
        server_game(
            "gameC",
            &["c3-c4", "a6-a5"],
            BLACK,
            Speed::Rapid,
            [2000, 2100],
            3000,
        ),
        server_game(
            "gameD",
            &["e3-e4", "f6-f5"],
            WHITE,
            Speed::Bullet,
            [1000, 1001],
            4000,
        ),
        server_game(
            "gameE",
            &["e3-e4"],
            DRAW,
            Speed::Classical,
            [900, 1000],
            5000,
        ),
    ]
}

async fn ask(db: &OnlineDb, source: Source, moves: &[&str], filter: Filter) -> ExplorerAnswer {
    let mut pos = Position::start();
    for m in moves {
        pos = pos.play(&pos.parse_move(m).unwrap());
    }
    let mut req = Request::new(source, pos);
    req.filter = filter;
    explore(db, &req).await.unwrap()
}

/// (uci, white, draws, black, average rating, the single game's id).
type Line<'a> = (&'a str, i64, i64, i64, Option<i64>, Option<&'a str>);

/// A [`Line`] as the answer has it.
type Got = (String, i64, i64, i64, Option<i64>, Option<String>);

fn lines(a: &ExplorerAnswer) -> Vec<Got> {
    a.moves
        .iter()
        .map(|m: &ExplorerMove| {
            (
                m.uci.clone(),
                m.white,
                m.draws,
                m.black,
                m.average_rating,
                m.game.as_ref().map(|g| g.id.clone()),
            )
        })
        .collect()
}

/// Checks the totals and the moves; a single game `*` is any game (a master game's id is a
/// hash, checked apart).
fn expect(a: &ExplorerAnswer, totals: [i64; 3], want: &[Line<'_>]) {
    assert_eq!([a.white, a.draws, a.black], totals, "totals of {a:?}");
    let mut got = lines(a);
    for (g, w) in got.iter_mut().zip(want) {
        if w.5 == Some("*") && g.5.is_some() {
            g.5 = Some("*".into());
        }
    }
    let want: Vec<_> = want
        .iter()
        .map(|(u, w, d, b, r, g)| (u.to_string(), *w, *d, *b, *r, g.map(String::from)))
        .collect();
    assert_eq!(got, want);
}

fn ids(games: &[damasi_online::explorer::query::ExplorerGame]) -> Vec<&str> {
    games.iter().map(|g| g.id.as_str()).collect()
}

#[tokio::test]
async fn every_number_of_the_answer_is_the_games_own() {
    let db = OnlineDb::in_memory();
    assert_eq!(db.explore_games(five_games()).await.unwrap(), 5);
    let all = Filter::default();

    // The start: c3-c4 in A, B, C (1-0, draw, 0-1; average (1700 + 1500 + 2050) / 3 = 1750),
    // e3-e4 in D and E (1-0, draw; (1000 + 950) / 2 = 975). Most played first.
    let start = ask(&db, Source::Server, &[], all).await;
    expect(
        &start,
        [2, 2, 1],
        &[
            ("c3-c4", 1, 1, 1, Some(1750), None),
            ("e3-e4", 1, 1, 0, Some(975), None),
        ],
    );
    assert_eq!(start.moves[0].san, "c3-c4");
    // The best-rated games: C (2050), A (1700), B (1500), D (1000); E (950) is the fifth.
    assert_eq!(ids(&start.top_games), ["gameC", "gameA", "gameB", "gameD"]);
    assert_eq!(start.top_games[0].uci.as_deref(), Some("c3-c4"));
    assert_eq!(start.top_games[0].winner, Some("black"));
    assert_eq!(start.top_games[0].white.name, "gameCw");
    assert_eq!(start.top_games[0].white.rating, Some(2000));
    assert_eq!(start.top_games[0].black.rating, Some(2100));
    assert_eq!(start.top_games[0].speed, Some("rapid"));
    assert_eq!(start.top_games[0].month.as_deref(), Some("2026-05"));
    // The latest: E (5000), D, C, B.
    let recent = start.recent_games.as_ref().unwrap();
    assert_eq!(ids(recent), ["gameE", "gameD", "gameC", "gameB"]);
    assert_eq!(recent[0].winner, None);

    // After c3-c4: f6-f5 in A and B ((1700 + 1500) / 2 = 1600), a6-a5 in C alone (its game).
    let after = ask(&db, Source::Server, &["c3-c4"], all).await;
    expect(
        &after,
        [1, 1, 1],
        &[
            ("f6-f5", 1, 1, 0, Some(1600), None),
            ("a6-a5", 0, 0, 1, Some(2050), Some("gameC")),
        ],
    );
    // After e3-e4: only D went on (E ended there, so it is in no move of this position).
    let e4 = ask(&db, Source::Server, &["e3-e4"], all).await;
    expect(
        &e4,
        [1, 0, 0],
        &[("f6-f5", 1, 0, 0, Some(1000), Some("gameD"))],
    );

    // Blitz only: A and B.
    let blitz = Filter::parse(Some("blitz"), None).unwrap();
    let a = ask(&db, Source::Server, &[], blitz).await;
    expect(&a, [1, 1, 0], &[("c3-c4", 1, 1, 0, Some(1600), None)]);
    assert_eq!(ids(&a.top_games), ["gameA", "gameB"]);
    // The bands 1600 and 2000: A (1700) and C (2050): (1700 + 2050) / 2 = 1875.
    let bands = Filter::parse(None, Some("1600,2000")).unwrap();
    let a = ask(&db, Source::Server, &[], bands).await;
    expect(&a, [1, 0, 1], &[("c3-c4", 1, 0, 1, Some(1875), None)]);
    // Bullet or rapid, band 1000: D alone (C is rapid but in the band 2000).
    let both = Filter::parse(Some("rapid,bullet"), Some("1000")).unwrap();
    let a = ask(&db, Source::Server, &[], both).await;
    expect(
        &a,
        [1, 0, 0],
        &[("e3-e4", 1, 0, 0, Some(1000), Some("gameD"))],
    );
    assert_eq!(a.moves[0].game.as_ref().unwrap().white.rating, Some(1000));
    // The band 0: E (950) alone. ultraBullet matches nothing here.
    let a = ask(
        &db,
        Source::Server,
        &[],
        Filter::parse(None, Some("0")).unwrap(),
    )
    .await;
    expect(
        &a,
        [0, 1, 0],
        &[("e3-e4", 0, 1, 0, Some(950), Some("gameE"))],
    );
    let a = ask(
        &db,
        Source::Server,
        &[],
        Filter::parse(Some("ultraBullet"), None).unwrap(),
    )
    .await;
    expect(&a, [0, 0, 0], &[]);
    assert!(a.top_games.is_empty());

    // The masters are another source: none of these games is there.
    let m = ask(&db, Source::Masters, &[], all).await;
    expect(&m, [0, 0, 0], &[]);
    assert_eq!(m.recent_games, None);

    // The same games offered again (a second process heard them end, a restart mid-update)
    // are passed over: nothing changes.
    assert_eq!(db.explore_games(five_games()).await.unwrap(), 0);
    assert_eq!(ask(&db, Source::Server, &[], all).await, start);
    // `moves` lists fewer moves; the totals still count them all.
    let mut req = Request::new(Source::Server, Position::start());
    req.moves = 1;
    req.top_games = 1;
    req.recent_games = 0;
    let a = explore(&db, &req).await.unwrap();
    expect(&a, [2, 2, 1], &[("c3-c4", 1, 1, 1, Some(1750), None)]);
    assert_eq!(ids(&a.top_games), ["gameC"]);
    assert_eq!(a.recent_games, Some(vec![]));
}

#[test]
fn bad_parameters_say_what_is_wrong() {
    let e = Filter::parse(Some("blitz,fast"), None).unwrap_err();
    assert!(e.message().contains("speeds: 'fast'"), "{e:?}");
    let e = Filter::parse(None, Some("1600,1700")).unwrap_err();
    assert!(e.message().contains("ratings: '1700'"), "{e:?}");
    let e = Request::play(Position::start(), "c3-c4,c4-c6").unwrap_err();
    assert!(e.message().contains("play: move 2 'c4-c6'"), "{e:?}");
    let e = Request::count("moves", Some("ten"), 12, 64).unwrap_err();
    assert!(e.message().contains("moves: 'ten'"), "{e:?}");
    assert_eq!(Request::count("moves", Some("1000"), 12, 64).unwrap(), 64);
}

/// Three master games (one from a set-up position, one unfinished and one broken, all
/// skipped with their number), imported twice: counted once.
#[tokio::test]
async fn masters_come_from_pdn_once_and_skip_bad_games() {
    let pdn = r#"[Event "Final"]
[White "Usta A"]
[Black "Usta B"]
[WhiteElo "2400"]
[BlackElo "2300"]
[Date "2019.07.04"]
[Result "1-0"]

1. c3-c4 f6-f5 1-0

[Event "Final"]
[White "Usta C"]
[Black "Usta D"]
[Result "0-1"]

1. h3-h4 0-1

[Event "Broken"]
[Result "1-0"]

1. c3-c6 1-0

[Event "Unfinished"]
[Result "*"]

1. c3-c4 *

[Event "Final"]
[White "Usta A"]
[Black "Usta C"]
[WhiteElo "2401"]
[BlackElo "2200"]
[Date "2020.??.??"]
[Result "1/2-1/2"]

1. c3-c4 a6-a5 1/2-1/2
"#;
    let db = OnlineDb::in_memory();
    let r = import_masters(&db, pdn.as_bytes()).await.unwrap();
    assert_eq!((r.imported, r.duplicates), (3, 0), "{r:?}");
    assert_eq!(r.skipped.len(), 2, "{r:?}");
    assert!(r.skipped[0].starts_with("game 3 (line 21): "), "{r:?}");
    assert!(r.skipped[0].contains("c3-c6"), "{r:?}");
    assert_eq!(r.skipped[1], "game 4: has no result");
    let again = import_masters(&db, pdn.as_bytes()).await.unwrap();
    assert_eq!((again.imported, again.duplicates), (0, 3), "{again:?}");

    // c3-c4: 1-0 (2350) and a draw ((2401 + 2200) / 2 = 2300): 2325; h3-h4: 0-1, no rating.
    let m = ask(&db, Source::Masters, &[], Filter::default()).await;
    expect(
        &m,
        [1, 1, 1],
        &[
            ("c3-c4", 1, 1, 0, Some(2325), None),
            ("h3-h4", 0, 0, 1, None, Some("*")),
        ],
    );
    // A master game's id is the first 16 hex digits of its hash.
    let h4 = m.moves[1].game.as_ref().unwrap();
    assert!(h4.id.len() == 16 && h4.id.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        (h4.white.name.as_str(), h4.black.name.as_str()),
        ("Usta C", "Usta D")
    );
    assert_eq!(h4.white.rating, None);
    assert_eq!(h4.speed, None);
    // Top games: the best of each move, speed and band. Both c3-c4 games are in the band
    // 2200 (2350 and 2300), so only the better one, 2019's, is listed; then h3-h4's
    // unrated one.
    let names: Vec<_> = m.top_games.iter().map(|g| g.white.name.as_str()).collect();
    assert_eq!(names, ["Usta A", "Usta C"]);
    assert_eq!(m.top_games[0].year, Some(2019));
    assert_eq!(m.top_games[0].month.as_deref(), Some("2019-07"));
    assert_eq!(m.top_games[0].black.rating, Some(2300));
    assert_eq!(m.top_games[0].winner, Some("white"));
    assert_eq!(m.top_games[1].id, h4.id);
    // After c3-c4 the draw of 2020 (month unknown) is a6-a5's only game; one game each, so
    // the moves come in notation order.
    let c4 = ask(&db, Source::Masters, &["c3-c4"], Filter::default()).await;
    expect(
        &c4,
        [1, 1, 0],
        &[
            ("a6-a5", 0, 1, 0, Some(2300), Some("*")),
            ("f6-f5", 1, 0, 0, Some(2350), Some("*")),
        ],
    );
    let draw = c4.moves[0].game.as_ref().unwrap();
    assert_eq!((draw.year, draw.month.as_deref()), (Some(2020), None));
    assert_eq!(
        (draw.white.rating, draw.black.rating),
        (Some(2401), Some(2200))
    );
    // The server's source has none of them.
    let s = ask(&db, Source::Server, &[], Filter::default()).await;
    expect(&s, [0, 0, 0], &[]);
}

/// A rated blitz game played through the online core (two accounts, moves and a resignation
/// as commands) is counted when it ends; so is one that ended before the explorer listened
/// (caught up at start); an aborted game and one under other rules are not.
#[tokio::test]
async fn games_played_online_are_counted_as_they_end() {
    let online = Online::in_memory();
    let a = online.accounts().add_bot("ayse", 0).await.unwrap();
    let b = online.accounts().add_bot("bora", 0).await.unwrap();
    let blitz = NewGame {
        initial_ms: 300_000,
        increment_ms: 3_000,
        rated: true,
        chat: false,
        rules: damasi::RuleSet::default(),
    };
    let play = |id: String, who: damasi_online::accounts::Player, text: &str| {
        let online = online.clone();
        let text = text.to_string();
        async move { online.run(&id, &who, Command::Move { text }).await.unwrap() }
    };
    // Before the explorer listens: a casual rapid game Black wins (e3-e4 a6-a5, White
    // resigns) under the federation's rules, and one under other rules.
    let rapid = NewGame {
        initial_ms: 600_000,
        increment_ms: 5_000,
        rated: false,
        ..blitz
    };
    let early = online.create_paired(&a, &b, rapid).await.unwrap();
    play(early.id.clone(), a.clone(), "e3-e4").await;
    play(early.id.clone(), b.clone(), "a6-a5").await;
    online.run(&early.id, &a, Command::Resign).await.unwrap();
    let other = NewGame {
        rules: damasi::RuleSet::from_name("turkish; no-capture-limit 50").unwrap(),
        ..rapid
    };
    let skipped = online.create_paired(&a, &b, other).await.unwrap();
    play(skipped.id.clone(), a.clone(), "c3-c4").await;
    online.run(&skipped.id, &b, Command::Resign).await.unwrap();

    let follower = damasi_online::explorer::follow(&online);
    let db = online.db().clone();
    // Caught up at start: the early game alone (1500 both, a casual game).
    let start = wait_for(&db, 1).await;
    expect(
        &start,
        [0, 0, 1],
        &[("e3-e4", 0, 0, 1, Some(1500), Some(early.id.as_str()))],
    );
    let early_game = start.moves[0].game.as_ref().unwrap();
    assert_eq!(early_game.id, early.id);
    assert_eq!(early_game.speed, Some("rapid"));
    assert_eq!(
        (
            early_game.white.name.as_str(),
            early_game.black.name.as_str()
        ),
        ("ayse", "bora")
    );

    // Now a rated blitz game White wins, heard as it ends: both players had 1500 before it
    // (their ratings move after it, and the explorer counts the ratings it was played at).
    let game = online.create_paired(&a, &b, blitz).await.unwrap();
    play(game.id.clone(), a.clone(), "c3-c4").await;
    play(game.id.clone(), b.clone(), "f6-f5").await;
    online.run(&game.id, &b, Command::Resign).await.unwrap();
    // And an aborted one, which counts nowhere.
    let aborted = online.create_paired(&a, &b, blitz).await.unwrap();
    online.run(&aborted.id, &a, Command::Abort).await.unwrap();
    let start = wait_for(&db, 2).await;
    expect(
        &start,
        [1, 0, 1],
        &[
            ("c3-c4", 1, 0, 0, Some(1500), Some(game.id.as_str())),
            ("e3-e4", 0, 0, 1, Some(1500), Some(early.id.as_str())),
        ],
    );
    let blitz_only = ask(
        &db,
        Source::Server,
        &[],
        Filter::parse(Some("blitz"), None).unwrap(),
    )
    .await;
    expect(
        &blitz_only,
        [1, 0, 0],
        &[("c3-c4", 1, 0, 0, Some(1500), Some(game.id.as_str()))],
    );
    // Catching up again finds nothing new to count.
    assert_eq!(damasi_online::explorer::catch_up(&db).await.unwrap(), 0);
    follower.abort();
}

/// The start position's answer once `games` games have been counted (waits up to 10 s).
async fn wait_for(db: &OnlineDb, games: i64) -> ExplorerAnswer {
    for _ in 0..200 {
        let a = ask(db, Source::Server, &[], Filter::default()).await;
        if a.white + a.draws + a.black >= games {
            return a;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the explorer did not count {games} games");
}

/// Games counted one transaction each or all in one give the same rows: a batch sums the games
/// of a row before writing it, and picks its best and latest game as the database does one game
/// at a time (the first of equal ratings, the last of equal times). Here F ties with A (the
/// same move, speed, band, average rating and time), so A stays the best and F is the latest.
#[tokio::test]
async fn one_batch_or_one_game_at_a_time_give_the_same_rows() {
    let mut games = five_games();
    games.push(server_game(
        "gameF",
        &["c3-c4", "f6-f5"],
        BLACK,
        Speed::Blitz,
        [1700, 1700],
        1000,
    ));
    let (one_by_one, batch) = (OnlineDb::in_memory(), OnlineDb::in_memory());
    for g in &games {
        assert_eq!(one_by_one.explore_games(vec![g.clone()]).await.unwrap(), 1);
    }
    assert_eq!(batch.explore_games(games).await.unwrap(), 6);
    for play in [&[][..], &["c3-c4"][..]] {
        let mut pos = Position::start();
        for m in play {
            pos = pos.play(&pos.parse_move(m).unwrap());
        }
        let mut a = one_by_one
            .explorer_rows(Source::Server, pos.key())
            .await
            .unwrap();
        let mut b = batch
            .explorer_rows(Source::Server, pos.key())
            .await
            .unwrap();
        let order = |r: &damasi_online::explorer::MoveRow| (r.mv.clone(), r.band);
        a.sort_by_key(order);
        b.sort_by_key(order);
        // Game numbers differ between the two databases (marked in another order): compare
        // the games by key through the answers instead, and the rest as numbers.
        let strip = |rows: &[damasi_online::explorer::MoveRow]| -> Vec<_> {
            rows.iter()
                .map(|r| {
                    (
                        r.mv.clone(),
                        r.speed,
                        r.band,
                        r.counts,
                        r.rated,
                        r.rating_sum,
                        r.top.1,
                        r.last.1,
                    )
                })
                .collect()
        };
        assert_eq!(strip(&a), strip(&b));
    }
    // A (1700, at 1000) and F (1700, at 1000) share a row: A is its best, F its latest.
    for db in [&one_by_one, &batch] {
        let a = ask(
            db,
            Source::Server,
            &[],
            Filter::parse(Some("blitz"), Some("1600")).unwrap(),
        )
        .await;
        expect(&a, [1, 0, 1], &[("c3-c4", 1, 0, 1, Some(1700), None)]);
        assert_eq!(ids(&a.top_games), ["gameA"]);
        assert_eq!(ids(a.recent_games.as_ref().unwrap()), ["gameF"]);
    }
}

/// A database in a file answers the explorer's queries from its read-only connections:
/// what the writing one committed, at once; and `damasi explorer import` run by another
/// process while the server runs is seen too (here a second `OnlineDb` on the same file).
#[tokio::test]
async fn a_file_database_reads_what_was_written_from_its_reading_connection() {
    let dir = std::env::temp_dir().join(format!(
        "damasi-explorer-test-{}-{}",
        std::process::id(),
        damasi_online::now_ms()
    ));
    let server = OnlineDb::open(&dir).unwrap();
    assert_eq!(server.explore_games(five_games()).await.unwrap(), 5);
    let start = ask(&server, Source::Server, &[], Filter::default()).await;
    assert_eq!([start.white, start.draws, start.black], [2, 2, 1]);
    let other = OnlineDb::open(&dir).unwrap();
    let pdn = "[Result \"0-1\"]\n\n1. h3-h4 0-1\n";
    assert_eq!(
        import_masters(&other, pdn.as_bytes())
            .await
            .unwrap()
            .imported,
        1
    );
    let m = ask(&server, Source::Masters, &[], Filter::default()).await;
    expect(&m, [0, 0, 1], &[("h3-h4", 0, 0, 1, None, Some("*"))]);
    drop((server, other));
    let _ = std::fs::remove_dir_all(&dir);
}
