//! The pieces any front end that brings online games somewhere else (a chat app: Telegram
//! today) uses beside the core's commands ([`crate::command`]) and messages
//! ([`crate::messages`]), so that such a front end is only its transport, keyboard and texts:
//!
//! - [`Online::lead`]: one process of a cluster runs the front end at a time (a chat service
//!   gives a bot's updates to one poller), and another takes it over within a lease once that
//!   one is gone;
//! - [`EngineSeat`]: the engine plays a seat in a game, from the game's own history and rules,
//!   so it sees a repetition or the no-capture limit coming as the game will judge them;
//! - [`Online::your_turns`] (in [`crate::runner`]): the "your move" notices of correspondence
//!   games, and [`Online::every_user_event`]: the accounts' events (a tournament's game that
//!   begins, a challenge).

use damasi::{Color, Notation, RuleSet};
use damasi_engine::{Level, Limits};
use tokio::sync::watch;

use crate::accounts::Player;
use crate::brain::{game_root, Brain};
use crate::command::Command;
use crate::error::ApiError;
use crate::messages::GameState;
use crate::Online;

/// Which term of a role this process is in: `Some(n)` while it holds the role (`n` counts the
/// terms it began), `None` while another process holds it.
pub type Term = Option<u64>;

impl Online {
    /// Runs for role `name` ([`Online::hold_role`]) from now on: tries to hold it, renews it
    /// while held, and tries again while another process holds it. The receiver says which:
    /// its first value is the first try's, and it changes when this process takes the role
    /// (a new term) or loses it (it stalled past the lease, or lost the database, and another
    /// took over). A process alone always holds it. Ends when the receiver is dropped.
    pub async fn lead(&self, name: &'static str) -> Result<watch::Receiver<Term>, ApiError> {
        let held = self.hold_role(name).await?;
        let (tx, rx) = watch::channel(held.then_some(1));
        let online = self.clone();
        tokio::spawn(async move {
            let every = online.role_renew_every();
            let mut terms = u64::from(held);
            loop {
                tokio::time::sleep(every).await;
                if tx.is_closed() {
                    return;
                }
                let was = tx.borrow().is_some();
                match online.hold_role(name).await {
                    Ok(true) if !was => {
                        terms += 1;
                        let _ = tx.send(Some(terms));
                    }
                    Ok(false) if was => {
                        let _ = tx.send(None);
                    }
                    Ok(_) => {}
                    Err(e) => eprintln!("damasi: the role {name}: {}", e.message()),
                }
            }
        });
        Ok(rx)
    }
}

/// A seat the engine plays in a game: its account, its colour and its level (1 to 10).
#[derive(Clone, Debug)]
pub struct EngineSeat {
    /// The engine's account in the game.
    pub player: Player,
    /// The colour it plays.
    pub side: Color,
    /// Its level ([`Level`]): how long it thinks.
    pub level: u8,
}

impl EngineSeat {
    /// Whether the game at `state` waits for this seat's move.
    pub fn to_move(&self, state: &GameState) -> bool {
        state.outcome.is_none() && state.status == "started" && state.turn == self.side.name()
    }

    /// Thinks at the seat's level from the game at `state` (played under `rules`: its history,
    /// the positions that may repeat and the plies since the last capture, as the game judges
    /// them) and plays the move found in game `game_id`. Answers what went wrong, if anything.
    pub async fn play(
        &self,
        online: &Online,
        brain: &Brain,
        game_id: &str,
        state: &GameState,
        rules: RuleSet,
    ) -> Result<(), String> {
        let root = game_root(&state.moves, rules)?;
        let position = root.position;
        let limits = Limits::move_time(Level::new(self.level).move_time());
        let thought = brain
            .think(root, self.level, limits, true)
            .await
            .map_err(|e| e.message().to_string())?;
        let Some(best) = thought.best else {
            return Ok(());
        };
        let text = position.write_move(&best, Notation::Landing);
        online
            .act(game_id, &self.player, Command::Move { text })
            .await
            .map(|_| ())
            .map_err(|e| format!("the engine's move {}", e.message()))
    }
}
