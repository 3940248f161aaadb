//! Commands that only need the rules library: `perft`, `moves`, `show`.

use std::io::Write;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use damasi::{Counting, Notation, Position};

/// Reads `--fen`, defaulting to the start position.
pub fn position_arg(fen: Option<&str>) -> Result<Position> {
    match fen {
        None => Ok(Position::start()),
        Some(f) => Position::from_fen(f).with_context(|| format!("cannot read --fen '{f}'")),
    }
}

/// Arguments of `damasi perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Start position (FEN or `startpos`).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Print the count below each root move first.
    #[arg(long)]
    divide: bool,
    /// Count routes instead of moves (as libraries that list every route do).
    #[arg(long)]
    paths: bool,
    /// Threads to split the root moves over (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Notation for `--divide`.
    #[arg(long, value_enum, default_value_t = NotationArg::Landing)]
    notation: NotationArg,
}

/// Notation choice on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum NotationArg {
    /// Landing squares: `d4xd6xf6`.
    Landing,
    /// Captured squares (federation): `d4xc4xb3`.
    Captured,
}

impl From<NotationArg> for Notation {
    fn from(n: NotationArg) -> Notation {
        match n {
            NotationArg::Landing => Notation::Landing,
            NotationArg::Captured => Notation::Captured,
        }
    }
}

/// `damasi perft`: the last line is the node count.
pub fn perft(a: PerftArgs) -> Result<()> {
    let mut out = std::io::stdout();
    let pos = position_arg(a.fen.as_deref())?;
    let counting = if a.paths {
        Counting::Routes
    } else {
        Counting::Moves
    };
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let start = std::time::Instant::now();
    let total = if a.divide {
        let mut total = 0;
        for (m, n) in damasi::divide(&pos, a.depth, counting) {
            writeln!(out, "{} {n}", pos.write_move(&m, a.notation.into()))?;
            total += n;
        }
        total
    } else {
        damasi::perft_parallel(&pos, a.depth, counting, threads)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{:.3} s, {:.1} M nodes/s",
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    );
    writeln!(out, "{total}")?;
    Ok(())
}

/// Arguments of `damasi moves`.
#[derive(Args)]
pub struct MovesArgs {
    /// Position (FEN or `startpos`).
    #[arg(long)]
    fen: Option<String>,
    /// How to write the moves.
    #[arg(long, value_enum, default_value_t = NotationArg::Landing)]
    notation: NotationArg,
}

/// `damasi moves`: one legal move per line.
pub fn moves(a: MovesArgs) -> Result<()> {
    let mut out = std::io::stdout();
    let pos = position_arg(a.fen.as_deref())?;
    for m in pos.legal_moves().iter() {
        writeln!(out, "{}", pos.write_move(m, a.notation.into()))?;
    }
    Ok(())
}

/// Arguments of `damasi show`.
#[derive(Args)]
pub struct ShowArgs {
    /// Position (FEN or `startpos`).
    #[arg(long)]
    fen: Option<String>,
}

/// `damasi show`: diagram, side to move, state.
pub fn show(a: ShowArgs) -> Result<()> {
    let mut out = std::io::stdout();
    let pos = position_arg(a.fen.as_deref())?;
    write!(out, "{}", damasi::diagram(&pos))?;
    writeln!(out, "{} to move", pos.side_to_move())?;
    writeln!(out, "FEN: {}", pos.to_fen())?;
    let moves = pos.legal_moves();
    let forced = if pos.has_capture() {
        " (capture forced)"
    } else {
        ""
    };
    writeln!(out, "{} legal moves{forced}", moves.len())?;
    match damasi::position_outcome(&pos, &damasi::RuleSet::default()) {
        None => writeln!(out, "game state: in progress")?,
        Some(o) => writeln!(out, "game state: over, {}", o.describe())?,
    }
    Ok(())
}
