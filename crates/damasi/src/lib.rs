//! # damasi: Turkish draughts (Dama) rules
//!
//! Exact rules of Turkish draughts as played by the Turkish federation: orthogonal men, flying
//! kings, immediate removal of captured pieces, the maximum-capture rule and no 180-degree
//! turns; with positions (FEN), move notation (also the Hub protocol's numeric one, [`hub`]),
//! games with draw rules, PDN records ([`pdn`]), Zobrist keys ([`zobrist`]) and perft.
//!
//! Everything is at the crate's root (`damasi::Position`, `damasi::Game`, ...) but for four
//! namespaces whose names read with their module: the Hub protocol's notation ([`hub`]), PDN
//! files ([`pdn`]), bit masks and shifts of the board ([`bitboard`]) and the hashing keys
//! ([`zobrist`]). With the `serde` feature, [`ByColor`] (de)serialises and the views a page
//! is sent, [`MoveInfo`] and [`OutcomeInfo`], are there.
//!
//! ```
//! use damasi::{Position, perft};
//!
//! let start = Position::start();
//! assert_eq!(start.legal_moves().len(), 8);
//! assert_eq!(perft(&start, 3), 708);
//! ```

pub mod bitboard;
mod clock;
mod color;
mod diagram;
mod fen;
mod game;
pub mod hub;
mod isa;
mod movegen;
mod moves;
mod notation;
pub mod pdn;
mod perft;
mod position;
mod square;
#[cfg(feature = "serde")]
mod view;
mod wdl;
pub mod zobrist;

pub use clock::{Clock, Flagged, TimeControl, TimeControlError};
pub use color::{ByColor, Color, Piece, Role};
pub use diagram::diagram;
pub use fen::FenError;
pub use game::{
    cannot_win, position_outcome, DrawReason, Game, GameError, Outcome, OutcomeCodeError, RuleSet,
    RuleSetError, WinReason,
};
pub use moves::{Move, MoveList};
pub use notation::{MoveError, Notation, MAX_MOVE_TEXT};
pub use pdn::{PdnError, PdnGame};
pub use perft::{divide, perft, perft_parallel, perft_with, Counting};
pub use position::{Position, PositionError, MAX_PIECES_PER_SIDE};
pub use square::{ParseSquareError, Square};
#[cfg(feature = "serde")]
pub use view::{MoveInfo, OutcomeInfo};
pub use wdl::Wdl;
