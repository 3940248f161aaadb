//! Account mail against a real SMTP server: aiosmtpd (from PyPI) started here, writing what
//! it receives into a maildir that the tests read. The address is confirmed by the mailed
//! link, a password is reset by the mailed link, and the answers to a reset request are the
//! same whether or not the address has an account. Skipped, saying so, when Python has no
//! aiosmtpd (`scripts/test` installs it in target/py-venv); `DAMASI_REQUIRE_SMTP=1` makes that
//! a failure.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::body::{to_bytes, Body};
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use damasi_online::db::SecretKind;
use damasi_web::online::mail::Mailer;
use damasi_web::{router, AppState};
use serde_json::{json, Value};
use tower::ServiceExt;

struct Reply {
    status: StatusCode,
    cookie: Option<String>,
    location: Option<String>,
    retry_after: Option<u64>,
    body: Value,
}

async fn send(
    app: &Router,
    method: Method,
    uri: &str,
    cookie: Option<&str>,
    token: Option<&str>,
    body: Option<Value>,
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(c) = cookie {
        req = req.header(header::COOKIE, c);
    }
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header(header::CONTENT_TYPE, "application/json");
    }
    let req = req
        .body(Body::from(body.map(|b| b.to_string()).unwrap_or_default()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let head = |name: header::HeaderName| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let cookie = head(header::SET_COOKIE).map(|c| c.split(';').next().unwrap().to_string());
    let location = head(header::LOCATION);
    let retry_after = head(header::RETRY_AFTER).and_then(|v| v.parse().ok());
    let status = res.status();
    let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
    Reply {
        status,
        cookie,
        location,
        retry_after,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

async fn post(app: &Router, uri: &str, cookie: Option<&str>, body: Value) -> Reply {
    send(app, Method::POST, uri, cookie, None, Some(body)).await
}

async fn get(app: &Router, uri: &str, cookie: Option<&str>) -> Reply {
    send(app, Method::GET, uri, cookie, None, None).await
}

/// The SMTP sink: aiosmtpd writing a maildir, killed when dropped.
struct Sink {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The Python that has aiosmtpd: `DAMASI_PYTHON`, the repository's target/py-venv, or
/// python3.
fn python_with_aiosmtpd() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/py-venv/bin/python");
    let candidates = [
        std::env::var_os("DAMASI_PYTHON").map(PathBuf::from),
        Some(venv),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|py| {
        Command::new(py)
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Starts the sink, or says why not (the test is then skipped, unless `DAMASI_REQUIRE_SMTP`).
fn start_sink(test: &str) -> Option<Sink> {
    let Some(py) = python_with_aiosmtpd() else {
        let why = "no Python with aiosmtpd (python3 -m venv target/py-venv && \
                   target/py-venv/bin/pip install aiosmtpd==1.4.6)";
        if std::env::var_os("DAMASI_REQUIRE_SMTP").is_some() {
            panic!("{test}: {why}");
        }
        eprintln!("SKIPPED {test}: {why}");
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("damasi-mail-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let child = Command::new(&py)
        .args(["-m", "aiosmtpd", "-n", "-l"])
        .arg(format!("127.0.0.1:{port}"))
        .args(["-c", "aiosmtpd.handlers.Mailbox"])
        .arg(dir.join("maildir"))
        .stdout(Stdio::null())
        .spawn()
        .expect("aiosmtpd starts");
    let sink = Sink { child, port, dir };
    let until = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "aiosmtpd did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(sink)
}

impl Sink {
    fn mailer(&self) -> Mailer {
        Mailer::new(
            &format!("smtp://127.0.0.1:{}", self.port),
            "damasi <noreply@dama.example>",
        )
        .unwrap()
    }

    /// The mails received so far, oldest first (the maildir's `new/`).
    fn mails(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.dir.join("maildir/new")) else {
            return Vec::new();
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .map(|e| (e.metadata().unwrap().modified().unwrap(), e.path()))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, p)| std::fs::read_to_string(p).unwrap())
            .collect()
    }

    /// Waits until `n` mails have arrived, and returns the `n`th.
    async fn mail(&self, n: usize) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let mails = self.mails();
            if mails.len() >= n {
                return mails[n - 1].clone();
            }
            assert!(Instant::now() < until, "mail {n} never arrived");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A mail's text as a reader shows it: quoted-printable decoded (lettre writes long lines
/// so), the headers left as they are.
fn decoded(mail: &str) -> String {
    let qp = mail.contains("Content-Transfer-Encoding: quoted-printable");
    if !qp {
        return mail.to_string();
    }
    let text = mail.replace("=\r\n", "").replace("=\n", "");
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (b[i], hex) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// The path of the link to `/account/{what}/` in a mail.
fn link_in(mail: &str, what: &str) -> String {
    let mail = &decoded(mail);
    let marker = format!("http://localhost/account/{what}/");
    let start = mail
        .find(&marker)
        .unwrap_or_else(|| panic!("no {what} link in:\n{mail}"));
    let link: String = mail[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let secret = &link[marker.len()..];
    assert_eq!(secret.len(), 32, "a 128-bit secret in {link}");
    assert!(secret.bytes().all(|b| b.is_ascii_hexdigit()));
    link["http://localhost".len()..].to_string()
}

fn header_of<'a>(mail: &'a str, name: &str) -> &'a str {
    mail.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} in:\n{mail}"))
}

async fn sign_up(app: &Router, name: &str, password: &str) -> String {
    let r = post(
        app,
        "/api/account/signup",
        None,
        json!({"name": name, "password": password}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.cookie.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_is_confirmed_and_a_password_reset_by_mail() {
    let Some(sink) = start_sink("an_address_is_confirmed_and_a_password_reset_by_mail") else {
        return;
    };
    let app = router(AppState::in_memory().with_mailer(sink.mailer()));
    let first = sign_up(&app, "ayse", "kestane kebap").await;
    let r = post(
        &app,
        "/api/account/login",
        None,
        json!({"name": "ayse", "password": "kestane kebap"}),
    )
    .await;
    let second = r.cookie.unwrap();
    let r = post(&app, "/api/account/token", Some(&first), json!({})).await;
    let token = r.body["token"].as_str().unwrap().to_string();

    // The address: the password is asked again.
    let r = post(
        &app,
        "/api/account/email",
        Some(&first),
        json!({"email": "ayse@dama.example", "password": "not hers"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.body["code"], "wrong-password");
    let r = post(
        &app,
        "/api/account/email",
        Some(&first),
        json!({"email": "not an address", "password": "kestane kebap"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = post(
        &app,
        "/api/account/email",
        Some(&first),
        json!({"email": " ayse@dama.example ", "password": "kestane kebap"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let me = get(&app, "/api/account", Some(&first)).await.body;
    assert_eq!(me["email"], "ayse@dama.example");
    assert_eq!(me["emailConfirmed"], false);
    // Others never see it.
    let profile = get(&app, "/api/user/ayse", None).await.body;
    assert!(profile.get("email").is_none(), "{profile}");

    let confirm = sink.mail(1).await;
    assert_eq!(header_of(&confirm, "To"), "ayse@dama.example");
    assert!(header_of(&confirm, "From").contains("noreply@dama.example"));
    let link = link_in(&confirm, "confirm-email");

    // An unconfirmed address gets no reset mail.
    let r = post(
        &app,
        "/api/account/password-reset",
        None,
        json!({"email": "ayse@dama.example"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);

    let r = get(&app, &link, None).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(
        r.location.as_deref(),
        Some("/online?notice=email-confirmed")
    );
    assert_eq!(
        get(&app, "/api/account", Some(&first)).await.body["emailConfirmed"],
        true
    );
    let r = get(&app, &link, None).await;
    assert_eq!(
        r.location.as_deref(),
        Some("/online?notice=link-not-valid"),
        "a link works once"
    );

    // Asking for a reset: one answer, in about one time, for a known and an unknown address.
    let mut answers = Vec::new();
    for email in ["nobody@dama.example", "AYSE@dama.example"] {
        let t = Instant::now();
        let r = post(
            &app,
            "/api/account/password-reset",
            None,
            json!({"email": email}),
        )
        .await;
        answers.push((r.status, r.body, t.elapsed()));
    }
    assert_eq!(answers[0].0, answers[1].0);
    assert_eq!(answers[0].1, answers[1].1);
    assert_eq!(answers[0].1, json!({"ok": true}));
    for (_, _, took) in &answers {
        assert!(*took >= Duration::from_millis(300), "answered in {took:?}");
    }
    let gap = answers[0].2.abs_diff(answers[1].2);
    assert!(gap < Duration::from_millis(150), "times {answers:?}");

    let reset = sink.mail(2).await;
    assert_eq!(header_of(&reset, "To"), "ayse@dama.example");
    let link = link_in(&reset, "reset");
    let secret = link.rsplit('/').next().unwrap();
    // The unconfirmed request and the unknown address got nothing: two mails in all.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sink.mails().len(), 2);

    // The link opens the page, which asks whose it is.
    let page = get(&app, &link, None).await;
    assert_eq!(page.status, StatusCode::OK);
    let api = format!("/api/account/password-reset/{secret}");
    assert_eq!(get(&app, &api, None).await.body, json!({"name": "ayse"}));
    let r = post(&app, &api, None, json!({"password": "ayse"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "checked as at sign-up");
    let r = post(&app, &api, None, json!({"password": "yeni parolam"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["name"], "ayse");
    let fresh = r.cookie.expect("logged in with a new session");
    assert_eq!(
        get(&app, "/api/account", Some(&fresh)).await.body["name"],
        "ayse"
    );
    // Every older session is gone; the program's token stays.
    for old in [&first, &second] {
        assert_eq!(
            get(&app, "/api/account", Some(old)).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    let r = send(&app, Method::GET, "/api/account", None, Some(&token), None).await;
    assert_eq!(r.status, StatusCode::OK);
    // Used once.
    let r = post(&app, &api, None, json!({"password": "yine baska"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let log_in = |password: &'static str| {
        post(
            &app,
            "/api/account/login",
            None,
            json!({"name": "ayse", "password": password}),
        )
    };
    assert_eq!(
        log_in("kestane kebap").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(log_in("yeni parolam").await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_reset_link_expires_after_an_hour() {
    let state = AppState::in_memory();
    let app = router(state.clone());
    let cookie = sign_up(&app, "mehmet", "lokum lokum").await;
    let me = get(&app, "/api/account", Some(&cookie)).await.body;
    let id = me["id"].as_i64().unwrap();
    let now = damasi_online::now_ms();
    let accounts = state.online.accounts();
    let old = accounts
        .issue(id, SecretKind::PasswordReset, now - 61 * 60 * 1000)
        .await
        .unwrap();
    let young = accounts
        .issue(id, SecretKind::PasswordReset, now - 59 * 60 * 1000)
        .await
        .unwrap();
    let path = |s: &str| format!("/api/account/password-reset/{s}");
    assert_eq!(
        get(&app, &path(&old), None).await.status,
        StatusCode::NOT_FOUND
    );
    let r = post(&app, &path(&old), None, json!({"password": "yeni parolam"})).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = post(
        &app,
        &path(&young),
        None,
        json!({"password": "yeni parolam"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // A session is no reset link, nor the other way round.
    let r = post(
        &app,
        &path("0123456789abcdef0123456789abcdef"),
        None,
        json!({"password": "yeni parolam"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn without_mail_the_answer_is_the_same_and_the_page_is_told() {
    let app = router(AppState::in_memory());
    assert_eq!(get(&app, "/api/health", None).await.body["mail"], false);
    let r = post(
        &app,
        "/api/account/password-reset",
        None,
        json!({"email": "anybody@dama.example"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, json!({"ok": true}));
    let cookie = sign_up(&app, "zeynep", "lokum lokum").await;
    let r = post(
        &app,
        "/api/account/email",
        Some(&cookie),
        json!({"email": "zeynep@dama.example", "password": "lokum lokum"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.body["code"], "no-mail");
}

#[tokio::test]
async fn reset_requests_are_limited_per_address_and_per_email() {
    let app = router(AppState::in_memory());
    let ask = |email: &'static str| {
        post(
            &app,
            "/api/account/password-reset",
            None,
            json!({"email": email}),
        )
    };
    // Three for one e-mail address (in any case), whether or not it has an account.
    for _ in 0..3 {
        assert_eq!(ask("Victim@dama.example").await.status, StatusCode::OK);
    }
    let r = ask("victim@DAMA.example").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    let wait = r.retry_after.expect("a 429 says when to come back");
    assert!((1..=20 * 60).contains(&wait), "Retry-After {wait}");
    // Five from one client address in all (the one refused for its e-mail address counted).
    assert_eq!(ask("other@dama.example").await.status, StatusCode::OK);
    let r = ask("third@dama.example").await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.body["code"], "rate-limited");
    assert!(r.retry_after.is_some_and(|s| (1..=12 * 60).contains(&s)));
}

/// Guessing reset links, measured: each link is 128 random bits, and one address may look up
/// or use at most 10 a minute (the log-in limit); the 11th guess is refused with the wait.
/// At that rate a guess has odds of 10 in 2^128 a minute.
#[tokio::test]
async fn guessing_reset_links_is_limited_per_address() {
    let app = router(AppState::in_memory());
    let mut outcomes = Vec::new();
    for i in 0..14 {
        let guess = format!("/api/account/password-reset/{i:032x}");
        let r = if i % 2 == 0 {
            get(&app, &guess, None).await
        } else {
            post(&app, &guess, None, json!({"password": "yeni parolam"})).await
        };
        outcomes.push((r.status, r.retry_after));
    }
    let not_found = outcomes
        .iter()
        .filter(|(s, _)| *s == StatusCode::NOT_FOUND)
        .count();
    assert_eq!(not_found, 10, "{outcomes:?}");
    for (status, retry_after) in &outcomes[10..] {
        assert_eq!(*status, StatusCode::TOO_MANY_REQUESTS);
        let wait = retry_after.unwrap();
        assert!((1..=60).contains(&wait), "{wait}");
    }
}
