//! The Nimstring answers the server gives (`GET /api/nimstring`: `dab nimstring --json`'s
//! object): each valued on a thread of its own, at most [`NIM_SLOTS`] at once, within its
//! request's time limit, and stopped as soon as its request is dropped (the page moved on to
//! another position). A valuing priced at more than ten times the limit is not started. Finished
//! answers are kept for positions asked again (a value does not depend on the time it took).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, oneshot};

use crate::answer::nimstring::{NimAnswer, NimstringError, nimstring_until, out_of_reach};
use crate::game::Position;

/// Valuings that may run at once: each takes one thread for up to its request's limit.
pub(super) const NIM_SLOTS: usize = 2;

/// Why no Nimstring answer came: an HTTP status and one line.
pub(super) struct NoAnswer {
    /// 422: no valuing can answer the position (a region too large); 503: not within the time
    /// limit, or every slot busy.
    pub(super) status: u16,
    /// What happened, for the page.
    pub(super) message: String,
}

/// The server's Nimstring valuings and the answers kept.
pub(super) struct Nimstrings {
    slots: Arc<Semaphore>,
    kept: Mutex<(HashMap<Position, NimAnswer>, VecDeque<Position>)>,
    keep: usize,
}

/// Sets its flag when dropped: the valuing of a request that was dropped stops.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

impl Nimstrings {
    /// Keeping up to `keep` finished answers.
    pub(super) fn new(keep: usize) -> Nimstrings {
        Nimstrings { slots: Arc::new(Semaphore::new(NIM_SLOTS)), kept: Mutex::default(), keep }
    }

    /// The Nimstring answer of `pos` within `limit`.
    pub(super) async fn answer(&self, pos: Position, limit: Duration) -> Result<NimAnswer, NoAnswer> {
        let lock = || self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(a) = lock().0.get(&pos) {
            return Ok(a.clone());
        }
        let seconds = limit.as_secs_f64();
        if let Some(message) = out_of_reach(pos, seconds) {
            return Err(NoAnswer { status: 503, message });
        }
        let deadline = Instant::now() + limit;
        let busy = || NoAnswer {
            status: 503,
            message: format!("the Nimstring calculator is busy with earlier positions (asked within {seconds} s)"),
        };
        let permit = match tokio::time::timeout_at(deadline.into(), Arc::clone(&self.slots).acquire_owned()).await {
            Ok(Ok(p)) => p,
            _ => return Err(busy()),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let _stop = StopOnDrop(Arc::clone(&stop));
        let (tx, rx) = oneshot::channel();
        let left = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
        let spawned = std::thread::Builder::new().name("dab-nimstring".into()).spawn(move || {
            let answer = nimstring_until(pos, Some(left), Some(&stop));
            drop(permit);
            let _ = tx.send(answer);
        });
        if spawned.is_err() {
            return Err(busy());
        }
        match rx.await {
            Ok(Ok(a)) => {
                let mut kept = lock();
                if self.keep > 0 && kept.0.insert(pos, a.clone()).is_none() {
                    kept.1.push_back(pos);
                    while kept.1.len() > self.keep {
                        let old = kept.1.pop_front().expect("non-empty");
                        kept.0.remove(&old);
                    }
                }
                Ok(a)
            }
            Ok(Err(e @ NimstringError::RegionTooLarge { .. })) => Err(NoAnswer { status: 422, message: e.to_string() }),
            Ok(Err(e)) => Err(NoAnswer { status: 503, message: e.to_string() }),
            Err(_) => {
                Err(NoAnswer { status: 500, message: "the Nimstring calculator stopped without an answer".into() })
            }
        }
    }
}
