//! Players finding each other, checked on the service itself so that both stores (SQLite and
//! PostgreSQL) run the same checks: follows and blocks, a block refusing challenges and hiding
//! chat lines, the rating history, records, filtered games and the leaderboard's filters.

use super::commands::play;
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::{GameFilter, GameResult, Relation};
use damasi_online::messages::{GameFull, GameMessage};
use damasi_online::rating::{is_provisional, Speed};
use damasi_online::{now_ms, NewGame, Online};
use damasi_web::ApiError;

/// A rated blitz game.
pub const BLITZ: NewGame = NewGame {
    initial_ms: 180_000,
    increment_ms: 2_000,
    rated: true,
    chat: true,
    rules: damasi_online::variant::FEDERATION,
};

/// A rated game of `winner` (White) and `loser` (Black): one move each, then `loser`
/// resigns. Answers the game's id.
pub async fn rated_win(online: &Online, winner: &Player, loser: &Player) -> String {
    let t = online.create_paired(winner, loser, BLITZ).await.unwrap();
    play(online, &t.id, winner, "c3-c4").await.unwrap();
    play(online, &t.id, loser, "f6-f5").await.unwrap();
    online.run(&t.id, loser, Command::Resign).await.unwrap();
    t.id.clone()
}

/// Follows, unfollows, blocks and their effects, with new accounts named from `prefix`.
pub async fn follows_and_blocks(online: &Online, prefix: &str) {
    let acc = online.accounts();
    let a = acc.add_bot(&format!("{prefix}a"), 0).await.unwrap();
    let b = acc.add_bot(&format!("{prefix}b"), 0).await.unwrap();
    let c = acc.add_bot(&format!("{prefix}c"), 0).await.unwrap();
    // Names in any case; a follow is listed and stored.
    online
        .relations()
        .follow(&a, &b.name.to_uppercase())
        .await
        .unwrap();
    online.relations().follow(&a, &c.name).await.unwrap();
    let names =
        |v: Vec<damasi_online::db::UserRow>| v.into_iter().map(|u| u.name).collect::<Vec<_>>();
    assert_eq!(
        names(online.relations().following(&a).await.unwrap()),
        [b.name.clone(), c.name.clone()]
    );
    assert_eq!(
        online.db().relation(a.id, b.id).await.unwrap(),
        Some(Relation::Follow)
    );
    // One way only.
    assert_eq!(online.db().relation(b.id, a.id).await.unwrap(), None);
    online.relations().unfollow(&a, &c.name).await.unwrap();
    online.relations().unfollow(&a, &c.name).await.unwrap(); // twice: nothing to undo
    assert_eq!(
        names(online.relations().following(&a).await.unwrap()),
        [b.name.as_str()]
    );

    // Blocking replaces the follow; unfollowing leaves the block.
    online.relations().block(&a, &b.name).await.unwrap();
    assert!(online.relations().following(&a).await.unwrap().is_empty());
    assert_eq!(
        names(online.relations().blocked(&a).await.unwrap()),
        [b.name.as_str()]
    );
    online.relations().unfollow(&a, &b.name).await.unwrap();
    assert!(online.relations().blocks(a.id, b.id).await.unwrap());
    assert!(!online.relations().blocks(b.id, a.id).await.unwrap());

    // A blocked player's challenge is refused, with a code and the name; the other way is
    // not.
    let casual = NewGame {
        rated: false,
        ..BLITZ
    };
    match online.challenge(&b, &a, casual, None).await {
        Err(ApiError::Forbidden { code, message }) => {
            assert_eq!(code, "blocked");
            assert!(message.contains(&a.name), "{message}");
        }
        Err(e) => panic!("refused with {e:?}"),
        Ok(_) => panic!("a blocked player's challenge was sent"),
    }
    assert!(online.db().challenges_to(a.id).await.unwrap().is_empty());
    online.challenge(&a, &b, casual, None).await.unwrap();

    // In a game between them, b's chat lines do not reach a (neither live nor in the game's
    // chat when a opens it); b sees them as usual and nothing tells b of the block.
    let t = online.create_paired(&a, &b, casual).await.unwrap();
    let (_, a_side, mut a_events) = online.watch(&t.id, Some(&a)).await.unwrap();
    let (_, b_side, _) = online.watch(&t.id, Some(&b)).await.unwrap();
    let say = |text: &str| Command::Chat { text: text.into() };
    online.run(&t.id, &b, say("hello from b")).await.unwrap();
    online.run(&t.id, &a, say("hello from a")).await.unwrap();
    let mut lines = Vec::new();
    while lines.len() < 2 {
        let m = a_events.recv().await.unwrap();
        if matches!(m.message, GameMessage::ChatLine { .. }) {
            lines.push(m);
        }
    }
    let sent: serde_json::Value = serde_json::from_str(&lines[0].text).unwrap();
    assert_eq!(sent["text"], "hello from b");
    assert!(!lines[0].visible_to(a_side));
    assert!(lines[0].visible_to(b_side));
    assert!(
        !lines[0].text.contains("hidden"),
        "the text sent says nothing of the block: {}",
        lines[0].text
    );
    assert!(lines[1].visible_to(a_side) && lines[1].visible_to(b_side));
    let chat_of = |full: &GameFull| full.chat.iter().map(|l| l.text.clone()).collect::<Vec<_>>();
    let (full_a, _, _) = online.watch(&t.id, Some(&a)).await.unwrap();
    let (full_b, _, _) = online.watch(&t.id, Some(&b)).await.unwrap();
    assert_eq!(chat_of(&full_a), ["hello from a"]);
    assert_eq!(chat_of(&full_b), ["hello from b", "hello from a"]);

    // Unblocked: b's next line reaches a.
    online.relations().unblock(&a, &b.name).await.unwrap();
    online.run(&t.id, &b, say("again")).await.unwrap();
    let (full_a, _, _) = online.watch(&t.id, Some(&a)).await.unwrap();
    assert_eq!(chat_of(&full_a), ["hello from a", "again"]);
    online.challenge(&b, &a, casual, None).await.unwrap();

    // Refusals: oneself, an unknown name, a guest.
    assert!(matches!(
        online.relations().follow(&a, &a.name).await,
        Err(ApiError::BadRequest(_))
    ));
    match online
        .relations()
        .block(&a, &format!("{prefix}nobody"))
        .await
    {
        Err(ApiError::NotFound(m)) => assert!(m.contains("nobody"), "{m}"),
        other => panic!("{other:?}"),
    }
    let guest = acc.guest(0).await.unwrap();
    assert!(matches!(
        online.relations().follow(&guest, &a.name).await,
        Err(ApiError::Forbidden { code: "guest", .. })
    ));
}

/// Rated games write the rating history, the record and the filtered game lists; the
/// leaderboard lists active players with a settled rating only, best first.
pub async fn history_records_and_leaderboard(online: &Online, prefix: &str) {
    let acc = online.accounts();
    let strong = acc.add_bot(&format!("{prefix}s"), 0).await.unwrap();
    let weak = acc.add_bot(&format!("{prefix}w"), 0).await.unwrap();
    let newcomer = acc.add_bot(&format!("{prefix}n"), 0).await.unwrap();
    let before = now_ms();

    rated_win(online, &strong, &weak).await;
    let history = online.db().rating_history(strong.id).await.unwrap();
    assert_eq!(history.len(), 1);
    let now = online
        .db()
        .rating(strong.id, "blitz")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(history[0].speed, "blitz");
    assert!((history[0].rating - now.rating).abs() < 1e-9);
    assert!(history[0].at_ms >= before && history[0].at_ms <= now_ms());

    // Played until both ratings are settled (not provisional): the strong one wins 3 of 4.
    let mut games = 1;
    while is_provisional(&online.db().rating(weak.id, "blitz").await.unwrap().unwrap())
        || is_provisional(
            &online
                .db()
                .rating(strong.id, "blitz")
                .await
                .unwrap()
                .unwrap(),
        )
    {
        if games % 4 == 3 {
            rated_win(online, &weak, &strong).await;
        } else {
            rated_win(online, &strong, &weak).await;
        }
        games += 1;
        assert!(games < 80, "the ratings settle within 80 games");
    }
    // One point per rated game, oldest first, the last one the current rating.
    let history = online.db().rating_history(strong.id).await.unwrap();
    assert_eq!(history.len(), games);
    assert!(history.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    let now = online
        .db()
        .rating(strong.id, "blitz")
        .await
        .unwrap()
        .unwrap();
    assert!((history.last().unwrap().rating - now.rating).abs() < 1e-9);

    // The newcomer plays one casual and one rated game: still provisional.
    let casual = NewGame {
        rated: false,
        ..BLITZ
    };
    let t = online
        .create_paired(&newcomer, &weak, casual)
        .await
        .unwrap();
    online.run(&t.id, &weak, Command::Resign).await.unwrap();
    rated_win(online, &weak, &newcomer).await;

    // Record and filters.
    let losses = games / 4; // games 4, 8, 12, ... were the weak one's
    let r = online.db().record(strong.id).await.unwrap();
    assert_eq!(
        (r.all, r.wins, r.draws, r.losses, r.rated),
        (
            games as i64,
            (games - losses) as i64,
            0,
            losses as i64,
            games as i64
        )
    );
    let r = online.db().record(newcomer.id).await.unwrap();
    assert_eq!((r.all, r.wins, r.losses, r.rated), (2, 1, 1, 1));
    let page = |user, filter, offset, limit| async move {
        online
            .db()
            .games_page(user, filter, offset, limit)
            .await
            .unwrap()
    };
    let (list, total) = page(newcomer.id, GameFilter::default(), 0, 10).await;
    assert_eq!((list.len(), total), (2, 2));
    let only = |rated, result| GameFilter {
        rated,
        result,
        speed: None,
    };
    let (list, total) = page(newcomer.id, only(Some(false), None), 0, 10).await;
    assert_eq!((total, list[0].row.rated), (1, false));
    assert_eq!(list[0].row.id, t.id);
    let (_, total) = page(newcomer.id, only(Some(true), Some(GameResult::Loss)), 0, 10).await;
    assert_eq!(total, 1);
    let (_, total) = page(newcomer.id, only(Some(true), Some(GameResult::Win)), 0, 10).await;
    assert_eq!(total, 0);
    let (_, total) = page(newcomer.id, only(None, Some(GameResult::Draw)), 0, 10).await;
    assert_eq!(total, 0);
    let speed = |s| GameFilter {
        speed: Some(s),
        ..GameFilter::default()
    };
    assert_eq!(
        page(strong.id, speed(Speed::Blitz), 0, 1).await.1,
        games as i64
    );
    assert_eq!(page(strong.id, speed(Speed::Bullet), 0, 1).await.1, 0);
    // Pages: newest first, no game twice.
    let (first, _) = page(strong.id, GameFilter::default(), 0, 3).await;
    let (second, total) = page(strong.id, GameFilter::default(), 3, 3).await;
    assert_eq!(total, games as i64);
    assert_eq!((first.len(), second.len()), (3, 3));
    assert!(first[2].row.created_ms >= second[0].row.created_ms);
    assert!(first
        .iter()
        .all(|g| second.iter().all(|h| h.row.id != g.row.id)));

    // The leaderboard: settled players, best first; the provisional newcomer is not there.
    let board = online.leaderboard(Speed::Blitz, 100).await.unwrap();
    let mine: Vec<&str> = board
        .iter()
        .map(|r| r.user.name.as_str())
        .filter(|n| n.starts_with(prefix))
        .collect();
    assert_eq!(mine, [strong.name.as_str(), weak.name.as_str()]);
    assert!(board
        .windows(2)
        .all(|w| w[0].rating.rating >= w[1].rating.rating));
    let s = board.iter().find(|r| r.user.id == strong.id).unwrap();
    // Progress: the change over the last 12 games, from the history.
    let h = online.db().rating_history(strong.id).await.unwrap();
    let start = if h.len() > 12 {
        h[h.len() - 13].rating
    } else {
        1500.0
    };
    assert!((s.before - start).abs() < 1e-9);
    assert!(online
        .leaderboard(Speed::Bullet, 100)
        .await
        .unwrap()
        .iter()
        .all(|r| !r.user.name.starts_with(prefix)));
    // Active players only: with the window starting after their games, nobody of them.
    let later = online
        .db()
        .leaderboard("blitz", 110.0, now_ms() + 60_000, 100)
        .await
        .unwrap();
    assert!(later.iter().all(|r| !r.user.name.starts_with(prefix)));
    let earlier = online
        .db()
        .leaderboard("blitz", 110.0, before, 100)
        .await
        .unwrap();
    assert!(earlier.iter().any(|r| r.user.id == weak.id));
    // nb caps the list.
    assert!(online.leaderboard(Speed::Blitz, 1).await.unwrap().len() <= 1);
}
