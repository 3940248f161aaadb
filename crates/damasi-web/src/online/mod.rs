//! The web edges of online play (the service itself is the `damasi-online` crate): the JSON
//! API with the lichess-shaped Board API and its NDJSON streams ([`http`]), the WebSocket the
//! page plays through ([`socket`]), and who sent a request ([`session`]).

pub mod http;
pub mod session;
pub mod socket;

pub use damasi_online::*;
