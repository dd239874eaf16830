//! Where skills are mounted: `--workspace DIR`, else the client's first `file://` root (MCP
//! roots, asked once and again after `notifications/roots/list_changed`), else an error.

use skilldeck_mount::sandbox::Sandbox;
use skilldeck_mount::workspace_guard::Guard;
use skilldeck_store::SkilldeckHome;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The message a call gets when there is nowhere to mount.
pub(crate) const NO_WORKSPACE: &str = "No workspace to mount the skill into: this client shares no file:// folder \
     (MCP roots). Open a folder in the client, or start the server with `skilldeck mcp --workspace DIR`, then call \
     view_skill again.";

/// The local path of a `file://` URI, or why it is not one.
pub fn path_from_file_uri(uri: &str) -> Result<PathBuf, String> {
    let parsed = url::Url::parse(uri).map_err(|e| format!("{uri:?} is not a URI: {e}"))?;
    if parsed.scheme() != "file" {
        return Err(format!("{uri:?} is not a file:// URI"));
    }
    parsed.to_file_path().map_err(|()| format!("{uri:?} does not name a local folder"))
}

/// Why `path`, a client's root, is no place for a workspace (skills would be written into it,
/// `.skills/`): the whole machine, a system folder, the home folder or one above it, Skilldeck's
/// data folder, or a folder of secrets such as `~/.ssh` (`workspace_guard` says which).
/// `--workspace` can still name one.
fn unsuitable(path: &Path) -> Option<String> {
    let data = SkilldeckHome::from_env().ok();
    Guard::for_user(data.as_ref().map(SkilldeckHome::root)).check(path).err().map(|r| format!("{} {}", r.path, r.why))
}

/// The first root that is a local folder fit for a workspace, or a message saying why none is.
pub(crate) fn first_file_root<'a>(uris: impl IntoIterator<Item = &'a str>) -> Result<PathBuf, String> {
    let mut seen = Vec::new();
    for uri in uris {
        match path_from_file_uri(uri) {
            Ok(path) => match unsuitable(&path) {
                None => return Ok(path),
                Some(why) => seen.push(why),
            },
            Err(why) => seen.push(why),
        }
    }
    if seen.is_empty() {
        Err(NO_WORKSPACE.to_owned())
    } else {
        Err(format!("{NO_WORKSPACE} (The client's roots: {}.)", seen.join("; ")))
    }
}

/// A 2026-07-28 client's answer to the roots asked for as input to a call (a `roots/list`
/// result): the first local folder, or why there is none. (SEP-2577 deprecates roots; see
/// `server::roots_request` for why they are still asked.)
#[allow(deprecated)]
pub(crate) fn roots_answered(answer: &serde_json::Value) -> Result<PathBuf, String> {
    match serde_json::from_value::<rmcp::model::ListRootsResult>(answer.clone()) {
        Ok(list) => first_file_root(list.roots.iter().map(|r| r.uri.as_str())),
        Err(e) => Err(format!("{NO_WORKSPACE} (The client's answer for its roots could not be read: {e}.)")),
    }
}

/// Asks the client for its roots: the first local folder, or why there is none; the outer
/// error when the client failed to answer (asked again at the next call). Roots are deprecated
/// from protocol 2026-07-28 on (SEP-2577), but the handshake versions every current client
/// speaks still have them, and they are how a client says which folder it works in.
#[allow(deprecated)]
pub(crate) async fn ask_roots(
    peer: &rmcp::service::Peer<rmcp::service::RoleServer>,
) -> Result<Result<PathBuf, String>, String> {
    match peer.list_roots().await {
        Ok(list) => Ok(first_file_root(list.roots.iter().map(|r| r.uri.as_str()))),
        Err(e) => Err(format!("{NO_WORKSPACE} (Asking the client for its roots failed: {e}.)")),
    }
}

/// The workspace as far as it is known.
#[derive(Debug, Default)]
pub(crate) struct Workspaces {
    /// The folder given on the command line, which wins.
    fixed: Option<PathBuf>,
    /// What the client's roots gave, until they change.
    from_roots: Option<Result<PathBuf, String>>,
    /// The sandbox opened last, kept while the folder stays the same.
    open: Option<(PathBuf, Arc<Sandbox>)>,
}

impl Workspaces {
    /// With `--workspace`, or without (roots then decide).
    pub(crate) fn new(fixed: Option<PathBuf>) -> Self {
        Self { fixed, from_roots: None, open: None }
    }

    /// Whether the roots decide the workspace, so they are asked before each mount: a client
    /// that sends `notifications/roots/list_changed` and then a call at once may have the call
    /// handled first (each message gets a task of its own), and a remembered answer would then
    /// mount into the folder the client just left.
    pub(crate) fn roots_decide(&self) -> bool {
        self.fixed.is_none()
    }

    /// Whether where to mount is known: `--workspace`, or roots already answered.
    pub(crate) fn knows_where(&self) -> bool {
        self.fixed.is_some() || self.from_roots.is_some()
    }

    /// Records what the roots gave.
    pub(crate) fn set_roots(&mut self, found: Result<PathBuf, String>) {
        self.from_roots = Some(found);
    }

    /// Forgets the roots: the client said they changed.
    pub(crate) fn roots_changed(&mut self) {
        self.from_roots = None;
    }

    /// The sandbox over the current workspace, or the message for the model.
    pub(crate) fn sandbox(&mut self) -> Result<Arc<Sandbox>, String> {
        let path = match (&self.fixed, &self.from_roots) {
            (Some(p), _) | (None, Some(Ok(p))) => p.clone(),
            (None, Some(Err(why))) => return Err(why.clone()),
            (None, None) => return Err(NO_WORKSPACE.to_owned()),
        };
        if let Some((open_path, sandbox)) = &self.open
            && *open_path == path
            && Path::new(&path).is_dir()
        {
            return Ok(Arc::clone(sandbox));
        }
        let sandbox = Sandbox::open(&path).map_err(|e| {
            format!(
                "Cannot mount into the workspace {}: {e}. Give an existing folder as the root or with --workspace.",
                path.display()
            )
        })?;
        let sandbox = Arc::new(sandbox);
        self.open = Some((path, Arc::clone(&sandbox)));
        Ok(sandbox)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn check(uris: &[&str], expected: Result<&str, &str>) {
        let got = first_file_root(uris.iter().copied());
        match (got, expected) {
            (Ok(p), Ok(want)) => assert_eq!(p, PathBuf::from(want), "{uris:?}"),
            (Err(msg), Err(part)) => assert!(msg.contains(part), "{uris:?}: {msg}"),
            (got, want) => panic!("{uris:?}: got {got:?}, wanted {want:?}"),
        }
    }

    #[test]
    fn the_first_local_folder_among_the_roots_is_the_workspace() {
        check(&["file:///home/a/project"], Ok("/home/a/project"));
        check(&["https://example.invalid/x", "file:///tmp/w%20s"], Ok("/tmp/w s"));
        check(&["file://remote-host/share"], Err("does not name a local folder"));
        check(&["not a uri"], Err("is not a URI"));
        check(&[], Err("--workspace DIR"));
    }

    #[test]
    fn a_root_that_is_the_machine_a_system_folder_or_home_is_never_the_workspace() {
        check(&["file:///"], Err("/ is the whole file system"));
        check(&["file:///etc"], Err("a system folder (/etc)"));
        check(&["file:///usr/share/doc"], Err("a system folder (/usr)"));
        check(&["file:///", "file:///tmp/project"], Ok("/tmp/project"));
        let home = std::env::var("HOME").unwrap();
        check(&[&format!("file://{home}")], Err("is your home folder, not a project"));
        check(&[&format!("file://{home}/code/app")], Ok(&format!("{home}/code/app")));
        check(&[&format!("file://{home}/.ssh")], Err(".ssh, which holds secrets"));
        let parent = std::path::Path::new(&home).parent().unwrap().display().to_string();
        if parent != "/" {
            check(&[&format!("file://{parent}")], Err("holds your home folder"));
        }
    }
}
