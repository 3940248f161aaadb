//! The threads that hash and check passwords, and nothing else.
//!
//! argon2id takes 19 MiB of memory and tens of milliseconds of a core per hash. Run on tokio's
//! blocking pool, a flood of log-ins spread the hashes over hundreds of short-lived threads,
//! each keeping its 19 MiB in its allocator afterwards (gigabytes in all). Here a few threads
//! of their own do every hash, so the memory stays a few times 19 MiB whatever arrives; the
//! log-ins wait in a first-come, first-served queue of bounded length, and beyond it (or after
//! waiting too long) they are told the server is busy at once, holding no thread.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{oneshot, Semaphore};

use crate::error::ApiError;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads for password work, and the queue in front of them.
pub struct Hashers {
    /// One permit a thread: a job is sent only when a thread is free for it (FIFO).
    slots: Arc<Semaphore>,
    jobs: Mutex<mpsc::Sender<Job>>,
    /// Requests waiting for a slot now.
    waiting: AtomicUsize,
    /// Most requests that may wait; more are refused at once.
    max_waiting: usize,
    /// Longest a request waits for a slot.
    wait: Duration,
}

fn busy() -> ApiError {
    ApiError::Overloaded("too many log-ins at once: try again in a moment".into())
}

impl Hashers {
    /// `threads` threads, with at most `max_waiting` requests waiting at most `wait` each.
    pub fn start(threads: usize, max_waiting: usize, wait: Duration) -> Hashers {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let threads = threads.max(1);
        for i in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("damasi-hash-{i}"))
                .spawn(move || loop {
                    let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    };
                    // A panicking hash must not take its thread with it.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                });
            if let Err(e) = spawned {
                eprintln!("damasi-online: cannot start a password thread: {e}");
            }
        }
        Hashers {
            slots: Arc::new(Semaphore::new(threads)),
            jobs: Mutex::new(tx),
            waiting: AtomicUsize::new(0),
            max_waiting,
            wait,
        }
    }

    /// Runs `f` on one of the threads, once one is free: a 503 `server-busy` at once when
    /// too many requests wait already, or after waiting [`Hashers::start`]'s `wait`.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(busy());
        }
        let slot = tokio::time::timeout(self.wait, self.slots.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let slot = slot
            .map_err(|_| busy())?
            .map_err(|_| ApiError::Internal("the password threads are closed".into()))?;
        let (tx, rx) = oneshot::channel();
        // The slot goes with the job: it is free again when the thread is, even if the
        // request that sent it has gone meanwhile.
        let job: Job = Box::new(move || {
            let _slot = slot;
            let _ = tx.send(f());
        });
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .map_err(|_| ApiError::Internal("the password threads have stopped".into()))?;
        rx.await
            .map_err(|_| ApiError::Internal("a password check failed".into()))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_work_runs_on_its_own_few_threads() {
        let h = Arc::new(Hashers::start(2, 100, Duration::from_secs(60)));
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks: Vec<_> = (0..30)
            .map(|_| {
                let (h, now, most) = (h.clone(), now.clone(), most.clone());
                tokio::spawn(async move {
                    h.run(move || {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        now.fetch_sub(1, Ordering::SeqCst);
                        Ok(std::thread::current().name().map(String::from))
                    })
                    .await
                })
            })
            .collect();
        let mut names = HashSet::new();
        for t in tasks {
            names.insert(t.await.unwrap().unwrap());
        }
        assert_eq!(
            most.load(Ordering::SeqCst),
            2,
            "never more than two at once"
        );
        assert!(names.len() <= 2, "{names:?}");
        assert!(
            names
                .iter()
                .all(|n| n.as_deref().is_some_and(|n| n.starts_with("damasi-hash-"))),
            "{names:?}"
        );
        // A panic is an error for its request, and the threads go on.
        let e = h.run(|| -> Result<(), ApiError> { panic!("boom") }).await;
        assert!(matches!(e, Err(ApiError::Internal(_))), "{e:?}");
        assert_eq!(h.run(|| Ok(7)).await.unwrap(), 7);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_long_queue_is_refused_at_once_and_a_long_wait_is_busy() {
        let h = Arc::new(Hashers::start(1, 2, Duration::from_millis(300)));
        // The one thread is taken for a while.
        let (release, held) = std::sync::mpsc::channel::<()>();
        let blocker = {
            let h = h.clone();
            tokio::spawn(async move {
                h.run(move || {
                    let _ = held.recv_timeout(Duration::from_secs(10));
                    Ok(())
                })
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Two may wait; the third is refused at once, before it waits.
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let h = h.clone();
                tokio::spawn(async move { h.run(|| Ok(())).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let third = tokio::time::timeout(Duration::from_millis(100), h.run(|| Ok(())))
            .await
            .expect("answered at once");
        assert_eq!(third.unwrap_err().code(), "server-busy");
        // The two waiting are told the server is busy once their wait is over.
        for w in waiters {
            assert_eq!(w.await.unwrap().unwrap_err().code(), "server-busy");
        }
        release.send(()).unwrap();
        blocker.await.unwrap().unwrap();
        h.run(|| Ok(())).await.unwrap();
    }
}
