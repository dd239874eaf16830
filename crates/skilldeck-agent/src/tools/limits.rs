//! The resources a shell command may use: memory, processes, file size and the size of its
//! `/tmp`. Holds applying the limits to a started command (resource limits always, a cgroup
//! where this process may make one) and saying which one a failed command hit; not the sandbox's
//! file system (its `/tmp` is sized in `sandbox`).
//!
//! Resource limits are per process, and the kernel ignores the process limit for root and counts
//! it over every process of the user; so the number of processes (threads count) and the memory
//! of the whole command are bounded by a cgroup when one can be made (cgroup v2 with the `pids`
//! and `memory` controllers delegated, or v1's `pids` and `memory` hierarchies writable).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How much a command may use. `[shell] max_memory_mib`, `max_processes`, `max_file_size_mib`
/// and `tmp_size_mib` in config.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Memory, in MiB: of the whole command where a cgroup bounds it, and of each process.
    pub max_memory_mib: u64,
    /// Processes and threads running at once (a cgroup's `pids.max`; without one, and not root,
    /// this many more than the user already runs).
    pub max_processes: u64,
    /// The largest file a process may write, in MiB.
    pub max_file_size_mib: u64,
    /// The size of the private `/tmp` (and of the home folder commands see), in MiB.
    pub tmp_size_mib: u64,
}

impl Default for ResourceLimits {
    fn default() -> Self {
        Self { max_memory_mib: 4096, max_processes: 1024, max_file_size_mib: 2048, tmp_size_mib: 1024 }
    }
}

const MIB: u64 = 1024 * 1024;

/// A cgroup made for one command; its folders are removed when it is dropped (after what is left
/// in it is killed).
#[derive(Debug)]
pub struct Cgroup {
    dirs: Vec<PathBuf>,
}

/// What bounds a started command, to tell afterwards what it hit.
#[derive(Debug)]
pub struct Applied {
    limits: ResourceLimits,
    cgroup: Option<Cgroup>,
}

/// Bounds the process `pid` (not yet running the command: it waits for a line on its standard
/// input) by `limits`: resource limits, and a cgroup where one can be made.
pub fn apply(pid: u32, limits: ResourceLimits) -> std::io::Result<Applied> {
    use rustix::process::{Resource, Rlimit, prlimit};
    let raw = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw);
    let Some(p) = raw else { return Err(std::io::Error::other(format!("no process {pid}"))) };
    let set = |resource: Resource, value: u64| {
        prlimit(Some(p), resource, Rlimit { current: Some(value), maximum: Some(value) }).map(|_| ())
    };
    set(Resource::Data, limits.max_memory_mib.saturating_mul(MIB))?;
    set(Resource::Fsize, limits.max_file_size_mib.saturating_mul(MIB))?;
    set(Resource::Core, 0)?;
    let cgroup = Cgroup::create(limits).and_then(|c| c.join(pid).ok().map(|()| c));
    if cgroup.is_none() && !rustix::process::getuid().is_root() {
        let running = processes_of_user();
        set(Resource::Nproc, running.saturating_add(limits.max_processes))?;
    }
    Ok(Applied { limits, cgroup })
}

/// How many processes this process's user runs (root: not counted, the limit does not bind it).
fn processes_of_user() -> u64 {
    use std::os::unix::fs::MetadataExt;
    let uid = rustix::process::getuid().as_raw();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
                .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
                .count() as u64
        })
        .unwrap_or(0)
}

impl Applied {
    /// Whether a cgroup bounds the whole command.
    pub fn has_cgroup(&self) -> bool {
        self.cgroup.is_some()
    }

    /// What the command, which ended with `exit_code` and wrote `stderr`, hit among the limits:
    /// one sentence for the shell tool's `note`, or `None`.
    pub fn what_was_hit(&self, exit_code: Option<i32>, stderr: &str) -> Option<String> {
        let l = &self.limits;
        let events = |file: &str, key: &str| -> u64 {
            self.cgroup
                .as_ref()
                .and_then(|c| c.dirs.iter().find_map(|d| std::fs::read_to_string(d.join(file)).ok()))
                .and_then(|t| {
                    t.lines().find_map(|line| line.strip_prefix(key).and_then(|n| n.trim().parse::<u64>().ok()))
                })
                .unwrap_or(0)
        };
        if events("memory.events", "oom_kill ") > 0 || events("memory.oom_control", "oom_kill ") > 0 {
            return Some(format!(
                "killed: it used more than the {} MiB memory limit ([shell] max_memory_mib)",
                l.max_memory_mib
            ));
        }
        if events("pids.events", "max ") > 0 {
            return Some(format!(
                "it tried to run more than {} processes and threads at once, the limit ([shell] max_processes)",
                l.max_processes
            ));
        }
        if exit_code == Some(0) {
            return None;
        }
        let has = |needles: &[&str]| needles.iter().any(|n| stderr.contains(n));
        if exit_code == Some(128 + 25) || has(&["File size limit exceeded", "File too large"]) {
            return Some(format!(
                "it wrote a file larger than the {} MiB limit ([shell] max_file_size_mib)",
                l.max_file_size_mib
            ));
        }
        if has(&["MemoryError", "Cannot allocate memory", "out of memory", "memory allocation of", "bad_alloc"]) {
            return Some(format!(
                "it ran out of memory: a process may use {} MiB ([shell] max_memory_mib)",
                l.max_memory_mib
            ));
        }
        if has(&["Resource temporarily unavailable", "Cannot fork", "can't fork", "fork: retry"]) {
            return Some(format!(
                "it could not start more processes: the limit is {} at once ([shell] max_processes)",
                l.max_processes
            ));
        }
        if has(&["No space left on device"]) {
            return Some(format!(
                "a folder was full; /tmp and the home folder hold {} MiB each ([shell] tmp_size_mib)",
                l.tmp_size_mib
            ));
        }
        None
    }
}

impl Applied {
    /// Ends what is left of the command in its cgroup and removes the cgroup, waiting up to a
    /// second for the processes to go.
    pub async fn finish(mut self) {
        let Some(mut group) = self.cgroup.take() else { return };
        for _ in 0..100 {
            if group.try_remove() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Still busy: the drop keeps trying in the background.
        drop(group);
    }
}

impl Cgroup {
    /// Kills what is in the cgroup and removes its folders; whether all are gone.
    fn try_remove(&mut self) -> bool {
        self.dirs.retain(|dir| {
            if let Ok(procs) = std::fs::read_to_string(dir.join("cgroup.procs")) {
                for pid in procs.lines().filter_map(|p| p.trim().parse::<i32>().ok()) {
                    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
            }
            std::fs::remove_dir(dir).is_err() && dir.exists()
        });
        self.dirs.is_empty()
    }

    /// A new cgroup bounded by `limits`, under this process's own; `None` where none can be made.
    fn create(limits: ResourceLimits) -> Option<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("skilldeck-cmd-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let memory = limits.max_memory_mib.saturating_mul(MIB).to_string();
        let pids = limits.max_processes.to_string();
        // cgroup v2: one folder with both controllers.
        if let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) {
            for mount in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let parent = Path::new(mount).join(path.trim_start_matches('/'));
                let enabled = std::fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
                if !(enabled.contains("memory") && enabled.contains("pids")) {
                    continue;
                }
                let dir = parent.join(&name);
                if std::fs::create_dir(&dir).is_err() {
                    continue;
                }
                let group = Self { dirs: vec![dir.clone()] };
                let written = std::fs::write(dir.join("memory.max"), &memory)
                    .and_then(|()| std::fs::write(dir.join("memory.swap.max"), "0").or(Ok(())))
                    .and_then(|()| std::fs::write(dir.join("pids.max"), &pids));
                if written.is_ok() {
                    return Some(group);
                }
            }
        }
        // cgroup v1: a folder in each of the two hierarchies.
        let mut group = Self { dirs: Vec::new() };
        for (controller, file, value) in [("pids", "pids.max", &pids), ("memory", "memory.limit_in_bytes", &memory)] {
            let path = own.lines().find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
                names.split(',').any(|n| n == controller).then_some(path)
            })?;
            let dir = Path::new("/sys/fs/cgroup").join(controller).join(path.trim_start_matches('/')).join(&name);
            std::fs::create_dir(&dir).ok()?;
            group.dirs.push(dir.clone());
            std::fs::write(dir.join(file), value).ok()?;
        }
        Some(group)
    }

    /// Moves process `pid` (and what it starts from then on) into the cgroup.
    fn join(&self, pid: u32) -> std::io::Result<()> {
        for dir in &self.dirs {
            std::fs::write(dir.join("cgroup.procs"), pid.to_string())?;
        }
        Ok(())
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        if self.try_remove() {
            return;
        }
        let mut rest = Self { dirs: std::mem::take(&mut self.dirs) };
        // What the command left may take a moment to exit.
        let _ = std::thread::Builder::new().name("cgroup-cleanup".into()).spawn(move || {
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(20));
                if rest.try_remove() {
                    return;
                }
            }
            // Given up (a process that cannot be killed): not tried again by the drop.
            rest.dirs.clear();
        });
    }
}
