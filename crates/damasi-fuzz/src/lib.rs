//! Fuzz targets for every parser and entry point of damasi: each is a function from arbitrary
//! bytes that must never panic, never hang and, where it reads something back, find what it
//! wrote. They are run two ways:
//!
//! - `scripts/fuzz-smoke` (stable Rust, CI): the `damasi-fuzz` binary of this crate feeds
//!   each target mutations of its seeds (`fuzz/seeds/<target>/`) for a few seconds
//!   ([`smoke`]);
//! - `cargo +nightly fuzz run <target>` in `fuzz/` (libFuzzer, coverage guided, for long
//!   runs): each `fuzz/fuzz_targets/<target>.rs` calls the function of the same name here.
//!
//! [`TARGETS`] lists them all.

use std::sync::OnceLock;
use std::time::Duration;

use damasi::hub::{parse_hub_move, read_hub_position, write_hub_move, write_hub_position};
use damasi::pdn::{read_games, write_game, PdnGame};
use damasi::{Notation, Position, RuleSet};

pub mod smoke;

/// A fuzz target: its name (also the name of its seed folder and libFuzzer binary), what it
/// checks, and the function.
pub struct Target {
    /// Name, e.g. `pdn`.
    pub name: &'static str,
    /// What the target checks, one line.
    pub about: &'static str,
    /// The function: any bytes in, a panic when something is wrong.
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "fen",
        about: "FEN reading; what it accepts writes back to a FEN that reads the same",
        run: fen,
    },
    Target {
        name: "parse_move",
        about: "move reading in both notations; a move read is legal and reads back",
        run: parse_move,
    },
    Target {
        name: "hub_notation",
        about: "the Hub protocol's numeric moves and position strings; both read back",
        run: hub_notation,
    },
    Target {
        name: "pdn",
        about: "PDN reading; every game read is written (both notations) and read again the same",
        run: pdn,
    },
    Target {
        name: "rules",
        about: "rule-set names; an accepted one reads back from its own name",
        run: rules,
    },
    Target {
        name: "openings",
        about: "opening files; every opening read is playable and reads back from its text",
        run: openings,
    },
    Target {
        name: "hub_line",
        about: "Hub protocol lines; a line read writes back to text that reads the same",
        run: hub_line,
    },
    Target {
        name: "hub_session",
        about: "a whole Hub session (`damasi hub`) on the input as its script",
        run: hub_session,
    },
    Target {
        name: "web_api",
        about: "the web app's router: one request with arbitrary method, path and body",
        run: web_api,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Positions with men, kings, long captures, loops and straight-on captures.
const FENS: [&str; 5] = [
    "startpos",
    "W:WKc3:Bc5,d3,e6,f4",
    "B:Wa3,b3,c4:Bd4,Ka8",
    "W:WKa1:Ba3,a6,h7",
    "W:WKd4,Ka1,b3:BKd6,Kd2,Kb7,Kh8,c5",
];

/// The input as text, if it is UTF-8.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// FEN reading never panics; whatever it accepts writes back to a FEN that reads the same.
pub fn fen(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(p) = Position::from_fen(text) {
        assert_eq!(p.key(), p.compute_key());
        assert_eq!(Position::from_fen(&p.to_fen()), Ok(p));
    }
}

/// Move reading never panics; a move it returns is legal and reads back from its own text in
/// both notations (landing and captured-square).
pub fn parse_move(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for fen in FENS {
        let p = Position::from_fen(fen).expect("valid FEN");
        if let Ok(m) = p.parse_move(text) {
            assert!(p.legal_moves().contains(&m));
            for notation in [Notation::Landing, Notation::Captured] {
                assert_eq!(p.parse_move(&p.write_move(&m, notation)), Ok(m));
            }
        }
    }
}

/// The Hub notation: a move read by [`parse_hub_move`] is legal and reads back from
/// [`write_hub_move`]; a position string read by [`read_hub_position`] reads back from
/// [`write_hub_position`].
pub fn hub_notation(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for fen in FENS {
        let p = Position::from_fen(fen).expect("valid FEN");
        if let Ok(m) = parse_hub_move(&p, text) {
            assert!(p.legal_moves().contains(&m));
            assert_eq!(parse_hub_move(&p, &write_hub_move(&m)), Ok(m));
        }
    }
    if let Ok(p) = read_hub_position(text) {
        assert_eq!(read_hub_position(&write_hub_position(&p)), Ok(p));
    }
}

/// PDN: reading never panics; every game read is written in both notations and read again:
/// the same rules, start position, moves and outcome.
pub fn pdn(data: &[u8]) {
    // Bytes that are not UTF-8 are read too (as Latin-1): no filter here.
    for record in read_games(data).take(64).flatten() {
        for notation in [Notation::Landing, Notation::Captured] {
            let text = write_game(&record, notation);
            let again = read_games(text.as_bytes())
                .next()
                .expect("a written game is found")
                .unwrap_or_else(|e| panic!("a written game reads back: {e}\n{text}"));
            assert_same_game(&record, &again, &text);
            assert!(read_games(text.as_bytes()).nth(1).is_none(), "{text}");
        }
    }
}

fn assert_same_game(a: &PdnGame, b: &PdnGame, text: &str) {
    assert_eq!(a.game.rules(), b.game.rules(), "{text}");
    assert_eq!(
        a.game.initial_position(),
        b.game.initial_position(),
        "{text}"
    );
    assert_eq!(a.game.history(), b.game.history(), "{text}");
    assert_eq!(a.game.outcome(), b.game.outcome(), "{text}");
}

/// Rule-set names: an accepted name reads back from [`RuleSet::name`].
pub fn rules(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(r) = RuleSet::from_name(text) {
        assert_eq!(RuleSet::from_name(&r.name()), Ok(r));
    }
}

/// Opening files: every opening read is legal move by move from its start, leaves a legal
/// move, and its own text reads back as the same opening.
pub fn openings(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(set) = damasi_tools::openings::parse_openings(text) {
        for o in &set {
            let mut pos = o.start;
            for m in &o.moves {
                assert!(pos.legal_moves().contains(m), "{}", o.text);
                pos = pos.play(m);
            }
            assert!(pos.has_legal_move(), "{}", o.text);
            let again = damasi_tools::openings::parse_openings(&o.text)
                .unwrap_or_else(|e| panic!("{}: {e}", o.text));
            assert_eq!(again.as_slice(), std::slice::from_ref(o));
        }
    }
}

/// Hub protocol lines: a line read writes back to text that reads back with the same command,
/// argument names and values (a value with `"` or a line break has them replaced, as the
/// protocol has no escapes).
pub fn hub_line(data: &[u8]) {
    use damasi_engine::protocol::Line;
    let Some(text) = text(data) else { return };
    if let Ok(line) = Line::parse(text) {
        let written = line.to_string();
        let again =
            Line::parse(&written).unwrap_or_else(|e| panic!("'{written}' does not read back: {e}"));
        assert_eq!(again.command, line.command, "{written}");
        assert_eq!(again.args.len(), line.args.len(), "{written}");
        for (a, b) in line.args.iter().zip(&again.args) {
            assert_eq!(a.name, b.name, "{written}");
            let plain = a
                .value
                .as_ref()
                .is_none_or(|v| !v.contains(['"', '\n', '\r']));
            if plain {
                assert_eq!(a.value, b.value, "{written}");
            }
        }
        assert!(
            written.len() <= text.len() + 2 * line.args.len() + 1,
            "{written}"
        );
    }
}

/// Nodes a search may use in [`hub_session`], so that a script with many `go` stays fast.
const SESSION_NODES: &str = "level nodes=2000";

/// A Hub session on the input as its script, with a small hash and every search limited:
/// `level nodes=2000` comes first and after every `level` line (which is still read, and
/// answered if wrong), and a `hash` above 8 MiB is lowered to 8. It must end (end of input
/// stops any search), never panic, and write only protocol lines of bounded length.
pub fn hub_session(data: &[u8]) {
    let mut script = Vec::with_capacity(data.len() + 64);
    script.extend_from_slice(SESSION_NODES.as_bytes());
    script.push(b'\n');
    for raw in data.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(raw);
        let parsed = damasi_engine::protocol::Line::parse(&line).ok();
        let command = parsed.as_ref().map(|l| l.command.as_str());
        let is_hash = parsed
            .as_ref()
            .is_some_and(|l| command == Some("set-param") && l.get("name") == Some("hash"));
        let big = |l: &damasi_engine::protocol::Line| {
            l.get("value")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .is_some_and(|v| v > 8)
        };
        if is_hash && parsed.as_ref().is_some_and(big) {
            script.extend_from_slice(b"set-param name=hash value=8\n");
            continue;
        }
        script.extend_from_slice(raw);
        script.push(b'\n');
        if command == Some("level") {
            script.extend_from_slice(SESSION_NODES.as_bytes());
            script.push(b'\n');
        }
    }
    let out = SharedOutput::default();
    let config = damasi_engine::hub::HubConfig {
        hash_mb: 1,
        threads: 1,
        ..Default::default()
    };
    damasi_engine::hub::run(&script[..], out.clone(), config).expect("reading a slice fails not");
    let written = out.0.lock().map(|v| v.clone()).unwrap_or_default();
    let written = String::from_utf8(written).expect("the engine writes UTF-8");
    for line in written.lines() {
        assert!(
            line.len() <= damasi_engine::hub::MAX_LINE + 256,
            "an output line of {} bytes",
            line.len()
        );
        assert!(
            damasi_engine::protocol::Line::parse(line).is_ok(),
            "not a protocol line: {line}"
        );
    }
}

/// Output shared with the session's search threads.
#[derive(Clone, Default)]
struct SharedOutput(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The runtime and the app every [`web_api`] input goes to (one per process: making an app
/// creates its engines; games created by earlier inputs give later ones ids to find).
fn web_app() -> &'static (tokio::runtime::Runtime, axum::Router) {
    static APP: OnceLock<(tokio::runtime::Runtime, axum::Router)> = OnceLock::new();
    APP.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let app = rt.block_on(async { damasi_web::router(damasi_web::AppState::in_memory()) });
        (rt, app)
    })
}

/// Methods the [`web_api`] target chooses from (by the input's first byte).
const METHODS: [&str; 7] = ["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"];

/// The web app's router, without sockets: the first byte chooses the method, the
/// Content-Type (JSON, text or none) and where the request says it comes from (this
/// machine, another site by `Origin` or `Sec-Fetch-Site`, another host name); the text up to
/// the first line break is the path and query (`/api/` is put in front of a path not starting
/// with `/`), the rest is the body. A request runs at most 2 seconds (then it is dropped,
/// which stops its search). It must not panic or fail with 500; an answer under `/api/` is
/// JSON; another host name is refused (421), and so is a change from another site or with a
/// text body.
pub fn web_api(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    // Bits 0-2: the method; bits 3-4: the Content-Type; bits 5-7: the origin.
    let method = METHODS[usize::from(first & 7) % METHODS.len()];
    let content_type = match (first >> 3) & 3 {
        0 => Some("application/json"),
        1 => Some("text/plain"),
        _ => None,
    };
    let split = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let (path, body) = (&rest[..split], rest.get(split + 1..).unwrap_or(&[]));
    let Some(path) = text(path) else { return };
    let uri = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/api/{path}")
    };
    let (host, extra) = match first >> 5 {
        1 => ("127.0.0.1:8080", Some(("origin", "http://evil.example"))),
        2 => ("127.0.0.1:8080", Some(("origin", "http://127.0.0.1:8080"))),
        3 => ("127.0.0.1:8080", Some(("sec-fetch-site", "cross-site"))),
        4 => ("attacker.example", None),
        5 => ("localhost", Some(("sec-fetch-site", "same-origin"))),
        _ => ("127.0.0.1:8080", None),
    };
    let foreign_host = host == "attacker.example";
    let cross_site = matches!(first >> 5, 1 | 3);
    let changes = !matches!(method, "GET" | "HEAD" | "OPTIONS");
    let mut request = axum::http::Request::builder()
        .method(method)
        .uri(&uri)
        .header("host", host);
    if let Some((name, value)) = extra {
        request = request.header(name, value);
    }
    if let Some(t) = content_type {
        request = request.header("content-type", t);
    }
    let Ok(request) = request.body(axum::body::Body::from(body.to_vec())) else {
        return; // not a request at all: nothing reaches the server
    };
    let path = request.uri().path().to_string();
    let (rt, app) = web_app();
    rt.block_on(async {
        use tower::ServiceExt;
        let call = app.clone().oneshot(request);
        let Ok(response) = tokio::time::timeout(Duration::from_secs(2), call).await else {
            return;
        };
        let response = response.expect("the router's error type is Infallible");
        let status = response.status();
        let json = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let body = axum::body::to_bytes(response.into_body(), 64 << 20)
            .await
            .expect("a response body in memory");
        // Every endpoint's answer, errors included, is JSON (`/api` and `/api/` themselves
        // fall outside the nested API router, to the page's 404).
        let api = path.len() > 5 && path.starts_with("/api/");
        if api && method != "HEAD" && !body.is_empty() {
            assert!(json, "{method} {uri}: {status} not JSON");
        }
        // Another host name (DNS rebinding) gets nothing; a change from another site, or
        // with a body that is not JSON, is refused.
        if foreign_host {
            assert_eq!(
                status,
                axum::http::StatusCode::MISDIRECTED_REQUEST,
                "{method} {uri}"
            );
        }
        if changes && (cross_site || content_type == Some("text/plain")) {
            assert!(status.is_client_error(), "{method} {uri}: {status}");
        }
        assert!(
            status != axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "{method} {uri}: {status} {}",
            String::from_utf8_lossy(&body)
        );
    });
}
