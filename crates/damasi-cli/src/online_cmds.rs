//! Online play from the command line: `damasi user add`, `damasi user reset-password`,
//! `damasi user set-email` and `damasi token` (accounts, their passwords and addresses, and API
//! tokens in a server's data directory) and `damasi bot` (a Hub engine playing on a server).

use std::io::BufRead;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use damasi_online::accounts::Accounts;
use damasi_online::db::OnlineDb;
use damasi_online::{Online, OnlineConfig};
use damasi_tools::bot::{run_bot, BotApi, BotConfig, Seeking};

use crate::engine_cmds::engine_spec;
use crate::serve_cmd::default_data_dir;

/// Arguments of `damasi user`.
#[derive(Args)]
pub struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create an account and print a new API token for it as the last line.
    Add {
        /// The account's name (2 to 20 letters, digits, '-' or '_').
        name: String,
        /// The server's data directory (default: the user's data directory).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
        #[arg(long, value_name = "URL")]
        database: Option<String>,
        /// Read a password for logging in on the page from the first line of standard input
        /// (without it the account logs in with tokens only, as a bot does).
        #[arg(long)]
        password_stdin: bool,
    },
    /// Name an account a moderator (it sees the reports at /mod and acts on them); with
    /// --remove, no longer.
    Mod {
        /// The account's name.
        name: String,
        /// Take the role away.
        #[arg(long)]
        remove: bool,
        /// The server's data directory (default: the user's data directory).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
        #[arg(long, value_name = "URL")]
        database: Option<String>,
    },
    /// Print the moderation log, newest first: every moderator's action (and the operator's).
    ModLog {
        /// Only the actions on this account.
        #[arg(long)]
        name: Option<String>,
        /// At most this many lines.
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// The server's data directory (default: the user's data directory).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
        #[arg(long, value_name = "URL")]
        database: Option<String>,
    },
    /// Without mail: print a one-time link (valid for an hour) that sets a new password for
    /// the account, to hand to its owner; or, with --password-stdin, set the new password
    /// read from standard input. Either way every session of the account is logged out; its
    /// API tokens keep working.
    ResetPassword {
        /// The account's name.
        name: String,
        #[command(flatten)]
        store: Store,
        /// The site's address the link starts with (as the owner reaches it).
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
        url: String,
        /// Read the new password from the first line of standard input and set it, instead of
        /// printing a link.
        #[arg(long, alias = "password")]
        password_stdin: bool,
    },
    /// Set the account's e-mail address, confirmed (the operator vouches for it): password
    /// resets are mailed to it when the server has --smtp-url. `none` removes it.
    SetEmail {
        /// The account's name.
        name: String,
        /// The address, or `none`.
        address: String,
        #[command(flatten)]
        store: Store,
    },
}

/// Where a server keeps its accounts.
#[derive(Args)]
struct Store {
    /// The server's data directory (default: the user's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

/// Arguments of `damasi token`.
#[derive(Args)]
pub struct TokenArgs {
    /// The account's name.
    name: String,
    /// The server's data directory (default: the user's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn accounts(
    rt: &tokio::runtime::Runtime,
    data_dir: Option<PathBuf>,
    database: Option<String>,
) -> Result<Accounts> {
    Ok(Accounts::new(online_db(rt, data_dir, database)?))
}

/// The server's online database: PostgreSQL at `database`, else SQLite in the data directory.
pub(crate) fn online_db(
    rt: &tokio::runtime::Runtime,
    data_dir: Option<PathBuf>,
    database: Option<String>,
) -> Result<OnlineDb> {
    let db = match database {
        Some(url) => rt.block_on(OnlineDb::connect(&url)),
        None => {
            let dir = match data_dir {
                Some(d) => d,
                None => default_data_dir()?,
            };
            OnlineDb::open(&dir)
        }
    };
    db.map_err(|e| anyhow!(e))
}

fn now_ms() -> i64 {
    damasi_online::now_ms()
}

/// `damasi user ...`.
pub fn user(a: UserArgs) -> Result<()> {
    match a.command {
        UserCommand::Add {
            name,
            data_dir,
            database,
            password_stdin,
        } => {
            let password = if password_stdin {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .context("reading the password")?;
                Some(line.trim_end_matches(['\r', '\n']).to_string())
            } else {
                None
            };
            let rt = runtime()?;
            let accounts = accounts(&rt, data_dir, database)?;
            let token = rt.block_on(async {
                let player = match password {
                    Some(p) => accounts.sign_up(&name, p, now_ms()).await,
                    None => accounts.add_bot(&name, now_ms()).await,
                }
                .map_err(|e| anyhow!("cannot create '{name}': {}", api_message(&e)))?;
                accounts
                    .token_for(&player.name, now_ms())
                    .await
                    .map_err(|e| anyhow!("cannot make a token: {}", api_message(&e)))
            })?;
            println!("created account {name}; its API token:");
            println!("{token}");
            Ok(())
        }
        UserCommand::Mod {
            name,
            remove,
            data_dir,
            database,
        } => {
            let rt = runtime()?;
            let db = online_db(&rt, data_dir, database)?;
            let user = rt.block_on(async {
                let online = Online::new(db, OnlineConfig::default());
                online
                    .moderation()
                    .set_moderator(&name, !remove)
                    .await
                    .map_err(|e| anyhow!("{}", api_message(&e)))
            })?;
            match remove {
                false => println!("{} is a moderator", user.name),
                true => println!("{} is no longer a moderator", user.name),
            }
            Ok(())
        }
        UserCommand::ModLog {
            name,
            limit,
            data_dir,
            database,
        } => {
            let rt = runtime()?;
            let db = online_db(&rt, data_dir, database)?;
            let lines = rt.block_on(async {
                let online = Online::new(db, OnlineConfig::default());
                online
                    .moderation()
                    .moderation_log(None, name.as_deref(), limit)
                    .await
                    .map_err(|e| anyhow!("{}", api_message(&e)))
            })?;
            for l in lines {
                let at = l["at"].as_i64().unwrap_or(0) / 1000;
                println!(
                    "{at}\t{}\t{}\t{}\t{}",
                    l["moderator"].as_str().unwrap_or("?"),
                    l["name"].as_str().unwrap_or("?"),
                    l["action"].as_str().unwrap_or("?"),
                    l["details"].as_str().unwrap_or("")
                );
            }
            Ok(())
        }
        UserCommand::ResetPassword {
            name,
            store,
            url,
            password_stdin,
        } => {
            let password = if password_stdin {
                Some(read_password()?)
            } else {
                None
            };
            let rt = runtime()?;
            let accounts = accounts(&rt, store.data_dir, store.database)?;
            match password {
                Some(p) => {
                    let revoked = rt
                        .block_on(accounts.set_password_of(&name, p))
                        .map_err(|e| anyhow!("cannot set the password: {}", api_message(&e)))?;
                    println!(
                        "the password of {name} is set; {revoked} session(s) and link(s) revoked"
                    );
                }
                None => {
                    let secret = rt
                        .block_on(accounts.reset_link_for(&name, now_ms()))
                        .map_err(|e| anyhow!("cannot make a reset link: {}", api_message(&e)))?;
                    println!("a one-time link that sets a new password for {name} (one hour):");
                    println!("{}/account/reset/{secret}", url.trim_end_matches('/'));
                }
            }
            Ok(())
        }
        UserCommand::SetEmail {
            name,
            address,
            store,
        } => {
            let rt = runtime()?;
            let accounts = accounts(&rt, store.data_dir, store.database)?;
            let remove = address.eq_ignore_ascii_case("none");
            let to = (!remove).then_some(address.as_str());
            let p = rt
                .block_on(accounts.set_email_of(&name, to, now_ms()))
                .map_err(|e| anyhow!("cannot set the address: {}", api_message(&e)))?;
            if remove {
                println!("{} has no e-mail address now", p.name);
            } else {
                println!("{} has the confirmed address {}", p.name, address.trim());
            }
            Ok(())
        }
    }
}

/// The first line of standard input, without its line end.
fn read_password() -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password")?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

/// `damasi token NAME`.
pub fn token(a: TokenArgs) -> Result<()> {
    let rt = runtime()?;
    let accounts = accounts(&rt, a.data_dir, a.database)?;
    let token = rt
        .block_on(accounts.token_for(&a.name, now_ms()))
        .map_err(|e| anyhow!("{}", api_message(&e)))?;
    println!("{token}");
    Ok(())
}

/// The message of an API error, for the terminal (with the detail of a server fault).
fn api_message(e: &damasi_web::ApiError) -> String {
    match e {
        damasi_web::ApiError::Internal(detail) => detail.clone(),
        other => other.message().to_string(),
    }
}

/// Arguments of `damasi bot`.
#[derive(Args)]
pub struct BotArgs {
    /// The engine to run, a Hub engine command (e.g. "damasi hub --level 6").
    #[arg(long, default_value = "damasi hub")]
    engine: String,
    /// Engine parameter NAME=VALUE sent with set-param; may be repeated.
    #[arg(long = "param")]
    params: Vec<String>,
    /// The server, e.g. http://127.0.0.1:8080.
    #[arg(long)]
    server: String,
    /// The account's API token (`damasi user add`, `damasi token`, or the account page).
    #[arg(long, env = "DAMASI_TOKEN", hide_env_values = true)]
    token: String,
    /// Play as a person's account through the Board API, instead of as a BOT account through
    /// the Bot API (the default: the account is upgraded to a BOT at start, for good, which
    /// only an account that has played no game can be). Seeks and pools need it.
    #[arg(long)]
    board: bool,
    /// Open a seek in the lobby with this control (MINUTES+INCREMENT), again after each game
    /// (with --board: the lobby is for people).
    #[arg(long, value_name = "M+I", conflicts_with_all = ["pool", "challenge"], requires = "board")]
    seek: Option<String>,
    /// Join this quick-pairing pool (3+2, 5+3, 10+5, 15+10, 45+0), again after each game
    /// (with --board: the pools are for people).
    #[arg(
        long,
        value_name = "M+I",
        conflicts_with = "challenge",
        requires = "board"
    )]
    pool: Option<String>,
    /// Challenge this player by name at start and again after each game, with --control.
    #[arg(long, value_name = "NAME")]
    challenge: Option<String>,
    /// The control of the challenges (MINUTES+INCREMENT).
    #[arg(long, value_name = "M+I", default_value = "3+2")]
    control: String,
    /// How many games to play at once; challenges beyond are declined (`later`).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Make the seeks and challenges rated.
    #[arg(long)]
    rated: bool,
    /// Take a seat in this open challenge (a game id) at start; may be repeated.
    #[arg(long)]
    accept: Vec<String>,
    /// Join this Swiss tournament (its id, as in /swiss/ID) at start and play its games; may
    /// be repeated.
    #[arg(long = "swiss", value_name = "ID")]
    tournaments: Vec<String>,
    /// Stop after this many games.
    #[arg(long)]
    games: Option<u64>,
    /// Think this many seconds per move instead of following the clock.
    #[arg(long)]
    move_time: Option<f64>,
}

fn control(text: &str) -> Result<(i64, i64)> {
    let (m, i) = text
        .split_once('+')
        .ok_or_else(|| anyhow!("'{text}' is not MINUTES+INCREMENT, e.g. 5+3"))?;
    Ok((
        m.trim()
            .parse()
            .with_context(|| format!("minutes in '{text}'"))?,
        i.trim()
            .parse()
            .with_context(|| format!("increment in '{text}'"))?,
    ))
}

/// `damasi bot`.
pub fn bot(a: BotArgs) -> Result<()> {
    let seeking = match (&a.seek, &a.pool) {
        (Some(s), _) => {
            let (m, i) = control(s)?;
            Seeking::Seek(m, i)
        }
        (None, Some(p)) => {
            let (m, i) = control(p)?;
            Seeking::Pool(m, i)
        }
        (None, None) => match &a.challenge {
            Some(name) => {
                let (m, i) = control(&a.control)?;
                Seeking::Challenge(name.clone(), m, i)
            }
            None => Seeking::Wait,
        },
    };
    if a.concurrency == 0 {
        bail!("--concurrency 0: the bot must be able to play at least one game");
    }
    let move_time = match a.move_time {
        Some(t) if t.is_finite() && t > 0.0 && t <= 3600.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => bail!("--move-time {t} is not between 0 and 3600 seconds"),
        None => None,
    };
    let config = BotConfig {
        server: a.server,
        token: a.token,
        engine: engine_spec(&a.engine, None, &a.params)?,
        api: if a.board { BotApi::Board } else { BotApi::Bot },
        concurrency: a.concurrency,
        seeking,
        rated: a.rated,
        accept: a.accept,
        tournaments: a.tournaments,
        games: a.games,
        move_time,
    };
    run_bot(&config, &|line| println!("damasi bot: {line}")).map_err(|e| anyhow!("{e}"))
}
