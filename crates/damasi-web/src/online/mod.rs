//! The web edges of online play (the service itself is the `damasi-online` crate): the JSON
//! API with the lichess-shaped Board API and its NDJSON streams ([`http`]), the WebSocket the
//! page plays through ([`socket`]), who sent a request ([`session`]), failed log-ins ([`log_ins`]),
//! mail to accounts' owners ([`mail`]), and players' profiles, follows, blocks and leaderboards
//! ([`profiles`]), and lichess's reading endpoints: statuses, token tests, game exports
//! ([`lichess`]).

pub mod http;
pub mod lichess;
pub mod log_ins;
pub mod mail;
pub mod profiles;
pub mod session;
pub mod socket;
