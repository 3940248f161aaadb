//! `damasi puzzles ...`: make tactics puzzles from engine self-play.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use damasi_engine::oracle::EndgameOracle;
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
use damasi_tools::puzzles::{generate, puzzles_file, PuzzleConfig};

/// Arguments of `damasi puzzles`.
#[derive(Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    command: PuzzlesCommand,
}

#[derive(Subcommand)]
enum PuzzlesCommand {
    /// Play self-play games and write the positions where exactly one move wins (JSON).
    Generate(GenerateArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// Self-play games to play (they go round the built-in opening set).
    #[arg(long)]
    games: usize,
    /// The JSON file to write (rewritten after every game, so an interrupted run keeps
    /// what it found).
    #[arg(long)]
    out: PathBuf,
    /// Endgame table directory, or `none` (default: `tablebases/` in the user's data
    /// directory, used if tables are there).
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
    /// Fewest nodes per self-play move (each game uses 1 to 4 times this).
    #[arg(long, default_value_t = 100)]
    play_nodes: u64,
    /// Nodes of the first look at each position.
    #[arg(long, default_value_t = 60_000)]
    scan_nodes: u64,
    /// Nodes of the deeper search of each alternative move.
    #[arg(long, default_value_t = 400_000)]
    verify_nodes: u64,
    /// Seed of the random plies after each opening.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Percentage of self-play moves chosen at random (the mistakes puzzles punish).
    #[arg(long, default_value_t = 3)]
    random_percent: u32,
    /// Stop once this many puzzles are found.
    #[arg(long)]
    max: Option<usize>,
}

/// Runs `damasi puzzles`.
pub fn puzzles(a: PuzzlesArgs) -> Result<()> {
    match a.command {
        PuzzlesCommand::Generate(g) => generate_cmd(g),
    }
}

fn generate_cmd(a: GenerateArgs) -> Result<()> {
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    let openings = parse_openings(DEFAULT_OPENINGS)?
        .into_iter()
        .filter(|o| o.start == damasi::Position::start())
        .map(|o| o.moves)
        .collect();
    let oracle = crate::tb_cmds::open_oracle(a.tb_dir.as_deref())?;
    if let Some(o) = &oracle {
        eprintln!("using {}", crate::tb_cmds::describe(o));
    }
    let oracle = oracle.map(|o| o as Arc<dyn EndgameOracle>);
    let config = PuzzleConfig {
        games: a.games,
        play_nodes: a.play_nodes.max(1),
        scan_nodes: a.scan_nodes.max(1),
        verify_nodes: a.verify_nodes.max(1),
        seed: a.seed,
        random_percent: a.random_percent.min(100),
        openings,
    };
    let started = Instant::now();
    let note = "Positions from damasi self-play where exactly one move wins; \
                solution in landing notation, the solving side's moves and the replies.";
    let mut write_error = None;
    let max = a.max.unwrap_or(usize::MAX);
    let mut played = 0;
    let puzzles = generate(&config, oracle, &mut |p, found| {
        played = p.games;
        eprintln!(
            "game {}/{}: {} positions, {} puzzles, {:.0} s",
            p.games,
            config.games,
            p.positions,
            p.puzzles,
            started.elapsed().as_secs_f64()
        );
        let shown = &found[..found.len().min(max)];
        let text = puzzles_file(shown, &config, note);
        if let Err(e) = std::fs::write(&a.out, text) {
            write_error = Some(e);
        }
        found.len() < max
    });
    if let Some(e) = write_error {
        return Err(e).with_context(|| format!("cannot write {}", a.out.display()));
    }
    eprintln!(
        "{} puzzles from {} games in {:.0} s, written to {}",
        puzzles.len().min(max),
        played,
        started.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
