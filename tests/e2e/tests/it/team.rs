//! The team scope in the real window against a real S3-compatible server (moto) on loopback:
//! "Publish to team…" on a user skill shows it in the Team group at v:1, Refresh after a second
//! publish from another machine's CLI shows v:2, and a stopped server shows the offline marker.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_e2e::{Session, cli, enabled, user_home_of};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const BUCKET: &str = "team-skills";
/// Keys moto accepts (it checks none unless told to).
const ACCESS_KEY: &str = "testing";
const SECRET_KEY: &str = "testing";

/// moto in server mode from `.tools/moto` (scripts/setup installs it), on a free loopback port;
/// killed when dropped. `None` (said loudly) when it is not installed and SKILLDECK_S3_TESTS is
/// unset; with it set, a missing server fails the test.
struct Moto {
    child: Option<Child>,
    port: u16,
}

impl Moto {
    fn start(log: &Path) -> Option<Self> {
        let server: PathBuf = skilldeck_e2e::root().join(".tools/moto/bin/moto_server");
        if !server.is_file() {
            assert!(
                std::env::var_os("SKILLDECK_S3_TESTS").is_none(),
                "SKILLDECK_S3_TESTS is set but {} is missing: run scripts/setup",
                server.display()
            );
            eprintln!(
                "\n!!!! SKIPPING the team e2e test: no moto server at {} (run scripts/setup) !!!!\n",
                server.display()
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let out = std::fs::File::create(log).unwrap();
        let child = Command::new(&server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "moto_server did not start in 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Self { child: Some(child), port })
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates a bucket with one plain HTTP request (moto takes it unsigned).
    async fn create_bucket(&self, bucket: &str) {
        self.put(bucket, b"").await;
    }

    /// Writes `body` at `path` (`bucket` or `bucket/key`) with one unsigned PUT, as anyone with
    /// write access to the bucket could.
    async fn put(&self, path: &str, body: &[u8]) {
        let mut sock = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let head = format!(
            "PUT /{path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        sock.write_all(head.as_bytes()).await.unwrap();
        sock.write_all(body).await.unwrap();
        let mut answer = String::new();
        sock.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "PUT /{path}: {answer}");
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A store home with `[remotes.team]` on `endpoint`, a user skill `pdf` saying `body`, and
/// the credentials in the AWS profile file of its HOME (the app and the CLI read them there).
fn machine(home: &Path, endpoint: &str, body: &str) {
    let skill = home.join("skills/user/pdf");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), format!("---\nname: pdf\ndescription: Team PDFs\n---\n{body}\n")).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!("[remotes.team]\nurl = \"s3://{BUCKET}/acme\"\nendpoint = \"{endpoint}\"\nrefresh_secs = 3600\n"),
    )
    .unwrap();
    let aws = user_home_of(home).join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(
        aws.join("credentials"),
        format!("[default]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"),
    )
    .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn publish_to_the_team_refresh_and_go_offline() {
    if !enabled("publish_to_the_team_refresh_and_go_offline") {
        return;
    }
    let moto_dir = tempfile::tempdir().unwrap();
    let Some(mut moto) = Moto::start(&moto_dir.path().join("moto.log")) else { return };
    moto.create_bucket(BUCKET).await;
    let endpoint = moto.endpoint();
    let s = Session::start_with("team", |home| machine(home, &endpoint, "First")).await;

    // Publish the user skill from its detail view, after a confirmation naming the remote and
    // the revision it will get.
    s.click("[data-key='user/pdf']").await;
    s.click("#publish-team-btn").await;
    let ask = s.wait_text("#confirm-text", 10, |t| t.contains("revision")).await;
    assert_eq!(
        ask,
        format!(
            "Publish pdf to the team store \"team\" (s3://{BUCKET}/acme) as revision 1? Everyone on the team gets it \
             at their next refresh."
        )
    );
    assert_eq!(s.text_of("#confirm-yes").await, "Publish", "the button says what it does, not Delete");
    s.click("#confirm-yes").await;
    let badge = s.wait_text("[data-key='team/pdf'] .badge", 20, |t| !t.is_empty()).await;
    assert_eq!(badge, "v:1");
    s.wait_text("#team-state", 10, |t| t.starts_with("refreshed ") && !t.contains("never")).await;
    assert_eq!(s.text_of("#team-offline").await, "", "online: no offline marker");
    s.screenshot("published").await;

    // Another machine publishes v:2 from the CLI; Refresh brings it here.
    let other = s.tmp.path().join("other/home");
    std::fs::create_dir_all(&other).unwrap();
    machine(&other, &endpoint, "Second");
    let out = cli(&other, &["publish", "pdf", "--to", "team", "--json"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"revision\": 2"), "{out:?}");
    s.click("#team-refresh").await;
    s.wait_text("[data-key='team/pdf'] .badge", 20, |t| t == "v:2").await;
    // With a team store, the sidebar offers its filter chip, and it keeps the team's skills only.
    s.click("#sidebar-filters [data-filter='team']").await;
    s.wait_until("the Team chip leaves the team's skills only", "return document.querySelectorAll('.skill-item').length === 1 && !!document.querySelector(\".skill-item[data-key='team/pdf']\");").await;
    s.click("#sidebar-filters [data-filter='team']").await;
    assert_eq!(s.text_of("#team-problems").await, "", "nothing skipped yet");
    s.screenshot("refreshed").await;

    // Someone with write access to the bucket puts a damaged revision 3: Refresh skips it, says
    // so on the team heading, and pdf stays at v:2.
    moto.put(&format!("{BUCKET}/acme/skills/pdf/rev/0000000003.json"), b"{not a manifest").await;
    s.click("#team-refresh").await;
    let skipped = s.wait_text("#team-problems", 20, |t| !t.is_empty()).await;
    assert_eq!(skipped, "1 skipped");
    let why = s.client.execute("return document.querySelector('#team-problems').title;", vec![]).await.unwrap();
    assert!(why.as_str().unwrap().starts_with("skipped pdf revision 3: "), "{why}");
    assert_eq!(s.text_of("[data-key='team/pdf'] .badge").await, "v:2");
    s.screenshot("skipped").await;

    // The server goes away: Refresh keeps v:2 and marks the group offline.
    moto.stop();
    s.click("#team-refresh").await;
    let marker = s.wait_text("#team-offline", 40, |t| !t.is_empty()).await;
    assert_eq!(marker, "offline");
    assert_eq!(s.text_of("[data-key='team/pdf'] .badge").await, "v:2");
    s.screenshot("offline").await;
    s.finish().await;
}
