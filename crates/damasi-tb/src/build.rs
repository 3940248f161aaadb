//! Building every table up to a number of pieces into a directory, restartably: a finished
//! signature is a file, and files already there are loaded instead of rebuilt; a pair being
//! built saves a checkpoint every few minutes ([`crate::checkpoint`]) and an interrupted
//! build goes on from it.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::builder::{PairBuild, Step};
use crate::checkpoint::{checkpoint_path, read_checkpoint, write_checkpoint};
use crate::error::{ProbeError, TbError};
use crate::file::{write_file, write_table, Kind};
use crate::index::Indexer;
use crate::probe::{Tablebase, IN_MEMORY_PIECES};
use crate::signature::Signature;
use crate::stats::Stats;
use crate::table::Table;

/// What the build reports as it goes.
#[derive(Clone, Debug)]
pub enum BuildEvent {
    /// A pair's files were already there and were loaded.
    Loaded {
        /// The signatures.
        pair: Vec<Signature>,
    },
    /// Part of a pair is solved (reported after each unit's initialisation and waves, and
    /// after each unit: a slice of the men's ranks with its counterpart).
    Progress {
        /// The signatures.
        pair: Vec<Signature>,
        /// How far the pair has come.
        step: Step,
    },
    /// A checkpoint of the pair being built was saved, read or refused.
    Checkpoint {
        /// The signatures.
        pair: Vec<Signature>,
        /// What happened.
        event: CheckpointEvent,
    },
    /// A pair was solved and written.
    Built {
        /// The signatures.
        pair: Vec<Signature>,
        /// Their entries together.
        entries: u64,
        /// The longest distance to conversion of a won or lost position, in plies.
        longest: u8,
        /// The statistics of each table, in the order of `pair`, counted while solving
        /// (what [`crate::signature_stats`] would count).
        stats: Vec<Stats>,
        /// How long solving and writing took.
        took: Duration,
        /// Entries still to build after this pair.
        entries_left: u64,
        /// Time left at the rate measured so far in this run.
        estimate_left: Duration,
    },
}

/// What happened to a pair's checkpoint.
#[derive(Clone, Debug)]
pub enum CheckpointEvent {
    /// The build goes on from a checkpoint left by an interrupted build.
    Resumed {
        /// Units already solved.
        units_done: usize,
        /// Units of the pair.
        units: usize,
    },
    /// A checkpoint was there but cannot be used (another pair's, damaged...): the pair
    /// starts over, and the file is replaced at the next checkpoint.
    Refused {
        /// Why, for people.
        reason: String,
    },
    /// A checkpoint was saved.
    Saved {
        /// Units solved.
        units_done: usize,
        /// Units of the pair.
        units: usize,
        /// How long saving took.
        took: Duration,
    },
    /// A checkpoint could not be saved (the disk is full, say): the build goes on without.
    NotSaved {
        /// Why, for people.
        reason: String,
    },
}

/// How a build goes about its work.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// After a unit, save a checkpoint of the pair being built if this much time has passed
    /// since the pair started or since its last checkpoint (`None`: never). Saving takes a
    /// few seconds for the largest six-piece pairs; a checkpoint is never taken after the
    /// last unit (the tables are written then).
    pub checkpoint_every: Option<Duration>,
}

impl Default for BuildOptions {
    /// A checkpoint every five minutes.
    fn default() -> Self {
        BuildOptions {
            checkpoint_every: Some(Duration::from_secs(300)),
        }
    }
}

/// Why a build stopped.
#[derive(Debug)]
pub enum BuildError {
    /// A file could not be read or written.
    File(TbError),
    /// A table needed by a capture or promotion could not be probed.
    Probe(ProbeError),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::File(e) => e.fmt(f),
            BuildError::Probe(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<TbError> for BuildError {
    fn from(e: TbError) -> Self {
        BuildError::File(e)
    }
}

impl From<ProbeError> for BuildError {
    fn from(e: ProbeError) -> Self {
        BuildError::Probe(e)
    }
}

/// Entries of a pair of signatures.
fn pair_entries(pair: &[Signature]) -> u64 {
    pair.iter().map(|&s| Indexer::new(s).size()).sum()
}

/// Distance-to-conversion files are written for tables up to this many pieces (at six
/// pieces they would take a byte an entry, tens of gigabytes).
pub const DTC_PIECES: u32 = 5;

/// The tables a promotion from `pair` reaches (White's man becomes a king, then Black is to
/// move: the colour flip).
fn promotion_targets(pair: &[Signature]) -> Vec<Signature> {
    pair.iter()
        .filter(|s| s.wm > 0)
        .map(|s| Signature::new(s.wm - 1, s.wk + 1, s.bm, s.bk).flip())
        .collect()
}

/// Reads the tables `sigs` of `dir` whole into `tb` (replacing their memory-mapped versions);
/// returns the ones it read.
fn hold_in_memory(
    tb: &mut Tablebase,
    dir: &Path,
    sigs: &[Signature],
) -> Result<Vec<Signature>, TbError> {
    let mut held = Vec::new();
    for &s in sigs {
        let path = dir.join(s.file_name());
        if tb.table(s).is_some_and(|t| !t.is_in_memory()) && !held.contains(&s) {
            tb.insert(Table::open(&path, false)?);
            held.push(s);
        }
    }
    Ok(held)
}

/// Builds (or loads) every table with 3 up to `max_pieces` pieces in `dir`, smaller signatures
/// first, and returns them as a tablebase. Two pieces need no table: one piece each is a draw.
/// Checkpoints are taken every five minutes ([`BuildOptions::default`]).
pub fn build_all(
    dir: &Path,
    max_pieces: u32,
    report: impl FnMut(&BuildEvent),
) -> Result<Tablebase, BuildError> {
    build_all_with(dir, max_pieces, &BuildOptions::default(), report)
}

/// [`build_all`] with options.
pub fn build_all_with(
    dir: &Path,
    max_pieces: u32,
    options: &BuildOptions,
    mut report: impl FnMut(&BuildEvent),
) -> Result<Tablebase, BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| TbError::io(dir, e))?;
    let order: Vec<Vec<Signature>> = (3..=max_pieces.min(crate::MAX_PIECES))
        .flat_map(Signature::build_order)
        .collect();
    let is_done = |pair: &[Signature]| {
        pair.iter().all(|s| {
            dir.join(s.file_name()).exists()
                && (s.pieces() > DTC_PIECES || dir.join(s.dtc_file_name()).exists())
        })
    };
    let mut left: u64 = order
        .iter()
        .filter(|p| !is_done(p))
        .map(|p| pair_entries(p))
        .sum();
    let (mut done, start) = (0u64, Instant::now());
    let mut tb = Tablebase::new();
    for pair in order {
        let map = pair[0].pieces() > IN_MEMORY_PIECES;
        if is_done(&pair) {
            for s in &pair {
                tb.insert(Table::open(&dir.join(s.file_name()), map)?);
            }
            // A build stopped between writing the tables and removing the checkpoint.
            remove_checkpoint(dir, &pair)?;
            report(&BuildEvent::Loaded { pair });
            continue;
        }
        let t0 = Instant::now();
        // Promotions are looked up at random: a memory-mapped table would decompress a block
        // for nearly every lookup, so the tables they reach are read whole while it lasts.
        let promoted = if map {
            hold_in_memory(&mut tb, dir, &promotion_targets(&pair))?
        } else {
            Vec::new()
        };
        let with_dtc = pair[0].pieces() <= DTC_PIECES;
        let (solved, resumed) = solve_pair(&tb, dir, &pair, with_dtc, options, &mut report)?;
        for s in promoted {
            tb.insert(Table::open(&dir.join(s.file_name()), true)?);
        }
        let longest = solved.iter().map(|t| t.longest).max().unwrap_or(0);
        let stats = solved.iter().map(|t| t.stats).collect();
        for (s, table) in pair.iter().zip(solved) {
            let path = dir.join(s.file_name());
            let entries = Indexer::new(*s).size();
            if let Some(dtc) = &table.dtc {
                write_file(&dir.join(s.dtc_file_name()), Kind::Dtc, *s, entries, dtc)?;
            }
            let packed = table.wdl;
            write_table(&path, *s, entries, &packed)?;
            if map {
                // Six-piece tables stay on disk: only the small cache is in memory.
                drop(packed);
                tb.insert(Table::open(&path, true)?);
            } else {
                tb.insert(Table::from_packed(*s, packed));
            }
        }
        remove_checkpoint(dir, &pair)?;
        let entries = pair_entries(&pair);
        // The rate counts what this run solved.
        done += entries - resumed;
        left -= entries;
        let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-3);
        report(&BuildEvent::Built {
            pair,
            entries,
            longest,
            stats,
            took: t0.elapsed(),
            entries_left: left,
            estimate_left: Duration::from_secs_f64(left as f64 / rate),
        });
    }
    Ok(tb)
}

/// Removes the checkpoint of `pair`, if any: it goes once the pair's tables are written.
fn remove_checkpoint(dir: &Path, pair: &[Signature]) -> Result<(), TbError> {
    let path = checkpoint_path(dir, pair);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TbError::io(&path, e)),
        _ => Ok(()),
    }
}

/// Solves a pair unit by unit, from its checkpoint if there is a usable one, saving
/// checkpoints as `options` asks. Returns the tables and the entries the checkpoint had
/// solved (0 when the pair started afresh).
fn solve_pair(
    tb: &Tablebase,
    dir: &Path,
    pair: &[Signature],
    with_dtc: bool,
    options: &BuildOptions,
    report: &mut impl FnMut(&BuildEvent),
) -> Result<(Vec<crate::builder::Solved>, u64), BuildError> {
    let path = checkpoint_path(dir, pair);
    let checkpoint = |event| BuildEvent::Checkpoint {
        pair: pair.to_vec(),
        event,
    };
    let mut build = None;
    if path.exists() {
        match read_checkpoint(&path, tb, pair, with_dtc) {
            Ok(b) => {
                report(&checkpoint(CheckpointEvent::Resumed {
                    units_done: b.units_done(),
                    units: b.units(),
                }));
                build = Some(b);
            }
            Err(e) => report(&checkpoint(CheckpointEvent::Refused {
                reason: e.to_string(),
            })),
        }
    }
    let mut build = build.unwrap_or_else(|| PairBuild::new(tb, pair, with_dtc));
    // Nothing when the pair starts afresh.
    let resumed = build.progress().done;
    let mut last = Instant::now();
    while !build.is_finished() {
        build.solve_next_unit(&mut |step| {
            report(&BuildEvent::Progress {
                pair: pair.to_vec(),
                step,
            })
        })?;
        let due = options
            .checkpoint_every
            .is_some_and(|e| last.elapsed() >= e);
        if due && !build.is_finished() {
            let t0 = Instant::now();
            report(&checkpoint(match write_checkpoint(&path, &build) {
                Ok(()) => CheckpointEvent::Saved {
                    units_done: build.units_done(),
                    units: build.units(),
                    took: t0.elapsed(),
                },
                Err(e) => CheckpointEvent::NotSaved {
                    reason: e.to_string(),
                },
            }));
            last = Instant::now();
        }
    }
    Ok((build.finish(), resumed))
}
