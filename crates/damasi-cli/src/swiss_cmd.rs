//! `damasi swiss ...`: FIDE Swiss (Dutch system) pairings of tournament files, for arbiters to
//! check against other pairing programs.

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
    /// a bye as `N 0`.
    Pair(PairArgs),
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
    }
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
    let name = a.trf.display();
    let tournament =
        damasi_swiss::Tournament::from_trf(&text).with_context(|| format!("{name}"))?;
    let pairing = damasi_swiss::pair_next_round(&tournament)
        .with_context(|| format!("{name}: no pairing"))?;
    print!("{}", pairing.to_pairs_format());
    Ok(())
}
