//! Work spread over threads: how many threads a count of 0 means, and a parallel map over
//! indices whose results come back in index order.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// `threads`, or the number of available CPUs for 0.
pub fn thread_count(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// Run `work(i)` for every i in 0..count on up to `threads` scoped threads; results in index
/// order, or `None` when `stop` was set before every index was done.
pub(crate) fn parallel_map<T: Send>(count: usize, threads: usize, stop: &AtomicBool, work: impl Fn(usize) -> T + Sync) -> Option<Vec<T>> {
    let threads = threads.clamp(1, count.max(1));
    if threads == 1 {
        let mut results = Vec::with_capacity(count);
        for index in 0..count {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            results.push(work(index));
        }
        return Some(results);
    }
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= count {
                    break;
                }
                let result = work(index);
                if let Some(slot) = slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get_mut(index) {
                    *slot = Some(result);
                }
            });
        }
    });
    // Without a stop, every index was processed exactly once.
    slots.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()).into_iter().collect()
}
