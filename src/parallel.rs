//! Work spread over the machine's cores: the core count, read once, and
//! an ordered parallel map. The reports are rendered, read back and hashed
//! with [`map`]; the isolation walks, which must also stop on a budget,
//! build their own workers on [`cores`] and [`in_order`].

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cores this process may use. Read once: on Linux the standard
/// library's answer reads the affinity mask and the cgroup's CPU quota,
/// and the isolation walks ask for every case.
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` of every item, in the items' order, worked out on as many threads
/// as the machine has cores, each taking the next item not yet taken.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = cores().min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let all: Vec<(usize, R)> = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..workers).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in helpers {
            all.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        all
    });
    in_order(all)
}

/// Results tagged with their item's index, put back in the items' order.
pub(crate) fn in_order<R>(mut tagged: Vec<(usize, R)>) -> Vec<R> {
    tagged.sort_unstable_by_key(|(i, _)| *i);
    tagged.into_iter().map(|(_, r)| r).collect()
}
