//! # damasi-tb: Turkish draughts endgame tablebases
//!
//! Win/draw/loss for every position with up to six pieces, under the default rules of
//! `damasi` (no legal move loses; mutual block, one piece each and repetition draw). One table
//! per material signature, White to move (Black to move by the colour flip), mirror images
//! stored once; solved by retrograde analysis ([`build_all`]); stored as 2-bit values in zstd
//! blocks (the format: `docs/tablebases.md`). [`TablebaseOracle`] hands them to the engine (`damasi-engine`'s
//! endgame oracle).
//!
//! ```
//! use damasi::{Position, Wdl};
//! use damasi_tb::build_all;
//!
//! let dir = std::env::temp_dir().join(format!("damasi-tb-doc-{}", std::process::id()));
//! let tb = build_all(&dir, 3, |_| {})?;
//! // Two kings against one in the open: a draw.
//! let pos = Position::from_fen("W:WKa1,Kb2:BKh8")?;
//! assert_eq!(tb.probe(&pos)?, Wdl::Draw);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The modules are the implementation; the library is what is re-exported here.
mod build;
mod builder;
mod checkpoint;
mod error;
mod file;
mod index;
mod oracle;
mod placement;
mod probe;
mod signature;
mod slice;
mod stats;
mod table;
mod unmove;
mod verify;
mod wdl;

pub use build::{
    build_all, build_all_with, BuildError, BuildEvent, BuildOptions, CheckpointEvent, DTC_PIECES,
};
pub use builder::Step;
pub use checkpoint::checkpoint_path;
pub use error::{ProbeError, TbError};
pub use index::Indexer;
pub use oracle::{TablebaseOracle, ORACLE_PIECES};
pub use placement::Placement;
pub use probe::{Tablebase, IN_MEMORY_PIECES};
pub use signature::{ParseSignatureError, Signature, MAX_PIECES};
pub use slice::{SliceIndexer, SliceKey};
pub use stats::{signature_stats, Stats};
pub use table::Table;
pub use verify::{tables_after_quiet_moves, verify_distances, verify_table, Verified};
