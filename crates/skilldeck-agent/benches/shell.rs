//! What the sandbox costs a shell command: `true` run by the shell tool in bubblewrap, against
//! the same command with the sandbox turned off (`[shell] sandbox = "none"`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use skilldeck_agent::tools::sandbox::{SandboxChoice, SandboxSettings, ShellSandbox};
use skilldeck_agent::tools::shell::{self, ShellLimits};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("shell");
    group.measurement_time(Duration::from_secs(10));
    for (label, choice) in [("sandboxed", SandboxChoice::Auto), ("no_sandbox", SandboxChoice::None)] {
        let sb = ShellSandbox::new(SandboxSettings { choice, ..SandboxSettings::default() }, ws.path(), home.path());
        if choice == SandboxChoice::Auto && !sb.is_sandboxed() {
            eprintln!("shell/sandboxed skipped: {}", sb.describe());
            continue;
        }
        group.bench_function(format!("{label}_true"), |b| {
            b.iter(|| rt.block_on(shell::run(&sb, ws.path(), "true", ShellLimits::default(), &cancel)).unwrap());
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
