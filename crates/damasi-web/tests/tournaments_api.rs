//! Tournaments over HTTP, and who directs them: a process that leaves tournaments to another
//! process of its cluster refuses every way into one (503 `not-here`), resumes none, and
//! still lists the stored ones; a process that directs them serves the same requests.

#[path = "support/http.rs"]
mod http;

use axum::http::{Method, StatusCode};
use axum::Router;
use damasi_web::{router, AppState};
use http::send;
use serde_json::{json, Value};

/// A Swiss of 3 rounds of 3+2, as lichess's `POST /api/swiss/new` takes it.
fn new_swiss() -> Value {
    json!({"name": "Club night", "clock": {"limit": 180, "increment": 2}, "nbRounds": 3})
}

/// Signs up on `app` and answers the session cookie.
async fn sign_up(app: &Router, name: &str) -> String {
    let body = json!({"name": name, "password": "a good password"});
    let (status, _, cookie) =
        send(app, Method::POST, "/api/account/signup", None, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    cookie.expect("a session cookie")
}

#[tokio::test]
async fn a_process_that_leaves_tournaments_elsewhere_refuses_them() {
    // The director stores a Swiss and an arena in the database the two processes share.
    let director = AppState::in_memory();
    let online = director.online.clone();
    let director = router(director);
    let cookie = sign_up(&director, "Organiser").await;
    let (status, swiss, _) = send(
        &director,
        Method::POST,
        "/api/swiss/new",
        Some(&cookie),
        Some(new_swiss()),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{swiss}");
    let id = swiss["id"].as_str().expect("an id").to_string();
    let (status, shown, _) = send(
        &director,
        Method::GET,
        &format!("/api/swiss/{id}"),
        None,
        None,
    )
    .await;
    assert_eq!(
        (status, shown["name"].as_str()),
        (StatusCode::OK, Some("Club night"))
    );

    // Another process over the same store, not directing tournaments.
    let other = AppState::in_memory()
        .with_online(online)
        .with_tournaments_elsewhere();
    other
        .tournaments
        .run()
        .await
        .expect("nothing to resume here");
    let other = router(other);
    let refused = [
        (
            Method::POST,
            "/api/swiss/new".to_string(),
            Some(new_swiss()),
        ),
        (Method::GET, format!("/api/swiss/{id}"), None),
        (
            Method::POST,
            format!("/api/swiss/{id}/join"),
            Some(json!({})),
        ),
        (Method::POST, format!("/api/swiss/{id}/terminate"), None),
        (Method::GET, format!("/swiss/{id}.trf"), None),
        (
            Method::POST,
            "/api/tournament".to_string(),
            Some(json!({"name": "Blitz", "clockTime": 3, "clockIncrement": 2, "minutes": 30})),
        ),
    ];
    for (method, uri, body) in refused {
        let (status, answer, _) = send(&other, method, &uri, Some(&cookie), body).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, Some("not-here")),
            "{uri}: {answer}"
        );
    }
    // The stored list is read from the database, wherever it is asked for.
    let (status, list, _) = send(&other, Method::GET, "/api/swiss", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(list.to_string().contains(&id), "{list}");
}

/// An account made in `state`'s store (as a sign-up does, without its per-address limit):
/// answers an `Authorization` header's value for it.
async fn account(state: &AppState, name: &str) -> String {
    let accounts = state.online.accounts();
    accounts
        .sign_up(name, "a good password".into(), damasi_online::now_ms())
        .await
        .expect("an account");
    let token = accounts
        .token_for(name, damasi_online::now_ms())
        .await
        .expect("a token");
    format!("Bearer {token}")
}

/// A request as [`send`] makes it, from the address `from` when given (as the server sets it
/// from the connection), with a session cookie or a `Bearer` token (`who`); answers the
/// status, the `Retry-After` header and the JSON body.
async fn send_from(
    app: &Router,
    method: Method,
    uri: &str,
    who: &str,
    body: Value,
    from: Option<std::net::IpAddr>,
) -> (StatusCode, Option<u64>, Value) {
    use axum::body::{to_bytes, Body};
    use axum::http::{header, Request};
    use tower::ServiceExt;
    let credential = if who.starts_with("Bearer ") {
        header::AUTHORIZATION
    } else {
        header::COOKIE
    };
    let mut req = Request::builder()
        .method(method)
        .uri(uri)
        .header(credential, who)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    if let Some(ip) = from {
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(std::net::SocketAddr::new(
                ip, 40000,
            )));
    }
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let retry = res
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (
        status,
        retry,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Creates a Swiss as `cookie`; answers the status, `Retry-After` and the body.
async fn create(app: &Router, cookie: &str, body: Value) -> (StatusCode, Option<u64>, Value) {
    send_from(app, Method::POST, "/api/swiss/new", cookie, body, None).await
}

/// One account may keep 8 tournaments open and create 10 an hour (Swiss and arenas
/// together); past either it is answered 429 with `Retry-After`, and other accounts are not
/// held back. Before, one account created 3,000 in 1.9 s.
#[tokio::test]
async fn creating_tournaments_is_limited_per_account() {
    use damasi_tournaments::limits::{CREATIONS_PER_WINDOW, OPEN_PER_ACCOUNT};
    let app = router(AppState::in_memory());
    let cookie = sign_up(&app, "Flooder").await;
    let mut ids = Vec::new();
    for i in 0..OPEN_PER_ACCOUNT {
        let (status, _, v) = if i % 2 == 0 {
            create(&app, &cookie, new_swiss()).await
        } else {
            let arena =
                json!({"name": "Blitz", "clockTime": 3, "clockIncrement": 2, "minutes": 30});
            send_from(&app, Method::POST, "/api/tournament", &cookie, arena, None).await
        };
        assert_eq!(status, StatusCode::OK, "tournament {i}: {v}");
        ids.push((i % 2 == 1, v["id"].as_str().unwrap().to_string()));
    }
    // Too many open at once.
    let (status, retry, v) = create(&app, &cookie, new_swiss()).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("too-many-tournaments")),
        "{v}"
    );
    assert!(retry.is_some_and(|s| s > 0), "Retry-After: {retry:?}");
    assert!(v["error"].as_str().unwrap().contains("not finished"), "{v}");
    // Finishing some makes room, up to the hourly number.
    for (arena, id) in ids.iter().take(CREATIONS_PER_WINDOW - OPEN_PER_ACCOUNT + 1) {
        let kind = if *arena { "tournament" } else { "swiss" };
        let (status, _, v) = send_from(
            &app,
            Method::POST,
            &format!("/api/{kind}/{id}/terminate"),
            &cookie,
            json!({}),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    for _ in OPEN_PER_ACCOUNT..CREATIONS_PER_WINDOW {
        let (status, _, v) = create(&app, &cookie, new_swiss()).await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let (status, retry, v) = create(&app, &cookie, new_swiss()).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(v["error"].as_str().unwrap().contains("an hour"), "{v}");
    assert!(
        retry.is_some_and(|s| s > 0 && s <= 3600),
        "Retry-After: {retry:?}"
    );
    // Another account is not held back.
    let other = sign_up(&app, "Organiser").await;
    let (status, _, v) = create(&app, &other, new_swiss()).await;
    assert_eq!(status, StatusCode::OK, "{v}");
}

/// Wrong entry passwords: 5 per account and tournament, 20 per address (IPv6 counted per
/// /64) in 10 minutes; then even the right one is answered 429 with `Retry-After` (a guesser
/// cannot tell), while other accounts and addresses still join. Before, 300 guesses took
/// 0.2 s.
#[tokio::test]
async fn wrong_join_passwords_are_limited_per_account_and_address() {
    use damasi_tournaments::limits::{WRONG_PASSWORDS_PER_ADDRESS, WRONG_PASSWORDS_PER_TOURNAMENT};
    let state = AppState::in_memory();
    let app = router(state.clone());
    let organiser = account(&state, "Organiser").await;
    let mut body = new_swiss();
    body["password"] = json!("kapalı kapı");
    let (status, _, v) = create(&app, &organiser, body).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let join = format!("/api/swiss/{}/join", v["id"].as_str().unwrap());
    let here: std::net::IpAddr = "2001:db8:7:7::1".parse().unwrap();
    let wrong = json!({"password": "açık kapı"});
    let right = json!({"password": "kapalı kapı"});

    // One account, one tournament.
    let guesser = account(&state, "Guesser").await;
    for i in 0..WRONG_PASSWORDS_PER_TOURNAMENT {
        let (status, _, v) =
            send_from(&app, Method::POST, &join, &guesser, wrong.clone(), None).await;
        assert_eq!(
            (status, v["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("wrong-password")),
            "guess {i}: {v}"
        );
    }
    let (status, retry, v) =
        send_from(&app, Method::POST, &join, &guesser, right.clone(), None).await;
    assert_eq!(
        (status, v["code"].as_str()),
        (
            StatusCode::TOO_MANY_REQUESTS,
            Some("too-many-wrong-passwords")
        ),
        "{v}"
    );
    assert!(
        retry.is_some_and(|s| s > 0 && s <= 600),
        "Retry-After: {retry:?}"
    );

    // One address (a /64), several accounts.
    let mut sent = 0;
    let mut n = 0;
    while sent < WRONG_PASSWORDS_PER_ADDRESS {
        n += 1;
        let cookie = account(&state, &format!("Guesser{n}")).await;
        for _ in 0..WRONG_PASSWORDS_PER_TOURNAMENT.min(WRONG_PASSWORDS_PER_ADDRESS - sent) {
            let (status, _, v) = send_from(
                &app,
                Method::POST,
                &join,
                &cookie,
                wrong.clone(),
                Some(here),
            )
            .await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
            sent += 1;
        }
    }
    let fresh = account(&state, "Fresh").await;
    let same_64: std::net::IpAddr = "2001:db8:7:7:ffff::2".parse().unwrap();
    let (status, retry, v) = send_from(
        &app,
        Method::POST,
        &join,
        &fresh,
        right.clone(),
        Some(same_64),
    )
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(retry.is_some(), "Retry-After");
    // The same account from elsewhere, with the password: in.
    let elsewhere: std::net::IpAddr = "192.0.2.8".parse().unwrap();
    let (status, _, v) = send_from(&app, Method::POST, &join, &fresh, right, Some(elsewhere)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
}

/// A start time in the past or more than a year ahead, and a name with a control or an
/// invisible formatting character (a right-to-left override, a zero-width space), are
/// refused with a 400 naming the field. Before, `startsAt` -1 and 2^62 and U+202E were taken.
#[tokio::test]
async fn start_times_and_names_are_checked() {
    let app = router(AppState::in_memory());
    let cookie = sign_up(&app, "Organiser").await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for (field, at) in [
        ("startsAt", -1i64),
        ("startsAt", 1 << 62),
        ("startsAt", now - 3_600_000),
    ] {
        let mut body = new_swiss();
        body[field] = json!(at);
        let (status, _, v) = create(&app, &cookie, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{at}: {v}");
        assert!(v["error"].as_str().unwrap().starts_with("startsAt:"), "{v}");
    }
    let arena = json!({"name": "Blitz", "clockTime": 3, "clockIncrement": 2, "minutes": 30, "startDate": -1});
    let (status, _, v) =
        send_from(&app, Method::POST, "/api/tournament", &cookie, arena, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"].as_str().unwrap().starts_with("startDate:"),
        "{v}"
    );
    for bad in [
        "Kulüp \u{202E}gecesi",
        "Club\u{200B}night",
        "Club \u{200F}night",
        "a\u{2066}b",
    ] {
        let mut body = new_swiss();
        body["name"] = json!(bad);
        let (status, _, v) = create(&app, &cookie, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad:?}: {v}");
        let message = v["error"].as_str().unwrap();
        assert!(
            message.starts_with("name:") && message.contains("U+"),
            "{v}"
        );
    }
    // A start in an hour and a Turkish name are fine.
    let mut body = new_swiss();
    body["startsAt"] = json!(now + 3_600_000);
    body["name"] = json!("Kış Şampiyonası");
    let (status, _, v) = create(&app, &cookie, body).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["name"], "Kış Şampiyonası");
}

/// The organiser's `start` is answered once the round is being paired, with the state
/// `pairing`, not after the pairing (14.8 s for a round of 1,000 players); the round's games
/// follow.
#[tokio::test]
async fn start_answers_while_the_round_is_paired() {
    let state = AppState::in_memory();
    let app = router(state.clone());
    let organiser = account(&state, "Organiser").await;
    let (status, _, v) = create(&app, &organiser, new_swiss()).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    for name in ["Ayse", "Berk", "Cem"] {
        let cookie = account(&state, name).await;
        let uri = format!("/api/swiss/{id}/join");
        let (status, _, v) = send_from(&app, Method::POST, &uri, &cookie, json!({}), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let start = format!("/api/swiss/{id}/start");
    let (status, _, v) = send_from(&app, Method::POST, &start, &organiser, json!({}), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "pairing", "{v}");
    // The round comes: one game and a bye.
    let mut shown = Value::Null;
    for _ in 0..200 {
        let (_, _, v) = send_from(
            &app,
            Method::GET,
            &format!("/api/swiss/{id}"),
            "",
            json!({}),
            None,
        )
        .await;
        shown = v;
        if shown["rounds"][0]["games"][0]["id"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(shown["rounds"][0]["games"][0]["id"].is_string(), "{shown}");
    assert_eq!(shown["pairing"], Value::Null, "{shown}");
    // A second press with the round in play is refused as before.
    let (status, _, v) = send_from(&app, Method::POST, &start, &organiser, json!({}), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{v}");
}

/// A round robin over HTTP: `POST /api/swiss/new` with `system=roundRobin` (and `double`),
/// its mistakes answered 400 naming the field; five players join, the entries close at the
/// start, and the five rounds of the Berger table are played (Black resigns every game):
/// every round has two games and one player resting, everybody rests once, and the
/// standings, the TRF and the PDN say so.
#[tokio::test]
async fn a_round_robin_over_the_api() {
    let state = AppState::in_memory();
    let app = router(state.clone());
    let organiser = account(&state, "Organiser").await;
    let body = |extra: Value| {
        let mut b = json!({"name": "Club league", "clock": {"limit": 180, "increment": 2},
            "roundInterval": 0});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    // Mistakes, each named.
    let many: Vec<String> = (1..=25).map(|i| format!("p{i}")).collect();
    for (extra, field) in [
        (json!({"system": "roundrobin"}), "system:"),
        (json!({"double": true}), "double:"),
        (
            json!({"system": "roundRobin", "conditions": {"allowList": many.join(",")}}),
            "conditions.allowList:",
        ),
        (
            json!({"system": "roundRobin", "conditions": {"allowList": "a,b"}}),
            "conditions.allowList:",
        ),
        (
            json!({"system": "roundRobin", "tiebreaks": "koya,foo"}),
            "tiebreaks:",
        ),
    ] {
        let (status, _, v) = create(&app, &organiser, body(extra.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{extra}: {v}");
        let message = v["error"].as_str().unwrap();
        assert!(message.starts_with(field), "{extra}: {v}");
    }
    let (status, _, v) = create(
        &app,
        &organiser,
        body(json!({"system": "roundRobin", "double": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(
        (v["system"].as_str(), v["double"].as_bool()),
        (Some("roundRobin"), Some(true))
    );
    assert_eq!(v["tieBreaks"], json!(["SB", "DE", "WON", "KS"]));

    // A single round robin of five (nbRounds is the table's, whatever is sent).
    let (status, _, v) = create(
        &app,
        &organiser,
        body(json!({"system": "roundRobin", "nbRounds": 9})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    assert_eq!(
        (v["system"].as_str(), v["double"].as_bool()),
        (Some("roundRobin"), Some(false))
    );
    let id = v["id"].as_str().unwrap().to_string();
    let mut tokens = std::collections::HashMap::new();
    for name in ["Ayse", "Berk", "Cem", "Deniz", "Ece"] {
        let token = account(&state, name).await;
        let uri = format!("/api/swiss/{id}/join");
        let (status, _, v) = send_from(&app, Method::POST, &uri, &token, json!({}), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        tokens.insert(name.to_string(), token);
    }
    let view = |app: Router, id: String| async move {
        send(&app, Method::GET, &format!("/api/swiss/{id}"), None, None)
            .await
            .1
    };
    assert_eq!(view(app.clone(), id.clone()).await["nbRounds"], 5);
    let start = format!("/api/swiss/{id}/start");
    let (status, _, v) = send_from(&app, Method::POST, &start, &organiser, json!({}), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let late = account(&state, "Late").await;
    let (status, _, v) = send_from(
        &app,
        Method::POST,
        &format!("/api/swiss/{id}/join"),
        &late,
        json!({}),
        None,
    )
    .await;
    assert_eq!(
        (status, v["code"].as_str()),
        (StatusCode::CONFLICT, Some("tournament-closed")),
        "{v}"
    );

    // Black resigns every game as soon as it is made.
    let mut shown = Value::Null;
    for _ in 0..600 {
        shown = view(app.clone(), id.clone()).await;
        if shown["status"] == "finished" {
            break;
        }
        if let Some(round) = shown["rounds"].as_array().and_then(|r| r.last()) {
            for g in round["games"].as_array().unwrap() {
                let (Some(game), true) = (g["id"].as_str(), g["result"].is_null()) else {
                    continue;
                };
                let black = &tokens[g["black"].as_str().unwrap()];
                let uri = format!("/api/board/game/{game}/resign");
                send_from(&app, Method::POST, &uri, black, json!({}), None).await;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(shown["status"], "finished", "{shown}");
    let rounds = shown["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5);
    let mut rests = std::collections::HashMap::new();
    let mut whites = std::collections::HashMap::<String, f64>::new();
    let mut met = std::collections::HashSet::new();
    for r in rounds {
        let games = r["games"].as_array().unwrap();
        assert_eq!(games.len(), 2, "{r}");
        *rests
            .entry(r["bye"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
        for g in games {
            assert_eq!(g["result"], "1-0", "{g}");
            let (w, b) = (g["white"].as_str().unwrap(), g["black"].as_str().unwrap());
            assert!(
                met.insert(if w < b { (w, b) } else { (b, w) }),
                "{w} met {b} twice"
            );
            *whites.entry(w.to_string()).or_default() += 1.0;
        }
    }
    assert_eq!(met.len(), 10);
    assert_eq!(rests.len(), 5);
    assert!(rests.values().all(|&n| n == 1), "{rests:?}");
    // The standings: a point for each game as White, none for the rest.
    for line in shown["standings"].as_array().unwrap() {
        let name = line["username"].as_str().unwrap();
        assert_eq!(
            line["points"].as_f64(),
            Some(whites.get(name).copied().unwrap_or(0.0)),
            "{line}"
        );
    }
    // The report: five rounds, each player's line with one rest (`0000 - Z`).
    let (status, trf, _) = send(&app, Method::GET, &format!("/swiss/{id}.trf"), None, None).await;
    assert_eq!(status, StatusCode::OK);
    let trf = trf.as_str().unwrap();
    assert!(
        trf.contains("XXR 5") && trf.contains("092 Individual: round robin"),
        "{trf}"
    );
    let lines: Vec<&str> = trf.lines().filter(|l| l.starts_with("001")).collect();
    assert_eq!(lines.len(), 5);
    for l in &lines {
        assert_eq!(l.matches("0000 - Z").count(), 1, "{l}");
    }
    // TRF-16's lines of the event (#44 item 5): the dates, the players, the time control, and
    // each round's date in the columns of that round's results (92-99, then every 10).
    let today = damasi::pdn::pdn_date(damasi_online::now_ms() / 1000).replace('.', "/");
    assert!(trf.contains(&format!("042 {today}")), "{trf}");
    assert!(trf.contains(&format!("052 {today}")), "{trf}");
    assert!(trf.contains("\n062 5\n"), "{trf}");
    assert!(
        trf.lines()
            .any(|l| l.starts_with("122 ") && l.contains(" min + ")),
        "{trf}"
    );
    let dates = trf
        .lines()
        .find(|l| l.starts_with("132"))
        .expect("line 132");
    for round in 0..5 {
        let at = 91 + 10 * round;
        assert_eq!(
            &dates[at..at + 8],
            &today[2..],
            "round {}: {dates:?}",
            round + 1
        );
        // The same columns of a player's line hold that round's opponent (or 0000).
        assert!(
            lines[0][at..at + 4].trim().parse::<u32>().is_ok(),
            "{}",
            lines[0]
        );
    }
    // The games as PDN: ten.
    let (status, pdn, _) = send(
        &app,
        Method::GET,
        &format!("/api/swiss/{id}/games"),
        None,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let pdn = pdn.as_str().unwrap();
    assert_eq!(pdn.matches("[Result \"").count(), 10, "{pdn}");
    // Each game says its event, round and board, and links back to the event's page (#44
    // item 5: they said "damasi casual blitz game" and `Round "?"`).
    let name = shown["name"].as_str().unwrap();
    assert_eq!(
        pdn.matches(&format!("[Event \"{name}\"]")).count(),
        10,
        "{pdn}"
    );
    assert_eq!(pdn.matches(&format!("/swiss/{id}\"]")).count(), 10, "{pdn}");
    for round in 1..=5 {
        assert_eq!(
            pdn.matches(&format!("[Round \"{round}.")).count(),
            2,
            "{pdn}"
        );
    }
    assert!(
        pdn.contains("[Round \"5.2\"]") && !pdn.contains("[Round \"?\"]"),
        "{pdn}"
    );
    assert!(!pdn.contains("game\"]"), "{pdn}");
}

/// `GET /api/...` as `who` (empty: nobody), answering the status and the JSON body or the
/// text.
async fn get_as(app: &Router, uri: &str, who: &str) -> (StatusCode, Value) {
    use axum::body::{to_bytes, Body};
    use axum::http::{header, Request};
    use tower::ServiceExt;
    let mut req = Request::builder().uri(uri);
    if !who.is_empty() {
        req = req.header(header::AUTHORIZATION, who);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, body)
}

/// The value of PDN tag `name` in `pdn`, if it has the tag.
fn tag<'a>(pdn: &'a str, name: &str) -> Option<&'a str> {
    let start = format!("[{name} \"");
    pdn.lines()
        .find_map(|l| l.strip_prefix(start.as_str())?.strip_suffix("\"]"))
}

/// A tournament's game downloaded alone (`GET /api/online/games/{id}/pdn`, the game page's
/// PDN link) names its event as the tournament's export does (#44 item 5): `Event` the
/// tournament's name, `Round` as `round.board`, the game's `Date` and `EventURL` the event's
/// page; an arena's game has `Round "-"` and its page; a game outside a tournament keeps
/// "damasi ... game". The same small Swiss's TRF has the event's dates and time control, and
/// each player's profile lists the events entered with their place and points.
#[tokio::test]
async fn a_tournament_game_alone_names_its_event() {
    let state = AppState::in_memory();
    let app = router(state.clone());
    let organiser = account(&state, "Organiser").await;
    let (status, _, v) = create(
        &app,
        &organiser,
        json!({"name": "Cuma \"akşam\" kupası", "clock": {"limit": 180, "increment": 2},
            "nbRounds": 1, "roundInterval": 0}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let mut tokens = std::collections::HashMap::new();
    for name in ["Ayse", "Berk"] {
        let token = account(&state, name).await;
        let uri = format!("/api/swiss/{id}/join");
        let (status, _, v) = send_from(&app, Method::POST, &uri, &token, json!({}), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        tokens.insert(name, token);
    }
    let start = format!("/api/swiss/{id}/start");
    let (status, _, v) = send_from(&app, Method::POST, &start, &organiser, json!({}), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    // The one game is made; Black resigns it, and the tournament is over.
    let mut shown = Value::Null;
    for _ in 0..300 {
        shown = get_as(&app, &format!("/api/swiss/{id}"), "").await.1;
        let g = &shown["rounds"][0]["games"][0];
        if let (Some(game), true) = (g["id"].as_str(), g["result"].is_null()) {
            let black = &tokens[g["black"].as_str().unwrap()];
            let uri = format!("/api/board/game/{game}/resign");
            send_from(&app, Method::POST, &uri, black, json!({}), None).await;
        }
        if shown["status"] == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(shown["status"], "finished", "{shown}");
    let g = &shown["rounds"][0]["games"][0];
    let game = g["id"].as_str().unwrap();

    let (status, pdn) = get_as(&app, &format!("/api/online/games/{game}/pdn"), "").await;
    assert_eq!(status, StatusCode::OK, "{pdn}");
    let pdn = pdn.as_str().unwrap();
    let today = damasi::pdn::pdn_date(damasi_online::now_ms() / 1000);
    assert_eq!(tag(pdn, "Event"), Some(r#"Cuma \"akşam\" kupası"#), "{pdn}");
    assert_eq!(tag(pdn, "Round"), Some("1.1"), "{pdn}");
    assert_eq!(tag(pdn, "Date"), Some(today.as_str()), "{pdn}");
    assert_eq!(
        tag(pdn, "EventURL"),
        Some(format!("http://localhost/swiss/{id}").as_str()),
        "{pdn}"
    );
    assert_eq!(
        tag(pdn, "Site"),
        Some(format!("http://localhost/online/{game}").as_str())
    );
    assert_eq!(tag(pdn, "White"), g["white"].as_str(), "{pdn}");
    assert_eq!(tag(pdn, "Result"), Some("1-0"), "{pdn}");
    assert_eq!(pdn.matches("[Round ").count(), 1, "{pdn}");
    // The same tags as the tournament's own export gives the game.
    let all = get_as(&app, &format!("/api/swiss/{id}/games"), "").await.1;
    assert_eq!(all.as_str().unwrap().trim_end(), pdn.trim_end());
    // It reads back as a game of the rules library, its tags as written.
    let back = damasi::pdn::read_game(pdn).expect("the PDN reads back");
    assert_eq!(back.tag("Round"), Some("1.1"));
    assert_eq!(back.tag("Event"), Some("Cuma \"akşam\" kupası"));

    // The TRF of this Swiss (#44 item 5): the dates, the players, the time control.
    let (status, trf) = get_as(&app, &format!("/swiss/{id}.trf"), "").await;
    assert_eq!(status, StatusCode::OK);
    let trf = trf.as_str().unwrap();
    let slashed = today.replace('.', "/");
    for line in [
        format!("042 {slashed}"),
        format!("052 {slashed}"),
        "062 2".into(),
        "102 Organiser".into(),
        "122 3 min + 2 s a move".into(),
    ] {
        assert!(trf.lines().any(|l| l == line), "{line:?} in {trf}");
    }
    let dates = trf.lines().find(|l| l.starts_with("132")).expect("132");
    assert_eq!(&dates[91..99], &slashed[2..], "{trf}");

    // Each player's profile lists the event with their place and points.
    for (name, rank, points) in [
        (g["white"].as_str().unwrap(), 1, 1.0),
        (g["black"].as_str().unwrap(), 2, 0.0),
    ] {
        let (status, p) = get_as(&app, &format!("/api/user/{name}"), "").await;
        assert_eq!(status, StatusCode::OK, "{p}");
        let t = &p["tournaments"][0];
        assert_eq!(
            (t["id"].as_str(), t["kind"].as_str()),
            (Some(id.as_str()), Some("swiss")),
            "{t}"
        );
        assert_eq!(t["status"], "finished", "{t}");
        assert_eq!(t["player"]["rank"], rank, "{t}");
        assert_eq!(t["player"]["points"].as_f64(), Some(points), "{t}");
    }

    // An arena's game: Round "-", the arena's page.
    let body = json!({"name": "Pazar arenası", "clockTime": 3, "clockIncrement": 2,
        "minutes": 30});
    let (status, _, v) = send_from(
        &app,
        Method::POST,
        "/api/tournament",
        &organiser,
        body,
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let arena = v["id"].as_str().unwrap().to_string();
    for name in ["Ayse", "Berk"] {
        let uri = format!("/api/tournament/{arena}/join");
        let (status, _, v) =
            send_from(&app, Method::POST, &uri, &tokens[name], json!({}), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
    }
    let uri = format!("/api/tournament/{arena}/start");
    let (status, _, v) = send_from(&app, Method::POST, &uri, &organiser, json!({}), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let mut shown = Value::Null;
    for _ in 0..300 {
        shown = get_as(&app, &format!("/api/tournament/{arena}"), "")
            .await
            .1;
        if shown["ongoing"][0]["id"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let arena_game = shown["ongoing"][0]["id"]
        .as_str()
        .expect("a game")
        .to_string();
    let pdn = get_as(&app, &format!("/api/online/games/{arena_game}/pdn"), "")
        .await
        .1;
    let pdn = pdn.as_str().unwrap();
    assert_eq!(tag(pdn, "Event"), Some("Pazar arenası"), "{pdn}");
    assert_eq!(tag(pdn, "Round"), Some("-"), "{pdn}");
    assert_eq!(
        tag(pdn, "EventURL"),
        Some(format!("http://localhost/tournament/{arena}").as_str()),
        "{pdn}"
    );
    let (_, p) = get_as(&app, "/api/user/Ayse", "").await;
    let t = &p["tournaments"][0];
    assert_eq!(
        (t["id"].as_str(), t["kind"].as_str()),
        (Some(arena.as_str()), Some("arena")),
        "{t}"
    );
    assert_eq!(
        (t["player"]["score"].as_u64(), t["player"]["games"].as_u64()),
        (Some(0), Some(0)),
        "{t}"
    );

    // A game outside any tournament between the same players keeps its own event.
    let (status, _, v) = send_from(
        &app,
        Method::POST,
        "/api/online/games",
        &tokens["Ayse"],
        json!({"clock": {"limit": 180, "increment": 2}}),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let own = v["id"].as_str().unwrap();
    let pdn = get_as(&app, &format!("/api/online/games/{own}/pdn"), "")
        .await
        .1;
    let pdn = pdn.as_str().unwrap();
    assert!(
        tag(pdn, "Event").is_some_and(|e| e.starts_with("damasi ")),
        "{pdn}"
    );
    assert_eq!(tag(pdn, "EventURL"), None, "{pdn}");
}
