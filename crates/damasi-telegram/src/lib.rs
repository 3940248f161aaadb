//! damasi's Telegram bot: Dama in any chat. Typing the bot's name in a chat offers a game; the
//! message it sends is the board, its buttons the squares; the first other person to press
//! one plays Black. Every game is an online game of the damasi server (the `damasi-online`
//! crate): stored, rated between linked accounts, watched on its web page, resumed after a
//! restart.
//!
//! - [`bot`]: the update loop, the presses, the engine's moves and the message edits.
//! - [`board`]: the board as an inline keyboard, and what each button's press means.
//! - [`game`]: a game as the bot reads it from the service.
//! - [`offers`]: the signed data of the buttons that begin games, and the limits on beginning.
//! - [`edits`]: Telegram's limits on editing a message.
//! - [`texts`]: what the bot says, in Turkish, English, Azerbaijani and Russian.
//! - [`init_data`]: the Mini App's signed `initData` (kept in the online core, where the web
//!   page's log-in through Telegram checks it too).

pub mod board;
pub mod bot;
pub mod edits;
pub mod game;
pub mod offers;
pub mod texts;

pub use bot::{Telegram, TelegramConfig};
pub use damasi_online::init_data;
