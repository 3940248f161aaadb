//! `damasi explorer`: the opening explorer's sources from the command line: master games
//! imported from a PDN file, and the server's own games counted now rather than at its next
//! start.

use std::io::BufReader;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::{Args, Subcommand};
use damasi_online::explorer;

use crate::online_cmds::{online_db, runtime};

/// Arguments of `damasi explorer`.
#[derive(Args)]
pub struct ExplorerArgs {
    #[command(subcommand)]
    command: ExplorerCommand,
}

/// Where the server keeps its online database.
#[derive(Args)]
struct Where {
    /// The server's data directory (default: the user's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The server's PostgreSQL database, if it uses one (`damasi serve --database`).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

#[derive(Subcommand)]
enum ExplorerCommand {
    /// Add the games of a PDN file to the masters' explorer: games with a result, under the
    /// federation's rules, from the start; a broken game is reported and skipped, and a game
    /// imported before is not counted again.
    Import {
        /// The PDN file.
        file: PathBuf,
        #[command(flatten)]
        place: Where,
    },
    /// Count the server's finished games the explorer has not counted yet (a running server
    /// does it at start and as games end).
    CatchUp {
        #[command(flatten)]
        place: Where,
    },
}

/// `damasi explorer`.
pub fn explorer(a: ExplorerArgs) -> Result<()> {
    let rt = runtime()?;
    match a.command {
        ExplorerCommand::Import { file, place } => {
            let db = online_db(&rt, place.data_dir, place.database)?;
            let input = std::fs::File::open(&file)
                .with_context(|| format!("cannot open {}", file.display()))?;
            let report = rt
                .block_on(explorer::import_masters(&db, BufReader::new(input)))
                .map_err(|e| anyhow!("{}: {e:?}", file.display()))?;
            for line in &report.skipped {
                eprintln!("damasi: {}: skipped {line}", file.display());
            }
            println!(
                "imported {} games into the masters' explorer ({} were there already, {} skipped)",
                report.imported,
                report.duplicates,
                report.skipped.len()
            );
        }
        ExplorerCommand::CatchUp { place } => {
            let db = online_db(&rt, place.data_dir, place.database)?;
            let n = rt
                .block_on(explorer::catch_up(&db))
                .map_err(|e| anyhow!("{e:?}"))?;
            println!("counted {n} games");
        }
    }
    Ok(())
}
