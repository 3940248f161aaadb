//! Building every table up to a number of pieces into a directory, restartably: a finished
//! signature is a file, and files already there are loaded instead of rebuilt.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::builder::build_pair;
use crate::error::{ProbeError, TbError};
use crate::file::write_table;
use crate::index::Indexer;
use crate::probe::{Tablebase, IN_MEMORY_PIECES};
use crate::signature::Signature;
use crate::table::Table;

/// What the build reports as it goes.
#[derive(Clone, Debug)]
pub enum BuildEvent {
    /// A pair's files were already there and were loaded.
    Loaded {
        /// The signatures.
        pair: Vec<Signature>,
    },
    /// A pair was solved and written.
    Built {
        /// The signatures.
        pair: Vec<Signature>,
        /// Their entries together.
        entries: u64,
        /// How long solving and writing took.
        took: Duration,
        /// Entries still to build after this pair.
        entries_left: u64,
        /// Time left at the rate measured so far in this run.
        estimate_left: Duration,
    },
}

/// Why a build stopped.
#[derive(Debug)]
pub enum BuildError {
    /// A file could not be read or written.
    File(TbError),
    /// A table needed by a capture or promotion could not be probed.
    Probe(ProbeError),
    /// A pair too large for this builder (more than [`crate::builder::MAX_ENTRIES`] entries
    /// in one table); the tables built before it are kept.
    TooLarge(Vec<Signature>),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::File(e) => e.fmt(f),
            BuildError::Probe(e) => e.fmt(f),
            BuildError::TooLarge(pair) => write!(
                f,
                "{} is too large for this builder (more than {} entries in one table)",
                pair[0],
                crate::builder::MAX_ENTRIES
            ),
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

/// Builds (or loads) every table with 3 up to `max_pieces` pieces in `dir`, smaller signatures
/// first, and returns them as a tablebase. Two pieces need no table: one piece each is a draw.
pub fn build_all(
    dir: &Path,
    max_pieces: u32,
    mut report: impl FnMut(&BuildEvent),
) -> Result<Tablebase, BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| TbError::io(dir, e))?;
    let order: Vec<Vec<Signature>> = (3..=max_pieces.min(crate::MAX_PIECES))
        .flat_map(Signature::build_order)
        .collect();
    let is_done = |pair: &[Signature]| pair.iter().all(|s| dir.join(s.file_name()).exists());
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
            report(&BuildEvent::Loaded { pair });
            continue;
        }
        if !crate::builder::fits(&pair) {
            return Err(BuildError::TooLarge(pair));
        }
        let t0 = Instant::now();
        let values = build_pair(&tb, &pair)?;
        for (s, packed) in pair.iter().zip(values) {
            let path = dir.join(s.file_name());
            let entries = Indexer::new(*s).size();
            write_table(&path, *s, entries, &packed)?;
            if map {
                // Six-piece tables stay on disk: only the small cache is in memory.
                drop(packed);
                tb.insert(Table::open(&path, true)?);
            } else {
                tb.insert(Table::from_packed(*s, packed));
            }
        }
        let entries = pair_entries(&pair);
        done += entries;
        left -= entries;
        let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-3);
        report(&BuildEvent::Built {
            pair,
            entries,
            took: t0.elapsed(),
            entries_left: left,
            estimate_left: Duration::from_secs_f64(left as f64 / rate),
        });
    }
    Ok(tb)
}
