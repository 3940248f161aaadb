//! `damasi swiss ...`: FIDE Swiss (Dutch system) pairings of tournament files, for arbiters to
//! check against other pairing programs; a server's tournaments written as TRF files, and a
//! TRF file read in to go on with its tournament on the server.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

/// Arguments of `damasi swiss`.
#[derive(Args)]
pub struct SwissArgs {
    #[command(subcommand)]
    command: SwissCommand,
}

#[derive(Subcommand)]
enum SwissCommand {
    /// Pair the next round of a FIDE TRF file by the Dutch system (C.04.3) and print it as
    /// pairing programs do: the number of pairs, then `WHITE BLACK` pairing numbers a line,
    /// a bye as `N 0`. At most 2,000 players (a server's Swiss has no more).
    Pair(PairArgs),
    /// Write a tournament of the server's store as a FIDE TRF file (standard output, or
    /// `--out`): the rounds complete, each player's points and place.
    Export(ExportArgs),
    /// Read a FIDE TRF file into the server's store to go on with it there: every player's
    /// name must be an account (`damasi user add`). Prints the tournament's id; its next round
    /// is paired after the pause, or with the organiser's button at /swiss/ID.
    Import(ImportArgs),
}

/// Where the server keeps online play.
#[derive(Args)]
struct StoreArgs {
    /// The server's data directory (default: the platform's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
    #[arg(long)]
    database: Option<String>,
}

/// Arguments of `damasi swiss export`.
#[derive(Args)]
struct ExportArgs {
    /// The tournament's id (as in /swiss/ID).
    id: String,
    /// Write the file here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
}

/// Arguments of `damasi swiss import`.
#[derive(Args)]
struct ImportArgs {
    /// The tournament so far, in FIDE's TRF format (`XXR` gives the number of rounds).
    #[arg(long, value_name = "FILE")]
    trf: PathBuf,
    /// The organiser's account name.
    #[arg(long)]
    organiser: String,
    /// The name (default: the file's `012` line).
    #[arg(long)]
    name: Option<String>,
    /// Minutes each side starts with.
    #[arg(long, default_value_t = 45.0)]
    minutes: f64,
    /// Seconds added per move.
    #[arg(long, default_value_t = 0)]
    increment: i64,
    /// Number of rounds, when the file has no `XXR` line.
    #[arg(long, default_value_t = 9)]
    rounds: u32,
    /// Casual games (not rated).
    #[arg(long)]
    casual: bool,
    /// Rule set of the games still to play, e.g. "turkish; no-capture-limit 50" (games under
    /// other rules than the federation's are casual: add --casual).
    #[arg(long, default_value = "turkish")]
    rules: damasi::RuleSet,
    /// Seconds between the end of a round and the pairing of the next.
    #[arg(long, default_value_t = 60)]
    pause: i64,
    #[command(flatten)]
    store: StoreArgs,
}

/// Arguments of `damasi swiss pair`.
#[derive(Args)]
struct PairArgs {
    /// The tournament in FIDE's TRF format, with the results of the rounds played (`-` for
    /// standard input).
    #[arg(long, value_name = "FILE")]
    trf: PathBuf,
}

/// `damasi swiss`.
pub fn swiss(a: SwissArgs) -> Result<()> {
    match a.command {
        SwissCommand::Pair(p) => pair(p),
        SwissCommand::Export(e) => export(e),
        SwissCommand::Import(i) => import(i),
    }
}

fn open_store(
    rt: &tokio::runtime::Runtime,
    store: StoreArgs,
) -> Result<damasi_online::db::OnlineDb> {
    use damasi_online::db::OnlineDb;
    let db = match store.database {
        Some(url) => rt.block_on(OnlineDb::connect(&url)),
        None => OnlineDb::open(&match store.data_dir {
            Some(d) => d,
            None => crate::serve_cmd::default_data_dir()?,
        }),
    };
    db.map_err(|e| anyhow::anyhow!(e))
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn export(a: ExportArgs) -> Result<()> {
    let rt = runtime()?;
    let db = open_store(&rt, a.store)?;
    let swiss = rt
        .block_on(damasi_tournaments::stored_swiss(&db, &a.id))
        .map_err(|e| anyhow::anyhow!("{}", e.message()))?;
    let text = damasi_tournaments::export_trf(&swiss);
    match a.out {
        Some(path) => std::fs::write(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

fn import(a: ImportArgs) -> Result<()> {
    use damasi_tournaments::swiss::{Entry, SwissSettings};
    let text = std::fs::read_to_string(&a.trf)
        .with_context(|| format!("cannot read {}", a.trf.display()))?;
    let played = read_trf(&text, &a.trf.display().to_string())?;
    let settings = SwissSettings {
        name: a
            .name
            .or_else(|| played.name.clone())
            .unwrap_or_else(|| "Swiss".into()),
        rounds: a.rounds,
        initial_ms: (a.minutes * 60_000.0).round() as i64,
        increment_ms: a.increment.saturating_mul(1000),
        rated: !a.casual,
        starts_ms: None,
        round_pause_ms: a.pause.saturating_mul(1000),
        entry: Entry::Anyone,
        tiebreaks: damasi_tournaments::tiebreak::Tiebreak::FEDERATION.to_vec(),
        system: damasi_tournaments::swiss::System::Swiss,
        rules: a.rules,
        allow_bots: false,
    };
    let rt = runtime()?;
    let db = open_store(&rt, a.store)?;
    let id = rt
        .block_on(damasi_tournaments::import_swiss(
            &db,
            &a.organiser,
            settings,
            played,
        ))
        .map_err(|e| anyhow::anyhow!("{}", e.message()))?;
    println!("{id}");
    Ok(())
}

/// The most players a TRF file may have to be paired or imported: a server's Swiss has no
/// more ([`damasi_tournaments::swiss::MAX_PLAYERS`]). The pairing's time and memory grow
/// faster than the number of players (docs/security.md, "Tournaments"): 9,000 players took
/// 9.9 GB and more than two minutes without an answer.
pub const MAX_TRF_PLAYERS: usize = damasi_tournaments::swiss::MAX_PLAYERS;

/// Reads a TRF file's tournament, refusing one of more than [`MAX_TRF_PLAYERS`] players.
fn read_trf(text: &str, name: &str) -> Result<damasi_swiss::Tournament> {
    let t = damasi_swiss::Tournament::from_trf(text).with_context(|| name.to_string())?;
    if t.players.len() > MAX_TRF_PLAYERS {
        anyhow::bail!(
            "{name}: {} players: damasi pairs at most {MAX_TRF_PLAYERS} (the time and memory \
             a pairing takes grow faster than the number of players)",
            t.players.len()
        );
    }
    Ok(t)
}

fn pair(a: PairArgs) -> Result<()> {
    let text = if a.trf.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the TRF file from standard input")?;
        s
    } else {
        std::fs::read_to_string(&a.trf)
            .with_context(|| format!("cannot read {}", a.trf.display()))?
    };
    let name = a.trf.display().to_string();
    let tournament = read_trf(&text, &name)?;
    let pairing = damasi_swiss::pair_next_round(&tournament)
        .with_context(|| format!("{name}: no pairing"))?;
    print!("{}", pairing.to_pairs_format());
    Ok(())
}
