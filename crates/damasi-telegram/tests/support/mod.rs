//! Test support: a stand-in for Telegram's Bot API.
pub mod bot_api;
