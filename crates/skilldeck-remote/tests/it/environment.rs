//! The process environment cannot redirect a configured store: AWS_ENDPOINT_URL and
//! AWS_ALLOW_HTTP are not read (the credentials still are, by `credentials::resolve`).
//! The environment is set on a child run of this test, never on this process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_remote::{Credentials, Remote, RemoteConfig};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const CHILD: &str = "SKILLDECK_TEST_ENVIRONMENT_CHILD";
const NAME: &str = "aws_endpoint_variables_do_not_redirect_signed_requests";

#[test]
fn aws_endpoint_variables_do_not_redirect_signed_requests() {
    if std::env::var_os(CHILD).is_some() {
        // The child: a remote on AWS itself (no endpoint in config.toml), one refresh; whether
        // it reaches AWS does not matter, only where it sends its requests (printed for the parent).
        let dir = tempfile::tempdir().unwrap();
        let creds = Credentials { access_key_id: "AKIA0".into(), secret_access_key: "s".into(), session_token: None };
        let r = Remote::with_credentials(dir.path(), "team", &RemoteConfig::new("s3://team-skills/acme"), &creds);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        eprintln!("child: {:?}", rt.block_on(r.unwrap().refresh()));
        return;
    }
    // A listener that counts connections and closes each at once.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    // https: the client options this crate sets allow no plain http unless config.toml's
    // endpoint is http, so an https endpoint is what a redirect would use.
    let endpoint = format!("https://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(conn);
        }
    });
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &skilldeck_testkit::test_name(module_path!(), NAME), "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_ENDPOINT_URL_S3", &endpoint)
        .env("AWS_ENDPOINT", &endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .output()
        .unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"), "{out:?}");
    let child = String::from_utf8_lossy(&out.stderr);
    assert_eq!(seen.load(Ordering::SeqCst), 0, "the environment redirected the store's signed requests: {child}");
    assert!(child.contains("child: Err(") && !child.contains(&endpoint), "{child}");
}
