//! Providers' keys in the system keychain, end to end: a real Secret Service (GNOME Keyring on a
//! private D-Bus session, its keyring in the test's own HOME) takes the key from `skilldeck key
//! set` (standard input, never the command line), `skilldeck agent` sends it to a loopback
//! model, an `api_key_env` variable that is set wins over it, and `key remove` takes it away.

use crate::model::{serve, sse_text};
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// A private D-Bus session with GNOME Keyring's Secret Service unlocked in it; both end on drop.
struct Keyring {
    bus: Child,
    address: String,
}

impl Keyring {
    /// `None` (after `require`) when D-Bus or GNOME Keyring is not installed.
    fn start(home: &Path) -> Option<Self> {
        let have = |bin: &str| Command::new(bin).arg("--version").output().is_ok_and(|o| o.status.success());
        if !have("dbus-daemon") || !have("gnome-keyring-daemon") {
            skilldeck_testkit::require(
                "keyring",
                "the tests' Secret Service (dbus-daemon and gnome-keyring-daemon) is not installed",
                "apt-get install dbus gnome-keyring",
            );
            return None;
        }
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address"])
            .env("HOME", home)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(bus.stdout.take().unwrap()), &mut line).unwrap();
        let address = line.trim().to_owned();
        let mut daemon = Command::new("gnome-keyring-daemon")
            .args(["--unlock", "--components=secrets", "--daemonize"])
            .env("HOME", home)
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env_remove("XDG_RUNTIME_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        daemon.stdin.take().unwrap().write_all(b"test-login-password").unwrap();
        assert!(daemon.wait().unwrap().success(), "gnome-keyring-daemon did not start");
        Some(Self { bus, address })
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        // The keyring daemon leaves with its bus (it quits when its connection goes).
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }
}

struct Env {
    tmp: tempfile::TempDir,
    keyring: Option<Keyring>,
}

impl Env {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", self.tmp.path())
            .env("SKILLDECK_HOME", self.tmp.path().join("sd"))
            .env("SKILLDECK_KEYCHAIN_SERVICE", "skilldeck-test")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("LOOPBACK_KEY")
            .stdin(Stdio::null());
        if let Some(k) = &self.keyring {
            c.env("DBUS_SESSION_BUS_ADDRESS", &k.address);
        }
        c
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut c = self.cmd(args);
        if stdin.is_some() {
            c.stdin(Stdio::piped());
        }
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        if let Some(text) = stdin {
            // A command that refuses before reading may have closed its end already.
            let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
        }
        child.wait_with_output().unwrap()
    }

    fn expect(&self, args: &[&str], stdin: Option<&str>, code: i32) -> String {
        let out = self.run(args, stdin);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
        text
    }
}

#[test]
fn a_key_kept_in_the_keychain_reaches_the_model_and_a_set_variable_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(keyring) = Keyring::start(tmp.path()) else { return };
    let env = Env { tmp, keyring: Some(keyring) };
    let (url, rx) = serve(vec![sse_text("from the keychain"), sse_text("from the variable")]);
    fs::create_dir_all(env.tmp.path().join("sd")).unwrap();
    let config = format!(
        "default_provider = \"loop\"\n[providers.loop]\napi = \"openai\"\nbase_url = \"{url}\"\nmodel = \"m\"\napi_key_env = \"LOOPBACK_KEY\"\n"
    );
    fs::write(env.tmp.path().join("sd/config.toml"), config).unwrap();
    let ws = env.tmp.path().join("ws");
    fs::create_dir_all(&ws).unwrap();
    let ws = ws.to_str().unwrap();

    // No variable, no key: the error says both ways to give one.
    let err = env.expect(&["agent", "--workspace", ws, "hi"], None, 2);
    assert!(
        err.contains("LOOPBACK_KEY (named by api_key_env) is not set") && err.contains("skilldeck key set loop"),
        "{err}"
    );

    // Kept from standard input, in the Secret Service; the status names where, never the key.
    let said = env.expect(&["key", "set", "loop"], Some("sk-from-keychain\n"), 0);
    assert!(said.contains("kept in the desktop's keychain (Secret Service)"), "{said}");
    let status = env.expect(&["key", "status", "loop"], None, 0);
    assert!(status.contains("a key is kept") && !status.contains("sk-from-keychain"), "{status}");
    assert!(
        !fs::read_to_string(env.tmp.path().join("sd/config.toml")).unwrap().contains("sk-from"),
        "never config.toml"
    );

    let out = env.expect(&["agent", "--workspace", ws, "hi"], None, 0);
    assert!(out.contains("from the keychain"), "{out}");
    let (head, _) = rx.recv().unwrap();
    assert!(head.to_ascii_lowercase().contains("authorization: bearer sk-from-keychain"), "{head}");

    // The variable, when set, wins.
    let out = env.cmd(&["agent", "--workspace", ws, "hi"]).env("LOOPBACK_KEY", "sk-from-variable").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (head, _) = rx.recv().unwrap();
    assert!(head.to_ascii_lowercase().contains("authorization: bearer sk-from-variable"), "{head}");

    // Refusals: an unknown provider, an empty key; then removal.
    let err = env.expect(&["key", "set", "nope"], Some("x\n"), 2);
    assert!(err.contains("no provider named \"nope\""), "{err}");
    let err = env.expect(&["key", "set", "loop"], Some("\n"), 2);
    assert!(err.contains("the key is empty"), "{err}");
    assert!(env.expect(&["key", "remove", "loop"], None, 0).contains("was removed from the keychain"));
    assert!(env.expect(&["key", "status", "loop"], None, 0).contains("no key in the keychain"));
}
