//! The tables as the engine's endgame oracle ([`damasi_engine::oracle::EndgameOracle`]):
//! `damasi hub`, `damasi analyze`, the terminal `hint` and the web app use them through it.

use std::path::Path;

use damasi::Position;
use damasi_engine::oracle::{EndgameOracle, Wdl as EngineWdl};

use crate::error::TbError;
use crate::probe::Tablebase;
use crate::wdl::Wdl;

/// Tables up to this many pieces are what the engine loads by default: they fit in memory
/// (about 0.6 GB for all of them) and load in seconds.
pub const ORACLE_PIECES: u32 = 5;

/// A set of tables that answers the engine's probes for every position with up to
/// [`TablebaseOracle::max_pieces`] pieces.
pub struct TablebaseOracle {
    tb: Tablebase,
    max_pieces: u32,
}

impl TablebaseOracle {
    /// The oracle of a loaded set of tables: it covers the piece counts whose tables are all
    /// there; `None` if that is not even three pieces.
    pub fn new(tb: Tablebase) -> Option<TablebaseOracle> {
        let max_pieces = tb.complete_pieces();
        (max_pieces >= 3).then_some(TablebaseOracle { tb, max_pieces })
    }

    /// Loads the tables with up to `max_pieces` pieces from `dir`. `Ok(None)` when `dir`
    /// holds no complete set of three-piece tables (for example it does not exist); an
    /// error when a file cannot be read or is damaged.
    pub fn open(dir: &Path, max_pieces: u32) -> Result<Option<TablebaseOracle>, TbError> {
        Ok(TablebaseOracle::new(Tablebase::open_up_to(
            dir, max_pieces,
        )?))
    }

    /// The tables.
    pub fn tablebase(&self) -> &Tablebase {
        &self.tb
    }

    /// The value of `pos` if the tables cover it (at most [`max_pieces`] pieces; a damaged
    /// block reads as unknown).
    ///
    /// [`max_pieces`]: TablebaseOracle::max_pieces
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        let n = pos.count(damasi::Color::White) + pos.count(damasi::Color::Black);
        if n > self.max_pieces {
            return None;
        }
        self.tb.probe(pos).ok()
    }

    /// The most pieces a covered position has.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }
}

impl EndgameOracle for TablebaseOracle {
    fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    fn probe_wdl(&self, pos: &Position) -> Option<EngineWdl> {
        Some(match self.probe(pos)? {
            Wdl::Win => EngineWdl::Win,
            Wdl::Draw => EngineWdl::Draw,
            Wdl::Loss => EngineWdl::Loss,
        })
    }
}
