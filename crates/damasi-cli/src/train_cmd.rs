//! `damasi train`: make training data by self-play and fit the pattern evaluation on it.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use damasi_engine::eval::Weights;
use damasi_engine::oracle::EndgameOracle;
use damasi_engine::patterns;
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
use damasi_tools::train::{self, DataConfig, FitConfig, Sample};

/// Arguments of `damasi train`.
#[derive(Args)]
pub struct TrainArgs {
    #[command(subcommand)]
    command: TrainCommand,
}

#[derive(Subcommand)]
enum TrainCommand {
    /// Play self-play games and write their quiet positions as training records.
    Data(DataArgs),
    /// Fit a pattern evaluation on training records and write a weights file.
    Fit(FitArgs),
}

/// Arguments of `damasi train data`.
#[derive(Args)]
struct DataArgs {
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Search depth per move.
    #[arg(long, default_value_t = 4)]
    depth: u32,
    /// Nodes per move instead of a depth.
    #[arg(long)]
    nodes: Option<u64>,
    /// Endgame table directory: the engines search with the tables, and a game ends at the
    /// first position they know, with its true result.
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
    /// Output file (records; see docs/training.md).
    #[arg(long)]
    out: PathBuf,
    /// Threads, each playing whole games.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Up to this many random plies after the opening (uniform 0..=N).
    #[arg(long, default_value_t = 6)]
    random_plies: usize,
    /// Seed of the random plies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies after which a game counts as drawn.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Weights file of the playing engine (default: the built-in evaluation).
    #[arg(long, value_name = "FILE")]
    eval: Option<PathBuf>,
}

/// Arguments of `damasi train fit`.
#[derive(Args)]
struct FitArgs {
    /// Training records (`damasi train data`).
    #[arg(long)]
    data: PathBuf,
    /// Output weights file.
    #[arg(long)]
    out: PathBuf,
    /// Passes over the training records.
    #[arg(long, default_value_t = 10)]
    epochs: usize,
    /// Samples per Adam step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Adam step size of the pattern entries (centi-men).
    #[arg(long, default_value_t = 1.0)]
    lr: f32,
    /// Adam step size of the global feature weights (centi-men); 0 keeps them.
    #[arg(long, default_value_t = 0.2)]
    lr_global: f32,
    /// L2 pull of each pattern entry towards 0, per touch (larger: smaller tables that need
    /// more evidence).
    #[arg(long, default_value_t = 1e-4)]
    l2: f32,
    /// L2 pull of the global weights towards the starting ones, per step (0: none; keeps the
    /// value of a man from drifting into the advancement weights).
    #[arg(long, default_value_t = 0.0)]
    l2_global: f32,
    /// Weight of the game result in the label (the rest is the sigmoid of the search score).
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// The scale K of sigmoid(eval / K), centi-men (default: fitted to the game results with
    /// the starting weights).
    #[arg(long)]
    k: Option<f32>,
    /// Share of the records, taken from the end of the file, held out for validation.
    #[arg(long, default_value_t = 0.1)]
    valid: f64,
    /// Start from this weights file (default: the built-in weights, patterns zero).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Endgame table directory: records of positions the tables know are labelled with their
    /// true value (win 1, draw 1/2, loss 0) instead of the blend.
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
}

/// `damasi train`.
pub fn train(a: TrainArgs) -> Result<()> {
    match a.command {
        TrainCommand::Data(d) => data(d),
        TrainCommand::Fit(f) => fit(f),
    }
}

/// The endgame tables of `--tb-dir`, if given (an error if the directory has none).
fn tables(dir: &Option<PathBuf>) -> Result<Option<Arc<dyn EndgameOracle>>> {
    match dir {
        Some(d) => Ok(crate::tb_cmds::open_oracle(Some(d))?.map(|o| o as Arc<dyn EndgameOracle>)),
        None => Ok(None),
    }
}

fn load_weights(path: &Option<PathBuf>) -> Result<Weights> {
    Ok(match path {
        Some(p) => patterns::load(p).with_context(|| format!("reading {}", p.display()))?,
        None => Weights::default(),
    })
}

fn data(a: DataArgs) -> Result<()> {
    if a.games == 0 || a.depth == 0 || a.nodes == Some(0) {
        bail!("--games, --depth and --nodes must be at least 1");
    }
    let oracle = tables(&a.tb_dir)?;
    let weights = load_weights(&a.eval)?;
    let openings = parse_openings(DEFAULT_OPENINGS).context("the built-in openings")?;
    let cfg = DataConfig {
        games: a.games,
        depth: a.depth,
        nodes: a.nodes,
        threads: a.threads.max(1),
        random_plies: a.random_plies,
        seed: a.seed,
        max_plies: a.max_plies,
    };
    let file = File::create(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut out = BufWriter::new(file);
    let start = Instant::now();
    let step = (a.games / 20).max(1);
    let n = train::generate(
        &cfg,
        &weights,
        &openings,
        oracle,
        &mut out,
        |games, records| {
            if games % step == 0 || games == a.games {
                let s = start.elapsed().as_secs_f64().max(1e-9);
                eprintln!(
                    "{games}/{} games, {records} positions, {:.0} positions/s",
                    a.games,
                    records as f64 / s
                );
            }
        },
    )
    .with_context(|| format!("writing {}", a.out.display()))?;
    let s = start.elapsed().as_secs_f64().max(1e-9);
    println!(
        "{n} positions from {} games in {s:.1} s: {:.0} positions/s, {:.2} games/s",
        a.games,
        n as f64 / s,
        a.games as f64 / s
    );
    Ok(())
}

fn fit(a: FitArgs) -> Result<()> {
    let file = File::open(&a.data).with_context(|| format!("opening {}", a.data.display()))?;
    let records = train::read_records(&mut BufReader::new(file))
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("reading {}", a.data.display()))?;
    if records.len() < 2 {
        bail!(
            "{} has {} records; at least 2 are needed",
            a.data.display(),
            records.len()
        );
    }
    if !(0.0..1.0).contains(&a.valid) {
        bail!("--valid must be at least 0 and below 1");
    }
    if !(0.0..=1.0).contains(&a.lambda) {
        bail!("--lambda must be from 0 to 1");
    }
    let start = load_weights(&a.init)?;
    let n_valid = ((records.len() as f64 * a.valid) as usize).min(records.len() - 1);
    let (train_recs, valid_recs) = records.split_at(records.len() - n_valid);
    let k = match a.k {
        Some(k) if k > 0.0 => k,
        Some(_) => bail!("--k must be positive"),
        None => {
            let k = train::fit_k(train_recs, &start);
            println!("K fitted to the game results: {k:.1}");
            k
        }
    };
    let oracle = tables(&a.tb_dir)?;
    let known = std::sync::atomic::AtomicUsize::new(0);
    // The label: the tables' value where they know the position, else the blend.
    let label = |r: &train::Record, pos: &damasi::Position| match oracle
        .as_deref()
        .and_then(|o| train::table_result_white(o, pos))
    {
        Some(result) => {
            known.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            result
        }
        None => train::label(r, a.lambda, k),
    };
    let to_samples = |recs: &[train::Record]| -> Vec<Sample> {
        recs.iter()
            .filter_map(|r| {
                let pos = r.position()?;
                Some(Sample::new(&pos, label(r, &pos)))
            })
            .collect()
    };
    let t = Instant::now();
    let train_s = to_samples(train_recs);
    let valid_s = to_samples(valid_recs);
    println!(
        "{} training and {} validation positions, K {k:.1}, lambda {}, {} labelled by the tables",
        train_s.len(),
        valid_s.len(),
        a.lambda,
        known.into_inner()
    );
    let cfg = FitConfig {
        epochs: a.epochs,
        batch: a.batch.max(1),
        lr_patterns: a.lr,
        lr_global: a.lr_global,
        k,
        fit_global: a.lr_global > 0.0,
        l2: a.l2,
        l2_global: a.l2_global,
    };
    let w = train::fit(&start, &train_s, &valid_s, &cfg, |l| {
        println!(
            "epoch {:>3}  train loss {:.6}  validation loss {:.6}  ({:.1} s)",
            l.epoch,
            l.train,
            l.valid,
            t.elapsed().as_secs_f64()
        );
    });
    patterns::save(&a.out, &w).with_context(|| format!("writing {}", a.out.display()))?;
    let set = w
        .patterns
        .as_ref()
        .map_or(0, |p| p.values().iter().filter(|v| **v != 0).count());
    println!(
        "wrote {} ({set} of {} pattern entries non-zero)",
        a.out.display(),
        patterns::ENTRIES
    );
    println!("mg {:?}", w.mg);
    println!("eg {:?}", w.eg);
    Ok(())
}
