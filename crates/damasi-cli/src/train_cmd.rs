//! `damasi train`: make training data by self-play and fit the pattern evaluation or the
//! network on it.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use damasi_engine::eval::Weights;
use damasi_engine::oracle::EndgameOracle;
use damasi_engine::{network, patterns};
use damasi_tools::data_run;
use damasi_tools::openings::{parse_openings, DEFAULT_OPENINGS};
use damasi_tools::train::{self, DataConfig, FitConfig, Sample};
use damasi_tools::train_net::{self, mirror, NetConfig, NetSample};

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
    /// Train the NNUE-style network on training records and write a network file.
    Net(NetArgs),
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
    /// first position they know, with its true result (default: the tables of `damasi tb
    /// build` if there are any, as the engine plays; `none`: no tables).
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
    /// Output file (records; see docs/training.md), written anew.
    #[arg(long, required_unless_present = "dir", conflicts_with = "dir")]
    out: Option<PathBuf>,
    /// Run directory instead of a file: the games are written in chunks of `--chunk-games`,
    /// each complete or absent, and a later run with the same settings skips the chunks
    /// there and plays the rest (resumable; see docs/training.md).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Games per chunk of a run directory.
    #[arg(long, default_value_t = 20)]
    chunk_games: usize,
    /// Nodes of a deeper search at every quiet position, whose score labels the record (and
    /// whose move is played); without it the play search's score labels it.
    #[arg(long)]
    label_nodes: Option<u64>,
    /// Play moves from the opening book where it has the position.
    #[arg(long)]
    book: bool,
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
    /// Weights or network file of the playing engine, or `features` for the feature
    /// evaluation alone (default: the shipped evaluation, features and network).
    #[arg(long, value_name = "FILE")]
    eval: Option<String>,
}

/// What `damasi train fit` and `damasi train net` share: the records, how they are split and
/// labelled, and the passes over them.
#[derive(Args)]
struct RecordArgs {
    /// Training records (`damasi train data`): data files or run directories, one or more
    /// (`--data r2 --data r3` or `--data r2 r3`); the held-out share comes from the end of
    /// the last one.
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Passes over the training records.
    #[arg(long, default_value_t = 10)]
    epochs: usize,
    /// Samples per Adam step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// The scale K of sigmoid(eval / K), centi-men (default: fitted to the game results with
    /// the starting evaluation).
    #[arg(long)]
    k: Option<f32>,
    /// Share of the records, taken from the end of the file, held out for validation.
    #[arg(long, default_value_t = 0.1)]
    valid: f64,
    /// Endgame table directory: records of positions the tables know are labelled with their
    /// true value (win 1, draw 1/2, loss 0) instead of the blend.
    #[arg(long, value_name = "DIR")]
    tb_dir: Option<PathBuf>,
}

/// Arguments of `damasi train fit`.
#[derive(Args)]
struct FitArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// Output weights file.
    #[arg(long)]
    out: PathBuf,
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
    /// Start from this weights file (default: the built-in weights, patterns zero).
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
}

/// Arguments of `damasi train net`.
#[derive(Args)]
struct NetArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// Output network file (an `eval-file` for the engine).
    #[arg(long)]
    out: PathBuf,
    /// Adam step size of the first layer.
    #[arg(long, default_value_t = 1e-3)]
    lr_hidden: f32,
    /// Adam step size of the output layer (centi-men).
    #[arg(long, default_value_t = 0.5)]
    lr_output: f32,
    /// Weight decay per step, relative to the step size (0: none).
    #[arg(long, default_value_t = 0.0)]
    decay: f32,
    /// Factor of both step sizes after each epoch (1: constant).
    #[arg(long, default_value_t = 1.0)]
    lr_gamma: f32,
    /// Weight of the game result in the label (the rest is the sigmoid of the search score;
    /// 0.3 made the best network of the sixth run in docs/training.md, against 0, 0.6 and 1).
    #[arg(long, default_value_t = 0.3)]
    lambda: f32,
    /// Seed of the starting weights and the sample order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start from this network file (of this build's width) instead of random weights: a
    /// network trained further on new data.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
}

/// `damasi train`.
pub fn train(a: TrainArgs) -> Result<()> {
    match a.command {
        TrainCommand::Data(d) => data(d),
        TrainCommand::Fit(f) => fit(f),
        TrainCommand::Net(n) => net(n),
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
    if a.games == 0 || a.depth == 0 || a.nodes == Some(0) || a.label_nodes == Some(0) {
        bail!("--games, --depth, --nodes and --label-nodes must be at least 1");
    }
    // The tables the engine would play with: --tb-dir, else the default directory's if any.
    let oracle =
        crate::tb_cmds::open_oracle(a.tb_dir.as_deref())?.map(|o| o as Arc<dyn EndgameOracle>);
    let name = a.eval.as_deref().unwrap_or("none");
    let weights =
        damasi_engine::eval::weights_named(name).with_context(|| format!("reading {name}"))?;
    let openings = parse_openings(DEFAULT_OPENINGS).context("the built-in openings")?;
    let cfg = DataConfig {
        games: a.games,
        depth: a.depth,
        nodes: a.nodes,
        threads: a.threads.max(1),
        random_plies: a.random_plies,
        seed: a.seed,
        max_plies: a.max_plies,
        label_nodes: a.label_nodes,
        book: a.book,
    };
    if let Some(dir) = &a.dir {
        return data_run(&a, dir, &cfg, &weights, &openings, oracle);
    }
    let path = a.out.clone().context("--out or --dir is needed")?;
    let file = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
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
    .with_context(|| format!("writing {}", path.display()))?;
    let s = start.elapsed().as_secs_f64().max(1e-9);
    println!(
        "{n} positions from {} games in {s:.1} s: {:.0} positions/s, {:.2} games/s",
        a.games,
        n as f64 / s,
        a.games as f64 / s
    );
    Ok(())
}

/// `damasi train data --dir`: a resumable run in chunks.
fn data_run(
    a: &DataArgs,
    dir: &std::path::Path,
    cfg: &DataConfig,
    weights: &Weights,
    openings: &[damasi_tools::openings::Opening],
    oracle: Option<Arc<dyn EndgameOracle>>,
) -> Result<()> {
    // What decides the games (not --games, which a later session may raise, nor --threads).
    let opt = |n: Option<u64>| n.map_or("none".to_string(), |n| n.to_string());
    let settings = [
        format!(
            "format damasi training data chunks, version {}",
            train::DATA_VERSION
        ),
        format!("depth {}", a.depth),
        format!("nodes {}", opt(a.nodes)),
        format!("label-nodes {}", opt(a.label_nodes)),
        format!("random-plies {}", a.random_plies),
        format!("seed {}", a.seed),
        format!("max-plies {}", a.max_plies),
        format!("chunk-games {}", a.chunk_games.max(1)),
        format!("eval {}", a.eval.as_deref().unwrap_or("shipped")),
        format!(
            "tables {}",
            oracle.as_ref().map_or("none".into(), |o| format!(
                "up to {} pieces",
                o.max_pieces()
            ))
        ),
        format!("book {}", a.book),
    ]
    .map(|line| line + "\n")
    .concat();
    let done = data_run::chunks_done(dir).with_context(|| format!("reading {}", dir.display()))?;
    eprintln!(
        "{}: {} chunks of {} games there; playing up to {} games on {} threads",
        dir.display(),
        done.len(),
        a.chunk_games.max(1),
        a.games.div_ceil(a.chunk_games.max(1)) * a.chunk_games.max(1),
        cfg.threads
    );
    let start = Instant::now();
    let target = data_run::RunDir {
        path: dir,
        settings: &settings,
        chunk_games: a.chunk_games,
    };
    let summary = data_run::run(&target, cfg, weights, openings, oracle, |s| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "{:.0} s: {} chunks written this session ({} positions, {:.1} positions/s), {} \
                 there before",
            secs,
            s.written,
            s.records,
            s.records as f64 / secs,
            s.skipped
        );
    })
    .with_context(|| format!("writing to {}", dir.display()))?;
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    println!(
        "{} positions in {} chunks in {secs:.1} s: {:.1} positions/s; {} chunks were there",
        summary.records,
        summary.written,
        summary.records as f64 / secs,
        summary.skipped
    );
    Ok(())
}

/// Training records split for a fit, with the label of each position.
struct Labelled {
    train: Vec<(damasi::Position, f32)>,
    valid: Vec<(damasi::Position, f32)>,
    k: f32,
}

/// Reads `data`, holds out the last `valid` share, fits K to the game results of `start`
/// unless given, and labels every position: the tables' value where `tb_dir` knows it, else
/// `lambda * result + (1 - lambda) * sigmoid(score / K)`.
fn labelled(
    data: &[PathBuf],
    valid: f64,
    lambda: f32,
    k: Option<f32>,
    start: &Weights,
    tb_dir: &Option<PathBuf>,
) -> Result<Labelled> {
    // Data files, or every chunk of run directories, in the order given.
    let mut records = Vec::new();
    let mut files = Vec::new();
    for d in data {
        files.extend(data_run::data_files(d).with_context(|| format!("reading {}", d.display()))?);
    }
    for path in files {
        let file = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
        records.extend(
            train::read_records(&mut BufReader::new(file))
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("reading {}", path.display()))?,
        );
    }
    if records.len() < 2 {
        let names: Vec<String> = data.iter().map(|d| d.display().to_string()).collect();
        bail!(
            "{} has {} records; at least 2 are needed",
            names.join(", "),
            records.len()
        );
    }
    if !(0.0..1.0).contains(&valid) {
        bail!("--valid must be at least 0 and below 1");
    }
    if !(0.0..=1.0).contains(&lambda) {
        bail!("--lambda must be from 0 to 1");
    }
    let n_valid = ((records.len() as f64 * valid) as usize).min(records.len() - 1);
    let (train_recs, valid_recs) = records.split_at(records.len() - n_valid);
    let k = match k {
        Some(k) if k > 0.0 => k,
        Some(_) => bail!("--k must be positive"),
        None => {
            let k = train::fit_k(train_recs, start);
            println!("K fitted to the game results: {k:.1}");
            k
        }
    };
    let oracle = tables(tb_dir)?;
    let mut known = 0usize;
    // The label: the tables' value where they know the position, else the blend.
    let mut label = |recs: &[train::Record]| -> Vec<(damasi::Position, f32)> {
        recs.iter()
            .filter_map(|r| {
                let pos = r.position()?;
                let y = match oracle
                    .as_deref()
                    .and_then(|o| train::table_result_white(o, &pos))
                {
                    Some(result) => {
                        known += 1;
                        result
                    }
                    None => train::label(r, lambda, k),
                };
                Some((pos, y))
            })
            .collect()
    };
    let (train, valid) = (label(train_recs), label(valid_recs));
    println!(
        "{} training and {} validation positions, K {k:.1}, lambda {lambda}, {known} labelled \
         by the tables",
        train.len(),
        valid.len(),
    );
    Ok(Labelled { train, valid, k })
}

/// Prints a fit's losses after an epoch, with the seconds since `start`.
fn print_epoch(start: Instant) -> impl FnMut(train::EpochLoss) {
    move |l| {
        println!(
            "epoch {:>3}  train loss {:.6}  validation loss {:.6}  ({:.1} s)",
            l.epoch,
            l.train,
            l.valid,
            start.elapsed().as_secs_f64()
        );
    }
}

fn net(a: NetArgs) -> Result<()> {
    // Read first, so that a wrong file is said before the records are loaded.
    let init = match &a.init {
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            Some(network::decode(&bytes).with_context(|| format!("reading {}", p.display()))?)
        }
        None => None,
    };
    let data = labelled(
        &a.records.data,
        a.records.valid,
        a.lambda,
        a.records.k,
        &Weights::default(),
        &a.records.tb_dir,
    )?;
    let t = Instant::now();
    // Every position and its mirror image.
    let samples = |set: &[(damasi::Position, f32)]| -> Vec<NetSample> {
        set.iter()
            .flat_map(|(p, y)| [NetSample::new(p, *y), NetSample::new(&mirror(p), *y)])
            .collect()
    };
    let (train_s, valid_s) = (samples(&data.train), samples(&data.valid));
    let cfg = NetConfig {
        epochs: a.records.epochs,
        batch: a.records.batch.max(1),
        lr_hidden: a.lr_hidden,
        lr_gamma: a.lr_gamma,
        lr_output: a.lr_output,
        decay: a.decay,
        k: data.k,
        seed: a.seed,
    };
    let net = train_net::fit(init.as_ref(), &train_s, &valid_s, &cfg, print_epoch(t));
    std::fs::write(&a.out, network::encode(&net))
        .with_context(|| format!("writing {}", a.out.display()))?;
    println!(
        "wrote {} (the network of the epoch with the lowest validation loss)",
        a.out.display()
    );
    Ok(())
}

fn fit(a: FitArgs) -> Result<()> {
    let start = load_weights(&a.init)?;
    let r = &a.records;
    let data = labelled(&r.data, r.valid, a.lambda, r.k, &start, &r.tb_dir)?;
    let k = data.k;
    let t = Instant::now();
    let to_samples = |set: &[(damasi::Position, f32)]| -> Vec<Sample> {
        set.iter().map(|(p, y)| Sample::new(p, *y)).collect()
    };
    let train_s = to_samples(&data.train);
    let valid_s = to_samples(&data.valid);
    let cfg = FitConfig {
        epochs: a.records.epochs,
        batch: a.records.batch.max(1),
        lr_patterns: a.lr,
        lr_global: a.lr_global,
        k,
        fit_global: a.lr_global > 0.0,
        l2: a.l2,
        l2_global: a.l2_global,
    };
    let w = train::fit(&start, &train_s, &valid_s, &cfg, print_epoch(t));
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
