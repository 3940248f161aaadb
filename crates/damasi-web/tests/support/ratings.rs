//! Many rated games of one player ending at the same instant: no rating change may be lost.

use super::commands::play;
use damasi_online::command::Command;
use damasi_online::{NewGame, Online};

/// Starts `n` rated blitz games of a new player `name` against `n` new opponents (each game
/// one move a side), has every opponent resign at once, and checks the player's stored
/// rating: `n` games counted, and the rating moved by exactly the sum of the changes the
/// games announced (each announced change is the difference of the rounded ratings before
/// and after that game, so they add up to the whole change only if every update saw the one
/// before it).
pub async fn end_rated_games_at_once(online: &Online, name: &str, n: usize) {
    let game = NewGame {
        initial_ms: 180_000,
        increment_ms: 2_000,
        rated: true,
        chat: true,
        rules: damasi_online::variant::FEDERATION,
    };
    let hero = online.accounts().add_bot(name, 0).await.unwrap();
    let mut games = Vec::new();
    for i in 0..n {
        let other = online
            .accounts()
            .add_bot(&format!("{name}-o{i}"), 0)
            .await
            .unwrap();
        let t = online.create_paired(&hero, &other, game).await.unwrap();
        let hero_white = t.state.lock().await.side_of(hero.id) == Some(damasi::Color::White);
        let (white, black) = if hero_white {
            (hero.clone(), other.clone())
        } else {
            (other.clone(), hero.clone())
        };
        play(online, &t.id, &white, "c3-c4").await.unwrap();
        play(online, &t.id, &black, "f6-f5").await.unwrap();
        games.push((
            t.id.clone(),
            other,
            if hero_white { "white" } else { "black" },
        ));
    }
    let ends = games.iter().map(|(id, other, _)| {
        let online = online.clone();
        let (id, other) = (id.clone(), other.clone());
        tokio::spawn(async move { online.run(&id, &other, Command::Resign).await })
    });
    let mut announced = 0;
    let ended = futures_util::future::join_all(ends).await;
    for (end, (id, _, hero_side)) in ended.into_iter().zip(&games) {
        let state = end.unwrap().unwrap();
        let diff = state["ratingDiff"][*hero_side]
            .as_i64()
            .unwrap_or_else(|| panic!("game {id} announced no rating change: {state}"));
        assert!(diff > 0, "a win lowered the rating by {diff}");
        announced += diff;
    }
    let stored = online.db().rating(hero.id, "blitz").await.unwrap().unwrap();
    assert_eq!(stored.games, n as i64, "rated games counted");
    assert_eq!(
        stored.rating.round() as i64 - 1500,
        announced,
        "the stored rating moved by the sum of the announced changes"
    );
}
