//! The tablebase: a set of tables and the probe that reads them.

use rustc_hash::FxHashMap;
use std::path::Path;

use damasi::{MoveList, Position, Wdl};

use crate::error::{ProbeError, TbError};
use crate::file::{table_files, Kind};
use crate::placement::Placement;
use crate::signature::{Signature, MAX_PIECES};
use crate::table::Table;

/// Tables up to this many pieces are read whole into memory; larger ones are memory-mapped.
pub const IN_MEMORY_PIECES: u32 = 5;

/// A set of tables, one per signature, and the distance-to-conversion files found with them.
#[derive(Default)]
pub struct Tablebase {
    tables: FxHashMap<Signature, Table>,
    pub(crate) distances: FxHashMap<Signature, Table>,
}

impl Tablebase {
    /// No tables: every probe with three or more pieces fails.
    pub fn new() -> Tablebase {
        Tablebase::default()
    }

    /// Every table file in `dir` (`*.dtb` values and `*.dtc` distances): values up to five
    /// pieces into memory, six-piece values and all distances memory-mapped. A directory that
    /// does not exist holds no tables; a damaged file is an error.
    pub fn open(dir: &Path) -> Result<Tablebase, TbError> {
        Tablebase::open_up_to(dir, MAX_PIECES)
    }

    /// The table files in `dir` with at most `max_pieces` pieces (others are not read), as
    /// [`Tablebase::open`] does.
    pub fn open_up_to(dir: &Path, max_pieces: u32) -> Result<Tablebase, TbError> {
        Tablebase::open_with(dir, max_pieces, IN_MEMORY_PIECES)
    }

    /// Every table file in `dir`, all memory-mapped: quick to open and small, for a few
    /// probes (each reads only the blocks it touches); [`Tablebase::open`] is faster for
    /// many.
    pub fn open_mapped(dir: &Path) -> Result<Tablebase, TbError> {
        Tablebase::open_with(dir, MAX_PIECES, 0)
    }

    /// The table files in `dir` with at most `max_pieces` pieces, values with at most
    /// `in_memory_pieces` read whole, the others memory-mapped.
    fn open_with(dir: &Path, max_pieces: u32, in_memory_pieces: u32) -> Result<Tablebase, TbError> {
        let mut tb = Tablebase::new();
        for (sig, kind, path) in table_files(dir)? {
            if sig.pieces() > max_pieces {
                continue;
            }
            // Distances are read at the root only: always memory-mapped.
            let map = kind == Kind::Dtc || sig.pieces() > in_memory_pieces;
            let table = open_checked(&path, sig, map, kind)?;
            match kind {
                Kind::Wdl => tb.insert(table),
                Kind::Dtc => tb.insert_distances(table),
            }
        }
        Ok(tb)
    }

    /// Opens the value table of `sig` in `dir` again, read whole into memory or
    /// memory-mapped. Work that reads a six-piece table at random (verifying the tables its
    /// moves lead into) wants it whole: mapped, nearly every read decompresses a block.
    pub fn reopen(&mut self, dir: &Path, sig: Signature, whole: bool) -> Result<(), TbError> {
        let table = open_checked(&dir.join(sig.file_name()), sig, !whole, Kind::Wdl)?;
        self.insert(table);
        Ok(())
    }

    /// Adds (or replaces) a table.
    pub fn insert(&mut self, table: Table) {
        self.tables.insert(table.signature(), table);
    }

    /// Adds (or replaces) a table of distances to conversion.
    pub fn insert_distances(&mut self, table: Table) {
        self.distances.insert(table.signature(), table);
    }

    /// Whether a distance-to-conversion file of `sig` is loaded.
    pub fn has_distances(&self, sig: Signature) -> bool {
        self.distances.contains_key(&sig)
    }

    /// Removes a table.
    pub fn remove(&mut self, sig: Signature) -> Option<Table> {
        self.tables.remove(&sig)
    }

    /// The table of a signature, if loaded.
    pub fn table(&self, sig: Signature) -> Option<&Table> {
        self.tables.get(&sig)
    }

    /// The signatures loaded, sorted by pieces, then by signature.
    pub fn signatures(&self) -> Vec<Signature> {
        let mut v: Vec<Signature> = self.tables.keys().copied().collect();
        v.sort_by_key(|s| (s.pieces(), *s));
        v
    }

    /// Whether every table a position of this many pieces can reach is loaded (all
    /// signatures with 3 up to `pieces` pieces).
    pub fn is_complete_to(&self, pieces: u32) -> bool {
        (3..=pieces).all(|n| {
            Signature::all_with(n)
                .iter()
                .all(|s| self.tables.contains_key(s))
        })
    }

    /// The most pieces for which every table is loaded (from 3 up; 2 if not even the
    /// three-piece tables are all there): every position with that many pieces or fewer
    /// can be probed.
    pub fn complete_pieces(&self) -> u32 {
        (3..=MAX_PIECES)
            .take_while(|&n| self.is_complete_to(n))
            .last()
            .unwrap_or(2)
    }

    /// The value of `pos` for the side to move, under the default rules. Positions with a
    /// capture are not stored (their entries are "don't care"): captures are forced, so the
    /// value is the best over the captures, each leading to fewer pieces.
    pub fn probe(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        value_of(pos, MAX_PIECES, &ProbeError::TooManyPieces, &|pos| {
            self.stored(pos)
        })
    }

    /// The value of `pos`, which has a capture on the board: the best over its captures
    /// (what [`Tablebase::probe`] does for such a position, without checking again that
    /// there is one). The builder solves its capture positions with it.
    pub(crate) fn probe_captures(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        best_capture(pos, MAX_PIECES, &ProbeError::TooManyPieces, &|pos| {
            self.stored(pos)
        })
    }

    /// The stored value of a position without a capture.
    fn stored(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let p = Placement::of(pos);
        let sig = p.signature();
        let table = self.tables.get(&sig).ok_or(ProbeError::MissingTable(sig))?;
        Ok(table.get(table.indexer().index(&p))?)
    }

    /// The distance to conversion of `pos`: with best play (the winner hurrying, the loser
    /// delaying), the plies until the next capture, promotion or forward step of a man (0 for
    /// a finished game, 1 with a capture on the board). `None` for a draw or when no distance
    /// file covers it.
    pub fn probe_dtc(&self, pos: &Position) -> Result<Option<u32>, ProbeError> {
        let value = self.probe(pos)?;
        Ok(distance_of(pos, value, &|p| {
            let table = self.distances.get(&p.signature())?;
            table.distance(table.indexer().index(p)).ok()
        }))
    }

    /// The value of a placement with White to move (see [`Tablebase::probe`]).
    pub fn probe_placement(&self, p: &Placement) -> Result<Wdl, ProbeError> {
        match p.to_position() {
            Some(pos) => self.probe(&pos),
            // Not a position: two pieces on a square or a man on a rank it never reaches.
            None => Err(ProbeError::NotAPosition(*p)),
        }
    }
}

/// The table file at `path`, which must hold `sig`.
fn open_checked(path: &Path, sig: Signature, map: bool, kind: Kind) -> Result<Table, TbError> {
    let table = Table::open_kind(path, map, kind)?;
    if table.signature() != sig {
        return Err(TbError::corrupt(
            path,
            format!("holds {}, not {sig}", table.signature()),
        ));
    }
    Ok(table)
}

/// The distance to conversion of `pos`, whose value is `value`: with best play (the winner
/// hurrying, the loser delaying), the plies until the next capture, promotion or forward
/// step of a man, the moves after which the position can never come back. `None` for a draw
/// or when `stored` (the distance files' entry of a quiet position) does not know it. A
/// finished game is 0 plies from conversion, a position with a capture 1.
pub(crate) fn distance_of(
    pos: &Position,
    value: Wdl,
    stored: &dyn Fn(&Placement) -> Option<u8>,
) -> Option<u32> {
    if value == Wdl::Draw {
        return None;
    }
    if pos.count(pos.side_to_move()) == 0 || pos.count(!pos.side_to_move()) == 0 {
        return Some(0);
    }
    if pos.has_capture() {
        return Some(1);
    }
    stored(&Placement::of(pos)).map(u32::from)
}

/// The value of `pos` for the side to move, under the default rules, with `stored` giving the
/// tables' value of a quiet position: the endings no table is needed for (no pieces, one piece
/// each) are decided here, more than `max_pieces` pieces is `too_many`, and a position with a
/// capture (not stored: captures are forced) takes the best value over its captures, each
/// leading to fewer pieces.
pub(crate) fn value_of<E>(
    pos: &Position,
    max_pieces: u32,
    too_many: &dyn Fn(u32) -> E,
    stored: &dyn Fn(&Position) -> Result<Wdl, E>,
) -> Result<Wdl, E> {
    let us = pos.count(pos.side_to_move());
    let them = pos.count(!pos.side_to_move());
    if us == 0 {
        return Ok(Wdl::Loss);
    }
    if them == 0 {
        return Ok(Wdl::Win);
    }
    if us == 1 && them == 1 {
        return Ok(Wdl::Draw);
    }
    if us + them > max_pieces {
        return Err(too_many(us + them));
    }
    if pos.has_capture() {
        return best_capture(pos, max_pieces, too_many, stored);
    }
    stored(pos)
}

/// The value of `pos`, which has a capture on the board (as [`value_of`]): the best value
/// over its captures, each leading to fewer pieces.
fn best_capture<E>(
    pos: &Position,
    max_pieces: u32,
    too_many: &dyn Fn(u32) -> E,
    stored: &dyn Fn(&Position) -> Result<Wdl, E>,
) -> Result<Wdl, E> {
    if pos.count(!pos.side_to_move()) == 1 {
        // Every capture takes the last piece.
        return Ok(Wdl::Win);
    }
    let mut best = Wdl::Loss;
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    for m in moves.iter() {
        let v = value_of(&pos.play(m), max_pieces, too_many, stored)?.negate();
        if v > best {
            best = v;
            if best == Wdl::Win {
                break;
            }
        }
    }
    Ok(best)
}
