//! # damasi-web: the damasi web app
//!
//! An axum server with a JSON API over the damasi rules library and engine, and an embedded
//! page (plain HTML, CSS and JavaScript, no build step) to play and study Turkish draughts.
//! [`router`] builds the whole app from an [`AppState`], so it can be tested without sockets;
//! [`serve`] binds it to an address.
//!
//! The server is the referee of every saved game ([`referee`]): it keeps the game in memory,
//! measures each move's time with its own clock, plays the engine's moves by itself, lets the
//! flag fall when a side's time is out (even with no page open), and allows each action only
//! to the side it belongs to. A page says what a person wants; it never reports times or
//! results.
//!
//! The API (JSON in and out; `GET /api` lists it, `docs/web-api.md` describes it whole):
//!
//! | endpoint | what it does |
//! |---|---|
//! | `GET /api/moves?fen=` | legal moves of a position, each with both notations, route and captures |
//! | `POST /api/move {fen, move}` | plays a move written in any notation the library reads |
//! | `POST /api/engine/move {fen, level}` | the engine's move and the position after it |
//! | `POST /api/analyze {fen, move_time_ms, multipv, searchmoves}` | score, depth and best line(s) |
//! | `GET /api/tablebase?fen=` | the endgame tables' win/draw/loss for the position and each legal move |
//! | `GET /api/tablebase/standard?fen=` | the same in the shape of lichess's tablebase server (also at `/standard`) |
//! | `GET /api/cloud-eval?fen=&multiPv=` | lichess's cloud evaluation: the server's own finished analyses of the position ([`cloud_eval`]) |
//! | `GET /api/explorer/{lichess,masters}?fen=` | the opening explorer: the moves played from the position, in lichess's shape ([`explorer`]) |
//! | `GET /api/learn/course`, `GET /api/learn/examples` | the rules course and the federation's worked examples ([`learn`]) |
//! | `GET /api/puzzles?rating=`, `GET /api/puzzles/{id}`, `POST /api/puzzles/{id}/attempt` | tactics puzzles and the player's puzzle rating |
//! | `GET/POST /api/games`, `GET/DELETE /api/games/{id}` | saved games (`?wait_version=N` waits for a change; `?from=PLY&limit=N` pages through the plies) |
//! | `POST /api/games/{id}/{move,engine,hint,takeback,resign,draw,draw/answer,flag}` | play a saved game |
//! | `GET /api/games/{id}/pdn`, `POST /api/pdn/import` | PDN export and import |
//! | `/api/account/...`, `/api/online/...`, `/api/lobby`, `/api/pool/...` | online play between people ([`online`], `docs/online.md`) |
//! | `/api/challenge/...`, `/api/stream/event`, `/api/board/...` | the Board API for programs, in lichess's shape |
//! | `/api/user/{name}/...`, `/api/rel/...`, `/api/player/top/{nb}/{perfType}` | profiles, follows and blocks, leaderboards (lichess's shape) |
//!
//! The stateless endpoints also take `moves`, the moves played from `fen` before, so that
//! repetitions count and the engine knows the game.
//!
//! Every error is JSON with a message and a stable `code`: malformed input is a 400
//! (`bad-request`); an illegal or ambiguous move a 422 listing the legal moves (or the
//! candidates); an action for the engine's side a 403 (`engine-side`); an unknown game or path
//! a 404; a change to a finished game a 409 (`game-over`, with the outcome code); a busy engine
//! a 503.
//!
//! ```
//! use damasi_web::{router, AppState};
//! let app = router(AppState::in_memory());
//! # let _ = app;
//! ```

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::middleware;
use axum::routing::{any, get, post};
use axum::Router;
use damasi_engine::oracle::EndgameOracle;
use tower::ServiceExt;
use tower_http::timeout::RequestBodyTimeoutLayer;

pub mod api;
pub mod assets;
pub mod cloud_eval;
pub use damasi_online::brain;
pub mod error;
pub mod explorer;
pub mod games;
pub mod learn;
pub mod online;
pub mod pdn;
pub use damasi_online::record;
pub mod referee;
pub mod security;
pub mod store;
pub mod streams;
pub mod tablebase;
pub mod tournaments;

pub use brain::{Brain, MAX_MOVE_TIME};
pub use damasi_tournaments::Tournaments;
pub use error::ApiError;
pub use online::db::OnlineDb;
pub use online::{Online, OnlineConfig};
pub use referee::Referee;
pub use security::Security;
pub use store::Store;
pub use streams::{StreamLimits, Streams};
pub use tablebase::Tablebases;

/// Largest request body accepted (a PDN file of many games fits).
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// What every request handler shares.
#[derive(Clone)]
pub struct AppState {
    /// Saved games.
    pub store: Store,
    /// The engine.
    pub brain: Brain,
    /// The referee of the saved games being played.
    pub referee: Referee,
    /// Which hosts, sites and tokens may use the server.
    pub security: Arc<Security>,
    /// Online play: accounts, games between people, the lobby.
    pub online: Online,
    /// Tournaments played in `online`.
    pub tournaments: Tournaments,
    /// Rate limits of online play.
    pub limits: Arc<online::http::Limits>,
    /// Endgame tables, if the server has them (`GET /api/tablebase`).
    pub tablebase: tablebase::Tablebases,
    /// The engine's finished analyses, for `GET /api/cloud-eval` (kept with the saved games).
    pub cloud_evals: cloud_eval::CloudEvals,
    /// The long-lived requests (streams, WebSockets, long-polls) being served, and their caps.
    pub streams: Arc<Streams>,
    /// The Telegram bot's token, when the server runs the bot: the web page opened from the
    /// bot's Mini App button logs in with Telegram's signed `initData`
    /// (`POST /api/account/telegram`).
    pub telegram_token: Option<Arc<str>>,
    /// Where account mail goes out (`--smtp-url`), if anywhere: confirmation and
    /// password-reset links.
    pub mailer: Option<Arc<online::mail::Mailer>>,
    /// The site's public address (`--public-url`), for links in mail; without it, the
    /// address the request reached (a host name the security policy accepts).
    pub public_url: Option<Arc<str>>,
}

impl AppState {
    /// State with the games database in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<AppState, String> {
        AppState::open_with(data_dir, OnlineDb::open(data_dir)?)
    }

    /// State with the saved games in `data_dir` and online play in `online` (e.g. PostgreSQL).
    pub fn open_with(data_dir: &Path, online: OnlineDb) -> Result<AppState, String> {
        let online = Online::new(online, OnlineConfig::default());
        Ok(AppState::with_store(Store::open(data_dir)?).with_online(online))
    }

    /// State with a database in memory (tests, demos).
    pub fn in_memory() -> AppState {
        AppState::with_store(Store::in_memory())
    }

    fn with_store(store: Store) -> AppState {
        AppState::with_parts(store, Brain::new())
    }

    /// State from its parts (tests that need an engine of a given capacity).
    pub fn with_parts(store: Store, brain: Brain) -> AppState {
        let online = Online::in_memory();
        AppState {
            referee: Referee::new(store.clone(), brain.clone()),
            cloud_evals: cloud_eval::CloudEvals::new(store.clone()),
            store,
            brain,
            security: Arc::new(Security::local()),
            tournaments: Tournaments::new(online.clone()),
            online,
            limits: Arc::new(online::http::Limits::default()),
            tablebase: tablebase::Tablebases::default(),
            streams: Arc::new(Streams::default()),
            telegram_token: None,
            mailer: None,
            public_url: None,
        }
    }

    /// The same state with another online service (another database or settings).
    pub fn with_online(mut self, online: Online) -> AppState {
        self.tournaments = Tournaments::new(online.clone());
        self.online = online;
        self
    }

    /// The same state with the Telegram bot's token, for the log-in of its Mini App.
    pub fn with_telegram_login(mut self, bot_token: &str) -> AppState {
        self.telegram_token = Some(bot_token.into());
        self
    }

    /// The same state sending account mail through `mailer`.
    pub fn with_mailer(mut self, mailer: online::mail::Mailer) -> AppState {
        self.mailer = Some(Arc::new(mailer));
        self
    }

    /// The same state with the site's public address (`https://dama.example`, no trailing
    /// slash needed) for the links it mails.
    pub fn with_public_url(mut self, url: &str) -> AppState {
        self.public_url = Some(url.trim_end_matches('/').into());
        self
    }

    /// The same state for a process of a cluster that leaves tournaments to another process:
    /// their routes answer 503 `not-here` (see [`Tournaments::elsewhere`]).
    pub fn with_tournaments_elsewhere(mut self) -> AppState {
        self.tournaments = Tournaments::elsewhere(self.online.clone());
        self
    }

    /// The same state with endgame tables for `GET /api/tablebase` (`None`: without).
    pub fn with_tablebase(self, oracle: Option<Arc<dyn EndgameOracle>>) -> AppState {
        self.with_tablebases(tablebase::Tablebases::fixed(oracle))
    }

    /// The same state with these endgame tables (e.g. a directory watched for new tables).
    pub fn with_tablebases(mut self, tables: tablebase::Tablebases) -> AppState {
        self.tablebase = tables;
        self
    }

    /// The same state keeping at most `max_rows` cloud evaluations (see [`cloud_eval`]).
    pub fn with_cloud_eval_rows(mut self, max_rows: usize) -> AppState {
        self.cloud_evals = self.cloud_evals.with_max_rows(max_rows);
        self
    }

    /// The same state with other caps on long-lived requests (see [`streams`]).
    pub fn with_stream_limits(mut self, limits: StreamLimits) -> AppState {
        self.streams = Arc::new(Streams::new(limits));
        self
    }

    /// The same state under another security policy.
    pub fn with_security(mut self, security: Security) -> AppState {
        self.security = Arc::new(security);
        self
    }
}

/// The whole app: the page, its assets and the JSON API.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/", get(api::index))
        .route("/health", get(api::health))
        .route("/moves", get(api::moves))
        .route("/move", post(api::play_move))
        .route("/engine/move", post(api::engine_move))
        .route("/analyze", post(api::analyze))
        .route("/tablebase", get(tablebase::tablebase))
        .route("/tablebase/standard", get(tablebase::lichess_standard))
        .route("/cloud-eval", get(cloud_eval::cloud_eval))
        .merge(explorer::routes())
        .route("/learn/course", get(learn::course_json))
        .route("/learn/examples", get(learn::examples_json))
        .route("/puzzles", get(learn::next_puzzle))
        .route("/puzzles/{id}", get(learn::show_puzzle))
        .route("/puzzles/{id}/attempt", post(learn::attempt))
        .route("/pdn/import", post(games::import_pdn))
        .route("/games", get(games::list).post(games::create))
        .route("/games/{id}", get(games::show).delete(games::remove))
        .route("/games/{id}/move", post(games::play))
        .route("/games/{id}/engine", post(games::engine))
        .route("/games/{id}/hint", post(games::hint))
        .route("/games/{id}/takeback", post(games::take_back))
        .route("/games/{id}/resign", post(games::resign))
        .route("/games/{id}/draw", post(games::offer_draw))
        .route("/games/{id}/draw/answer", post(games::answer_draw))
        .route("/games/{id}/flag", post(games::flag))
        .route("/games/{id}/pdn", get(games::export_pdn))
        .merge(online::http::routes())
        .merge(tournaments::routes())
        .fallback(api::not_found);
    let security = state.security.clone();
    let scopes = state.clone();
    Router::new()
        .nest("/api", api)
        // `/api/` is not the nested router's `/` (that is `/api` alone): still the API's 404.
        .route("/api/", any(api::not_found))
        .merge(assets::routes())
        .route("/online", get(assets::online_page))
        .route("/online/{id}", get(assets::online_page))
        .merge(tournaments::pages())
        // A player's profile (lichess's path) and the leaderboards: the online page's views.
        .route("/@/{name}", get(assets::online_page))
        .merge(online::lichess::outside_api())
        .merge(explorer::outside_routes())
        // lichess's tablebase server answers at `/standard`; clients that join their base
        // URL and that path as URLs (berserk) land here whatever the base URL's path.
        .route("/standard", get(tablebase::lichess_standard))
        .route("/player", get(assets::online_page))
        .route("/mod", get(assets::online_page))
        // The links mailed to accounts' owners: confirming an address, resetting a password
        // (the online page in its reset mode).
        .route(
            "/account/confirm-email/{token}",
            get(online::http::confirm_email_page),
        )
        .route("/account/reset/{token}", get(assets::online_page))
        // A scoped API token is refused the routes outside its scopes.
        .layer(middleware::from_fn_with_state(
            scopes,
            online::http::scope_guard,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyTimeoutLayer::new(BODY_TIMEOUT))
        .layer(middleware::from_fn_with_state(security, security::guard))
        .with_state(state)
}

/// Longest a client may take to send a request's headers (also the idle time allowed on a
/// kept-alive connection before its next request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Most connections served at once; more wait in the listen queue. Each costs a file
/// descriptor, and the usual limit is 1,024. Long-lived requests (streams, WebSockets,
/// long-polls) give their slot back and are counted apart ([`streams`]).
pub const MAX_CONNECTIONS: usize = 512;

/// Most ordinary connections served at once for one client address (IPv6: one /64), unless
/// it is a trusted proxy; beyond it a connection gets a 429 and is closed at once, so that one
/// address (sending half requests, say) cannot take every slot. A browser opens up to six a
/// site, so this leaves room for a club's members behind one router.
pub const CONNECTIONS_PER_ADDRESS: usize = 64;

/// Limits on connections and the trusted proxies, for [`serve_with`].
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Most connections served at once; more wait in the listen queue.
    pub max_connections: usize,
    /// Most connections served at once for one client address (trusted proxies aside).
    pub connections_per_address: usize,
    /// Longest a client may take to send a request's headers, and to start its next request
    /// on a kept-alive connection.
    pub header_timeout: Duration,
    /// Reverse proxies whose `X-Forwarded-For` / `Forwarded` name the client (see
    /// [`security::client_address`]); from any other peer those headers are ignored.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Screen the rated games for fair play with these settings (`damasi serve` does unless
    /// told `--no-fair-play`); none: no screening.
    pub fair_play: Option<damasi_online::fair_play::ScreenSettings>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_connections: MAX_CONNECTIONS,
            connections_per_address: CONNECTIONS_PER_ADDRESS,
            header_timeout: HEADER_TIMEOUT,
            trusted_proxies: Vec::new(),
            fair_play: None,
        }
    }
}

/// Serves `router(state)` on `addr` until Ctrl-C; `on_ready` is called with the bound address
/// (useful when the port is 0). Slow clients cannot hold the server: headers must arrive
/// within [`HEADER_TIMEOUT`], bodies within [`BODY_TIMEOUT`], at most [`MAX_CONNECTIONS`]
/// connections are served at once and at most [`CONNECTIONS_PER_ADDRESS`] for one address,
/// besides the long-lived requests ([`streams`]), which have caps of their own.
pub async fn serve(
    state: AppState,
    addr: SocketAddr,
    on_ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    serve_with(state, addr, ServeOptions::default(), on_ready).await
}

/// [`serve`] with other connection limits.
pub async fn serve_with(
    state: AppState,
    addr: SocketAddr,
    options: ServeOptions,
    on_ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    // Games left running (clocks, the engine to move) are looked after again at once.
    let referee = state.referee.clone();
    let online = state.online.clone();
    let tournaments = state.tournaments.clone();
    let limits = state.limits.clone();
    let fair_play = options.fair_play.clone();
    tokio::spawn(async move {
        if let Err(e) = referee.resume_all().await {
            eprintln!("damasi-web: cannot resume games: {e:?}");
        }
        if let Err(e) = online.resume_all().await {
            eprintln!("damasi-web: cannot resume online games: {e:?}");
        }
        // The opening explorer counts the games that ended while the server was down, then
        // each game as it ends.
        damasi_online::explorer::follow(&online);
        // The fair-play screen takes up the rated games that ended unscreened, then each.
        if let Some(settings) = fair_play {
            damasi_online::fair_play::follow(&online, settings);
        }
        if let Err(e) = tournaments.run().await {
            eprintln!("damasi-web: cannot resume tournaments: {e:?}");
        }
        // Now and then: forget idle rate-limit entries, games nobody watches or plays, and
        // expired sessions; withdraw open games nobody took in a day.
        let mut tidy = tokio::time::interval(Duration::from_secs(60));
        loop {
            tidy.tick().await;
            limits.shrink();
            online.evict_idle();
            if let Err(e) = online.expire_open().await {
                eprintln!("damasi-web: cannot withdraw old open games: {e:?}");
            }
            if let Err(e) = online.accounts().forget_expired().await {
                eprintln!("damasi-web: cannot forget expired sessions: {e:?}");
            }
        }
    });
    on_ready(listener.local_addr()?);
    let app = router(state);
    let slots = Arc::new(tokio::sync::Semaphore::new(options.max_connections.max(1)));
    let trusted: Arc<[std::net::IpAddr]> = options.trusted_proxies.clone().into();
    let per_address = Arc::new(streams::PerAddress::default());
    let shutdown = tokio::signal::ctrl_c();
    tokio::pin!(shutdown);
    loop {
        // Wait for a free slot before accepting: extra clients queue in the kernel.
        let permit = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, keep serving.
                    eprintln!("damasi-web: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // One address may hold only so many of the slots (a proxy's visitors are told apart
        // by the limits further in).
        let place = if trusted.contains(&peer.ip()) {
            None
        } else {
            match per_address.enter(peer.ip(), options.connections_per_address) {
                Some(place) => Some(place),
                None => {
                    drop(permit);
                    tokio::spawn(refuse_connection(stream));
                    continue;
                }
            }
        };
        let app = app.clone();
        let trusted = trusted.clone();
        // A request that turns into a stream gives the slot back (see `streams::Client::hold`).
        let slot = streams::ConnectionSlot::new(permit, place);
        tokio::spawn(async move {
            let held = slot.clone();
            let service = hyper::service::service_fn(
                move |mut req: hyper::Request<hyper::body::Incoming>| {
                    let client = security::client_address(peer, req.headers(), &trusted);
                    req.extensions_mut().insert(ConnectInfo(client));
                    req.extensions_mut().insert(held.clone());
                    app.clone().oneshot(req)
                },
            );
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(options.header_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                // WebSockets (online play) take the connection over after the upgrade.
                .with_upgrades();
            let _ = conn.await;
            slot.release();
        });
    }
}

/// Answers a connection over its address's cap with a 429 and closes it, without reading its
/// request (a client that sends nothing is not waited for).
async fn refuse_connection(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let body = r#"{"error":"too many connections from this address: close some first","code":"too-many-connections"}"#;
    let refusal = format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 10\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ =
        tokio::time::timeout(Duration::from_secs(2), stream.write_all(refusal.as_bytes())).await;
    let _ = stream.shutdown().await;
}
