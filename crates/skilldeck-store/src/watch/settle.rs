//! Debouncing: changes collected until the store has been quiet for a while, then one batch.
//! Holds the settling loop only; what a change is and where it comes from live beside it.

use super::change::StoreChange;
use std::collections::BTreeSet;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A batch is reported at the latest this many quiet periods after its first change, so a
/// store that never stops changing still reaches the app.
const MAX_WAIT_PERIODS: u32 = 4;

/// Runs until every sender of `rx` is gone: each change starts a batch that grows while more
/// arrive within `quiet` of each other, then goes to `on_change` sorted and without repeats.
pub(crate) fn run(rx: &Receiver<Vec<StoreChange>>, quiet: Duration, on_change: &mut dyn FnMut(Vec<StoreChange>)) {
    while let Ok(first) = rx.recv() {
        let mut batch: BTreeSet<StoreChange> = first.into_iter().collect();
        let deadline = Instant::now() + quiet * MAX_WAIT_PERIODS;
        let mut open = true;
        while open {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(quiet.min(left)) {
                Ok(more) => batch.extend(more),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => open = false,
            }
            open &= Instant::now() < deadline;
        }
        if !batch.is_empty() {
            on_change(batch.into_iter().collect());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::Scope;
    use crate::watch::SkillChange;
    use std::sync::mpsc;

    fn skill(name: &str) -> StoreChange {
        StoreChange::Skill(SkillChange { scope: Scope::User, name: Some(name.into()) })
    }

    #[test]
    fn changes_sent_together_come_as_one_sorted_batch_without_repeats() {
        let (tx, rx) = mpsc::channel();
        tx.send(vec![skill("b"), skill("a")]).unwrap();
        tx.send(vec![StoreChange::Config, skill("a")]).unwrap();
        tx.send(vec![]).unwrap();
        drop(tx);
        let batches = std::cell::RefCell::new(Vec::new());
        // An hour of quiet would hang the test if the batch waited for it: it ends when the
        // senders are gone.
        run(&rx, Duration::from_secs(3600), &mut |b| batches.borrow_mut().push(b));
        assert_eq!(batches.into_inner(), vec![vec![skill("a"), skill("b"), StoreChange::Config]]);
    }
}
