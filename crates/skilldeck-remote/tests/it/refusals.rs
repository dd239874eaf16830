//! The server's refusals in plain words: a 403 from a real S3-compatible server (moto with its
//! credential checks on) and a clock-skew answer, served on loopback as S3 sends it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_remote::moto::{MotoServer, find_server};
use skilldeck_remote::{Credentials, Remote, RemoteConfig, RemoteError};
use std::path::Path;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

fn creds(secret: &str) -> Credentials {
    Credentials { access_key_id: "AKIANOTISSUED0000000".into(), secret_access_key: secret.into(), session_token: None }
}

fn remote(home: &Path, endpoint: String) -> Remote {
    let cfg = RemoteConfig { endpoint: Some(endpoint), ..RemoteConfig::new("s3://team-skills/acme") };
    Remote::with_credentials(home, "team", &cfg, &creds("wrong-secret")).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_credentials_are_a_403_in_plain_words() {
    let Some(server) = find_server(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap() else { return };
    let dir = tempfile::tempdir().unwrap();
    let moto = MotoServer::start(&server, &dir.path().join("moto.log")).unwrap();
    moto.create_bucket("team-skills").await.unwrap();
    moto.require_auth().await.unwrap();
    let err = remote(dir.path(), moto.endpoint()).refresh().await.unwrap_err();
    assert!(matches!(err, RemoteError::AccessDenied { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("the server refused access to acme/skills: the credentials (AWS_ACCESS_KEY_ID")
            && text.contains("are wrong or lack permission")
            && text.contains("(403 InvalidAccessKeyId)"),
        "{text}"
    );
    let statuses: Vec<u16> = moto.requests().unwrap().into_iter().map(|(_, _, s)| s).collect();
    assert_eq!(statuses.last(), Some(&403), "the server itself refused: {statuses:?}");
}

/// A loopback server answering every request as S3 answers a request signed too far from its
/// clock (moto does not check the signature's time, so it cannot say this itself).
async fn skewed_clock_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>RequestTimeTooSkewed</Code>\
                    <Message>The difference between the request time and the current time is too large.</Message>\
                    <RequestTime>20240101T000000Z</RequestTime><ServerTime>2026-12-01T12:00:00Z</ServerTime>\
                    <MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds></Error>";
                let resp = format!(
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clock_skew_answer_says_to_fix_the_clock() {
    let dir = tempfile::tempdir().unwrap();
    let err = remote(dir.path(), skewed_clock_server().await).refresh().await.unwrap_err();
    assert!(matches!(err, RemoteError::ClockSkew), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the server refused the request because this machine's clock is off; set the clock (NTP) and retry"
    );
}
