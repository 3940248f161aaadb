//! The tables as the engine's endgame oracle ([`damasi_engine::oracle::EndgameOracle`]):
//! `damasi hub`, `damasi analyze`, the terminal `hint` and the web app use them through it.
//!
//! Opening the oracle only lists the directory; each table is read into memory the first
//! time a probe needs it (a five-piece table in a fraction of a second), so an engine starts
//! at once and holds only the endings its games reach. A file that cannot be read or is
//! damaged makes the probes that need it unknown (`None`), never wrong, and
//! [`TablebaseOracle::errors`] tells what happened.

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use damasi::{Position, Wdl};
use damasi_engine::oracle::EndgameOracle;

use crate::error::TbError;
use crate::file::{table_files, Kind};
use crate::placement::Placement;
use crate::probe::{distance_of, value_of, Tablebase, IN_MEMORY_PIECES};
use crate::signature::{Signature, MAX_PIECES};
use crate::table::Table;

/// Tables up to this many pieces are what the commands use: every table there is. Up to
/// five pieces they are read into memory (about 0.6 GB, each in well under a second); six-piece
/// tables are memory-mapped, and used as soon as each is built (the set takes several runs).
pub const ORACLE_PIECES: u32 = MAX_PIECES;

/// A table slot: the file, and the table once read (`None` if it could not be).
struct Slot {
    path: Option<PathBuf>,
    table: OnceLock<Option<Table>>,
}

/// A set of tables that answers probes for every position with up to
/// [`TablebaseOracle::max_pieces`] pieces, reading each table when first needed.
pub struct TablebaseOracle {
    dir: Option<PathBuf>,
    slots: FxHashMap<Signature, Slot>,
    /// Distance-to-conversion files, read (memory-mapped) when the root first needs them.
    distance_slots: FxHashMap<Signature, Slot>,
    max_pieces: u32,
    /// Every position with up to this many pieces is covered; with more (up to
    /// `max_pieces`), only those whose table is there.
    complete_pieces: u32,
    errors: Mutex<Vec<String>>,
}

/// The most pieces `n` for which every signature with 3 to `n` pieces is in `have`; 2 if
/// not even the three-piece ones are.
fn complete_pieces(have: impl Fn(&Signature) -> bool, limit: u32) -> u32 {
    (3..=limit.min(MAX_PIECES))
        .take_while(|&n| Signature::all_with(n).iter().all(&have))
        .last()
        .unwrap_or(2)
}

impl TablebaseOracle {
    /// The oracle of an already loaded set of tables; `None` if the three-piece tables are
    /// not all there.
    pub fn new(tb: Tablebase) -> Option<TablebaseOracle> {
        let max_pieces = tb.complete_pieces();
        if max_pieces < 3 {
            return None;
        }
        let mut tb = tb;
        let distance_slots = std::mem::take(&mut tb.distances)
            .into_iter()
            .map(|(sig, t)| {
                let slot = Slot {
                    path: None,
                    table: OnceLock::from(Some(t)),
                };
                (sig, slot)
            })
            .collect();
        let mut slots = FxHashMap::default();
        for sig in tb.signatures() {
            if let Some(t) = tb.remove(sig) {
                slots.insert(
                    sig,
                    Slot {
                        path: None,
                        table: OnceLock::from(Some(t)),
                    },
                );
            }
        }
        Some(TablebaseOracle {
            dir: None,
            slots,
            distance_slots,
            max_pieces,
            complete_pieces: max_pieces,
            errors: Mutex::new(Vec::new()),
        })
    }

    /// The tables with up to `max_pieces` pieces in `dir` (files `*.dtb`), read when first
    /// needed. `Ok(None)` when `dir` does not hold every three-piece table (for example it
    /// does not exist); an error when the directory cannot be listed. The oracle covers the
    /// piece counts whose tables are all there and, with one piece more, the signatures
    /// whose tables are there: a six-piece build in progress is used pair by pair as it
    /// goes (a six-piece position's captures lead into the complete five-piece tables).
    pub fn open(dir: &Path, max_pieces: u32) -> Result<Option<TablebaseOracle>, TbError> {
        let mut slots = FxHashMap::default();
        let mut distance_slots = FxHashMap::default();
        for (sig, kind, path) in table_files(dir)? {
            let into = match kind {
                Kind::Wdl => &mut slots,
                Kind::Dtc => &mut distance_slots,
            };
            if sig.pieces() <= max_pieces {
                into.insert(
                    sig,
                    Slot {
                        path: Some(path),
                        table: OnceLock::new(),
                    },
                );
            }
        }
        let covered = complete_pieces(|s| slots.contains_key(s), max_pieces);
        if covered < 3 {
            return Ok(None);
        }
        slots.retain(|s, _| s.pieces() <= covered + 1);
        let partial = slots.keys().any(|s| s.pieces() > covered);
        Ok(Some(TablebaseOracle {
            dir: Some(dir.to_path_buf()),
            slots,
            distance_slots,
            max_pieces: covered + u32::from(partial),
            complete_pieces: covered,
            errors: Mutex::new(Vec::new()),
        }))
    }

    /// The directory the tables are read from (`None` for tables handed over in memory).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The most pieces a covered position has.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Every position with up to this many pieces is covered (at most [`max_pieces`]; with
    /// more pieces, only the signatures whose tables are there).
    ///
    /// [`max_pieces`]: TablebaseOracle::max_pieces
    pub fn complete_pieces(&self) -> u32 {
        self.complete_pieces
    }

    /// Signatures with more than [`complete_pieces`] pieces whose tables are there, as
    /// `(tables, of all signatures with that many pieces)`; `None` if there are none.
    ///
    /// [`complete_pieces`]: TablebaseOracle::complete_pieces
    pub fn partial(&self) -> Option<(usize, usize)> {
        (self.max_pieces > self.complete_pieces).then(|| {
            let n = self.max_pieces;
            let have = self.slots.keys().filter(|s| s.pieces() == n).count();
            (have, Signature::all_with(n).len())
        })
    }

    /// Why tables could not be read so far (each at most once).
    pub fn errors(&self) -> Vec<String> {
        match self.errors.lock() {
            Ok(e) => e.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Reads every covered table now (instead of at its first probe); returns how many
    /// could not be read (see [`TablebaseOracle::errors`]).
    pub fn load_all(&self) -> usize {
        self.slots
            .keys()
            .filter(|&&s| self.table(s).is_none())
            .count()
    }

    fn table(&self, sig: Signature) -> Option<&Table> {
        self.read(&self.slots, sig, Kind::Wdl)
    }

    /// The slot's table of `kind`, read on first use (distances always memory-mapped).
    fn read<'a>(
        &'a self,
        slots: &'a FxHashMap<Signature, Slot>,
        sig: Signature,
        kind: Kind,
    ) -> Option<&'a Table> {
        let slot = slots.get(&sig)?;
        slot.table
            .get_or_init(|| {
                let path = slot.path.as_ref()?;
                let map = kind == Kind::Dtc || sig.pieces() > IN_MEMORY_PIECES;
                let read = Table::open_kind(path, map, kind).and_then(|t| {
                    if t.signature() == sig {
                        Ok(t)
                    } else {
                        Err(TbError::corrupt(
                            path,
                            format!("holds {}, not {sig}", t.signature()),
                        ))
                    }
                });
                match read {
                    Ok(t) => Some(t),
                    Err(e) => {
                        let mut errors = match self.errors.lock() {
                            Ok(g) => g,
                            Err(poisoned) => poisoned.into_inner(),
                        };
                        errors.push(e.to_string());
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The value of `pos` for the side to move if the tables cover it (at most
    /// [`max_pieces`] pieces, every table it needs readable), under the default rules. With
    /// a capture pending, the best value over the captures.
    ///
    /// [`max_pieces`]: TablebaseOracle::max_pieces
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        value_of(pos, self.max_pieces, &|_| (), &|pos| {
            let p = Placement::of(pos);
            let table = self.table(p.signature()).ok_or(())?;
            table.get(table.indexer().index(&p)).map_err(|_| ())
        })
        .ok()
    }
}

impl TablebaseOracle {
    /// The distance to conversion of `pos` (plies to the next capture, promotion or forward
    /// step of a man with best play) if it is won or lost and the distance files cover it.
    pub fn probe_dtc(&self, pos: &Position) -> Option<u32> {
        let value = self.probe(pos)?;
        distance_of(pos, value, &|p| {
            let table = self.read(&self.distance_slots, p.signature(), Kind::Dtc)?;
            table.distance(table.indexer().index(p)).ok()
        })
    }
}

impl EndgameOracle for TablebaseOracle {
    fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        self.probe(pos)
    }

    fn probe_dtc(&self, pos: &Position) -> Option<u32> {
        TablebaseOracle::probe_dtc(self, pos)
    }

    fn prepare(&self) {
        // Tables that cannot be read are left out of the probes and kept in `errors`.
        self.load_all();
    }
}
