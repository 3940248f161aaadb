//! Reports and moderation over HTTP: players report a cheat and an insult (the game's chat
//! kept as evidence), a moderator named by the operator sees them and acts: a chat mute that
//! refuses the next line, then an engine mark, which takes the account out of the
//! leaderboard, the rated pools and seeks, and gives its opponents back the rating they lost
//! to it (once, however often it is marked). Everything is in the log, and the player sees
//! what was done to the account.

#[path = "support/commands.rs"]
mod commands;
#[path = "support/http.rs"]
mod http;
#[path = "support/players.rs"]
#[allow(dead_code)]
mod players;

use axum::http::StatusCode;
use axum::Router;
use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::rating::is_provisional;
use damasi_online::Online;
use damasi_web::{router, AppState};
use http::{get, post, sign_up};
use serde_json::json;

async fn player(online: &Online, name: &str) -> Player {
    Player::from(online.db().user_by_name(name).await.unwrap().unwrap())
}

async fn blitz(online: &Online, p: &Player) -> f64 {
    online
        .db()
        .rating(p.id, "blitz")
        .await
        .unwrap()
        .unwrap()
        .rating
}

async fn leaders(app: &Router, cookie: &str) -> Vec<String> {
    let (_, board) = get(app, "/api/player/top/50/blitz", cookie).await;
    board["users"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["username"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_cheat_is_reported_muted_and_marked_and_its_victims_get_their_rating_back() {
    let state = AppState::in_memory();
    let online = state.online.clone();
    let app = router(state);
    let (cheat_c, ayse_c, mehmet_c, mod_c) = (
        sign_up(&app, "Cheat").await,
        sign_up(&app, "Ayse").await,
        sign_up(&app, "Mehmet").await,
        sign_up(&app, "Hakem").await,
    );
    let (cheat, ayse, mehmet) = (
        player(&online, "cheat").await,
        player(&online, "ayse").await,
        player(&online, "mehmet").await,
    );

    // Rated games: Cheat mostly beats Ayse; Mehmet plays Cheat too. Ayse's losses to Cheat are
    // read from her rating before and after each game, as her profile shows them (whole points).
    // (the rating change each game showed her is whole points, so the two may differ by a point
    // a game).
    let mut ayse_lost = 0i64;
    let mut lost_games = Vec::new();
    let mut games = 0;
    loop {
        let before = blitz_or_start(&online, &ayse).await;
        if games % 4 == 3 {
            players::rated_win(&online, &ayse, &cheat).await;
            players::rated_win(&online, &ayse, &mehmet).await;
        } else {
            lost_games.push(players::rated_win(&online, &cheat, &ayse).await);
            ayse_lost += (before - blitz(&online, &ayse).await).round() as i64;
            players::rated_win(&online, &mehmet, &ayse).await;
        }
        games += 1;
        let settled = |p: Player| {
            let online = online.clone();
            async move { !is_provisional(&online.db().rating(p.id, "blitz").await.unwrap().unwrap()) }
        };
        if settled(cheat.clone()).await && settled(mehmet.clone()).await {
            break;
        }
        assert!(games < 80, "the ratings settle within 80 rounds");
    }
    assert!(ayse_lost > 0);
    assert!(leaders(&app, &ayse_c).await.contains(&"Cheat".to_string()));

    // A game where Cheat insults Mehmet in the chat; Mehmet reports it from that game.
    let t = online
        .create_paired(&cheat, &mehmet, players::BLITZ)
        .await
        .unwrap();
    commands::play(&online, &t.id, &cheat, "c3-c4")
        .await
        .unwrap();
    online
        .run(
            &t.id,
            &cheat,
            Command::Chat {
                text: "you play like a donkey".into(),
            },
        )
        .await
        .unwrap();
    // The words the site keeps out of its chats do not get through at all.
    for text in ["you IDIOT", "sen bir aptalsın"] {
        let refused = online
            .run(&t.id, &cheat, Command::Chat { text: text.into() })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), "chat-refused", "{text}");
    }
    let report = json!({"username": "cheat", "reason": "insults", "note": "see the chat",
        "gameId": t.id});
    let (status, v) = post(&app, "/api/report", &mehmet_c, report.clone()).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let (status, v) = post(&app, "/api/report", &mehmet_c, report).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::CONFLICT, Some("already-reported"))
    );
    online.run(&t.id, &cheat, Command::Resign).await.unwrap();
    let (status, v) = post(
        &app,
        "/api/report",
        &ayse_c,
        json!({"username": "Cheat", "reason": "cheating", "note": "every move is the engine's"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // Bad reports are refused, saying why.
    for (body, code) in [
        (
            json!({"username": "cheat", "reason": "bad luck"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"username": "ayse", "reason": "other"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"username": "nobody", "reason": "other"}),
            StatusCode::NOT_FOUND,
        ),
    ] {
        assert_eq!(post(&app, "/api/report", &ayse_c, body).await.0, code);
    }

    // Only moderators see the queue; the operator names one.
    assert_eq!(
        get(&app, "/api/mod/reports", &mod_c).await.0,
        StatusCode::FORBIDDEN
    );
    online
        .moderation()
        .set_moderator("hakem", true)
        .await
        .unwrap();
    let (status, queue) = get(&app, "/api/mod/reports", &mod_c).await;
    assert_eq!(status, StatusCode::OK, "{queue}");
    let reports = queue["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2, "{queue}");
    assert_eq!(
        (
            reports[0]["reporter"].as_str(),
            reports[0]["reason"].as_str()
        ),
        (Some("Mehmet"), Some("insults"))
    );
    assert_eq!(
        reports[0]["evidence"]["chat"],
        json!([{"user": "Cheat", "text": "you play like a donkey"}])
    );
    assert_eq!(reports[1]["reported"], "Cheat");

    // A mute: Cheat's next line is refused.
    let (status, v) = post(&app, "/api/mod/cheat/mute", &mod_c, json!({"minutes": 60})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["reportsClosed"], 2);
    let t = online
        .create_paired(&cheat, &mehmet, players::BLITZ)
        .await
        .unwrap();
    let muted = online
        .run(
            &t.id,
            &cheat,
            Command::Chat {
                text: "hello".into(),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(muted.code(), "muted");
    online.run(&t.id, &cheat, Command::Abort).await.unwrap();

    // The engine mark: Ayse gets back what she lost to Cheat, Mehmet (who won) nothing.
    let (ayse_before, mehmet_before) = (blitz(&online, &ayse).await, blitz(&online, &mehmet).await);
    let (status, v) = post(&app, "/api/mod/Cheat/engine", &mod_c, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let refunded: i64 = v["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["name"], "Ayse", "{v}");
            r["points"].as_f64().unwrap() as i64
        })
        .sum();
    // One refund a game she lost to Cheat, of what that game showed her (Black's change).
    let mut shown = 0;
    for id in &lost_games {
        let (row, _) = online.db().game(id).await.unwrap().unwrap();
        shown -= row.diffs[1].unwrap();
    }
    assert_eq!(
        v["refunds"].as_array().unwrap().len(),
        lost_games.len(),
        "{v}"
    );
    assert_eq!(refunded, shown, "{v}");
    assert!(
        (refunded - ayse_lost).abs() <= lost_games.len() as i64,
        "{refunded} {ayse_lost}"
    );
    assert!((blitz(&online, &ayse).await - ayse_before - refunded as f64).abs() < 1e-6);
    assert_eq!(blitz(&online, &mehmet).await, mehmet_before);
    // Marked again: nothing is given twice.
    let (_, v) = post(&app, "/api/mod/cheat/engine", &mod_c, json!({})).await;
    assert_eq!(v["refunds"], json!([]), "{v}");
    assert!((blitz(&online, &ayse).await - ayse_before - refunded as f64).abs() < 1e-6);
    // Out of the leaderboard, the pools and rated seeks; casual seeks stay open to it.
    let names = leaders(&app, &ayse_c).await;
    assert!(
        !names.contains(&"Cheat".to_string()) && names.contains(&"Mehmet".to_string()),
        "{names:?}"
    );
    let (status, v) = post(&app, "/api/pool/3+2", &cheat_c, json!({})).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("engine-marked")),
        "{v}"
    );
    let seek = |rated| json!({"minutes": 5, "increment": 3, "rated": rated});
    let (status, v) = post(&app, "/api/lobby/seeks", &cheat_c, seek(true)).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("engine-marked")),
        "{v}"
    );
    assert_eq!(
        post(&app, "/api/lobby/seeks", &cheat_c, seek(false))
            .await
            .0,
        StatusCode::OK
    );

    // A warning, then what Cheat sees of it all (no moderator's name), and the log.
    let (status, _) = post(
        &app,
        "/api/mod/cheat/warn",
        &mod_c,
        json!({"message": "be polite"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, mine) = get(&app, "/api/account/moderation", &cheat_c).await;
    let kinds: Vec<&str> = mine["marks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["chat-mute", "engine"], "{mine}");
    let actions: Vec<&str> = mine["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["action"].as_str())
        .collect();
    assert_eq!(actions, ["warn", "engine", "engine", "mute"], "{mine}");
    assert_eq!(mine["actions"][0]["details"], "be polite");
    assert!(!mine.to_string().contains("Hakem"), "{mine}");
    assert_eq!(
        get(&app, "/api/mod/log", &cheat_c).await.0,
        StatusCode::FORBIDDEN
    );
    let (_, log) = get(&app, "/api/mod/log?username=cheat", &mod_c).await;
    let log = log["log"].as_array().unwrap();
    assert_eq!(log.len(), 4);
    assert!(log
        .iter()
        .all(|l| l["moderator"] == "Hakem" && l["name"] == "Cheat"));
    let (_, all) = get(&app, "/api/mod/log", &mod_c).await;
    assert_eq!(
        all["log"].as_array().unwrap().last().unwrap()["action"],
        "moderator"
    );
    assert_eq!(
        all["log"].as_array().unwrap().last().unwrap()["moderator"],
        "operator"
    );
}

/// The player's blitz rating, 1500 before their first rated game.
async fn blitz_or_start(online: &Online, p: &Player) -> f64 {
    online
        .db()
        .rating(p.id, "blitz")
        .await
        .unwrap()
        .map_or(1500.0, |r| r.rating)
}
