//! Group commit of moves in PostgreSQL (see `move_writer.rs`): the moves waiting are written
//! in one transaction whose statements are sent at once on the connection (one statement a
//! move: the lease check, the move's row and the game's turn), so a batch costs about three
//! round trips and one commit rather than six round trips and a commit per move. Should any
//! statement fail, the transaction is rolled back and each move of the batch is written
//! alone, so that one refused move fails alone, as in SQLite.

use futures_util::future::join_all;

use super::{db_error, PostgresDb};
use crate::db::move_writer::{answer, result_of, MoveWrite, Pending};
use crate::error::ApiError;

/// One move: its row, and the game's turn, stored only if this node holds the game's lease
/// (`$6`, in a cluster) or no lease is kept (`$6` null). Updates one row when stored, none
/// when the lease is another node's.
const STORE_MOVE: &str = "WITH owner AS ( \
        SELECT 1 FROM game_owners WHERE game_id = $1 AND node = $6 FOR UPDATE \
    ), stored AS ( \
        INSERT INTO online_moves (game_id, ply, token, elapsed_ms) \
        SELECT $1, $2, $3, $4 WHERE $6::text IS NULL OR EXISTS (SELECT 1 FROM owner) \
        RETURNING game_id \
    ) \
    UPDATE online_games SET turn_started_ms = $5 WHERE id IN (SELECT game_id FROM stored)";

impl PostgresDb {
    /// Stores `w`, answering once its transaction is committed.
    pub(super) async fn write_move(&self, w: MoveWrite) -> Result<(), ApiError> {
        let (start, answer) = self.moves.push(w);
        if start {
            let db = self.clone();
            tokio::spawn(async move { db.write_while_waiting().await });
        }
        result_of(answer).await
    }

    /// Writes batches until no move waits.
    async fn write_while_waiting(&self) {
        let _guard = self.moves.writer_guard();
        while let Some(batch) = self.moves.next_batch() {
            let results = match self.write_batch(&batch).await {
                Ok(results) => results,
                Err(_) => {
                    let mut results = Vec::with_capacity(batch.len());
                    for (w, _) in &batch {
                        results.push(self.write_alone(w).await);
                    }
                    results
                }
            };
            answer(batch, results);
        }
    }

    /// Writes `batch` in one transaction: the result of each move, or the error that failed
    /// the transaction as a whole (nothing of it stored).
    async fn write_batch(&self, batch: &[Pending]) -> Result<Vec<Result<(), ApiError>>, ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        let statement = tx.prepare(STORE_MOVE).await.map_err(db_error)?;
        let fence = self.fence.get().map(String::as_str);
        // Issued together, the statements travel down the connection as one pipeline.
        let (tx_ref, statement, fence) = (&tx, &statement, &fence);
        let counts = join_all(batch.iter().map(|(w, _)| async move {
            let row: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
                &w.id,
                &w.ply,
                &w.token,
                &w.elapsed_ms,
                &w.turn_started_ms,
                fence,
            ];
            tx_ref.execute(statement, &row).await
        }))
        .await;
        let mut results = Vec::with_capacity(batch.len());
        for ((w, _), count) in batch.iter().zip(counts) {
            results.push(match count.map_err(db_error)? {
                0 => Err(moved_away(&w.id)),
                _ => Ok(()),
            });
        }
        tx.commit().await.map_err(db_error)?;
        Ok(results)
    }

    /// Writes one move in a transaction of its own.
    async fn write_alone(&self, w: &MoveWrite) -> Result<(), ApiError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(db_error)?;
        self.check_fence(&tx, &w.id).await?;
        tx.execute(
            "INSERT INTO online_moves (game_id, ply, token, elapsed_ms) VALUES ($1, $2, $3, $4)",
            &[&w.id, &w.ply, &w.token, &w.elapsed_ms],
        )
        .await
        .map_err(db_error)?;
        tx.execute(
            "UPDATE online_games SET turn_started_ms = $2 WHERE id = $1",
            &[&w.id, &w.turn_started_ms],
        )
        .await
        .map_err(db_error)?;
        tx.commit().await.map_err(db_error)
    }
}

/// The refusal of a change to game `id` whose lease another node holds.
pub(super) fn moved_away(id: &str) -> ApiError {
    ApiError::Busy(format!(
        "game {id} moved to another server process: try again"
    ))
}
