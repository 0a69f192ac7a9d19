//! [`Slots`]: one bound on the upstream judge calls in flight, shared by every request of a process (rag-jev's
//! `asyncio.Semaphore(max_concurrency)` per selector): one slot per passage in independent scoring, one per batch
//! in contextual scoring, waited for within the caller's deadline.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// A counting semaphore for blocking threads; clones share the same slots.
#[derive(Clone)]
pub struct Slots(Arc<Inner>);

struct Inner {
    size: usize,
    free: Mutex<usize>,
    freed: Condvar,
}

/// A held slot, given back when dropped.
pub struct Slot(Arc<Inner>);

impl Slots {
    /// `size` slots (at least one).
    pub fn new(size: usize) -> Slots {
        let size = size.max(1);
        Slots(Arc::new(Inner {
            size,
            free: Mutex::new(size),
            freed: Condvar::new(),
        }))
    }

    /// How many slots there are.
    pub fn size(&self) -> usize {
        self.0.size
    }

    /// How many are free now.
    pub fn free(&self) -> usize {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a slot until `deadline`; `None` when the deadline came first.
    pub fn acquire_until(&self, deadline: Instant) -> Option<Slot> {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            free = self
                .0
                .freed
                .wait_timeout(free, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *free -= 1;
        Some(Slot(self.0.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// Slots are the same when they are shared (a configuration compares equal only with its own bound).
impl PartialEq for Slots {
    fn eq(&self, other: &Slots) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Slots {}

impl fmt::Debug for Slots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Slots({} of {} free)", self.free(), self.size())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn no_more_than_the_bound_are_held_at_once_across_threads() {
        let slots = Slots::new(2);
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    let _slot = slots.acquire_until(Instant::now() + Duration::from_secs(10)).unwrap();
                    most.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(slots.free(), 2, "every slot is given back");
    }

    #[test]
    fn a_wait_ends_at_the_deadline_and_a_freed_slot_wakes_a_waiter() {
        let slots = Slots::new(1);
        let held = slots.acquire_until(Instant::now()).expect("a free slot needs no wait");
        let started = Instant::now();
        assert!(slots
            .acquire_until(Instant::now() + Duration::from_millis(50))
            .is_none());
        assert!(started.elapsed() >= Duration::from_millis(50));
        let waiter = {
            let slots = slots.clone();
            std::thread::spawn(move || slots.acquire_until(Instant::now() + Duration::from_secs(10)).is_some())
        };
        std::thread::sleep(Duration::from_millis(30));
        drop(held);
        assert!(waiter.join().unwrap());
        assert_eq!(format!("{slots:?}"), "Slots(1 of 1 free)");
        assert_ne!(slots, Slots::new(1), "only shared slots are equal");
    }
}
