//! Helpers shared by the integration tests.

pub mod long_game;
