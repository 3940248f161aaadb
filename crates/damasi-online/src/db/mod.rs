//! Online play's storage: accounts, their secrets (log-in sessions and API tokens, kept only as
//! SHA-256 hashes), ratings per speed class, and online games with one row per move. Every
//! change is one transaction, and a move is acknowledged only after its row is committed, so a
//! crash loses no acknowledged move and no finished game.
//!
//! Two stores hold the same data: SQLite (`online.sqlite3` in the data directory, nothing to
//! install) and PostgreSQL (`--database postgres://...`), behind one [`OnlineDb`].
//!
//! What a store does is written once, as traits by area, each method's contract on the trait:
//! [`AccountStore`] and [`GameStore`] here, [`EventStore`], [`ExplorerStore`],
//! [`FairPlayStore`], [`MailStore`], [`ModerationStore`] and [`TwoFactorStore`] in the area
//! files beside their row types; [`Store`] is all of them. [`SqliteDb`] implements each (its
//! accounts and games in `sqlite/`, the other areas in their files) and so does [`PostgresDb`]
//! (`postgres/`). [`OnlineDb`] is a handle over an `Arc<dyn Store>`: dynamic dispatch, not a
//! type parameter, so the service, the web app and the bot keep one concrete database type
//! and choose the store when they start, not when they are compiled. Async methods of a trait
//! object need boxed futures, hence `async_trait`: one allocation per query, nothing beside
//! the query itself.

mod events;
mod explorer;
mod fair_play;
mod mail;
mod moderation;
mod move_writer;
mod postgres;
mod sqlite;
mod two_factor;

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::ApiError;

pub use events::{EventStore, TournamentFilter, TournamentRow};
pub use explorer::ExplorerStore;
pub use fair_play::{FairPlayStore, ScreenRow};
pub use mail::{EmailRow, MailStore};
pub use moderation::{LogRow, MarkRow, ModerationStore, ReportRow};
pub use postgres::PostgresDb;
pub use sqlite::{open_in, run_blocking, set_pragmas, SqliteDb};
pub use two_factor::{TokenRow, TwoFactorRow, TwoFactorStore};

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRow {
    /// Database id.
    pub id: i64,
    /// The name shown to others (unique, case-insensitively).
    pub name: String,
    /// The argon2id hash of the password (PHC string); none for guests and bot accounts made
    /// from the command line.
    pub password: Option<String>,
    /// Whether this is a guest (casual games only, no password).
    pub guest: bool,
    /// Whether this is a BOT account (lichess's title: it plays through the Bot API only).
    pub bot: bool,
    /// When the account was closed (Unix ms); none while open.
    pub closed_ms: Option<i64>,
}

/// What a secret opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretKind {
    /// A browser's log-in session (cookie).
    Session,
    /// An API token (`Authorization: Bearer`).
    Token,
    /// A one-time code that links an account of another service (`/link CODE` to the
    /// Telegram bot), valid for minutes.
    Link,
    /// A one-time link that confirms the account's e-mail address (mailed), valid for a day.
    ConfirmEmail,
    /// A one-time link that sets a new password (mailed, or printed by `damasi user
    /// reset-password`), valid for an hour.
    PasswordReset,
    /// A one-time recovery code of the second factor (ten are shown once when it is turned
    /// on); it opens nothing by itself.
    RecoveryCode,
}

impl SecretKind {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            SecretKind::Session => "session",
            SecretKind::Token => "token",
            SecretKind::Link => "link",
            SecretKind::ConfirmEmail => "confirm-email",
            SecretKind::PasswordReset => "password-reset",
            SecretKind::RecoveryCode => "recovery-code",
        }
    }
}

impl SecretKind {
    /// The kind stored as `word`.
    pub fn parse(word: &str) -> Option<SecretKind> {
        match word {
            "session" => Some(SecretKind::Session),
            "token" => Some(SecretKind::Token),
            "link" => Some(SecretKind::Link),
            "confirm-email" => Some(SecretKind::ConfirmEmail),
            "password-reset" => Some(SecretKind::PasswordReset),
            "recovery-code" => Some(SecretKind::RecoveryCode),
            _ => None,
        }
    }
}

/// A log-in session or API token as its owner sees it listed: never the secret, only the
/// hash kept of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretRow {
    /// The SHA-256 hash of the secret (hexadecimal).
    pub hash: String,
    /// What it opens.
    pub kind: SecretKind,
    /// When it was issued (Unix ms).
    pub created_ms: i64,
}

/// A rated game's result, for [`GameStore::finish`] to update both players' ratings from the
/// stored ones inside the transaction that ends the game: ratings read earlier, outside it,
/// would let games that end at the same instant overwrite each other's changes.
#[derive(Clone, Debug)]
pub struct RatedResult {
    /// White's account.
    pub white: i64,
    /// Black's account.
    pub black: i64,
    /// The speed class's name (`blitz`, ...).
    pub speed: String,
    /// How the game ended.
    pub outcome: damasi::Outcome,
    /// When it ended (Unix ms): the time of the rating history's new points.
    pub at_ms: i64,
}

impl RatedResult {
    /// The new ratings from the current ones and the rating changes shown to the players
    /// (rounded as they are displayed); `None` when the result rates no one (an abort).
    pub(super) fn apply(
        &self,
        white: &RatingRow,
        black: &RatingRow,
    ) -> Option<(RatingRow, RatingRow, [Option<i64>; 2])> {
        let (nw, nb) = super::rating::update(white, black, &self.outcome)?;
        let diffs = [
            Some((nw.rating.round() - white.rating.round()) as i64),
            Some((nb.rating.round() - black.rating.round()) as i64),
        ];
        Some((nw, nb, diffs))
    }
}

/// The `SET` list of an upsert of a row with `columns` (comma-separated, the key `id` first):
/// every other column from the row sent. An upsert, not SQLite's `INSERT OR REPLACE`: a
/// replace deletes the old row first, and the deletion cascades to the rows that reference
/// it (a game's moves, the messages showing it).
fn upsert_set(columns: &str) -> String {
    columns
        .split(',')
        .map(str::trim)
        .filter(|c| *c != "id")
        .map(|c| format!("{c} = excluded.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A player's Glicko-2 rating in one speed class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingRow {
    /// Rating, 1500 at the start.
    pub rating: f64,
    /// Rating deviation, 350 at the start.
    pub deviation: f64,
    /// Volatility, 0.06 at the start.
    pub volatility: f64,
    /// Rated games played in this class.
    pub games: i64,
}

/// An online game as stored, without its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnlineGameRow {
    /// The game's id: random, so links cannot be guessed.
    pub id: String,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// White's and Black's account ids (none while a seat is open).
    pub players: [Option<i64>; 2],
    /// Time each side starts with (ms).
    pub initial_ms: i64,
    /// Increment per move (ms).
    pub increment_ms: i64,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// Whether the players may chat.
    pub chat: bool,
    /// `open` (a seat is free), `playing`, or `over`.
    pub status: String,
    /// The outcome code once over.
    pub outcome: Option<String>,
    /// When the side to move's turn began (Unix ms), to resume clocks after a restart.
    pub turn_started_ms: Option<i64>,
    /// Rating changes of White and Black, once a rated game is over.
    pub diffs: [Option<i64>; 2],
    /// The only account that may take the free seat: the one a direct challenge was sent to
    /// (`POST /api/challenge/{username}`); none for open games.
    pub invited: Option<i64>,
    /// The rules it is played under (stored as the rule set's name; games stored before
    /// the column existed read as the default).
    pub rules: damasi::RuleSet,
    /// The tournament that paired it, as its page's path (`swiss/ID` for a Swiss or round
    /// robin, `tournament/ID` for an arena); none for other games.
    pub event: Option<String>,
}

impl OnlineGameRow {
    /// The Swiss (or round robin) that paired the game, by id.
    pub fn swiss_id(&self) -> Option<&str> {
        self.event.as_deref()?.strip_prefix("swiss/")
    }

    /// The arena that paired the game, by id.
    pub fn arena_id(&self) -> Option<&str> {
        self.event.as_deref()?.strip_prefix("tournament/")
    }
}

/// One game in a player's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// The game.
    pub row: OnlineGameRow,
    /// White's and Black's names.
    pub names: [Option<String>; 2],
    /// Plies played.
    pub plies: i64,
}

/// An account reached from another service (a Telegram user): the account here, and the
/// service's settings for that person (a JSON object the service reads, such as a language).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideAccount {
    /// The account.
    pub user: UserRow,
    /// The service's settings for this person, as JSON.
    pub settings: String,
}

/// A message in another service (a Telegram inline message) that shows a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownGame {
    /// The service's name for the message, with the service's prefix (`tg:...`).
    pub message: String,
    /// The online game it shows.
    pub game_id: String,
    /// The service's settings for the message (chat kind, an engine's level), as JSON.
    pub settings: String,
}

/// A message in another service that shows a tournament (a Telegram group's message with its
/// entrants and standings), or a service's note about one (its final standings posted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownEvent {
    /// The service's name for the message, with the service's prefix (`tge:...`).
    pub message: String,
    /// The tournament.
    pub tournament_id: String,
    /// The service's settings for the message, as JSON.
    pub settings: String,
}

/// What one player is to another: followed or blocked (one at most, as on lichess: blocking
/// a followed player stops following them, following a blocked one unblocks them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Followed: their presence is shown, they are challenged from their page.
    Follow,
    /// Blocked: their challenges are refused and their chat lines are not shown.
    Block,
}

impl Relation {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Follow => "follow",
            Relation::Block => "block",
        }
    }

    /// The relation stored as `word`.
    pub fn parse(word: &str) -> Option<Relation> {
        match word {
            "follow" => Some(Relation::Follow),
            "block" => Some(Relation::Block),
            _ => None,
        }
    }
}

/// A game's result for one of its players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// The player won.
    Win,
    /// A draw.
    Draw,
    /// The player lost.
    Loss,
}

/// Which of a player's games to list; `None` fields do not filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Rated games only (`true`) or casual ones only (`false`).
    pub rated: Option<bool>,
    /// Games of this speed class only.
    pub speed: Option<crate::rating::Speed>,
    /// Finished games with this result for the player only.
    pub result: Option<GameResult>,
}

impl GameFilter {
    /// The filter as SQL conditions on the game `g`, the player being parameter `$1`; made of
    /// fixed text only (no value of the request is pasted in).
    fn sql(&self) -> String {
        let mut out = String::new();
        match self.rated {
            Some(true) => out.push_str(" AND g.rated"),
            Some(false) => out.push_str(" AND NOT g.rated"),
            None => {}
        }
        if let Some(speed) = self.speed {
            // The speed class from the estimate initial + 40 increments (`Speed::of`), in ms.
            let (lo, hi) = match speed {
                crate::rating::Speed::Bullet => (i64::MIN, 180_000),
                crate::rating::Speed::Blitz => (180_000, 480_000),
                crate::rating::Speed::Rapid => (480_000, 1_500_000),
                crate::rating::Speed::Classical => (1_500_000, crate::DAY_MS),
                // Days a move, kept as `initial_ms` with no increment (`days_per_turn`).
                crate::rating::Speed::Correspondence => (crate::DAY_MS, i64::MAX),
            };
            out.push_str(&format!(
                " AND g.initial_ms + 40 * g.increment_ms >= {lo} AND g.initial_ms + 40 * g.increment_ms < {hi}"
            ));
        }
        if let Some(result) = self.result {
            out.push_str(" AND g.status = 'over' AND ");
            out.push_str(match result {
                GameResult::Win => WON,
                GameResult::Draw => "g.outcome LIKE 'draw:%'",
                GameResult::Loss => LOST,
            });
        }
        out
    }
}

/// SQL: the player `$1` won game `g`.
const WON: &str = "((g.white_id = $1 AND g.outcome LIKE 'white:%') OR (g.black_id = $1 AND g.outcome LIKE 'black:%'))";
/// SQL: the player `$1` lost game `g`.
const LOST: &str = "((g.white_id = $1 AND g.outcome LIKE 'black:%') OR (g.black_id = $1 AND g.outcome LIKE 'white:%'))";

/// SQL: a player's finished games counted (`$1`: the player): all, won, drawn, lost, rated
/// (aborted games are not counted).
const RECORD_SQL: &str = "SELECT COUNT(*), \
    COALESCE(SUM(CASE WHEN ((g.white_id = $1 AND g.outcome LIKE 'white:%') OR (g.black_id = $1 AND g.outcome LIKE 'black:%')) THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN g.outcome LIKE 'draw:%' THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN ((g.white_id = $1 AND g.outcome LIKE 'black:%') OR (g.black_id = $1 AND g.outcome LIKE 'white:%')) THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN g.rated THEN 1 ELSE 0 END), 0) \
    FROM online_games g WHERE (g.white_id = $1 OR g.black_id = $1) \
    AND g.status = 'over' AND g.outcome IS NOT NULL AND g.outcome <> 'aborted'";

/// SQL: the leaderboard of speed `$1`: people's accounts (not guests, not BOTs) whose deviation is at most `$2`
/// and who played a rated game of that speed at `$3` or later, best first, at most `$4`; each
/// with its rating before its last [`PROGRESS_GAMES`] games (the start, 1500, when it has
/// played fewer).
/// SQL: closing account `$1`, one statement each, run in one transaction: its old name kept
/// out of use (only its hash, `$2`, so the name is not tied to the account any more), the
/// account renamed `$3` and marked closed at `$4` with no password nor e-mail address (so no
/// reset link can open it again), its sessions, tokens,
/// linked accounts and follows and blocks (both ways) forgotten. Its games and ratings stay.
const CLOSE_ACCOUNT_SQL: [&str; 5] = [
    "INSERT INTO retired_names (hash) VALUES ($2) ON CONFLICT DO NOTHING",
    "UPDATE users SET name = $3, password = NULL, email = NULL, email_confirmed_ms = NULL, \
     closed_ms = $4 WHERE id = $1",
    "DELETE FROM secrets WHERE user_id = $1",
    "DELETE FROM outside_accounts WHERE user_id = $1",
    "DELETE FROM relations WHERE from_id = $1 OR to_id = $1",
];

/// `sql`, written with the parameters `$1`..`$N` of `params`, renumbered to the ones it uses
/// (`$1`.. in order), with those parameters: both stores refuse a parameter a statement does
/// not use.
fn only_used<T: Copy, const N: usize>(sql: &str, params: [T; N]) -> (String, Vec<T>) {
    let mut sql = sql.to_string();
    let mut used = Vec::new();
    for (i, p) in params.into_iter().enumerate() {
        let name = format!("${}", i + 1);
        if sql.contains(&name) {
            used.push(p);
            // Placeholders first, so `$2` renamed `$1` is not taken for the old `$1`.
            sql = sql.replace(&name, &format!("#{}", used.len()));
        }
    }
    (sql.replace('#', "$"), used)
}

/// SQL: whether the name whose hash is `$1` belonged to a closed account.
const RETIRED_NAME_SQL: &str = "SELECT 1 FROM retired_names WHERE hash = $1";

/// SQL: account `$1` becomes a BOT unless a guest or it has played a game (see
/// [`AccountStore::make_bot`]).
const MAKE_BOT_SQL: &str = "UPDATE users SET bot = TRUE WHERE id = $1 AND NOT guest \
    AND NOT EXISTS (SELECT 1 FROM online_games g WHERE (g.white_id = $1 OR g.black_id = $1) \
    AND (g.status = 'playing' OR (g.status = 'over' AND g.outcome IS NOT NULL \
    AND g.outcome <> 'aborted')))";

const LEADERBOARD_SQL: &str = "SELECT u.id, u.name, u.password, u.guest, \
    r.rating, r.deviation, r.volatility, r.games, \
    COALESCE((SELECT h.rating FROM rating_history h WHERE h.user_id = r.user_id AND h.speed = r.speed \
      ORDER BY h.id DESC LIMIT 1 OFFSET 12), 1500.0), u.bot, u.closed_ms \
    FROM ratings r JOIN users u ON u.id = r.user_id \
    WHERE r.speed = $1 AND r.deviation <= $2 AND NOT u.guest AND NOT u.bot \
    AND u.closed_ms IS NULL \
    AND NOT EXISTS (SELECT 1 FROM marks m WHERE m.user_id = u.id AND m.kind = 'engine') \
    AND EXISTS (SELECT 1 FROM rating_history h WHERE h.user_id = r.user_id AND h.speed = r.speed AND h.at_ms >= $3) \
    ORDER BY r.rating DESC, u.id LIMIT $4";

/// SQL: one page of the games of player `$1` that pass `filter`, newest first (`$2` rows
/// from `$3`), with the players' names and the plies played (the columns of `games_of`); and
/// the count of those games.
fn games_page_sql(filter: &GameFilter) -> (String, String) {
    let cond = format!("(g.white_id = $1 OR g.black_id = $1){}", filter.sql());
    (
        format!(
            "SELECT g.id, g.created_ms, g.white_id, g.black_id, g.initial_ms, g.increment_ms, \
             g.rated, g.chat, g.status, g.outcome, g.turn_started_ms, g.white_diff, g.black_diff, \
             g.invited_id, g.rules, g.event, w.name, b.name, \
             (SELECT COUNT(*) FROM online_moves m WHERE m.game_id = g.id) \
             FROM online_games g LEFT JOIN users w ON w.id = g.white_id \
             LEFT JOIN users b ON b.id = g.black_id \
             WHERE {cond} ORDER BY g.created_ms DESC, g.id LIMIT $2 OFFSET $3"
        ),
        format!("SELECT COUNT(*) FROM online_games g WHERE {cond}"),
    )
}

/// How many of a player's last games the leaderboard's `progress` covers (as lichess's).
pub const PROGRESS_GAMES: usize = 12;

/// A player's finished games counted (aborted ones are not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Finished games.
    pub all: i64,
    /// Won.
    pub wins: i64,
    /// Drawn.
    pub draws: i64,
    /// Lost.
    pub losses: i64,
    /// Rated among them.
    pub rated: i64,
}

/// One point of a player's rating history: the rating after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    /// The speed class's name.
    pub speed: String,
    /// When the game ended (Unix ms).
    pub at_ms: i64,
    /// The rating after it.
    pub rating: f64,
}

/// One line of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderRow {
    /// The player.
    pub user: UserRow,
    /// Their rating in the speed class.
    pub rating: RatingRow,
    /// Their rating before their last [`PROGRESS_GAMES`] games there.
    pub before: f64,
}

/// Everything online play stores: each area's trait, implemented by [`SqliteDb`] and by
/// [`PostgresDb`] (and by nothing else: it is implemented for any type that implements them
/// all).
pub trait Store:
    AccountStore
    + GameStore
    + EventStore
    + ExplorerStore
    + FairPlayStore
    + MailStore
    + ModerationStore
    + TwoFactorStore
{
}

impl<T> Store for T where
    T: AccountStore
        + GameStore
        + EventStore
        + ExplorerStore
        + FairPlayStore
        + MailStore
        + ModerationStore
        + TwoFactorStore
{
}

/// Online play's database, SQLite or PostgreSQL; cheap to clone. It dereferences to its
/// [`Store`], so the stores' methods are called on it (`db.user(id).await`).
#[derive(Clone)]
pub struct OnlineDb {
    store: Arc<dyn Store>,
    /// The same store when it is PostgreSQL, which several processes can share
    /// ([`crate::cluster`]).
    postgres: Option<PostgresDb>,
}

impl OnlineDb {
    /// Opens (creating if needed) `online.sqlite3` in `dir`.
    pub fn open(dir: &Path) -> Result<OnlineDb, String> {
        SqliteDb::open(dir).map(OnlineDb::from)
    }

    /// Connects to PostgreSQL at `url` (`postgres://user:password@host/db`) and creates the
    /// tables if needed.
    pub async fn connect(url: &str) -> Result<OnlineDb, String> {
        PostgresDb::connect(url).await.map(OnlineDb::from)
    }

    /// A database in memory, for tests.
    pub fn in_memory() -> OnlineDb {
        OnlineDb::from(SqliteDb::in_memory())
    }

    /// The PostgreSQL store, when that is the one in use.
    pub fn postgres(&self) -> Option<&PostgresDb> {
        self.postgres.as_ref()
    }
}

impl From<SqliteDb> for OnlineDb {
    fn from(db: SqliteDb) -> OnlineDb {
        OnlineDb {
            store: Arc::new(db),
            postgres: None,
        }
    }
}

impl From<PostgresDb> for OnlineDb {
    fn from(db: PostgresDb) -> OnlineDb {
        OnlineDb {
            postgres: Some(db.clone()),
            store: Arc::new(db),
        }
    }
}

impl Deref for OnlineDb {
    type Target = dyn Store;

    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

/// Accounts: users, their secrets (sessions, tokens, one-time codes), the accounts of other
/// services tied to them, and what players are to each other (follows, blocks).
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Creates an account; refused (409 `name-taken`) when the name is in use.
    async fn create_user(
        &self,
        name: &str,
        password: Option<String>,
        guest: bool,
        now_ms: i64,
    ) -> Result<UserRow, ApiError>;

    /// The account called `name` (any case).
    async fn user_by_name(&self, name: &str) -> Result<Option<UserRow>, ApiError>;

    /// The account with id `id`.
    async fn user(&self, id: i64) -> Result<Option<UserRow>, ApiError>;

    /// Closes account `user` in one transaction: renamed `new_name` and closed at `now_ms`,
    /// its old name's hash `retired` kept out of use, its password, address, sessions, tokens,
    /// links and relations forgotten.
    async fn close_user(
        &self,
        user: i64,
        retired: String,
        new_name: String,
        now_ms: i64,
    ) -> Result<(), ApiError>;

    /// Whether the name whose hash is `hash` belonged to a closed account (kept out of use).
    async fn name_retired(&self, hash: String) -> Result<bool, ApiError>;

    /// Makes account `user` a BOT, for good, if it is not a guest and has played no game (one
    /// started and not aborted); in one statement, so a game starting meanwhile either counts
    /// or comes after. Whether it is a BOT now.
    async fn make_bot(&self, user: i64) -> Result<bool, ApiError>;

    /// Keeps the hash of a new secret of `user`.
    async fn add_secret(
        &self,
        user: i64,
        kind: SecretKind,
        hash: String,
        now_ms: i64,
    ) -> Result<(), ApiError>;

    /// The account a secret of `kind` with this hash belongs to, if the secret was issued at
    /// `not_before_ms` or later (older ones have expired).
    async fn user_by_secret(
        &self,
        hash: String,
        kind: SecretKind,
        not_before_ms: i64,
    ) -> Result<Option<UserRow>, ApiError>;

    /// Forgets a secret (log-out).
    async fn delete_secret(&self, hash: String) -> Result<(), ApiError>;

    /// `user`'s API tokens and its sessions issued at `sessions_since_ms` or later, newest
    /// first.
    async fn secrets_of(
        &self,
        user: i64,
        sessions_since_ms: i64,
    ) -> Result<Vec<SecretRow>, ApiError>;

    /// Forgets `user`'s secrets whose hash starts with `prefix` (all of them without one),
    /// except the one whose hash is `keep`; returns how many.
    async fn revoke_secrets(
        &self,
        user: i64,
        prefix: Option<String>,
        keep: Option<String>,
    ) -> Result<u64, ApiError>;

    /// Sets `user`'s password hash and forgets every secret of theirs but `keep`, in one
    /// transaction; returns how many secrets were forgotten.
    async fn set_password(
        &self,
        user: i64,
        hash: String,
        keep: Option<String>,
    ) -> Result<u64, ApiError>;

    /// Forgets the sessions issued before `before_ms` (expired); returns how many.
    async fn delete_expired_sessions(&self, before_ms: i64) -> Result<u64, ApiError>;

    /// The ids the account `user` is reached by from `service` (the Telegram users linked
    /// to it).
    async fn outside_ids_of(&self, service: &str, user: i64) -> Result<Vec<String>, ApiError>;

    /// The account reached from `service` as `outside_id`, if it has one.
    async fn outside_account(
        &self,
        service: &str,
        outside_id: &str,
    ) -> Result<Option<OutsideAccount>, ApiError>;

    /// Ties `outside_id` of `service` to account `user` with `settings` (replacing what it
    /// was tied to: linking a Telegram user to an existing account).
    async fn set_outside_account(
        &self,
        service: &str,
        outside_id: &str,
        user: i64,
        settings: &str,
    ) -> Result<(), ApiError>;

    /// Unties from account `user` the ids of `service` tied to it (only `outside_id`, when
    /// given); the account is not touched. Returns how many.
    async fn delete_outside_accounts(
        &self,
        service: &str,
        user: i64,
        outside_id: Option<&str>,
    ) -> Result<u64, ApiError>;

    /// Sets what `from` is to `to` (replacing a follow by a block or the other way round).
    async fn set_relation(
        &self,
        from: i64,
        to: i64,
        relation: Relation,
        now_ms: i64,
    ) -> Result<(), ApiError>;

    /// Undoes `from`'s `relation` to `to` if that is what it is (unfollowing a blocked
    /// player leaves the block).
    async fn clear_relation(&self, from: i64, to: i64, relation: Relation) -> Result<(), ApiError>;

    /// What `from` is to `to`, if anything.
    async fn relation(&self, from: i64, to: i64) -> Result<Option<Relation>, ApiError>;

    /// The accounts `from` follows (or blocks), by name, at most `limit`.
    async fn related(
        &self,
        from: i64,
        relation: Relation,
        limit: i64,
    ) -> Result<Vec<UserRow>, ApiError>;
}

/// Online games and their moves, ratings and leaderboards, and the messages of other services
/// that show games and tournaments.
#[async_trait]
pub trait GameStore: Send + Sync {
    /// Ends game `id` with `outcome` if it is still open (nobody took the free seat
    /// meanwhile); whether it was.
    async fn withdraw_open(&self, id: &str, outcome: String) -> Result<bool, ApiError>;

    /// Ids of the open games (a seat free) created before `before_ms`.
    async fn open_before(&self, before_ms: i64) -> Result<Vec<String>, ApiError>;

    /// The open games that are challenges to `user` (oldest first, at most 50).
    async fn challenges_to(&self, user: i64) -> Result<Vec<String>, ApiError>;

    /// `user`'s rating in `speed`, if it has played there.
    async fn rating(&self, user: i64, speed: &str) -> Result<Option<RatingRow>, ApiError>;

    /// All of `user`'s ratings, by speed class name.
    async fn ratings(&self, user: i64) -> Result<Vec<(String, RatingRow)>, ApiError>;

    /// Stores a new game, or its changed row (seats, status); its moves stay.
    async fn save_game(&self, g: OnlineGameRow) -> Result<(), ApiError>;

    /// Appends ply `ply` to game `id` and records when the next turn began, in one
    /// transaction.
    async fn add_move(
        &self,
        id: &str,
        ply: usize,
        token: String,
        elapsed_ms: i64,
        turn_started_ms: i64,
    ) -> Result<(), ApiError>;

    /// Drops the plies of game `id` from `ply` on (a takeback) and records when the turn began.
    async fn truncate_moves(
        &self,
        id: &str,
        ply: usize,
        turn_started_ms: i64,
    ) -> Result<(), ApiError>;

    /// Ends game `id` with `outcome` and, for a rated game, updates both players' ratings, all
    /// in one transaction that holds the two rating rows from read to write (so concurrent
    /// endings of one player's games are applied one after another, none lost). Returns the
    /// rating changes (White, Black). A game already ended is left as it is.
    async fn finish(
        &self,
        id: &str,
        outcome: String,
        rated: Option<RatedResult>,
    ) -> Result<[Option<i64>; 2], ApiError>;

    /// Game `id` and its moves (token, thinking time in ms), if it exists.
    async fn game(&self, id: &str)
        -> Result<Option<(OnlineGameRow, Vec<(String, i64)>)>, ApiError>;

    /// Those of `ids` that are over, each with its outcome's code (as [`OnlineGameRow`]'s):
    /// one query however many games (the tournament director's catch-up, every tick).
    async fn ended_among(&self, ids: &[String]) -> Result<Vec<(String, Option<String>)>, ApiError>;

    /// Ids of the games not over (to look after again after a restart).
    async fn unfinished(&self) -> Result<Vec<String>, ApiError>;

    /// `user`'s newest games, at most `limit`.
    async fn games_of(&self, user: i64, limit: i64) -> Result<Vec<GameSummary>, ApiError>;

    /// The ids of the games `user` is playing now, newest first, at most `limit`.
    async fn playing_of(&self, user: i64, limit: i64) -> Result<Vec<String>, ApiError>;

    /// The game a message shows, if any.
    async fn shown_game(&self, message: &str) -> Result<Option<ShownGame>, ApiError>;

    /// Records that `shown.message` shows `shown.game_id`; a message shows one game for
    /// ever (409 `message-taken` if it already shows one).
    async fn add_shown_game(&self, shown: ShownGame) -> Result<(), ApiError>;

    /// The tournament message `message`, if any.
    async fn shown_event(&self, message: &str) -> Result<Option<ShownEvent>, ApiError>;

    /// Records that `shown.message` shows `shown.tournament_id` (409 `message-taken` if the
    /// message is recorded already).
    async fn add_shown_event(&self, shown: ShownEvent) -> Result<(), ApiError>;

    /// The tournament messages whose prefix is `prefix`.
    async fn shown_events(&self, prefix: &str) -> Result<Vec<ShownEvent>, ApiError>;

    /// The messages whose prefix is `prefix` and whose game is not over (to look after again
    /// after a restart).
    async fn shown_unfinished(&self, prefix: &str) -> Result<Vec<ShownGame>, ApiError>;

    /// `user`'s rating history, oldest first: one point per rated game since it was kept.
    async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError>;

    /// The leaderboard of `speed`: accounts with a deviation at most `max_deviation` and a
    /// rated game there at `active_since_ms` or later, best first, at most `limit`.
    async fn leaderboard(
        &self,
        speed: &str,
        max_deviation: f64,
        active_since_ms: i64,
        limit: i64,
    ) -> Result<Vec<LeaderRow>, ApiError>;

    /// `user`'s finished games counted: won, drawn, lost, rated.
    async fn record(&self, user: i64) -> Result<GameRecord, ApiError>;

    /// One page of `user`'s games that pass `filter`, newest first (`offset`, at most
    /// `limit`), and how many pass it in all.
    async fn games_page(
        &self,
        user: i64,
        filter: GameFilter,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<GameSummary>, i64), ApiError>;
}

/// The rule set of a stored name (the `rules` column of `online_games`), or an error naming
/// the game: only [`damasi::RuleSet::name`] writes the column, so another text is damage.
pub(crate) fn stored_rules(id: &str, name: &str) -> Result<damasi::RuleSet, String> {
    damasi::RuleSet::from_name(name).map_err(|e| format!("online game {id}: stored rules: {e}"))
}
