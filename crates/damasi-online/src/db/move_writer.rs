//! Group commit of moves: every move is still committed before it is acknowledged, but the
//! moves of many games that arrive together share one transaction. The moves wait in a queue
//! ([`MoveQueue`]); one writer at a time takes all that are waiting, writes them in a
//! transaction, commits, and only then answers each, and goes on while moves keep coming. A
//! quiet server writes each move at once; a busy one makes fewer, larger commits.
//!
//! SQLite's writer ([`MoveWriter`], here) is a blocking task (the runtime's, so that a paused
//! test clock knows a write is under way) that puts each move in a savepoint of its own, so
//! that one refused move fails alone. PostgreSQL's (`postgres/moves.rs`) sends the batch's
//! statements at once on its connection.

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

/// A move waiting, and where its result goes.
pub(super) type Pending = (MoveWrite, oneshot::Sender<Result<(), ApiError>>);

/// The moves waiting, and whether a writer is at work.
#[derive(Default)]
struct Waiting {
    moves: Vec<Pending>,
    writing: bool,
}

/// The queue both stores' writers share the shape of: moves wait here; the first to arrive
/// while no writer works starts one, which takes batches until none waits.
#[derive(Clone, Default)]
pub(super) struct MoveQueue(Arc<Mutex<Waiting>>);

impl MoveQueue {
    /// Queues `w`: whether the caller must start a writer, and where its result will come.
    pub(super) fn push(&self, w: MoveWrite) -> (bool, oneshot::Receiver<Result<(), ApiError>>) {
        let (done, answer) = oneshot::channel();
        let mut q = self.0.lock().unwrap_or_else(|p| p.into_inner());
        q.moves.push((w, done));
        (!std::mem::replace(&mut q.writing, true), answer)
    }

    /// The next batch (at most [`MAX_BATCH`] moves, oldest first), or none: then the writer
    /// stops, and the next move starts another.
    pub(super) fn next_batch(&self) -> Option<Vec<Pending>> {
        let mut q = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if q.moves.is_empty() {
            q.writing = false;
            return None;
        }
        let n = q.moves.len().min(MAX_BATCH);
        Some(q.moves.drain(..n).collect())
    }

    /// A guard for a writer's loop: should the writer panic, the queue is marked as having
    /// none, so that the next move starts another.
    pub(super) fn writer_guard(&self) -> WriterGuard {
        WriterGuard(self.clone())
    }
}

/// See [`MoveQueue::writer_guard`].
pub(super) struct WriterGuard(MoveQueue);

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0).0.lock().unwrap_or_else(|p| p.into_inner()).writing = false;
        }
    }
}

/// Waits for a queued move's result.
pub(super) async fn result_of(
    answer: oneshot::Receiver<Result<(), ApiError>>,
) -> Result<(), ApiError> {
    answer
        .await
        .map_err(|_| ApiError::Internal("the move was dropped unwritten".into()))?
}

/// Sends each move of `batch` its result.
pub(super) fn answer(batch: Vec<Pending>, results: Vec<Result<(), ApiError>>) {
    for ((_, done), result) in batch.into_iter().zip(results) {
        let _ = done.send(result);
    }
}

/// The queue of moves to write through one SQLite connection.
#[derive(Clone)]
pub(super) struct MoveWriter {
    conn: Arc<Mutex<Connection>>,
    queue: MoveQueue,
}

impl MoveWriter {
    /// Writes moves through `conn`.
    pub(super) fn new(conn: Arc<Mutex<Connection>>) -> MoveWriter {
        MoveWriter {
            conn,
            queue: MoveQueue::default(),
        }
    }

    /// Stores `w`, answering once its transaction is committed.
    pub(super) async fn write(&self, w: MoveWrite) -> Result<(), ApiError> {
        let (start, answer) = self.queue.push(w);
        if start {
            let me = self.clone();
            tokio::task::spawn_blocking(move || me.write_while_waiting());
        }
        result_of(answer).await
    }

    /// Writes batches until no move waits.
    fn write_while_waiting(&self) {
        let _guard = self.queue.writer_guard();
        while let Some(batch) = self.queue.next_batch() {
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
            answer(batch, results);
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
