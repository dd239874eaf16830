//! The host of an unattended eval run: it notes which skills the model loaded (a `view_skill`
//! call that succeeded), can stop the run once the evaluated skill is loaded, and answers
//! every question about a shell command or a risky write itself: refused and counted, or, when
//! the user passed `--yes`, allowed once (the command still runs in the sandbox).

use crate::events::{AgentEvent, Host, ShellAnswer, ShellQuestion, WriteQuestion};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_util::sync::CancellationToken;

/// Watches one run.
pub(super) struct RunHost {
    skill: String,
    /// `view_skill` calls under way: call id → the skill asked for.
    asked: Mutex<BTreeMap<String, String>>,
    loaded: Mutex<Vec<String>>,
    refused: AtomicUsize,
    allow_shell: bool,
    /// Cancelled once `skill` is loaded, when given.
    stop_on_load: Option<CancellationToken>,
}

impl RunHost {
    /// A host for a run evaluating `skill`.
    pub(super) fn new(skill: &str, allow_shell: bool, stop_on_load: Option<CancellationToken>) -> Self {
        Self {
            skill: skill.to_owned(),
            asked: Mutex::new(BTreeMap::new()),
            loaded: Mutex::new(Vec::new()),
            refused: AtomicUsize::new(0),
            allow_shell,
            stop_on_load,
        }
    }

    /// The skills loaded, in order, each as often as it was.
    pub(super) fn loaded(&self) -> Vec<String> {
        self.loaded.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Questions refused because no one was there to answer them.
    pub(super) fn refused(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }

    fn answer(&self) -> ShellAnswer {
        if self.allow_shell {
            ShellAnswer::Once
        } else {
            self.refused.fetch_add(1, Ordering::Relaxed);
            ShellAnswer::Deny
        }
    }
}

#[async_trait::async_trait]
impl Host for RunHost {
    fn event(&self, event: &AgentEvent) {
        match event {
            AgentEvent::ToolStarted { call_id, name, arguments, .. } if name == "view_skill" => {
                let asked = arguments.get("name").and_then(|n| n.as_str()).unwrap_or_default();
                if let Ok(mut calls) = self.asked.lock() {
                    calls.insert(call_id.clone(), asked.to_owned());
                }
            }
            AgentEvent::ToolFinished { call_id, name, outcome } if name == "view_skill" && outcome.ok => {
                let Some(loaded) = self.asked.lock().ok().and_then(|mut calls| calls.remove(call_id)) else { return };
                if loaded == self.skill
                    && let Some(stop) = &self.stop_on_load
                {
                    stop.cancel();
                }
                if let Ok(mut all) = self.loaded.lock() {
                    all.push(loaded);
                }
            }
            _ => {}
        }
    }

    async fn approve_shell(&self, _question: &ShellQuestion) -> ShellAnswer {
        self.answer()
    }

    async fn approve_write(&self, _question: &WriteQuestion) -> ShellAnswer {
        self.answer()
    }
}
