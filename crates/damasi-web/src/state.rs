//! What every request handler shares ([`AppState`]): the saved games and their referee, the
//! engine, online play and tournaments, the limits and caps, the tables and evaluations, and
//! the server's outside parts (mail, the Telegram token, its public address).

use std::path::Path;
use std::sync::Arc;

use damasi_engine::oracle::EndgameOracle;

use damasi_online::brain::Brain;
use damasi_online::db::OnlineDb;
use damasi_online::{Online, OnlineConfig};

use crate::{
    cloud_eval, online, tablebase, Referee, Security, Store, StreamLimits, Streams, Tournaments,
};

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

    /// The same state with other caps on long-lived requests (see [`crate::streams`]).
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
