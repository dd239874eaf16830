//! The Skilldeck agent loop: sessions on workspaces, model providers, tools and transcripts.
//! Holds no UI or desktop types; the CLI and the desktop app drive it.
