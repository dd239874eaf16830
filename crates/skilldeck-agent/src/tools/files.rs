//! The file tools: `read_file`, `write_file` and `list_dir`, every path through the sandbox.
//! Holds their inputs and result JSON; the sandbox itself lives in the core.

use super::{ToolError, ToolErrorCode};
use serde_json::{Value, json};
use skilldeck_mount::sandbox::{EntryKind, Sandbox, SandboxError};

/// The largest file `read_file` returns, in bytes.
pub const MAX_READ_BYTES: u64 = 256 * 1024;

/// The largest content `write_file` writes, in bytes.
pub const MAX_WRITE_BYTES: usize = 4 * 1024 * 1024;

fn sandbox_error(e: SandboxError) -> ToolError {
    let code = match &e {
        SandboxError::InvalidPath { .. } => ToolErrorCode::PathInvalid,
        SandboxError::Escapes { .. } => ToolErrorCode::PathEscapes,
        SandboxError::NotFound { .. } | SandboxError::NoWorkspace { .. } => ToolErrorCode::NotFound,
        SandboxError::WrongKind { .. } => ToolErrorCode::WrongKind,
        SandboxError::TooLarge { .. } => ToolErrorCode::TooLarge,
        SandboxError::Io { .. } => ToolErrorCode::Io,
    };
    ToolError::new(code, e.to_string())
}

fn str_arg<'a>(input: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    input
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new(ToolErrorCode::InvalidArguments, format!("`{key}` (a string) is required")))
}

/// `read_file {path}` → `{path, content}`.
pub fn read_file(sandbox: &Sandbox, input: &Value) -> Result<Value, ToolError> {
    let path = str_arg(input, "path")?;
    let bytes = sandbox.read(path, MAX_READ_BYTES).map_err(sandbox_error)?;
    match String::from_utf8(bytes) {
        Ok(content) if !content.contains('\0') => Ok(json!({"path": path, "content": content})),
        Ok(_) | Err(_) => Err(ToolError::new(
            ToolErrorCode::Binary,
            format!("{path} is not a text file; work with it through the shell tool"),
        )),
    }
}

/// `write_file {path, content}` → `{path, bytesWritten}`. Creates parent folders.
pub fn write_file(sandbox: &Sandbox, input: &Value) -> Result<Value, ToolError> {
    let path = str_arg(input, "path")?;
    let content = str_arg(input, "content")?;
    if content.len() > MAX_WRITE_BYTES {
        return Err(ToolError::new(
            ToolErrorCode::TooLarge,
            format!("the content is {} bytes, over the {MAX_WRITE_BYTES}-byte limit", content.len()),
        ));
    }
    sandbox.write(path, content.as_bytes()).map_err(sandbox_error)?;
    Ok(json!({"path": path, "bytesWritten": content.len()}))
}

/// `list_dir {path?}` → `{path, entries: [{name, kind, size}]}`; no path is the workspace root.
pub fn list_dir(sandbox: &Sandbox, input: &Value) -> Result<Value, ToolError> {
    let path = match input.get("path") {
        None | Some(Value::Null) => "",
        Some(Value::String(s)) => s.trim_end_matches('/').trim_start_matches("./"),
        Some(_) => return Err(ToolError::new(ToolErrorCode::InvalidArguments, "`path` must be a string")),
    };
    let path = if path == "." { "" } else { path };
    let entries = sandbox.list_dir(path).map_err(sandbox_error)?;
    let entries: Vec<Value> = entries
        .iter()
        .map(|e| {
            let kind = match e.kind {
                EntryKind::File => "file",
                EntryKind::Dir => "dir",
                EntryKind::Other => "other",
            };
            json!({"name": e.name, "kind": kind, "size": e.size})
        })
        .collect();
    Ok(json!({"path": path, "entries": entries}))
}
