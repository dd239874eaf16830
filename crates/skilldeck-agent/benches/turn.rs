//! The loop's own time per turn with 1,000 skills installed, excluding the model, and the
//! memory of a 200-turn session (printed once as a note; criterion times the turns).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use skilldeck_agent::events::QuietHost;
use skilldeck_agent::message::{ModelRequest, StopReason, StreamEvent};
use skilldeck_agent::provider::offline::OfflineProvider;
use skilldeck_agent::provider::{EventStream, Provider, ProviderError, ProviderInfo};
use skilldeck_agent::session::{Session, SessionOptions};
use skilldeck_core::SkillRegistry;
use skilldeck_select::catalogue::Catalogue;
use skilldeck_store::{FsStorage, SkilldeckHome};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A model that answers at once with a short text and no tool calls.
struct Instant;

#[async_trait::async_trait]
impl Provider for Instant {
    fn info(&self) -> ProviderInfo {
        ProviderInfo { kind: "bench".into(), model: "instant".into(), label: "instant bench model".into() }
    }

    async fn stream(&self, _request: &ModelRequest, _cancel: &CancellationToken) -> Result<EventStream, ProviderError> {
        let events = vec![
            Ok(StreamEvent::TextDelta { text: "ok".into() }),
            Ok(StreamEvent::Finish { stop: StopReason::EndTurn }),
        ];
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}

struct World {
    _tmp: tempfile::TempDir,
    home: SkilldeckHome,
    registry: Arc<SkillRegistry>,
    workspace: std::path::PathBuf,
}

/// A home with 1,000 user skills, written straight into the store's layout.
fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let home = SkilldeckHome::new(tmp.path().join("home"));
    let storage = FsStorage::open(home.clone()).unwrap();
    for i in 0..1000 {
        let name = format!("skill-{i:04}");
        let dir = home.root().join("skills/user").join(&name);
        std::fs::create_dir_all(dir.join("references")).unwrap();
        let desc = format!("Handles task family {i}: parsing, converting and checking documents of kind {i} with care");
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: {desc}\nversion: \"1.{i}\"\n---\n# {name}\nSteps.\n"),
        )
        .unwrap();
        std::fs::write(dir.join("references/guide.md"), "guide").unwrap();
    }
    let workspace = tmp.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let registry = Arc::new(SkillRegistry::new(storage));
    // Warm the cache, as a running app has it.
    registry.listing(&Default::default()).unwrap();
    World { _tmp: tmp, home, registry, workspace }
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let w = world();
    let host = QuietHost { allow_shell: false };

    // Memory of a 200-turn session with the offline router (two view_skill calls a turn).
    let before = rss_kib();
    let mut s = Session::create(
        &w.home,
        Arc::clone(&w.registry),
        &w.workspace,
        Arc::new(OfflineProvider),
        SessionOptions::default(),
    )
    .unwrap();
    rt.block_on(async {
        for i in 0..200 {
            let prompt = format!("parse documents with skill-{:04}, see references/guide.md", i % 1000);
            s.run_turn(&prompt, &host, &CancellationToken::new()).await.unwrap();
        }
    });
    let history_bytes: usize = s.history().iter().map(|m| serde_json::to_string(m).map_or(0, |t| t.len())).sum();
    let transcript_bytes = std::fs::metadata(s.transcript_path()).map_or(0, |m| m.len());
    eprintln!(
        "note: 200-turn offline session: {} messages, history {} KiB in memory as JSON, transcript {} KiB on disk, RSS {:?} KiB -> {:?} KiB",
        s.history().len(),
        history_bytes / 1024,
        transcript_bytes / 1024,
        before,
        rss_kib()
    );
    drop(s);

    let mut g = c.benchmark_group("turn_1000_skills");
    g.measurement_time(Duration::from_secs(5)).sample_size(30);
    // A fresh session per iteration (made outside the timing), so the history does not grow
    // across thousands of iterations.
    let fresh = |p: Arc<dyn Provider>| {
        Session::create(&w.home, Arc::clone(&w.registry), &w.workspace, p, SessionOptions::default()).unwrap()
    };
    g.bench_function("instant_model", |b| {
        b.iter_batched(
            || fresh(Arc::new(Instant)),
            |mut s| rt.block_on(s.run_turn("hello", &host, &CancellationToken::new())).unwrap(),
            BatchSize::SmallInput,
        );
    });
    g.bench_function("offline_router_view_skill", |b| {
        b.iter_batched(
            || fresh(Arc::new(OfflineProvider)),
            |mut s| {
                rt.block_on(s.run_turn("parse documents with skill-0042", &host, &CancellationToken::new())).unwrap()
            },
            BatchSize::SmallInput,
        );
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
