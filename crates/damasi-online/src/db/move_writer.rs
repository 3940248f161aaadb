//! Group commit of moves in SQLite: every move is still committed before it is acknowledged,
//! but the moves of many games that arrive together share one transaction. The moves wait in
//! a queue; one blocking task at a time (the runtime's, so that a paused test clock knows a
//! write is under way) takes all that are waiting, writes them in a transaction (each in a
//! savepoint of its own, so that one refused move fails alone), commits, and only then
//! answers each, and goes on while moves keep coming. A quiet server writes each move at once;
//! a busy one makes fewer, larger commits.

use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection, TransactionBehavior};
use tokio::sync::oneshot;

use crate::error::ApiError;

/// Most moves written in one transaction (the rest wait for the next).
const MAX_BATCH: usize = 512;

/// One move to store: its row, and when the next turn began.
pub(super) struct MoveWrite {
    /// The game.
    pub id: String,
    /// Its ply.
    pub ply: i64,
    /// The move's token.
    pub token: String,
    /// Its thinking time (ms).
    pub elapsed_ms: i64,
    /// When the next turn began (Unix ms).
    pub turn_started_ms: i64,
}

type Pending = (MoveWrite, oneshot::Sender<Result<(), ApiError>>);

/// The moves waiting, and whether a task is writing.
#[derive(Default)]
struct Queue {
    waiting: Vec<Pending>,
    writing: bool,
}

/// The queue of moves to write through one connection.
#[derive(Clone)]
pub(super) struct MoveWriter {
    conn: Arc<Mutex<Connection>>,
    queue: Arc<Mutex<Queue>>,
}

impl MoveWriter {
    /// Writes moves through `conn`.
    pub(super) fn new(conn: Arc<Mutex<Connection>>) -> MoveWriter {
        MoveWriter {
            conn,
            queue: Arc::default(),
        }
    }

    /// Stores `w`, answering once its transaction is committed.
    pub(super) async fn write(&self, w: MoveWrite) -> Result<(), ApiError> {
        let (done, answer) = oneshot::channel();
        let start = {
            let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.waiting.push((w, done));
            !std::mem::replace(&mut q.writing, true)
        };
        if start {
            let me = self.clone();
            tokio::task::spawn_blocking(move || me.write_while_waiting());
        }
        answer
            .await
            .map_err(|_| ApiError::Internal("the move was dropped unwritten".into()))?
    }

    /// Writes batches until no move waits.
    fn write_while_waiting(&self) {
        // Should a batch panic, the next move starts a writer again.
        struct Unmark<'a>(&'a Mutex<Queue>);
        impl Drop for Unmark<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.lock().unwrap_or_else(|p| p.into_inner()).writing = false;
                }
            }
        }
        let _unmark = Unmark(&self.queue);
        loop {
            let batch: Vec<Pending> = {
                let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                if q.waiting.is_empty() {
                    q.writing = false;
                    return;
                }
                let n = q.waiting.len().min(MAX_BATCH);
                q.waiting.drain(..n).collect()
            };
            // As `run_blocking`: a panic cannot leave a half-done change (the transaction is
            // rolled back when dropped), so a poisoned lock is safe to reuse.
            let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
            let results = match write_batch(&mut conn, &batch) {
                Ok(results) => results,
                // rusqlite's errors are not `Clone`: each move gets the same words.
                Err(e) => batch
                    .iter()
                    .map(|_| Err(ApiError::Internal(format!("database: {e}"))))
                    .collect(),
            };
            drop(conn);
            for ((_, done), result) in batch.into_iter().zip(results) {
                let _ = done.send(result);
            }
        }
    }
}

/// Writes `batch` in one transaction, each move in a savepoint; the result of each, or the
/// error that failed the transaction as a whole.
fn write_batch(
    c: &mut Connection,
    batch: &[Pending],
) -> rusqlite::Result<Vec<Result<(), ApiError>>> {
    let mut tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut results = Vec::with_capacity(batch.len());
    for (w, _) in batch {
        let sp = tx.savepoint()?;
        let written = sp
            .prepare_cached(
                "INSERT INTO online_moves (game_id, ply, token, elapsed_ms) VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| s.execute(params![w.id, w.ply, w.token, w.elapsed_ms]))
            .and_then(|_| {
                sp.prepare_cached("UPDATE online_games SET turn_started_ms = ?2 WHERE id = ?1")?
                    .execute(params![w.id, w.turn_started_ms])
            });
        match written {
            Ok(_) => {
                sp.commit()?;
                results.push(Ok(()));
            }
            // Dropping the savepoint rolls this move back; the others stand.
            Err(e) => results.push(Err(ApiError::from(e))),
        }
    }
    tx.commit()?;
    Ok(results)
}
