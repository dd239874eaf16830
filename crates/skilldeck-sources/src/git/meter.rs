//! The bound on a download: a progress sink for gitoxide that counts the bytes of the pack as
//! they are received and, past a cap, tells the fetch to stop (the same flag a timeout sets), so
//! a repository far over the limit is given up early rather than downloaded whole. It shows
//! nothing and fetches nothing itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use gix::odb::pack::bundle::write::ProgressId;
use gix::progress::{Count, Id, MessageLevel, NestedProgress, Progress, Step, StepShared, UNKNOWN, Unit};

/// What every node of one meter shares.
#[derive(Debug)]
struct Shared {
    /// The most bytes the pack may come to.
    cap: u64,
    /// The flag gitoxide checks as it reads the pack.
    stop: Arc<AtomicBool>,
    /// Whether the cap was passed (so the stop is ours, not a timeout's).
    over: AtomicBool,
    /// The bytes of the pack received so far.
    received: AtomicUsize,
}

/// A progress tree that counts the pack's bytes (the node gitoxide names
/// [`ProgressId::ReadPackBytes`]) against a cap, and sets `stop` once they pass it.
#[derive(Debug, Clone)]
pub(crate) struct PackMeter {
    shared: Arc<Shared>,
    id: Id,
    step: StepShared,
}

impl PackMeter {
    /// A meter allowing `cap` bytes of pack, setting `stop` past them.
    pub(crate) fn new(cap: u64, stop: Arc<AtomicBool>) -> Self {
        let shared = Arc::new(Shared { cap, stop, over: AtomicBool::new(false), received: AtomicUsize::new(0) });
        Self { shared, id: UNKNOWN, step: Arc::new(AtomicUsize::new(0)) }
    }

    /// The bytes of pack received, when they passed the cap.
    pub(crate) fn over(&self) -> Option<u64> {
        self.shared.over.load(Ordering::SeqCst).then(|| self.shared.received.load(Ordering::SeqCst) as u64)
    }

    fn counts(&self) -> bool {
        self.id == Id::from(ProgressId::ReadPackBytes)
    }

    /// Notes that this node now stands at `now`; past the cap, stops the fetch.
    fn reached(&self, now: Step) {
        if !self.counts() {
            return;
        }
        self.shared.received.store(now, Ordering::SeqCst);
        if now as u64 > self.shared.cap && !self.shared.over.swap(true, Ordering::SeqCst) {
            self.shared.stop.store(true, Ordering::SeqCst);
        }
    }
}

impl Count for PackMeter {
    fn set(&self, step: Step) {
        self.step.store(step, Ordering::SeqCst);
        self.reached(step);
    }

    fn step(&self) -> Step {
        self.step.load(Ordering::SeqCst)
    }

    fn inc_by(&self, step: Step) {
        let now = self.step.fetch_add(step, Ordering::SeqCst).saturating_add(step);
        self.reached(now);
    }

    fn counter(&self) -> StepShared {
        Arc::clone(&self.step)
    }
}

impl Progress for PackMeter {
    fn init(&mut self, _max: Option<Step>, _unit: Option<Unit>) {}

    fn set_name(&mut self, _name: String) {}

    fn name(&self) -> Option<String> {
        None
    }

    fn id(&self) -> Id {
        self.id
    }

    fn message(&self, _level: MessageLevel, _message: String) {}
}

impl NestedProgress for PackMeter {
    type SubProgress = PackMeter;

    fn add_child(&mut self, _name: impl Into<String>) -> Self::SubProgress {
        self.add_child_with_id(String::new(), UNKNOWN)
    }

    fn add_child_with_id(&mut self, _name: impl Into<String>, id: Id) -> Self::SubProgress {
        Self { shared: Arc::clone(&self.shared), id, step: Arc::new(AtomicUsize::new(0)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_pack_counts_and_past_the_cap_the_fetch_stops() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut root = PackMeter::new(100, Arc::clone(&stop));
        let other = root.add_child("resolving");
        other.inc_by(1000);
        assert!(!stop.load(Ordering::SeqCst) && root.over().is_none(), "other steps do not count");
        let mut receiving = root.add_child("receive");
        let pack = receiving.add_child_with_id("read pack", ProgressId::ReadPackBytes.into());
        pack.inc_by(60);
        pack.inc_by(40);
        assert!(!stop.load(Ordering::SeqCst), "at the cap is within it");
        pack.inc_by(1);
        assert!(stop.load(Ordering::SeqCst));
        assert_eq!(root.over(), Some(101));
    }
}
