//! The Skilldeck agent loop: sessions on workspaces, model providers, tools and transcripts.
//! Holds no UI or desktop types; the CLI and the desktop app drive it.

pub mod compaction;
pub mod config;
pub mod config_edit;
pub mod describe;
pub mod dispatch;
pub mod eval;
pub mod events;
pub mod keychain;
pub mod message;
pub mod profile;
pub mod provider;
pub mod replay;
pub mod session;
pub mod shown;
pub mod tools;
pub mod transcript;

pub use config::Config;
pub use events::{AgentEvent, Host};
pub use message::{Message, ModelRequest, StopReason, StreamEvent, ToolCall};
pub use provider::{Provider, ProviderError, ProviderInfo};
pub use session::{AgentError, Session, SessionOptions};
pub use transcript::TurnEnd;
