//! A real S3-compatible server (moto) on loopback with one bucket, machines (each its own
//! SKILLDECK_HOME and HOME) that have added it as the remote `team`, and the `skilldeck` binary
//! run against them with moto's credentials and nothing of the real user's AWS set-up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs, dead_code)]

use serde_json::Value;
use skilldeck_remote::moto::{ACCESS_KEY, MotoServer, SECRET_KEY, find_server};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const BUCKET: &str = "team-skills";

pub struct Env {
    pub dir: tempfile::TempDir,
    pub moto: MotoServer,
}

impl Env {
    /// The server with the bucket made; `None` (the test skips, loudly) without moto.
    pub fn start() -> Option<Self> {
        let server = find_server(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()?;
        let dir = tempfile::tempdir().unwrap();
        let moto = MotoServer::start(&server, &dir.path().join("moto.log")).unwrap();
        rt().block_on(moto.create_bucket(BUCKET)).unwrap();
        Some(Self { dir, moto })
    }

    /// A machine with its own home and the remote `team` added (with `extra` arguments).
    pub fn machine_with(&self, which: &str, extra: &[&str]) -> PathBuf {
        let home = self.dir.path().join(which);
        std::fs::create_dir_all(&home).unwrap();
        let url = format!("s3://{BUCKET}/acme");
        let endpoint = self.moto.endpoint();
        let mut args = vec!["remote", "add", "team", &url, "--endpoint", &endpoint];
        args.extend_from_slice(extra);
        ok(skilldeck(&home, &args));
        home
    }
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// `skilldeck ARGS` on the machine at `home`.
pub fn skilldeck(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skilldeck"))
        .args(args)
        .env("SKILLDECK_HOME", home)
        .env("HOME", home)
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT")
        .env_remove("AWS_PROFILE")
        .output()
        .unwrap()
}

/// Stdout and stderr of a command that must have succeeded.
pub fn ok_both(out: Output) -> (String, String) {
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "status {:?}\nstdout: {stdout}\nstderr: {stderr}", out.status);
    (stdout.into_owned(), stderr.into_owned())
}

/// Stdout of a command that must have succeeded.
pub fn ok(out: Output) -> String {
    ok_both(out).0
}

pub fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap()
}
