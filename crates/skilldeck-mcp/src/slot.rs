//! One MCP session's place in the `--http` server's count of open sessions. Beneath both the
//! HTTP server, which takes a place for each session, and the session's server, which holds it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One session's place in the server's count, given back when dropped (with the session's
/// server).
#[derive(Debug)]
pub(crate) struct SessionSlot(Arc<AtomicUsize>);

impl SessionSlot {
    /// A place in `count` when fewer than `max` are taken.
    pub(crate) fn take(count: &Arc<AtomicUsize>, max: usize) -> Option<Self> {
        count.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)).ok()?;
        Some(Self(Arc::clone(count)))
    }
}

impl Drop for SessionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_past_the_cap_are_refused_until_one_ends() {
        let count = Arc::new(AtomicUsize::new(0));
        let mut held: Vec<SessionSlot> = (0..3).filter_map(|_| SessionSlot::take(&count, 3)).collect();
        assert_eq!(held.len(), 3);
        assert!(SessionSlot::take(&count, 3).is_none());
        held.pop();
        assert!(SessionSlot::take(&count, 3).is_some(), "a place comes back when a session ends");
        drop(held);
        assert_eq!(count.load(Ordering::Acquire), 0);
    }
}
