//! `damasi serve`: the web app on this machine, by default at http://127.0.0.1:8080/.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use damasi_web::{AppState, Security};

/// Arguments of `damasi serve`.
#[derive(Args, Default)]
pub struct ServeArgs {
    /// Port to listen on [default: 8080] (0 picks a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Address to listen on. The default, 127.0.0.1, lets only this machine in; use 0.0.0.0
    /// to let other machines on the network play too.
    #[arg(long)]
    host: Option<IpAddr>,
    /// Where the saved games are kept (default: the user's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Another host name the server answers to (e.g. its name on the network or behind a
    /// reverse proxy); may be given several times. Localhost names and IP addresses are
    /// always accepted; other names are refused, which stops DNS-rebinding attacks.
    #[arg(long = "allowed-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
    /// A reverse proxy (its address, e.g. 127.0.0.1) whose `X-Forwarded-For` or `Forwarded`
    /// header names the client; may be given several times. Without it every visitor behind
    /// a proxy is the proxy's one address to the rate limits; from other peers the headers
    /// are ignored, so nobody can pick an address.
    #[arg(long = "trusted-proxy", value_name = "ADDR")]
    trusted_proxies: Vec<IpAddr>,
    /// The access token that changes to the saved games need when the server is reachable
    /// from other machines: listening beyond this machine, or with `--allowed-host` or
    /// `--trusted-proxy` (default: a new random one, printed at start). Viewing needs none;
    /// online play needs the players' own log-ins instead.
    #[arg(long)]
    token: Option<String>,
    /// Most spectators' long-lived connections (watched games' sockets and streams,
    /// tournament pages, waiting requests) from one client address [default: 16]. Players'
    /// own sockets and event streams are counted apart (100 an address, 16 an account).
    #[arg(long, value_name = "N")]
    streams_per_address: Option<usize>,
    /// Most spectators' long-lived connections in all [default: 400]. Players' are counted
    /// apart, up to 20,000 (fewer when the limit of open files cannot be raised that far).
    #[arg(long, value_name = "N")]
    max_streams: Option<usize>,
    /// Most players' own sockets and event streams from one client address [default: 100]
    /// (a club behind one router; a load test from one machine needs more).
    #[arg(long, value_name = "N")]
    player_streams_per_address: Option<usize>,
    /// Most open connections from one client address [default: 64]; beyond it a connection
    /// gets a 429 and is closed (a load test from one machine needs more).
    #[arg(long, value_name = "N")]
    connections_per_address: Option<usize>,
    /// Keep accounts, ratings and online games in PostgreSQL
    /// (`postgres://USER:PASSWORD@HOST/DB`) instead of `online.sqlite3` in the data directory.
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// Run as one of several server processes behind one address, sharing the `--database`
    /// PostgreSQL server and this Redis server (`redis://HOST:PORT`) for game ownership,
    /// forwarded requests, events and the lobby.
    #[arg(long, value_name = "URL", requires = "database")]
    pubsub: Option<String>,
    /// With `--pubsub`: this process directs the tournaments (Swiss and arenas). Give it to
    /// exactly one process of the cluster and send `/swiss`, `/tournament`, `/api/swiss` and
    /// `/api/tournament` to that one; the others answer them 503 `not-here`. A single
    /// process always directs its tournaments.
    #[arg(long, requires = "pubsub")]
    tournaments: bool,
    /// Endgame table directory for the Study view's tablebase panel, or `none` (default:
    /// `tablebases/` in the data directory, used if tables are there).
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
    /// Run the Telegram bot too, with this token from BotFather (also read from the
    /// environment variable `DAMASI_TELEGRAM_TOKEN`). Give it to every process of a
    /// cluster: one runs the bot at a time, and another takes it over if that one stops.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "DAMASI_TELEGRAM_TOKEN",
        hide_env_values = true
    )]
    telegram_token: Option<String>,
    /// Another Bot API server for the bot (the self-hosted `telegram-bot-api`, or a test
    /// stand-in) instead of https://api.telegram.org.
    #[arg(long, value_name = "URL", requires = "telegram_token")]
    telegram_api_url: Option<String>,
    /// The site's public address (e.g. `https://dama.example`), for links to games' pages
    /// (the Telegram messages' "open on the web" button) and in account mail.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Send account mail (the links that confirm an address and reset a password) through
    /// this SMTP server: `smtp://USER:PASSWORD@HOST:587?tls=required` (STARTTLS),
    /// `smtps://USER:PASSWORD@HOST` (TLS, port 465) or `smtp://HOST:PORT` (no TLS: a relay on
    /// this machine). Also read from `DAMASI_SMTP_URL`. Without it, the operator resets
    /// passwords with `damasi user reset-password`.
    #[arg(
        long,
        value_name = "URL",
        env = "DAMASI_SMTP_URL",
        hide_env_values = true,
        requires = "mail_from"
    )]
    smtp_url: Option<String>,
    /// The sender of account mail, e.g. `damasi <noreply@dama.example>`.
    #[arg(long, value_name = "ADDRESS", requires = "smtp_url")]
    mail_from: Option<String>,
    /// The short name of the bot's Mini App (made with BotFather's `/newapp`, with the site's
    /// `/online` page as its address): a game message's web button then opens the game inside
    /// Telegram, logged in as the person who pressed it.
    #[arg(long, value_name = "NAME", requires = "telegram_token")]
    telegram_app: Option<String>,
    /// Do not screen rated games for fair play. By default one thread at the lowest priority
    /// scores each rated game's moves against the engine after it ends and reports players
    /// beyond the thresholds to the moderators (docs/fair-play.md).
    #[arg(long)]
    no_fair_play: bool,
}

/// The cap on players' long-lived connections: `wanted`, or fewer when the process cannot
/// open that many files. Each connection is a file descriptor, and the usual soft limit
/// (1,024) is far below what a busy server needs, so it is raised to what the system allows.
fn players_cap(spectators: usize, wanted: usize) -> usize {
    // Ordinary connections, spectators' streams, and a margin for the databases, logs and
    // tables the server opens.
    let others = damasi_web::MAX_CONNECTIONS + spectators + 128;
    let want = (wanted + others) as u64;
    let have = match rlimit::increase_nofile_limit(want) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("damasi: cannot raise the limit of open files: {e}");
            1024
        }
    };
    let cap = (have.min(want) as usize).saturating_sub(others).max(64);
    if cap < wanted {
        eprintln!(
            "damasi: note: at most {cap} players' sockets and streams (the process may open \
             {have} files; raise `ulimit -n` for more)"
        );
    }
    cap.min(wanted)
}

fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

/// The user's data directory for damasi, e.g. `~/.local/share/damasi` on Linux.
pub(crate) fn default_data_dir() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "damasi")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| anyhow!("no home directory found: pass --data-dir"))
}

/// `damasi serve`.
pub fn serve(a: ServeArgs) -> Result<()> {
    let port = a.port.unwrap_or(8080);
    let host = a.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let data_dir = match a.data_dir {
        Some(d) => d,
        None => default_data_dir()?,
    };
    let mut security = Security::local();
    for name in &a.allowed_hosts {
        security = security.allow_host(name);
    }
    // Behind a reverse proxy the server listens on 127.0.0.1 but answers the internet: a
    // public name or a trusted proxy says so, and then the local screens need the token too.
    let public =
        !host.is_loopback() || !a.allowed_hosts.is_empty() || !a.trusted_proxies.is_empty();
    let token = if !public {
        a.token
    } else {
        Some(a.token.unwrap_or_else(random_token))
    };
    if let Some(t) = &token {
        security = security.with_token(t.clone());
    }
    let tb_flag = a
        .tb_dir
        .clone()
        .unwrap_or_else(|| data_dir.join("tablebases"));
    // The tables directory is watched: tables built into it while the server runs are used
    // at the next request (the Study view's panel), no restart needed.
    let tables = match crate::tb_cmds::tables_dir(Some(&tb_flag)) {
        None => damasi_web::Tablebases::default(),
        Some(dir) => damasi_web::Tablebases::watching(dir, crate::tb_cmds::hub_loader()),
    };
    let (oracle, error) = tables.refresh();
    if a.tb_dir.is_some() && oracle.is_none() {
        // A directory given explicitly must hold tables (the default one may be empty).
        match error {
            Some(e) => bail!("cannot read the endgame tables in {e}"),
            None if tb_flag != Path::new(crate::tb_cmds::NO_TABLES) => bail!(
                "no endgame tables in {}: build them with `damasi tb build --pieces 5 --dir {}`",
                tb_flag.display(),
                tb_flag.display()
            ),
            None => {}
        }
    }
    let tables_line = tables
        .description()
        .map(|d| format!("damasi: {d} from {}", tb_flag.display()));
    // Read in the background from the start, so that the first probes do not wait for them.
    if let Some(o) = oracle {
        std::thread::spawn(move || o.prepare());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let online = match &a.database {
        None => damasi_online::db::OnlineDb::open(&data_dir),
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            runtime.block_on(damasi_online::db::OnlineDb::connect(url))
        }
        Some(url) => Err(format!(
            "--database {url}: only postgres:// URLs are understood (SQLite is the default)"
        )),
    }
    .map_err(|e| anyhow!(e))?;
    let clustered = match &a.pubsub {
        None => None,
        Some(url) if url.starts_with("redis://") => Some(
            runtime
                .block_on(damasi_online::Online::clustered(
                    online.clone(),
                    damasi_online::OnlineConfig::default(),
                    url,
                    Default::default(),
                ))
                .with_context(|| format!("--pubsub {url}"))?,
        ),
        Some(url) => return Err(anyhow!("--pubsub {url}: only redis:// URLs are understood")),
    };
    let mut state = AppState::open_with(&data_dir, online).map_err(|e| anyhow!(e))?;
    if let Some(online) = clustered {
        if let Some(node) = online.node() {
            println!("damasi: online play shared with other processes (this one is {node})");
        }
        state = state.with_online(online);
        if a.tournaments {
            println!("damasi: this process directs the tournaments");
        } else {
            println!(
                "damasi: tournaments are left to the process started with --tournaments \
                 (their routes answer 503 here)"
            );
            state = state.with_tournaments_elsewhere();
        }
    }
    let defaults = damasi_web::StreamLimits::default();
    let spectators = a.max_streams.unwrap_or(defaults.spectators).max(1);
    let limits = damasi_web::StreamLimits {
        spectators_per_address: a
            .streams_per_address
            .unwrap_or(defaults.spectators_per_address)
            .max(1),
        spectators,
        players: players_cap(spectators, defaults.players),
        players_per_address: a
            .player_streams_per_address
            .unwrap_or(defaults.players_per_address)
            .max(1),
        ..defaults
    };
    if !a.allowed_hosts.is_empty() && a.trusted_proxies.is_empty() {
        eprintln!(
            "damasi: note: behind a reverse proxy, give --trusted-proxy ADDR, or every visitor \
             shares the proxy's address (and its {} spectators' and {} players' long-lived \
             connections)",
            limits.spectators_per_address, limits.players_per_address
        );
    }
    let mut state = state.with_stream_limits(limits);
    if let Some(token) = &a.telegram_token {
        let mut config = damasi_telegram::TelegramConfig::new(token.clone());
        config.api_url = a.telegram_api_url.clone();
        config.public_url = a.public_url.clone();
        config.mini_app = a.telegram_app.clone();
        let bot = runtime
            .block_on(damasi_telegram::Telegram::start(
                state.online.clone(),
                state.brain.clone(),
                state.tournaments.clone(),
                config,
            ))
            .context("--telegram-token")?;
        println!(
            "damasi: the Telegram bot @{} is on (with several processes, one runs it at a time)",
            bot.username()
        );
        state = state.with_telegram_login(token);
    }
    if let Some(url) = &a.public_url {
        state = state.with_public_url(url);
    }
    if let (Some(url), Some(from)) = (&a.smtp_url, &a.mail_from) {
        let mailer = damasi_web::online::mail::Mailer::new(url, from).map_err(|e| anyhow!(e))?;
        state = state.with_mailer(mailer);
        println!("damasi: account mail goes out through the SMTP server, from {from}");
        if a.public_url.is_none() && public {
            eprintln!(
                "damasi: note: give --public-url so that mailed links carry the site's public \
                 address (without it, the address each request reached)"
            );
        }
    }
    let state = state.with_security(security).with_tablebases(tables);
    let options = damasi_web::ServeOptions {
        trusted_proxies: a.trusted_proxies.clone(),
        fair_play: (!a.no_fair_play).then(damasi_online::fair_play::ScreenSettings::default),
        connections_per_address: a
            .connections_per_address
            .unwrap_or(damasi_web::ServeOptions::default().connections_per_address)
            .max(1),
        ..Default::default()
    };
    runtime
        .block_on(damasi_web::serve_with(
            state,
            SocketAddr::new(host, port),
            options,
            |addr| {
                let shown = if addr.ip().is_unspecified() {
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
                } else {
                    addr
                };
                println!("damasi: open http://{shown}/ in a browser (Ctrl-C stops the server)");
                println!("damasi: games are saved in {}", data_dir.display());
                if let Some(line) = &tables_line {
                    println!("{line}");
                }
                if let Some(t) = &token {
                    if host.is_loopback() {
                        println!(
                            "damasi: answering a public name or a proxy: the saved-games API needs the token"
                        );
                    } else {
                        println!(
                            "damasi: WARNING: listening on {addr}: other machines on the network can reach it"
                        );
                    }
                    println!(
                        "damasi: viewing is open to them; playing and changing games needs the token:"
                    );
                    println!("damasi:   http://{shown}/#token={t}  (or Authorization: Bearer {t})");
                }
            },
        ))
        .with_context(|| format!("cannot serve on {host}:{port}"))
}
