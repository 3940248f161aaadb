//! Online play over HTTP: accounts and sessions, API tokens, the Board API with its NDJSON
//! streams, the lobby and pools, and every error a client can meet.

use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_web::{router, AppState, Security};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

struct Reply {
    status: StatusCode,
    cookie: Option<String>,
    retry_after: Option<u64>,
    body: Value,
}

/// Who sends a request: nobody, a browser session cookie, or a token.
#[derive(Clone, Default)]
struct As {
    cookie: Option<String>,
    token: Option<String>,
}

fn request(method: Method, uri: &str, who: &As, body: Option<Value>) -> Request<Body> {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(c) = &who.cookie {
        req = req.header(header::COOKIE, c);
    }
    if let Some(t) = &who.token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    req.body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap()
}

async fn send(app: &Router, method: Method, uri: &str, who: &As, body: Option<Value>) -> Reply {
    let res = app
        .clone()
        .oneshot(request(method, uri, who, body))
        .await
        .unwrap();
    let status = res.status();
    let cookie = res
        .headers()
        .get(header::SET_COOKIE)
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_string());
    let retry_after = res
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        cookie,
        retry_after,
        body,
    }
}

async fn post(app: &Router, uri: &str, who: &As, body: Value) -> Reply {
    send(app, Method::POST, uri, who, Some(body)).await
}

async fn get(app: &Router, uri: &str, who: &As) -> Reply {
    send(app, Method::GET, uri, who, None).await
}

async fn sign_up(app: &Router, name: &str) -> As {
    let r = post(
        app,
        "/api/account/signup",
        &As::default(),
        json!({"name": name, "password": "a good password"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    As {
        cookie: r.cookie,
        token: None,
    }
}

async fn token(app: &Router, who: &As) -> As {
    let r = post(app, "/api/account/token", who, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    As {
        cookie: None,
        token: Some(r.body["token"].as_str().unwrap().to_string()),
    }
}

/// Reads NDJSON lines from a streaming body until `n` non-empty ones arrived.
async fn lines(body: &mut Body, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut buf = String::new();
    while out.len() < n {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("the stream answers within 10 s")
            .expect("the stream goes on")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            buf.push_str(std::str::from_utf8(&data).unwrap());
            while let Some(i) = buf.find('\n') {
                let line: String = buf.drain(..=i).collect();
                if !line.trim().is_empty() {
                    out.push(serde_json::from_str(line.trim()).unwrap());
                }
            }
        }
    }
    out
}

#[tokio::test]
async fn sign_up_log_in_and_log_out_with_a_session_cookie() {
    let app = router(AppState::in_memory());
    let anon = As::default();
    assert_eq!(
        get(&app, "/api/account", &anon).await.status,
        StatusCode::UNAUTHORIZED
    );
    let ali = sign_up(&app, "ali").await;
    assert!(ali
        .cookie
        .as_deref()
        .unwrap()
        .starts_with("damasi_session="));
    let me = get(&app, "/api/account", &ali).await;
    assert_eq!(me.body["name"], "ali");
    assert_eq!(me.body["guest"], false);
    // The same name again, in another case: taken.
    let again = post(
        &app,
        "/api/account/signup",
        &anon,
        json!({"name": "ALI", "password": "another password"}),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.body["code"], "name-taken");
    // Bad names and short passwords are refused with a reason.
    for (name, pw) in [("a", "long enough pw"), ("ok_name", "short")] {
        let r = post(
            &app,
            "/api/account/signup",
            &anon,
            json!({"name": name, "password": pw}),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{name}");
    }
    // Wrong password and unknown name give the same answer.
    let wrong = post(
        &app,
        "/api/account/login",
        &anon,
        json!({"name": "ali", "password": "not it at all"}),
    )
    .await;
    let unknown = post(
        &app,
        "/api/account/login",
        &anon,
        json!({"name": "veli", "password": "not it at all"}),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong.body, unknown.body);
    let login = post(
        &app,
        "/api/account/login",
        &anon,
        json!({"name": "Ali", "password": "a good password"}),
    )
    .await;
    assert_eq!(login.status, StatusCode::OK);
    let second = As {
        cookie: login.cookie,
        token: None,
    };
    assert_eq!(get(&app, "/api/account", &second).await.body["name"], "ali");
    post(&app, "/api/account/logout", &second, json!({})).await;
    assert_eq!(
        get(&app, "/api/account", &second).await.status,
        StatusCode::UNAUTHORIZED
    );
    // The first session is still good.
    assert_eq!(get(&app, "/api/account", &ali).await.status, StatusCode::OK);
}

#[tokio::test]
async fn sign_ups_from_one_address_are_rate_limited() {
    let app = router(AppState::in_memory());
    // Guests: thirty at once from one address (a club's room), not more.
    let mut made = 0;
    for i in 0..40 {
        let r = post(&app, "/api/account/guest", &As::default(), json!({})).await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            assert_eq!(r.body["code"], "rate-limited");
            // Five guests a minute: the next in at most 12 s, and the 429 says when.
            let wait = r.retry_after.expect("a 429 says when to come back");
            assert!((1..=12).contains(&wait), "Retry-After {wait}");
            break;
        }
        assert_eq!(r.status, StatusCode::OK, "guest {i}");
        made += 1;
    }
    assert_eq!(made, 30, "thirty guests from one address, then the limit");
}

/// A club's first evening (#44): thirty members sign up from the club's one address and all
/// get in; the thirty-first sign-up at once is refused (a flood of accounts from one address
/// stops there), while guests are counted apart.
#[tokio::test]
async fn thirty_club_members_sign_up_from_one_address() {
    let app = router(AppState::in_memory());
    let anon = As::default();
    for i in 1..=30 {
        let r = post(
            &app,
            "/api/account/signup",
            &anon,
            json!({"name": format!("kulup{i}"), "password": format!("dama-kulubu-{i}-sifre")}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "member {i}: {}", r.body);
        assert_eq!(r.body["name"], format!("kulup{i}"));
    }
    let r = post(
        &app,
        "/api/account/signup",
        &anon,
        json!({"name": "kulup31", "password": "dama-kulubu-31-sifre"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
    assert_eq!(r.body["code"], "rate-limited");
    // One more sign-up every two minutes: the 429 says when.
    let wait = r.retry_after.expect("a 429 says when to come back");
    assert!((1..=120).contains(&wait), "Retry-After {wait}");
    let r = post(&app, "/api/account/guest", &anon, json!({})).await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "guests are counted apart: {}",
        r.body
    );
}

/// The commonest passwords, in any case, and the name itself are refused at sign-up.
#[tokio::test]
async fn common_passwords_are_refused_at_sign_up() {
    let app = router(AppState::in_memory());
    let anon = As::default();
    for pw in ["password123", "12345678", "GALATASARAY"] {
        let r = post(
            &app,
            "/api/account/signup",
            &anon,
            json!({"name": "kemal", "password": pw}),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{pw}: {}", r.body);
        assert_eq!(r.body["code"], "bad-request");
        let message = r.body["error"].as_str().unwrap();
        assert!(message.contains("commonest"), "{pw}: {message}");
    }
    let r = post(
        &app,
        "/api/account/signup",
        &anon,
        json!({"name": "kemalpasa", "password": "KemalPasa"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    sign_up(&app, "kemal").await;
}

/// After five failed log-ins in a row for one name, the next attempt for that name waits (429
/// `too-many-failures` with `Retry-After`), even with the right password; other names from the
/// same client are not concerned, and after the wait a success clears the count.
#[tokio::test]
async fn failed_log_ins_are_limited_per_account() {
    let app = router(AppState::in_memory());
    sign_up(&app, "ayse").await;
    sign_up(&app, "mehmet").await;
    let log_in = |name: &str, pw: &str| {
        let app = app.clone();
        let body = json!({"name": name, "password": pw});
        async move { post(&app, "/api/account/login", &As::default(), body).await }
    };
    for i in 0..5 {
        let r = log_in("ayse", "a wrong guess").await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "guess {i}: {}", r.body);
    }
    let r = log_in("AYSE", "a good password").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
    assert_eq!(r.body["code"], "too-many-failures");
    let wait = r.retry_after.expect("Retry-After");
    assert!((1..=300).contains(&wait), "{wait}");
    // Another account from the same client: a normal answer.
    assert_eq!(
        log_in("mehmet", "a good password").await.status,
        StatusCode::OK
    );
    // The owner, after the wait: in, and the count starts again.
    tokio::time::sleep(Duration::from_millis(wait * 1000 + 300)).await;
    assert_eq!(
        log_in("ayse", "a good password").await.status,
        StatusCode::OK
    );
    assert_eq!(
        log_in("ayse", "a wrong guess").await.status,
        StatusCode::UNAUTHORIZED
    );
}

/// One account's streams are capped wherever they come from (here: no address at all); the
/// 17th is a 429 `too-many-streams`, and a closed stream gives its place back.
#[tokio::test]
async fn one_account_cannot_open_endless_streams() {
    let app = router(AppState::in_memory());
    let bot = token(&app, &sign_up(&app, "streamer").await).await;
    let open = |who: As| {
        let app = app.clone();
        async move {
            app.oneshot(request(Method::GET, "/api/stream/event", &who, None))
                .await
                .unwrap()
        }
    };
    let mut streams = Vec::new();
    for i in 0..damasi_web::streams::STREAMS_PER_ACCOUNT {
        let res = open(bot.clone()).await;
        assert_eq!(res.status(), StatusCode::OK, "stream {i}");
        streams.push(res);
    }
    let refused = open(bot.clone()).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let body = to_bytes(refused.into_body(), 1 << 16).await.unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["code"], "too-many-streams");
    // Another account is not concerned.
    let other = sign_up(&app, "watcher").await;
    assert_eq!(open(other).await.status(), StatusCode::OK);
    streams.pop();
    assert_eq!(open(bot).await.status(), StatusCode::OK);
}

/// Players come before spectators (the audit's item A: 30 addresses holding spectators'
/// sockets made a seated player's own game socket and event stream answer 429): with every
/// spectator's place taken, by watchers signed in or not, the seated players still open their
/// game streams and event streams.
#[tokio::test]
async fn spectators_never_take_a_seated_players_stream() {
    let app = router(
        AppState::in_memory().with_stream_limits(damasi_web::StreamLimits {
            spectators: 3,
            ..Default::default()
        }),
    );
    let (a_web, b_web) = (sign_up(&app, "alpha").await, sign_up(&app, "beta").await);
    let (a, b) = (token(&app, &a_web).await, token(&app, &b_web).await);
    let watcher = sign_up(&app, "watcher").await;
    let open = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 300, "increment": 3}}),
    )
    .await;
    let id = open.body["id"].as_str().unwrap().to_string();
    post(
        &app,
        &format!("/api/challenge/{id}/accept"),
        &a,
        json!({"color": "white"}),
    )
    .await;
    post(&app, &format!("/api/challenge/{id}/accept"), &b, json!({})).await;
    let open = |who: &As, path: String| {
        let req = request(Method::GET, &path, who, None);
        let app = app.clone();
        async move { app.oneshot(req).await.unwrap() }
    };
    let game = format!("/api/board/game/stream/{id}");
    let mut held = Vec::new();
    for who in [As::default(), As::default(), watcher.clone()] {
        let res = open(&who, game.clone()).await;
        assert_eq!(res.status(), StatusCode::OK);
        held.push(res);
    }
    // Every spectator's place is taken: the next watcher, signed in or not, waits.
    for who in [As::default(), watcher] {
        let refused = open(&who, game.clone()).await;
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    // The players are not concerned.
    for who in [&a, &b] {
        let res = open(who, game.clone()).await;
        assert_eq!(res.status(), StatusCode::OK);
        held.push(res);
        let res = open(who, "/api/stream/event".into()).await;
        assert_eq!(res.status(), StatusCode::OK);
        held.push(res);
    }
}

/// Seeks, challenges and pool joins are counted per address too, for all its players
/// together (the audit saw 1,050 seeks opened in 0.7 s by many guests): 21 players of one
/// address, three seeks each, get 60 through in a minute and then a 429.
#[tokio::test]
async fn seeks_are_limited_per_address_too() {
    let state = AppState::in_memory();
    let online = state.online.clone();
    let app = router(state);
    let mut codes = Vec::new();
    let mut waits = Vec::new();
    for i in 0..21 {
        let name = format!("seeker{i}");
        online.accounts().add_bot(&name, 0).await.unwrap();
        let who = As {
            cookie: None,
            token: Some(online.accounts().token_for(&name, 0).await.unwrap()),
        };
        for _ in 0..3 {
            let body = json!({"minutes": 5, "increment": 3});
            let r = post(&app, "/api/lobby/seeks", &who, body).await;
            codes.push(r.status);
            waits.push(r.retry_after);
        }
    }
    assert!(
        codes[..60].iter().all(|c| *c == StatusCode::OK),
        "{codes:?}"
    );
    assert_eq!(codes[60..], [StatusCode::TOO_MANY_REQUESTS; 3]);
    // Sixty a minute per address: the next in at most a second, and each 429 says so.
    assert!(waits[..60].iter().all(Option::is_none), "{waits:?}");
    assert!(waits[60..].iter().all(|w| *w == Some(1)), "{waits:?}");
}

/// Every 429 says when to come back (`Retry-After`): a limit that knows its wait says it (a
/// burst of game actions: one more every 50 ms), one that cannot know (all three seeks of a player
/// open: one must go first) says a minute, as lichess asks its clients to wait.
#[tokio::test]
async fn every_refusal_for_too_many_says_when_to_come_back() {
    let app = router(AppState::in_memory());
    let (a, b) = (sign_up(&app, "hasty").await, sign_up(&app, "calm").await);
    for _ in 0..3 {
        let body = json!({"minutes": 5, "increment": 3});
        let r = post(&app, "/api/lobby/seeks", &a, body).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let r = post(
        &app,
        "/api/lobby/seeks",
        &a,
        json!({"minutes": 5, "increment": 3}),
    )
    .await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.body);
    assert_eq!(r.retry_after, Some(60), "{}", r.body);
    // Game actions: 20 a second, bursts of 40; the 41st at once waits about a second.
    let r = post(
        &app,
        "/api/challenge/open",
        &b,
        json!({"clock": {"limit": 300, "increment": 3}}),
    )
    .await;
    let id = r.body["id"].as_str().unwrap().to_string();
    let mut refused = None;
    for _ in 0..45 {
        let r = post(
            &app,
            &format!("/api/online/games/{id}/draw/yes"),
            &b,
            json!({}),
        )
        .await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(r);
            break;
        }
    }
    let r = refused.expect("the burst of 40 actions runs out");
    assert_eq!(r.body["code"], "rate-limited");
    assert_eq!(r.retry_after, Some(1), "{}", r.body);
}

#[tokio::test]
async fn two_bots_play_through_the_board_api() {
    let app = router(AppState::in_memory());
    let (a_web, b_web) = (sign_up(&app, "alpha").await, sign_up(&app, "beta").await);
    let (a, b) = (token(&app, &a_web).await, token(&app, &b_web).await);
    // A bad token is refused outright.
    let bad = As {
        cookie: None,
        token: Some("0123".into()),
    };
    assert_eq!(
        get(&app, "/api/account", &bad).await.status,
        StatusCode::UNAUTHORIZED
    );

    let open = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 300, "increment": 3}, "rated": true}),
    )
    .await;
    assert_eq!(open.status, StatusCode::OK, "{}", open.body);
    let id = open.body["id"].as_str().unwrap().to_string();
    assert!(open.body["urlWhite"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/online/{id}?color=white")));

    // Beta's event stream hears the start.
    let mut events = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", &b, None))
        .await
        .unwrap()
        .into_body();
    let r = post(
        &app,
        &format!("/api/challenge/{id}/accept"),
        &a,
        json!({"color": "white"}),
    )
    .await;
    assert_eq!(r.body["color"], "white");
    let r = post(&app, &format!("/api/challenge/{id}/accept"), &b, json!({})).await;
    assert_eq!(r.body["color"], "black");
    let start = lines(&mut events, 1).await;
    assert_eq!(start[0]["type"], "gameStart");
    assert_eq!(start[0]["game"]["id"], id.as_str());

    let mut stream = app
        .clone()
        .oneshot(request(
            Method::GET,
            &format!("/api/board/game/stream/{id}"),
            &b,
            None,
        ))
        .await
        .unwrap()
        .into_body();
    let full = lines(&mut stream, 1).await;
    assert_eq!(full[0]["type"], "gameFull");
    assert_eq!(full[0]["white"]["name"], "alpha");
    assert_eq!(full[0]["black"]["name"], "beta");
    assert_eq!(full[0]["state"]["wtime"], 300_000);
    assert_eq!(full[0]["rated"], true);

    // Moves in landing notation, and one in the captured-square notation.
    let mv = |who: &As, m: &str| {
        let app = app.clone();
        let who = who.clone();
        let uri = format!("/api/board/game/{id}/move/{m}");
        async move { post(&app, &uri, &who, json!({})).await }
    };
    assert_eq!(mv(&a, "c3-c4").await.status, StatusCode::OK);
    let r = mv(&a, "d3-d4").await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::CONFLICT, Some("not-your-turn"))
    );
    assert_eq!(mv(&b, "c6-c5").await.status, StatusCode::OK);
    let r = mv(&a, "zz").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let states = lines(&mut stream, 2).await;
    assert_eq!(states[0]["moves"], "c3-c4");
    assert_eq!(states[1]["moves"], "c3-c4 c6-c5");
    assert_eq!(states[1]["status"], "started");
    // White must capture: c4 takes c5 and then c7, landing on c8 (the most pieces).
    let r = mv(&a, "a3-a4").await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(r.body["legal"], json!(["c4xc6xc8=K"]));
    assert_eq!(mv(&a, "c4xc6xc8").await.status, StatusCode::OK);
    let r = post(
        &app,
        &format!("/api/board/game/{id}/draw/maybe"),
        &b,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        post(&app, &format!("/api/board/game/{id}/resign"), &b, json!({}))
            .await
            .status,
        StatusCode::OK
    );
    let last = lines(&mut stream, 2).await;
    let end = last.last().unwrap();
    // lichess's status; damasi's exact reason in `outcome`.
    assert_eq!(end["status"], "resign");
    assert_eq!(end["outcome"], "white:resignation");
    assert_eq!(end["winner"], "white");
    assert!(end["ratingDiff"]["white"].as_i64().unwrap() > 0);
    // The game is over: nothing more is accepted.
    let r = mv(&b, "d7-d6").await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::CONFLICT, Some("game-over"))
    );
    // Both profiles list it with the new ratings.
    let p = get(&app, "/api/user/alpha", &As::default()).await;
    assert_eq!(p.body["games"][0]["id"], id.as_str());
    assert!(p.body["perfs"]["blitz"]["rating"].as_i64().unwrap() > 1500);
}

#[tokio::test]
async fn seeks_and_pools_start_games_for_both() {
    let app = router(AppState::in_memory());
    let (a, b) = (sign_up(&app, "seeker").await, sign_up(&app, "taker").await);
    let r = post(
        &app,
        "/api/lobby/seeks",
        &a,
        json!({"minutes": 5, "increment": 3, "color": "black"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let seek = r.body["id"].as_u64().unwrap();
    let lobby = get(&app, "/api/lobby", &As::default()).await;
    assert_eq!(lobby.body["seeks"][0]["username"], "seeker");
    // Nobody takes their own seek.
    let own = post(
        &app,
        &format!("/api/lobby/seeks/{seek}/accept"),
        &a,
        json!({}),
    )
    .await;
    assert_eq!(own.body["code"], "own-seek");
    let took = post(
        &app,
        &format!("/api/lobby/seeks/{seek}/accept"),
        &b,
        json!({}),
    )
    .await;
    let game = took.body["game"].as_str().unwrap().to_string();
    let g = get(&app, &format!("/api/online/games/{game}"), &b).await;
    assert_eq!(
        g.body["black"]["name"], "seeker",
        "the seeker asked for black"
    );
    assert_eq!(g.body["you"], "white");
    assert_eq!(
        get(&app, "/api/lobby", &As::default()).await.body["seeks"],
        json!([])
    );
    // Pools: the first waits, the second is paired at once.
    let r = post(&app, "/api/pool/3+2", &a, json!({})).await;
    assert_eq!(r.body["waiting"], true);
    let r = post(&app, "/api/pool/3+2", &b, json!({})).await;
    let pooled = r.body["game"].as_str().unwrap();
    let g = get(&app, &format!("/api/online/games/{pooled}"), &a).await;
    assert_eq!(g.body["clock"]["initial"], 180_000);
    assert_eq!(g.body["rated"], true);
    let r = post(&app, "/api/pool/4+1", &a, json!({})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // Without a session: 401 with a hint.
    let r = post(
        &app,
        "/api/lobby/seeks",
        &As::default(),
        json!({"minutes": 5}),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = post(
        &app,
        "/api/online/games",
        &a,
        json!({"minutes": 0, "increment": 0}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // Only the controls players choose: no rated game of a few milliseconds.
    for control in [
        json!({"minutes": 0.0001, "rated": true}),
        json!({"minutes": 2.5}),
        json!({"minutes": 5, "increment": 0.5}),
        json!({"clock": {"limit": 7, "increment": 0}}),
    ] {
        let r = post(&app, "/api/online/games", &a, control.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{control}");
    }
    for control in [
        json!({"minutes": 0.25, "increment": 1}),
        json!({"clock": {"limit": 90, "increment": 0}}),
    ] {
        let r = post(&app, "/api/online/games", &a, control.clone()).await;
        assert_eq!(r.status, StatusCode::OK, "{control}: {}", r.body);
    }
    let r = get(&app, "/api/online/games/nosuchgame", &a).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn player_tokens_work_when_the_server_needs_its_own_token() {
    // Opened to a network with a server token: the saved-games API needs it, online play
    // authenticates each player instead.
    let app =
        router(AppState::in_memory().with_security(Security::local().with_token("server-secret")));
    let a = sign_up(&app, "netplayer").await;
    let r = post(
        &app,
        "/api/online/games",
        &a,
        json!({"minutes": 10, "increment": 5}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = post(&app, "/api/games", &a, json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(r.body["code"], "token-required");
}

/// The players' chat is theirs: a spectator's stream and `gameFull` carry none of it.
#[tokio::test]
async fn spectators_do_not_see_the_players_chat() {
    let app = router(AppState::in_memory());
    let (a_web, b_web) = (sign_up(&app, "alpha").await, sign_up(&app, "beta").await);
    let (a, b) = (token(&app, &a_web).await, token(&app, &b_web).await);
    let open = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 300, "increment": 3}}),
    )
    .await;
    let id = open.body["id"].as_str().unwrap().to_string();
    post(
        &app,
        &format!("/api/challenge/{id}/accept"),
        &a,
        json!({"color": "white"}),
    )
    .await;
    post(&app, &format!("/api/challenge/{id}/accept"), &b, json!({})).await;
    let stream = |who: &As| {
        let req = request(
            Method::GET,
            &format!("/api/board/game/stream/{id}"),
            who,
            None,
        );
        let app = app.clone();
        async move { app.oneshot(req).await.unwrap().into_body() }
    };
    let (mut player, mut spectator) = (stream(&b).await, stream(&As::default()).await);
    lines(&mut player, 1).await;
    lines(&mut spectator, 1).await;
    let said = post(
        &app,
        &format!("/api/board/game/{id}/chat"),
        &a,
        json!({"room": "player", "text": "good luck"}),
    )
    .await;
    assert_eq!(said.status, StatusCode::OK, "{}", said.body);
    let moved = post(
        &app,
        &format!("/api/board/game/{id}/move/c3-c4"),
        &a,
        json!({}),
    )
    .await;
    assert_eq!(moved.status, StatusCode::OK);
    // The player hears the line, then the move; the spectator only the move.
    let heard = lines(&mut player, 2).await;
    assert_eq!(heard[0]["type"], "chatLine");
    assert_eq!(heard[0]["text"], "good luck");
    assert_eq!(heard[1]["moves"], "c3-c4");
    let seen = lines(&mut spectator, 1).await;
    assert_eq!(seen[0]["type"], "gameState");
    assert_eq!(seen[0]["moves"], "c3-c4");
    // A new spectator's gameFull has an empty chat; the player's has the line.
    let uri = format!("/api/online/games/{id}");
    assert_eq!(
        get(&app, &uri, &As::default()).await.body["chat"],
        json!([])
    );
    assert_eq!(
        get(&app, &uri, &b).await.body["chat"][0]["text"],
        "good luck"
    );
}

/// A direct challenge (`POST /api/challenge/{username}`) is the challenged player's to accept
/// or decline: nobody else can take the seat or refuse it for them.
#[tokio::test]
async fn a_direct_challenge_is_only_the_challenged_players() {
    let app = router(AppState::in_memory());
    let mut who = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        let web = sign_up(&app, name).await;
        who.push(token(&app, &web).await);
    }
    let (a, b, c) = (&who[0], &who[1], &who[2]);
    let mut events = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", b, None))
        .await
        .unwrap()
        .into_body();
    let r = post(
        &app,
        "/api/challenge/BETA",
        a,
        json!({"clock.limit": 180, "clock.increment": 2, "rated": null, "color": "black"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["destUser"]["name"], "beta");
    assert_eq!(r.body["finalColor"], "black");
    let id = r.body["id"].as_str().unwrap().to_string();
    let heard = lines(&mut events, 1).await;
    assert_eq!(heard[0]["type"], "challenge");
    assert_eq!(heard[0]["challenge"]["challenger"]["name"], "alpha");
    // A third player can neither accept nor decline it.
    let r = post(&app, &format!("/api/challenge/{id}/accept"), c, json!({})).await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("challenge-not-yours"))
    );
    let r = post(&app, &format!("/api/challenge/{id}/decline"), c, json!({})).await;
    assert_eq!(r.body["code"], "no-such-challenge");
    // Beta accepts: the game starts, Beta with White.
    let r = post(&app, &format!("/api/challenge/{id}/accept"), b, json!({})).await;
    assert_eq!(
        (r.status, r.body["color"].as_str()),
        (StatusCode::OK, Some("white"))
    );
    let start = lines(&mut events, 1).await;
    assert_eq!(start[0]["type"], "gameStart");
    assert_eq!(start[0]["game"]["gameId"], id.as_str());
    assert_eq!(start[0]["game"]["opponent"]["username"], "alpha");
    assert_eq!(start[0]["game"]["isMyTurn"], true);
    // Challenging an unknown name or oneself is a clear error.
    let r = post(
        &app,
        "/api/challenge/nobody",
        a,
        json!({"clock.limit": 180}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.body);
    let r = post(&app, "/api/challenge/alpha", a, json!({"clock.limit": 180})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // A challenge sent while Gamma has no stream open is announced when one opens (a bot that
    // starts after being challenged does not miss it), and only once.
    let r = post(&app, "/api/challenge/gamma", a, json!({"clock.limit": 300})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let waiting = r.body["id"].as_str().unwrap().to_string();
    let mut later = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", c, None))
        .await
        .unwrap()
        .into_body();
    let heard = lines(&mut later, 1).await;
    assert_eq!(heard[0]["type"], "challenge", "{}", heard[0]);
    assert_eq!(heard[0]["challenge"]["id"], waiting.as_str());
    assert_eq!(heard[0]["challenge"]["challenger"]["name"], "alpha");
}

/// A request with more headers; the answer's status, whole `Set-Cookie` and JSON body.
async fn send_with(
    app: &Router,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (StatusCode, Option<String>, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let cookie = res
        .headers()
        .get(header::SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (
        status,
        cookie,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn sessions_last_30_days_with_the_host_prefix_over_https() {
    let state = AppState::in_memory();
    let app = router(state.clone());
    let creds = json!({"name": "ali", "password": "a good password"});
    // Over plain HTTP (localhost): the plain name, no Secure, 30 days.
    let (status, cookie, _) = send_with(
        &app,
        Method::POST,
        "/api/account/signup",
        &[],
        Some(creds.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let cookie = cookie.unwrap();
    assert!(cookie.starts_with("damasi_session="), "{cookie}");
    assert!(cookie.contains("Max-Age=2592000"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");
    // Over HTTPS behind a proxy: `__Host-`, Secure, Path=/ and no Domain.
    let https = [("x-forwarded-proto", "https")];
    let (status, cookie, _) = send_with(
        &app,
        Method::POST,
        "/api/account/login",
        &https,
        Some(creds.clone()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let cookie = cookie.unwrap();
    assert!(cookie.starts_with("__Host-damasi_session="), "{cookie}");
    for part in ["Secure", "Path=/", "HttpOnly", "Max-Age=2592000"] {
        assert!(cookie.split("; ").any(|p| p == part), "{part}: {cookie}");
    }
    assert!(!cookie.contains("Domain"), "{cookie}");
    // The `__Host-` cookie is read back, and taken before a plain one.
    let pair = cookie.split(';').next().unwrap().to_string();
    let (status, _, me) = send_with(
        &app,
        Method::GET,
        "/api/account",
        &[("cookie", &pair)],
        None,
    )
    .await;
    assert_eq!((status, me["name"].as_str()), (StatusCode::OK, Some("ali")));
    let both = format!("damasi_session=stale; {pair}");
    let (status, _, _) = send_with(
        &app,
        Method::GET,
        "/api/account",
        &[("cookie", &both)],
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Log-out over HTTPS clears the `__Host-` cookie.
    let (_, cleared, _) = send_with(
        &app,
        Method::POST,
        "/api/account/logout",
        &[("cookie", &pair), ("x-forwarded-proto", "https")],
        Some(json!({})),
    )
    .await;
    let cleared = cleared.unwrap();
    assert!(
        cleared.starts_with("__Host-damasi_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    // The server refuses a session older than 30 days, whatever the browser kept.
    let user = state
        .online
        .db()
        .user_by_name("ali")
        .await
        .unwrap()
        .unwrap();
    let day = 24 * 60 * 60 * 1000;
    let now = damasi_online::now_ms();
    for (secret, age) in [
        ("0123456789abcdef0123456789abcdef", 31),
        ("fedcba9876543210fedcba9876543210", 29),
    ] {
        state
            .online
            .db()
            .add_secret(
                user.id,
                damasi_online::db::SecretKind::Session,
                damasi_online::accounts::secret_hash(secret),
                now - age * day,
            )
            .await
            .unwrap();
        let c = format!("damasi_session={secret}");
        let (status, _, _) =
            send_with(&app, Method::GET, "/api/account", &[("cookie", &c)], None).await;
        let expected = if age > 30 {
            StatusCode::UNAUTHORIZED
        } else {
            StatusCode::OK
        };
        assert_eq!(status, expected, "a session {age} days old");
    }
}

async fn log_in(app: &Router, name: &str, password: &str) -> Reply {
    post(
        app,
        "/api/account/login",
        &As::default(),
        json!({"name": name, "password": password}),
    )
    .await
}

fn session_of(r: Reply) -> As {
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    As {
        cookie: r.cookie,
        token: None,
    }
}

#[tokio::test]
async fn sessions_and_tokens_are_listed_and_revoked() {
    let app = router(AppState::in_memory());
    let first = sign_up(&app, "ali").await;
    let second = session_of(log_in(&app, "ali", "a good password").await);
    let bot = token(&app, &first).await;
    let bob = sign_up(&app, "bob").await;
    // Listed newest first, each with a short handle, never the secret.
    let list = get(&app, "/api/account/sessions", &first).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    let sessions = list.body["sessions"].as_array().unwrap().clone();
    assert_eq!(sessions.len(), 3, "{}", list.body);
    let kinds: Vec<&str> = sessions
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "session").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "token").count(), 1);
    let current: Vec<&Value> = sessions.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    for s in &sessions {
        let id = s["id"].as_str().unwrap();
        assert!(
            id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{s}"
        );
        assert!(s["createdAt"].as_i64().unwrap() > 0);
    }
    let text = list.body.to_string();
    let secret = |a: &As| {
        a.cookie
            .as_deref()
            .map(|c| c.split_once('=').unwrap().1.to_string())
            .or(a.token.clone())
            .unwrap()
    };
    for who in [&first, &second, &bot] {
        assert!(!text.contains(&secret(who)), "a secret is listed: {text}");
    }
    // The one listed as current is this request's: seen from the token, the token.
    let seen = get(&app, "/api/account/sessions", &bot).await.body;
    let mine = seen["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["current"] == true)
        .unwrap()
        .clone();
    assert_eq!(mine["kind"], "token");
    let handle_of = |kind: &str, current: bool, from: &Value| {
        from["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["kind"] == kind && s["current"] == current)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Revoking the second session from the first: the second is refused, the first goes on.
    let other = handle_of("session", false, &list.body);
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/account/sessions/{other}"),
        &first,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["revoked"], 1);
    assert_eq!(
        get(&app, "/api/account", &second).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get(&app, "/api/account", &first).await.status,
        StatusCode::OK
    );
    // Not a handle, a handle of nobody's, another account's: refused, nothing revoked.
    let bobs = get(&app, "/api/account/sessions", &bob).await.body;
    let bobs = bobs["sessions"][0]["id"].as_str().unwrap().to_string();
    for (handle, status) in [
        ("not-hex!", StatusCode::BAD_REQUEST),
        ("0123", StatusCode::BAD_REQUEST),
        (&"a".repeat(5000), StatusCode::BAD_REQUEST),
        (bobs.as_str(), StatusCode::NOT_FOUND),
    ] {
        let r = send(
            &app,
            Method::DELETE,
            &format!("/api/account/sessions/{handle}"),
            &first,
            None,
        )
        .await;
        assert_eq!(r.status, status, "{handle}: {}", r.body);
    }
    assert_eq!(get(&app, "/api/account", &bob).await.status, StatusCode::OK);
    assert_eq!(get(&app, "/api/account", &bot).await.status, StatusCode::OK);

    // A password change checks the old password and the new one as at sign-up ...
    let change = |old: &str, new: &str| json!({"old": old, "new": new});
    let r = post(
        &app,
        "/api/account/password",
        &first,
        change("not the password", "a better password"),
    )
    .await;
    assert_eq!(
        (r.status, r.body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("wrong-password"))
    );
    for weak in ["short", "Qwertyui", "12345678"] {
        let r = post(
            &app,
            "/api/account/password",
            &first,
            change("a good password", weak),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{weak}: {}", r.body);
    }
    // ... and ends every other session and token, keeping this one.
    let third = session_of(log_in(&app, "ali", "a good password").await);
    let r = post(
        &app,
        "/api/account/password",
        &first,
        change("a good password", "a better password"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["revoked"], 2);
    assert_eq!(
        get(&app, "/api/account", &first).await.status,
        StatusCode::OK
    );
    for gone in [&third, &bot] {
        assert_eq!(
            get(&app, "/api/account", gone).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        log_in(&app, "ali", "a good password").await.status,
        StatusCode::UNAUTHORIZED
    );
    let fourth = session_of(log_in(&app, "ali", "a better password").await);
    // Guests have no password to change.
    let guest = post(&app, "/api/account/guest", &As::default(), json!({})).await;
    let guest = session_of(guest);
    let r = post(
        &app,
        "/api/account/password",
        &guest,
        change("anything at all", "a better password"),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.body);

    // Log-out everywhere: every session and token, this one too, and the cookie is cleared.
    let _bot = token(&app, &first).await;
    let r = post(&app, "/api/account/logout-everywhere", &fourth, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["revoked"], 3);
    assert_eq!(r.cookie.as_deref(), Some("damasi_session="));
    for gone in [&first, &fourth, &_bot] {
        assert_eq!(
            get(&app, "/api/account", gone).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(get(&app, "/api/account", &bob).await.status, StatusCode::OK);
    // Nobody: 401.
    assert_eq!(
        get(&app, "/api/account/sessions", &As::default())
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_program_revokes_its_own_token_as_on_lichess() {
    let app = router(AppState::in_memory());
    let ali = sign_up(&app, "ali").await;
    let bot = token(&app, &ali).await;
    let other = token(&app, &ali).await;
    // Only with a token: a session is told how.
    let r = send(&app, Method::DELETE, "/api/token", &ali, None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    let r = send(&app, Method::DELETE, "/api/token", &bot, None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(
        get(&app, "/api/account", &bot).await.status,
        StatusCode::UNAUTHORIZED
    );
    // The account's other token and its session are untouched.
    assert_eq!(
        get(&app, "/api/account", &other).await.status,
        StatusCode::OK
    );
    assert_eq!(get(&app, "/api/account", &ali).await.status, StatusCode::OK);
    // Revoked already: 401.
    let r = send(&app, Method::DELETE, "/api/token", &bot, None).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // A server open to the network (its own token) lets a player's token revoke itself.
    let guarded =
        router(AppState::in_memory().with_security(Security::local().with_token("server-secret")));
    let me = sign_up(&guarded, "veli").await;
    let t = token(&guarded, &me).await;
    let r = send(&guarded, Method::DELETE, "/api/token", &t, None).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
}

#[tokio::test]
async fn a_revoked_tokens_event_stream_ends() {
    let app = router(AppState::in_memory());
    let ali = sign_up(&app, "ali").await;
    let bot = token(&app, &ali).await;
    let other = token(&app, &ali).await;
    let open = |who: &As| {
        app.clone()
            .oneshot(request(Method::GET, "/api/stream/event", who, None))
    };
    let res = open(&bot).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let mut revoked_body = res.into_body();
    let res = open(&other).await.unwrap();
    let mut kept_body = res.into_body();
    let list = get(&app, "/api/account/sessions", &bot).await.body;
    let handle = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["current"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = send(
        &app,
        Method::DELETE,
        &format!("/api/account/sessions/{handle}"),
        &ali,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    // The revoked token's stream ends (no more frames), at once rather than after a minute.
    let ended = tokio::time::timeout(Duration::from_secs(3), async {
        while let Some(frame) = revoked_body.frame().await {
            frame.unwrap();
        }
    })
    .await;
    assert!(ended.is_ok(), "the revoked token's stream went on");
    // The other token's goes on (a keep-alive line within 10 s).
    let frame = tokio::time::timeout(Duration::from_secs(10), kept_body.frame())
        .await
        .expect("the other stream answers");
    assert!(frame.is_some(), "the other stream ended");
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The next message on `ws` of one of `types` (others skipped); `None` once it is closed.
async fn next_of(ws: &mut Ws, types: &[&str]) -> Option<Value> {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("the socket answers within 10 s");
        match msg {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
            Some(Ok(Message::Text(text))) => {
                let v: Value = serde_json::from_str(&text).unwrap();
                if types.contains(&v["type"].as_str().unwrap_or("")) {
                    return Some(v);
                }
            }
            Some(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_stops_acting_once_its_session_is_revoked() {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;
    let state = AppState::in_memory();
    let app = router(state.clone());
    let (tx, rx) = tokio::sync::oneshot::channel();
    let served = state.clone();
    tokio::spawn(async move {
        let _ = damasi_web::serve_with(
            served,
            "127.0.0.1:0".parse().unwrap(),
            damasi_web::ServeOptions::default(),
            move |addr| {
                let _ = tx.send(addr);
            },
        )
        .await;
    });
    let addr: std::net::SocketAddr = rx.await.unwrap();
    let ali = sign_up(&app, "ali").await;
    let veli = sign_up(&app, "veli").await;
    let game = post(
        &app,
        "/api/online/games",
        &ali,
        json!({"minutes": 5, "increment": 3, "color": "white"}),
    )
    .await;
    assert_eq!(game.status, StatusCode::OK, "{}", game.body);
    let id = game.body["id"].as_str().unwrap().to_string();
    let joined = post(
        &app,
        &format!("/api/online/games/{id}/join"),
        &veli,
        json!({}),
    )
    .await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.body);
    let open = |who: &As| {
        let mut req = format!("ws://{addr}/api/online/games/{id}/socket")
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("cookie", who.cookie.as_deref().unwrap().parse().unwrap());
        async move {
            tokio_tungstenite::connect_async(req)
                .await
                .expect("socket")
                .0
        }
    };
    let mut ws = open(&ali).await;
    let mut veli_ws = open(&veli).await;
    assert!(next_of(&mut ws, &["gameFull"]).await.is_some());
    assert!(next_of(&mut veli_ws, &["gameFull"]).await.is_some());
    // Before: a chat line goes through.
    let say = |text: &str| Message::Text(json!({"t": "chat", "text": text}).to_string().into());
    ws.send(say("hello")).await.unwrap();
    let line = next_of(&mut veli_ws, &["chatLine"]).await.unwrap();
    assert_eq!(line["text"], "hello");
    let echo = next_of(&mut ws, &["chatLine"]).await.unwrap();
    assert_eq!(echo["text"], "hello");
    // Ali logs out (from another tab): the socket says so and closes ...
    let r = post(&app, "/api/account/logout", &ali, json!({})).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        get(&app, "/api/account", &ali).await.status,
        StatusCode::UNAUTHORIZED
    );
    // ... and a move and a chat line sent after it do nothing.
    let _ = ws
        .send(Message::Text(
            json!({"t": "move", "move": "c3-c4"}).to_string().into(),
        ))
        .await;
    let _ = ws.send(say("still here")).await;
    let error = next_of(&mut ws, &["error", "gameState", "chatLine"]).await;
    let error = error.expect("an error before the close");
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["code"], "unauthorized", "{error}");
    assert!(next_of(&mut ws, &["gameState", "chatLine"]).await.is_none());
    let shown = get(&app, &format!("/api/online/games/{id}"), &veli)
        .await
        .body;
    assert_eq!(shown["state"]["moves"], "", "{shown}");
    // Veli's socket still acts, and heard nothing of Ali's late messages.
    veli_ws.send(say("gone?")).await.unwrap();
    let line = next_of(&mut veli_ws, &["chatLine"]).await.unwrap();
    assert_eq!(line["text"], "gone?");
    // A socket opened with a token ends when the token is revoked by a password change.
    let bot = token(&app, &veli).await;
    let mut req = format!("ws://{addr}/api/online/games/{id}/socket")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "authorization",
        format!("Bearer {}", bot.token.as_deref().unwrap())
            .parse()
            .unwrap(),
    );
    let mut bot_ws = tokio_tungstenite::connect_async(req)
        .await
        .expect("socket")
        .0;
    assert!(next_of(&mut bot_ws, &["gameFull"]).await.is_some());
    let r = post(
        &app,
        "/api/account/password",
        &veli,
        json!({"old": "a good password", "new": "a better password"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let error = next_of(&mut bot_ws, &["error"]).await.expect("an error");
    assert_eq!(error["code"], "unauthorized");
    assert!(next_of(&mut bot_ws, &["gameState"]).await.is_none());
    // The session that changed the password keeps its socket.
    veli_ws.send(say("still me")).await.unwrap();
    let line = next_of(&mut veli_ws, &["chatLine"]).await.unwrap();
    assert_eq!(line["text"], "still me");
}

/// Seeks and pool places live as long as their owner's event stream (#32 item 8): a player
/// who left is never paired, and one who never listened is withdrawn after the grace.
#[tokio::test]
async fn seeks_and_pool_places_go_with_their_owners_stream() {
    use damasi_online::db::OnlineDb;
    use damasi_online::{Online, OnlineConfig};
    let config = OnlineConfig {
        lobby_grace: Duration::from_millis(300),
        lobby_reconnect: Duration::from_millis(200),
        ..OnlineConfig::default()
    };
    let state = AppState::in_memory().with_online(Online::new(OnlineDb::in_memory(), config));
    let app = router(state);
    let (a, b, c) = (
        sign_up(&app, "leaver").await,
        sign_up(&app, "stayer").await,
        sign_up(&app, "silent").await,
    );
    let stream = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", &a, None))
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let r = post(&app, "/api/pool/3+2", &a, json!({})).await;
    assert_eq!(r.body["waiting"], true, "{}", r.body);
    let r = post(
        &app,
        "/api/lobby/seeks",
        &a,
        json!({"minutes": 5, "increment": 3}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let waiting_in = |lobby: &Value, pool: &str| {
        lobby["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == pool)
            .map(|p| p["waiting"].as_u64().unwrap())
    };
    // Past the grace, still there: the owner listens.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 1, "{lobby}");
    assert_eq!(waiting_in(&lobby, "3+2"), Some(1), "{lobby}");
    // The owner leaves (the stream closes): a reload's moment later both are gone.
    drop(stream);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(
        lobby["seeks"].as_array().unwrap().len(),
        1,
        "not at once: {lobby}"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(lobby["seeks"], json!([]), "{lobby}");
    assert_eq!(waiting_in(&lobby, "3+2"), Some(0), "{lobby}");
    // The next one in the pool waits instead of being paired with the one gone.
    let r = post(&app, "/api/pool/3+2", &b, json!({})).await;
    assert_eq!(r.body["waiting"], true, "{}", r.body);
    // A seek made with no stream open is listed, then withdrawn after the grace.
    let r = post(
        &app,
        "/api/lobby/seeks",
        &c,
        json!({"minutes": 10, "increment": 5}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 1, "{lobby}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(lobby["seeks"], json!([]), "{lobby}");
}

/// A finished online game downloads as a PDN file (#33 item 1; lichess's
/// `/game/export/{id}`) that the rules library reads back: the players, the result, the moves.
#[tokio::test]
async fn a_finished_online_game_downloads_as_pdn() {
    let app = router(AppState::in_memory());
    let (a, b) = (
        sign_up(&app, "pdnwhite").await,
        sign_up(&app, "pdnblack").await,
    );
    let g = post(
        &app,
        "/api/online/games",
        &a,
        json!({"minutes": 5, "increment": 3, "color": "white"}),
    )
    .await;
    let id = g.body["id"].as_str().unwrap().to_string();
    let r = post(&app, &format!("/api/online/games/{id}/join"), &b, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    for (who, mv) in [(&a, "c3-c4"), (&b, "f6-f5"), (&a, "d3-d4")] {
        let r = post(
            &app,
            &format!("/api/online/games/{id}/move"),
            who,
            json!({ "move": mv }),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    // While it is played, the state carries the next legal moves (one message per ply).
    let playing = get(&app, &format!("/api/online/games/{id}"), &As::default()).await;
    let legal = playing.body["state"]["legal"].as_array().unwrap().clone();
    let pos = damasi::Position::from_fen(playing.body["state"]["fen"].as_str().unwrap()).unwrap();
    assert_eq!(legal.len(), pos.legal_moves().len(), "{}", playing.body);
    assert!(legal.iter().all(|m| m["landing"].is_string()));
    let r = post(
        &app,
        &format!("/api/online/games/{id}/resign"),
        &b,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let res = app
        .clone()
        .oneshot(request(
            Method::GET,
            &format!("/api/online/games/{id}/pdn"),
            &As::default(),
            None,
        ))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("application/x-pdn"));
    let text =
        String::from_utf8(to_bytes(res.into_body(), 1 << 20).await.unwrap().to_vec()).unwrap();
    let pdn = damasi::pdn::read_game(&text).expect("the library reads it back");
    assert_eq!(pdn.tag("White"), Some("pdnwhite"), "{text}");
    assert_eq!(pdn.tag("Black"), Some("pdnblack"), "{text}");
    assert_eq!(pdn.tag("Result"), Some("1-0"), "{text}");
    assert_eq!(pdn.tag("Event"), Some("damasi casual blitz game"), "{text}");
    assert!(
        pdn.tag("Site").unwrap().ends_with(&format!("/online/{id}")),
        "{text}"
    );
    assert_eq!(pdn.game.ply(), 3, "{text}");
    assert!(text.contains("1. c3-c4 f6-f5 2. d3-d4"), "{text}");
    // The finished game's state carries its positions, to replay it.
    let shown = get(&app, &format!("/api/online/games/{id}"), &As::default()).await;
    let fens = shown.body["state"]["fens"].as_array().unwrap().clone();
    assert_eq!(fens.len(), 4, "{}", shown.body);
    assert_eq!(fens[0], damasi::Position::start().to_fen());
    assert_eq!(fens[3], shown.body["state"]["fen"]);
    let missing = get(&app, "/api/online/games/nosuchgame/pdn", &As::default()).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_link_code_for_telegram_is_made_once_and_opens_nothing() {
    let app = router(AppState::in_memory());
    let ali = sign_up(&app, "ali").await;
    let r = post(&app, "/api/account/link-code", &ali, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let code = r.body["code"].as_str().unwrap().to_string();
    assert_eq!(
        (r.body["name"].clone(), r.body["expiresIn"].clone()),
        (json!("ali"), json!(600))
    );
    // It is not a log-in: as a token it is refused, and it is not listed as a session.
    let as_token = As {
        cookie: None,
        token: Some(code.clone()),
    };
    assert_eq!(
        get(&app, "/api/account", &as_token).await.status,
        StatusCode::UNAUTHORIZED
    );
    let list = get(&app, "/api/account/sessions", &ali).await.body;
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1, "{list}");
    // Guests cannot link, nor can nobody.
    let guest = session_of(post(&app, "/api/account/guest", &As::default(), json!({})).await);
    let refused = post(&app, "/api/account/link-code", &guest, json!({})).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let nobody = post(&app, "/api/account/link-code", &As::default(), json!({})).await;
    assert_eq!(nobody.status, StatusCode::UNAUTHORIZED);
}

/// A correspondence challenge as lichess's API makes one (`days` instead of a clock, here as
/// a form): the game has no clock and its days a move, `GET /api/account/playing` lists it
/// for both with whose move it is, and the days are checked.
#[tokio::test]
async fn a_correspondence_challenge_is_listed_among_the_games_waiting_for_a_move() {
    let app = router(AppState::in_memory());
    let a = token(&app, &sign_up(&app, "corra").await).await;
    let b = token(&app, &sign_up(&app, "corrb").await).await;
    let form = Request::builder()
        .method(Method::POST)
        .uri("/api/challenge/corrb")
        .header(
            header::AUTHORIZATION,
            format!("Bearer {}", a.token.as_ref().unwrap()),
        )
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("days=3&rated=true&color=white"))
        .unwrap();
    let res = app.clone().oneshot(form).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let challenge: Value =
        serde_json::from_slice(&to_bytes(res.into_body(), 1 << 20).await.unwrap()).unwrap();
    assert_eq!(challenge["speed"], "correspondence");
    assert_eq!(
        challenge["timeControl"],
        json!({"type": "correspondence", "daysPerTurn": 3})
    );
    let id = challenge["id"].as_str().unwrap().to_string();
    let r = post(&app, &format!("/api/challenge/{id}/accept"), &b, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // The game: no clock, three days a move, and the turn's time in the clocks.
    let full = get(&app, &format!("/api/online/games/{id}"), &a).await.body;
    assert_eq!(full["clock"], Value::Null);
    assert_eq!(full["daysPerTurn"], 3);
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(full["state"]["daysPerTurn"], 3);
    let three_days = 3 * 24 * 3600 * 1000;
    assert!(full["state"]["wtime"].as_i64().unwrap() > three_days - 60_000);
    assert_eq!(full["state"]["btime"].as_i64(), Some(three_days));
    // The challenger (White) is to move: first in their list, with about three days left.
    let mine = get(&app, "/api/account/playing", &a).await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.body);
    let games = mine.body["nowPlaying"].as_array().unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["gameId"], id.as_str());
    assert_eq!(games[0]["isMyTurn"], true);
    assert_eq!(games[0]["color"], "white");
    assert_eq!(games[0]["speed"], "correspondence");
    assert_eq!(games[0]["daysPerTurn"], 3);
    assert_eq!(games[0]["opponent"]["username"], "corrb");
    let left = games[0]["secondsLeft"].as_i64().unwrap();
    assert!(left <= 3 * 24 * 3600 && left > 3 * 24 * 3600 - 60, "{left}");
    let theirs = get(&app, "/api/account/playing", &b).await.body;
    assert_eq!(theirs["nowPlaying"][0]["isMyTurn"], false);
    // After White's move it is Black's.
    let r = post(
        &app,
        &format!("/api/board/game/{id}/move/c3-c4"),
        &a,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let theirs = get(&app, "/api/account/playing", &b).await.body;
    assert_eq!(theirs["nowPlaying"][0]["isMyTurn"], true);
    assert_eq!(theirs["nowPlaying"][0]["lastMove"], "c3-c4");
    let mine = get(&app, "/api/account/playing", &a).await.body;
    assert_eq!(mine["nowPlaying"][0]["isMyTurn"], false);
    // A seek and an open challenge take days too; the lobby shows them.
    let r = post(&app, "/api/lobby/seeks", &a, json!({"days": 7})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let lobby = get(&app, "/api/lobby", &As::default()).await.body;
    assert_eq!(lobby["seeks"][0]["days"], 7);
    assert_eq!(lobby["seeks"][0]["speed"], "correspondence");
    let r = post(&app, "/api/challenge/open", &a, json!({"days": 14})).await;
    assert_eq!(
        r.body["challenge"]["timeControl"]["daysPerTurn"], 14,
        "{}",
        r.body
    );
    // Days that are not offered, days with a clock, and a bad nb are clear 400s.
    for body in [
        json!({"days": 4}),
        json!({"days": 0}),
        json!({"days": "two"}),
        json!({"days": 2, "clock": {"limit": 300, "increment": 0}}),
    ] {
        let r = post(&app, "/api/challenge/corrb", &a, body.clone()).await;
        assert_eq!(
            (r.status, r.body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("bad-request")),
            "{body}: {}",
            r.body
        );
    }
    let r = get(&app, "/api/account/playing?nb=0", &a).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = get(&app, "/api/account/playing", &As::default()).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

/// A raw request with `headers` and a text `body`: its status and the body as text.
async fn raw(
    app: &Router,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, String) {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

/// lichess's reading endpoints in lichess's shapes: who plays now
/// (`GET /api/users/status`), which tokens open which accounts (`POST /api/token/test`), a
/// game exported in JSON (with `status` lichess's and `outcome` damasi's) or PDN
/// (`GET /game/export/{id}`), and a player's games with lichess's filters
/// (`GET /api/games/user/{name}`).
#[tokio::test]
async fn lichess_reading_endpoints_answer_in_lichess_shapes() {
    let app = router(AppState::in_memory());
    let (a_web, b_web) = (sign_up(&app, "Alpha").await, sign_up(&app, "beta").await);
    let (a, b) = (token(&app, &a_web).await, token(&app, &b_web).await);
    let open = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 300, "increment": 3}, "rated": true}),
    )
    .await;
    let id = open.body["id"].as_str().unwrap().to_string();
    let accept = |who: &As, color: &str| {
        let (app, id, who) = (app.clone(), id.clone(), who.clone());
        let body = json!({"color": color});
        async move { post(&app, &format!("/api/challenge/{id}/accept"), &who, body).await }
    };
    assert_eq!(accept(&a, "white").await.status, StatusCode::OK);
    assert_eq!(accept(&b, "black").await.status, StatusCode::OK);
    for (who, m) in [(&a, "c3-c4"), (&b, "f6-f5")] {
        let r = post(
            &app,
            &format!("/api/board/game/{id}/move/{m}"),
            who,
            json!({}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }

    // Statuses: known names in the order asked, unknown ones left out; both play this game.
    let status = |q: &str| {
        let (app, q) = (app.clone(), q.to_string());
        async move { get(&app, &format!("/api/users/status?{q}"), &As::default()).await }
    };
    let r = status("ids=beta,nobody,alpha&withGameIds=true").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body,
        json!([
            {"id": "beta", "name": "beta", "playing": true, "playingId": id},
            {"id": "alpha", "name": "Alpha", "playing": true, "playingId": id},
        ])
    );
    // Without withGameIds, no game ids.
    let r = status("ids=alpha").await;
    assert_eq!(
        r.body,
        json!([{"id": "alpha", "name": "Alpha", "playing": true}])
    );
    let many = (0..101)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(
        status(&format!("ids={many}")).await.status,
        StatusCode::BAD_REQUEST
    );

    // Tokens, as plain text and without a token of one's own (it changes nothing).
    let (ta, tb) = (a.token.clone().unwrap(), b.token.clone().unwrap());
    let (code, text) = raw(
        &app,
        Method::POST,
        "/api/token/test",
        &[("content-type", "text/plain")],
        &format!("{ta},nonsense, {tb}"),
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{text}");
    let tested: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tested[&ta]["userId"], "alpha");
    assert_eq!(tested[&tb]["userId"], "beta");
    assert!(tested[&ta]["scopes"]
        .as_str()
        .unwrap()
        .split(',')
        .any(|s| s == "board:play"));
    assert_eq!(tested[&ta]["expires"], Value::Null);
    assert_eq!(tested["nonsense"], Value::Null);
    assert_eq!(tested.as_object().unwrap().len(), 3);

    // Black resigns: the export says lichess's `resign` and damasi's reason.
    let r = post(&app, &format!("/api/board/game/{id}/resign"), &b, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        status("ids=alpha").await.body,
        json!([{"id": "alpha", "name": "Alpha"}])
    );
    // Online while an event stream is open.
    let stream = app
        .clone()
        .oneshot(request(Method::GET, "/api/stream/event", &a, None))
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(
        status("ids=alpha").await.body,
        json!([{"id": "alpha", "name": "Alpha", "online": true}])
    );
    drop(stream);
    // Look-ups (statuses and token tests) are counted per address: 60 a minute. This test
    // made 6 so far.
    let mut refused = None;
    for i in 6..70 {
        let r = status("ids=alpha").await;
        if r.status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some((i, r));
            break;
        }
    }
    let (at, r) = refused.expect("the look-ups run out");
    assert_eq!(at, 60, "the 61st look-up is refused");
    assert_eq!(
        (r.body["code"].as_str(), r.retry_after),
        (Some("rate-limited"), Some(1))
    );
    let (code, _) = raw(&app, Method::POST, "/api/token/test", &[], &ta).await;
    assert_eq!(code, StatusCode::TOO_MANY_REQUESTS, "token tests count too");
    let json_accept = [("accept", "application/json")];
    let (code, text) = raw(
        &app,
        Method::GET,
        &format!("/game/export/{id}"),
        &json_accept,
        "",
    )
    .await;
    assert_eq!(code, StatusCode::OK, "{text}");
    let game: Value = serde_json::from_str(&text).unwrap();
    let created = game["createdAt"].as_i64().unwrap();
    assert!(game["lastMoveAt"].as_i64().unwrap() >= created, "{game}");
    let mut shape = game.clone();
    for key in ["createdAt", "lastMoveAt"] {
        shape.as_object_mut().unwrap().remove(key);
    }
    let diff = |side: &str| game["players"][side]["ratingDiff"].clone();
    assert!(diff("white").as_i64().unwrap() > 0 && diff("black").as_i64().unwrap() < 0);
    assert_eq!(
        shape,
        json!({
            "id": id, "rated": true, "variant": "standard", "speed": "blitz", "perf": "blitz",
            "status": "resign", "source": "lobby", "winner": "white",
            "outcome": "white:resignation", "moves": "c3-c4 f6-f5",
            "players": {
                "white": {"user": {"name": "Alpha", "id": "alpha"}, "ratingDiff": diff("white")},
                "black": {"user": {"name": "beta", "id": "beta"}, "ratingDiff": diff("black")},
            },
            "clock": {"initial": 300, "increment": 3, "totalTime": 420},
        })
    );
    // Without Accept: the PDN file, whose Termination tag says the end.
    let (code, pdn) = raw(&app, Method::GET, &format!("/game/export/{id}"), &[], "").await;
    assert_eq!(code, StatusCode::OK);
    assert!(pdn.contains("[Result \"1-0\"]"), "{pdn}");
    assert!(pdn.contains("[Termination \"resignation\"]"), "{pdn}");
    assert!(pdn.contains("[White \"Alpha\"]"), "{pdn}");
    let (code, _) = raw(&app, Method::GET, "/game/export/nosuchgm", &json_accept, "").await;
    assert_eq!(code, StatusCode::NOT_FOUND);

    // A second game, casual and 1+0 (bullet), aborted: the player's games, newest first.
    let open = post(
        &app,
        "/api/challenge/open",
        &a,
        json!({"clock": {"limit": 60, "increment": 0}, "rated": false}),
    )
    .await;
    let second = open.body["id"].as_str().unwrap().to_string();
    for who in [&a, &b] {
        let r = post(
            &app,
            &format!("/api/challenge/{second}/accept"),
            who,
            json!({}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    }
    let r = post(
        &app,
        &format!("/api/board/game/{second}/abort"),
        &a,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // A challenge withdrawn before anyone took it was no game: it is not listed.
    let c = post(
        &app,
        "/api/challenge/beta",
        &a,
        json!({"clock": {"limit": 60, "increment": 0}}),
    )
    .await;
    let withdrawn = c.body["id"].as_str().unwrap().to_string();
    let r = post(
        &app,
        &format!("/api/challenge/{withdrawn}/cancel"),
        &a,
        json!({}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let ndjson = [("accept", "application/x-ndjson")];
    let games = |q: String| {
        let app = app.clone();
        async move {
            let (code, text) = raw(
                &app,
                Method::GET,
                &format!("/api/games/user/alpha?{q}"),
                &ndjson,
                "",
            )
            .await;
            assert_eq!(code, StatusCode::OK, "{text}");
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        }
    };
    let ids = |list: Vec<Value>| {
        list.iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let all = games(String::new()).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[1], game, "the list writes each game as the export does");
    assert_eq!(
        (
            all[0]["id"].as_str(),
            all[0]["status"].as_str(),
            all[0]["outcome"].as_str()
        ),
        (Some(second.as_str()), Some("aborted"), Some("aborted"))
    );
    assert_eq!(ids(games("max=1".into()).await), [second.as_str()]);
    assert_eq!(ids(games("rated=true".into()).await), [id.as_str()]);
    assert_eq!(ids(games("rated=false".into()).await), [second.as_str()]);
    assert_eq!(ids(games("perfType=blitz".into()).await), [id.as_str()]);
    assert_eq!(ids(games("perfType=bullet,blitz".into()).await).len(), 2);
    assert_eq!(ids(games(format!("until={}", created - 1)).await).len(), 0);
    // Both bounds are inclusive (the two games may share a millisecond).
    let at_created: Vec<String> = ids(all.clone())
        .into_iter()
        .zip(&all)
        .filter(|(_, g)| g["createdAt"] == created)
        .map(|(id, _)| id)
        .collect();
    assert!(at_created.contains(&id));
    assert_eq!(
        ids(games(format!("since={created}&until={created}")).await),
        at_created
    );
    let later = all[0]["createdAt"].as_i64().unwrap() + 1;
    assert!(games(format!("since={later}")).await.is_empty());
    // The same in PDN without Accept; bad filters and unknown players are refused.
    let (code, pdns) = raw(&app, Method::GET, "/api/games/user/alpha", &[], "").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(pdns.matches("[Event ").count(), 2, "{pdns}");
    for (q, want) in [
        (
            "/api/games/user/alpha?perfType=atomic",
            StatusCode::BAD_REQUEST,
        ),
        ("/api/games/user/alpha?rated=maybe", StatusCode::BAD_REQUEST),
        ("/api/games/user/nobody", StatusCode::NOT_FOUND),
    ] {
        assert_eq!(raw(&app, Method::GET, q, &ndjson, "").await.0, want, "{q}");
    }
}
