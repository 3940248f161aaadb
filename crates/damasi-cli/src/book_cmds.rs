//! `damasi book ...`: build the opening book and look into it (format: docs/book.md).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use damasi::Notation;
use damasi_engine::book::{self, Book, BuildOptions};

use crate::rules_cmds::position_arg;

/// Arguments of `damasi book`.
#[derive(Args)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book: every good move of every position within PLIES of the start, scored by
    /// a search of DEPTH plies.
    Build(BuildArgs),
    /// Show a position's book moves (the shipped book unless --book is given).
    Show(ShowArgs),
}

#[derive(Args)]
struct BuildArgs {
    /// Where to write the book.
    #[arg(long)]
    out: PathBuf,
    /// Plies from the start the book reaches.
    #[arg(long, default_value_t = 6)]
    plies: u32,
    /// Search depth for every move of every book position.
    #[arg(long, default_value_t = 14)]
    depth: u32,
    /// Keep and follow moves within this many centi-men of the best.
    #[arg(long, default_value_t = 10)]
    margin: i32,
    /// Moves scored in each position (the best N; multi-PV lines).
    #[arg(long, default_value_t = 4)]
    lines: usize,
    /// Stop at this many positions (those nearest the start first).
    #[arg(long, default_value_t = 500)]
    positions: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 128)]
    hash: usize,
}

#[derive(Args)]
struct ShowArgs {
    /// Position (FEN or `startpos`; default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// A book file instead of the shipped one.
    #[arg(long)]
    book: Option<PathBuf>,
}

/// `damasi book`.
pub fn book(a: BookArgs) -> Result<()> {
    match a.command {
        BookCommand::Build(b) => build(b),
        BookCommand::Show(s) => show(s),
    }
}

fn build(a: BuildArgs) -> Result<()> {
    let started = Instant::now();
    let options = BuildOptions {
        plies: a.plies,
        depth: a.depth,
        margin: a.margin,
        lines: a.lines.max(1),
        max_positions: a.positions.max(1),
        threads: a.threads.max(1),
        hash_mb: a.hash.max(1),
    };
    let built = book::build(damasi::Position::start(), options, &mut |entry, waiting| {
        let moves: Vec<String> = entry
            .moves
            .iter()
            .map(|m| {
                format!(
                    "{} {}",
                    entry.position.write_move(&m.mv, Notation::Landing),
                    m.score
                )
            })
            .collect();
        eprintln!(
            "{:>7.1} s  {}  {}  ({waiting} left at this ply)",
            started.elapsed().as_secs_f64(),
            entry.position.to_fen(),
            moves.join(", ")
        );
    });
    let header = format!(
        "damasi opening book (format: docs/book.md)\n\
         built by: damasi book build --plies {} --depth {} --margin {} --lines {} --positions {}\n\
         {} positions, {:.0} s",
        a.plies,
        a.depth,
        a.margin,
        a.lines,
        a.positions,
        built.len(),
        started.elapsed().as_secs_f64()
    );
    std::fs::write(&a.out, built.to_text(&header))
        .with_context(|| format!("writing {}", a.out.display()))?;
    println!("{} positions written to {}", built.len(), a.out.display());
    Ok(())
}

fn show(a: ShowArgs) -> Result<()> {
    let loaded;
    let book = match &a.book {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            loaded = Book::parse(&text).with_context(|| format!("in {}", path.display()))?;
            &loaded
        }
        None => Book::builtin(),
    };
    let pos = position_arg(a.fen.as_deref())?;
    match book.get(&pos) {
        None => println!("not in the book ({} positions)", book.len()),
        Some(entry) => {
            for m in &entry.moves {
                println!(
                    "{:<10} {:>+5}  depth {}",
                    pos.write_move(&m.mv, Notation::Landing),
                    m.score,
                    m.depth
                );
            }
        }
    }
    Ok(())
}
