//! `damasi tb ...`: build, probe, count and verify the endgame tablebases.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use damasi::{Position, Wdl};
use damasi_engine::hub::{LoadedTables, TablebaseLoader};
use damasi_tb::IN_MEMORY_PIECES;
use damasi_tb::{
    build_all_with, signature_stats, tables_after_quiet_moves, verify_distances, verify_table,
    BuildEvent, BuildOptions, CheckpointEvent, Signature, Stats, Tablebase, TablebaseOracle,
    ORACLE_PIECES,
};

/// Arguments of `damasi tb`.
#[derive(Args)]
pub struct TbArgs {
    #[command(subcommand)]
    command: TbCommand,
}

#[derive(Subcommand)]
enum TbCommand {
    /// Build every table with up to N pieces (restartable: finished tables are kept).
    Build(BuildArgs),
    /// The value of a position (`win`, `draw` or `loss` for the side to move); without
    /// --fen, one FEN per line from standard input, answered by `FEN value` lines.
    Probe(ProbeArgs),
    /// One line per table: `wm bm wk bk positions win draw loss`, White to move.
    Stats(SelectArgs),
    /// Check that every stored value (and distance to conversion) agrees with the position's
    /// moves.
    Verify(SelectArgs),
}

/// The tables a command goes over.
#[derive(Args)]
struct SelectArgs {
    #[command(flatten)]
    dir: DirArgs,
    /// Only the tables with this many pieces (e.g. 6: the six-piece tables built so far).
    #[arg(long)]
    pieces: Option<u32>,
    /// Only this table, e.g. `w0m2k-b2m2k` (repeat for several).
    #[arg(long = "signature", value_name = "SIGNATURE")]
    signatures: Vec<Signature>,
}

impl SelectArgs {
    /// The tables and the signatures selected (at least one).
    fn open(&self) -> Result<(Tablebase, Vec<Signature>)> {
        let tb = self.dir.open(false)?;
        if let Some(s) = self.signatures.iter().find(|s| tb.table(**s).is_none()) {
            bail!("no table {s} in {}", self.dir.path()?.display());
        }
        let sigs: Vec<Signature> = tb
            .signatures()
            .into_iter()
            .filter(|s| self.pieces.is_none() || self.pieces == Some(s.pieces()))
            .filter(|s| self.signatures.is_empty() || self.signatures.contains(s))
            .collect();
        if sigs.is_empty() {
            bail!(
                "no tables with {} pieces in {}",
                self.pieces.unwrap_or_default(),
                self.dir.path()?.display()
            );
        }
        Ok((tb, sigs))
    }
}

/// The table directory option.
#[derive(Args)]
struct DirArgs {
    /// Table directory (default: `tablebases/` in the user's data directory).
    #[arg(long)]
    dir: Option<PathBuf>,
}

#[derive(Args)]
struct BuildArgs {
    /// Largest number of pieces (3 to 6).
    #[arg(long)]
    pieces: u32,
    /// Save a checkpoint of the pair being built every this many minutes, so that an
    /// interrupted build goes on from it (0: after every unit).
    #[arg(long, default_value_t = 5)]
    checkpoint_minutes: u64,
    #[command(flatten)]
    dir: DirArgs,
}

#[derive(Args)]
struct ProbeArgs {
    /// The position (FEN); without it, FENs are read from standard input.
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    dir: DirArgs,
}

/// `tablebases/` in the data directory `damasi serve` uses, e.g.
/// `~/.local/share/damasi/tablebases` on Linux.
pub fn default_dir() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "damasi")
        .map(|d| d.data_dir().join("tablebases"))
        .ok_or_else(|| anyhow!("no home directory found: pass --dir"))
}

/// The `--tb-dir` value that turns the tables off.
pub const NO_TABLES: &str = "none";

/// Where the commands that use the tables (`hub`, `analyze`, `play`, `serve`) look for
/// them: `--tb-dir` if given (`None` back for `none`), else the default directory (`None`
/// if there is no home directory).
pub fn tables_dir(flag: Option<&Path>) -> Option<PathBuf> {
    match flag {
        Some(d) if d == Path::new(NO_TABLES) => None,
        Some(d) => Some(d.to_path_buf()),
        None => default_dir().ok(),
    }
}

/// For people: "endgame tables up to 5 pieces", "endgame tables up to 5 pieces and 8 of
/// the 6-piece ones" (a six-piece build in progress).
pub fn describe(oracle: &TablebaseOracle) -> String {
    let mut s = format!("endgame tables up to {} pieces", oracle.complete_pieces());
    if let Some((have, of)) = oracle.partial() {
        s += &format!(" and {have} of the {of} {}-piece ones", oracle.max_pieces());
    }
    s
}

/// The tables (every one there, six-piece ones included) for the commands that use them,
/// from `--tb-dir` or the default directory. A default directory without tables means no
/// tables; a directory given explicitly must hold some.
pub fn open_oracle(flag: Option<&Path>) -> Result<Option<Arc<TablebaseOracle>>> {
    let Some(dir) = tables_dir(flag) else {
        return Ok(None);
    };
    let oracle = TablebaseOracle::open(&dir, ORACLE_PIECES)
        .with_context(|| format!("cannot read the endgame tables in {}", dir.display()))?;
    match oracle {
        Some(o) => Ok(Some(Arc::new(o))),
        None if flag.is_some() => bail!(
            "no endgame tables in {}: build them with `damasi tb build --pieces 5 --dir {}`",
            dir.display(),
            dir.display()
        ),
        None => Ok(None),
    }
}

/// Reads a directory's tables for `damasi hub`'s `tablebases` parameter.
pub fn hub_loader() -> TablebaseLoader {
    Arc::new(|dir: &Path| {
        let oracle = TablebaseOracle::open(dir, ORACLE_PIECES)
            .map_err(|e| format!("cannot read the endgame tables: {e}"))?;
        Ok(oracle.map(|o| LoadedTables {
            description: describe(&o),
            oracle: Arc::new(o),
        }))
    })
}

impl DirArgs {
    fn path(&self) -> Result<PathBuf> {
        match &self.dir {
            Some(d) => Ok(d.clone()),
            None => default_dir(),
        }
    }

    /// The tables in the directory: read whole for many probes, memory-mapped for a few
    /// (`mapped`: quick to open, only the blocks a probe touches are read).
    fn open(&self, mapped: bool) -> Result<Tablebase> {
        let dir = self.path()?;
        let tb = if mapped {
            Tablebase::open_mapped(&dir)
        } else {
            Tablebase::open(&dir)
        };
        let tb = tb.context("cannot load the tablebases")?;
        if tb.signatures().is_empty() {
            bail!(
                "no tables in {}: build them with `damasi tb build --pieces 5`",
                dir.display()
            );
        }
        Ok(tb)
    }
}

/// `damasi tb ...`.
pub fn tb(a: TbArgs) -> Result<()> {
    match a.command {
        TbCommand::Build(b) => build(b),
        TbCommand::Probe(p) => probe(p),
        TbCommand::Stats(d) => stats(d),
        TbCommand::Verify(d) => verify(d),
    }
}

fn hms(secs: u64) -> String {
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// A table's statistics as `tb stats` prints them: `wm bm wk bk positions win draw loss`.
fn stats_line(sig: Signature, s: &Stats) -> String {
    format!(
        "{} {} {} {} {} {} {} {}",
        sig.wm, sig.bm, sig.wk, sig.bk, s.positions, s.win, s.draw, s.loss
    )
}

/// A pair's signatures for the build's lines, e.g. `w0m1k-b0m2k w0m2k-b0m1k`.
fn pair_names(pair: &[Signature]) -> String {
    let names: Vec<String> = pair.iter().map(|s| s.to_string()).collect();
    names.join(" ")
}

fn build(a: BuildArgs) -> Result<()> {
    if !(3..=damasi_tb::MAX_PIECES).contains(&a.pieces) {
        bail!("--pieces must be 3 to {}", damasi_tb::MAX_PIECES);
    }
    let dir = a.dir.path()?;
    // The tables are the build's output: a closed stdout (`| head`) does not stop hours of it.
    macro_rules! say {
        ($($line:tt)*) => {{
            let _ = writeln!(std::io::stdout(), $($line)*);
        }};
    }
    say!(
        "building tables up to {} pieces in {}",
        a.pieces,
        dir.display()
    );
    let start = Instant::now();
    // Large pairs take a while: a line every half minute says how far they are.
    let mut last_line = Instant::now();
    let options = BuildOptions {
        checkpoint_every: Some(Duration::from_secs(a.checkpoint_minutes.saturating_mul(60))),
    };
    build_all_with(&dir, a.pieces, &options, |e| match e {
        BuildEvent::Loaded { pair } => {
            let names = pair_names(pair);
            say!("kept  {names} (already built)");
            last_line = Instant::now();
        }
        BuildEvent::Progress { pair, step } => {
            if last_line.elapsed().as_secs() >= 30 {
                let names = pair_names(pair);
                let wave = match step.wave {
                    Some(0) => ", initialised".to_string(),
                    Some(w) => format!(", wave {w}"),
                    None => String::new(),
                };
                say!(
                    "      {} {:.1} % of {} entries (unit {} of {}{wave}); elapsed {}",
                    names,
                    step.done as f64 * 100.0 / step.entries.max(1) as f64,
                    step.entries,
                    step.unit,
                    step.units,
                    hms(start.elapsed().as_secs())
                );
                last_line = Instant::now();
            }
        }
        BuildEvent::Checkpoint { pair, event } => {
            let names = pair_names(pair);
            match event {
                CheckpointEvent::Resumed { units_done, units } => {
                    say!(
                        "resume {names} from its checkpoint ({units_done} of {units} units solved)"
                    )
                }
                CheckpointEvent::Refused { reason } => {
                    say!("      {names}: checkpoint not used, the pair starts over: {reason}")
                }
                CheckpointEvent::Saved {
                    units_done,
                    units,
                    took,
                } => say!(
                    "      {names}: checkpoint saved ({units_done} of {units} units, {:.1} s)",
                    took.as_secs_f64()
                ),
                CheckpointEvent::NotSaved { reason } => {
                    say!("      {names}: checkpoint not saved, the build goes on: {reason}")
                }
            }
        }
        BuildEvent::Built {
            pair,
            entries,
            took,
            estimate_left,
            longest,
            stats,
            ..
        } => {
            let names = pair_names(pair);
            say!(
                "built {} ({entries} entries, {:.1} s, longest {longest} plies to conversion); elapsed {}, about {} left",
                names,
                took.as_secs_f64(),
                hms(start.elapsed().as_secs()),
                hms(estimate_left.as_secs())
            );
            // As `damasi tb stats` prints them, counted while solving: `grep '^stats '`.
            for (sig, s) in pair.iter().zip(stats) {
                say!("stats {}", stats_line(*sig, s));
            }
            last_line = Instant::now();
        }
    })?;
    say!("done in {}", hms(start.elapsed().as_secs()));
    Ok(())
}

fn probe(a: ProbeArgs) -> Result<()> {
    let mut out = std::io::stdout();
    // One position needs a few blocks, not the 0.6 GB of tables up to five pieces.
    let tb = a.dir.open(a.fen.is_some())?;
    if let Some(fen) = a.fen {
        let pos = Position::from_fen(&fen).with_context(|| format!("cannot read --fen '{fen}'"))?;
        let v: Wdl = tb.probe(&pos)?;
        // The distance (where its file is there) first: the value stays the last line.
        if let Ok(Some(d)) = tb.probe_dtc(&pos) {
            writeln!(out, "distance to conversion: {d} plies")?;
        }
        writeln!(out, "{v}")?;
        return Ok(());
    }
    let mut failed = 0;
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read standard input")?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        let value = Position::from_fen(fen)
            .map_err(anyhow::Error::from)
            .and_then(|pos| Ok(tb.probe(&pos)?));
        match value {
            Ok(v) => writeln!(out, "{fen} {v}")?,
            Err(e) => {
                failed += 1;
                eprintln!("damasi: error: line {}: {fen}: {e:#}", n + 1);
            }
        }
    }
    if failed > 0 {
        bail!("{failed} line(s) could not be probed");
    }
    Ok(())
}

fn stats(a: SelectArgs) -> Result<()> {
    let mut out = std::io::stdout();
    let (tb, sigs) = a.open()?;
    writeln!(out, "wm bm wk bk positions win draw loss")?;
    for sig in sigs {
        let s = signature_stats(&tb, sig)?;
        writeln!(out, "{}", stats_line(sig, &s))?;
    }
    Ok(())
}

fn verify(a: SelectArgs) -> Result<()> {
    let mut out = std::io::stdout();
    let (mut tb, sigs) = a.open()?;
    let dir = a.dir.path()?;
    let mut bad = 0;
    // Six-piece tables are memory-mapped; the ones the quiet moves lead into are read
    // whole while they are needed, as these are read at random.
    let mut whole: Vec<Signature> = Vec::new();
    for sig in sigs {
        let needed: Vec<Signature> = tables_after_quiet_moves(sig)
            .into_iter()
            .filter(|&s| s.pieces() > IN_MEMORY_PIECES && tb.table(s).is_some())
            .collect();
        for &s in whole.iter().filter(|s| !needed.contains(s)) {
            tb.reopen(&dir, s, false)
                .with_context(|| format!("cannot map table {s}"))?;
        }
        for &s in needed.iter().filter(|s| !whole.contains(s)) {
            tb.reopen(&dir, s, true)
                .with_context(|| format!("cannot read table {s}"))?;
        }
        whole = needed;
        let v = verify_table(&tb, sig)?;
        writeln!(
            out,
            "{sig} {} checked, {} wrong",
            v.checked, v.mismatch_count
        )?;
        for (fen, stored, computed) in &v.mismatches {
            writeln!(out, "  {fen}: stored {stored}, moves give {computed}")?;
        }
        bad += v.mismatch_count;
        if tb.has_distances(sig) {
            let v = verify_distances(&tb, sig)?;
            writeln!(
                out,
                "{sig} distances: {} checked, {} wrong",
                v.checked, v.mismatch_count
            )?;
            for (what, _, _) in &v.mismatches {
                writeln!(out, "  {what}")?;
            }
            bad += v.mismatch_count;
        }
    }
    if bad > 0 {
        bail!("{bad} stored values or distances disagree with their moves");
    }
    writeln!(out, "all tables verified")?;
    Ok(())
}
