//! # damasi: Turkish draughts (Dama) rules
//!
//! Exact rules of Turkish draughts as played by the Turkish federation: orthogonal men, flying
//! kings, immediate removal of captured pieces, the maximum-capture rule and no 180-degree
//! turns; with positions (FEN), move notation (also the Hub protocol's numeric one, [`hub`]),
//! games with draw rules, PDN records, Zobrist keys and perft.
//!
//! ```
//! use damasi::{Position, perft};
//!
//! let start = Position::start();
//! assert_eq!(start.legal_moves().len(), 8);
//! assert_eq!(perft(&start, 3), 708);
//! ```

pub mod bitboard;
pub mod clock;
pub mod color;
pub mod diagram;
pub mod fen;
pub mod game;
pub mod hub;
mod isa;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod pdn;
pub mod perft;
pub mod position;
pub mod square;
mod wdl;
pub mod zobrist;

pub use clock::{Clock, TimeControl};
pub use color::{ByColor, Color, Piece, Role};
pub use diagram::diagram;
pub use fen::FenError;
pub use game::{DrawReason, Game, GameError, Outcome, RuleSet, WinReason};
pub use moves::{Move, MoveList};
pub use notation::{MoveError, Notation};
pub use pdn::{PdnError, PdnGame};
pub use perft::{divide, perft, perft_parallel, perft_with, Counting};
pub use position::{Position, PositionError};
pub use square::Square;
pub use wdl::Wdl;
