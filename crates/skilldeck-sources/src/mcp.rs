//! Skills that an MCP server publishes through the Skills extension (`io.modelcontextprotocol/skills`):
//! the `mcp:` source read (`server`), a client session with every request bounded (`session`),
//! each entry checked before it is read (`entry`), and the skills fetched, digests checked, into
//! a scratch folder under the names they are kept by (`fetch`).
//! This file only names the modules and hands on their public items.

mod entry;
mod fetch;
mod server;
mod session;

pub use fetch::{McpFetchError, McpFetched, McpOptions, McpRefused, McpSkill, Wanted, fetch};
pub use server::{MAX_LABEL, McpSource, McpSourceError, PREFIX, TOKEN_PREFIX, Target};
pub use session::SessionError;
