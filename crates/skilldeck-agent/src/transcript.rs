//! Transcripts: one append-only JSONL file per session under `$SKILLDECK_HOME/sessions/`.
//! Holds the record shapes, appending (one flushed line per event), listing and reading back.

use crate::message::Message;
use crate::provider::ProviderInfo;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// The transcript format's version, in the first record.
pub const FORMAT: u32 = 1;

/// Why a transcript could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// Reading or writing failed.
    #[error("transcript {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// No session has that id.
    #[error("no session {id:?}; `skilldeck sessions` lists them")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// Another session (in this process or another: a terminal, a window) has it open.
    #[error("session {path} is open elsewhere (another Skilldeck window or terminal); close it there first")]
    InUse {
        /// The file.
        path: String,
    },
    /// The file does not start with a session record.
    #[error("{path} is not a Skilldeck transcript: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// A skill as a turn's listing showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedRef {
    /// Its name.
    pub name: String,
    /// Its version tag.
    pub version: Option<String>,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without tool calls.
    Answered,
    /// The step limit was reached.
    StepLimit {
        /// The limit.
        steps: usize,
    },
    /// The user stopped it.
    Cancelled,
    /// The model call failed.
    Failed {
        /// Why.
        message: String,
    },
}

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first line.
    Session {
        /// The format's version.
        format: u32,
        /// The session's id.
        id: String,
        /// The workspace folder.
        workspace: PathBuf,
        /// Who answered.
        provider: ProviderInfo,
        /// When, RFC 3339.
        created: String,
    },
    /// The session was opened again, maybe with another provider.
    Resumed {
        /// Who answers from now on.
        provider: ProviderInfo,
        /// When.
        at: String,
    },
    /// A turn began, with what its listing showed.
    TurnStarted {
        /// The turn's id.
        turn: String,
        /// When.
        at: String,
        /// The skills listed, when they differ from the previous turn's (absent: unchanged),
        /// so a long session with many skills does not repeat the listing every turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        listing: Option<Vec<ListedRef>>,
        /// The skills the turn named to the model as closest to the request, best first
        /// (`[listing] suggest`; absent: none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        suggested: Vec<String>,
    },
    /// A message of the conversation, as the model sees it.
    Message {
        /// The message.
        message: Message,
    },
    /// `find_skills` returned skills the session had not found before: they stay in its listing
    /// and `view_skill` enum from the next model call on, and after a resume.
    Found {
        /// The turn it happened in.
        turn: String,
        /// The skills newly found, in the order found.
        skills: Vec<String>,
    },
    /// A turn ended.
    TurnEnded {
        /// The turn's id.
        turn: String,
        /// When.
        at: String,
        /// How.
        end: TurnEnd,
    },
}

/// Now, RFC 3339.
pub fn now() -> String {
    time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}

/// A new session id: the UTC time and a random suffix, e.g. `20261129-142233-7f3a09c2`.
pub fn new_id() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}-{:08x}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        fastrand::u32(..)
    )
}

/// Whether `id` could be a session id (no path tricks).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The file of session `id` in `dir`.
pub fn path_of(dir: &Path, id: &str) -> Result<PathBuf, TranscriptError> {
    if !valid_id(id) {
        return Err(TranscriptError::NotFound { id: id.to_owned() });
    }
    Ok(dir.join(format!("{id}.jsonl")))
}

/// An open transcript, appended to line by line.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    file: File,
}

impl TranscriptError {
    /// Whether a new transcript could not be created only because its id was taken.
    pub fn is_taken(&self) -> bool {
        matches!(self, Self::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists)
    }
}

impl Transcript {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TranscriptError + '_ {
        move |source| TranscriptError::Io { path: path.display().to_string(), source }
    }

    /// Creates the transcript of a new session in `dir` and writes its first record.
    pub fn create(dir: &Path, first: &Record) -> Result<Self, TranscriptError> {
        let Record::Session { id, .. } = first else {
            return Err(TranscriptError::Invalid {
                path: dir.display().to_string(),
                message: "a transcript starts with a session record".into(),
            });
        };
        std::fs::create_dir_all(dir).map_err(Self::io(dir))?;
        let path = path_of(dir, id)?;
        let file = OpenOptions::new().append(true).create_new(true).open(&path).map_err(Self::io(&path))?;
        Self::lock(&path, &file)?;
        let mut t = Self { path, file };
        t.append(first)?;
        Ok(t)
    }

    /// Opens an existing transcript to append to. A last line torn by a crash is ended first,
    /// so the next record starts on a line of its own.
    pub fn open(path: &Path) -> Result<Self, TranscriptError> {
        let mut file = OpenOptions::new().read(true).append(true).open(path).map_err(Self::io(path))?;
        Self::lock(path, &file)?;
        let len = file.metadata().map_err(Self::io(path))?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1)).map_err(Self::io(path))?;
            file.read_exact(&mut last).map_err(Self::io(path))?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(Self::io(path))?;
            }
        }
        Ok(Self { path: path.to_owned(), file })
    }

    /// Takes the file's lock for as long as it stays open, so two sessions never append to one
    /// transcript in turns (each would miss the other's messages).
    fn lock(path: &Path, file: &File) -> Result<(), TranscriptError> {
        match file.try_lock() {
            Ok(()) => Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => Err(TranscriptError::InUse { path: path.display().to_string() }),
            Err(std::fs::TryLockError::Error(e)) => Err(Self::io(path)(e)),
        }
    }

    /// Appends one record as one line and flushes it to the file.
    pub fn append(&mut self, record: &Record) -> Result<(), TranscriptError> {
        let mut line = serde_json::to_vec(record).map_err(|e| Self::io(&self.path)(e.into()))?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(Self::io(&self.path))?;
        self.file.flush().map_err(Self::io(&self.path))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The skills `find_skills` found over the whole session, oldest first, each once.
pub fn found(records: &[Record]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in records {
        if let Record::Found { skills, .. } = r {
            for s in skills {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
    }
    out
}

/// The listing the last turn of `records` showed, if any turn recorded one.
pub fn last_listing(records: &[Record]) -> Option<Vec<ListedRef>> {
    records.iter().rev().find_map(|r| match r {
        Record::TurnStarted { listing: Some(l), .. } => Some(l.clone()),
        _ => None,
    })
}

/// Reads every whole record of a transcript; a torn or unreadable line is skipped.
pub fn read(path: &Path) -> Result<Vec<Record>, TranscriptError> {
    let file = File::open(path).map_err(|source| TranscriptError::Io { path: path.display().to_string(), source })?;
    let mut out = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|source| TranscriptError::Io { path: path.display().to_string(), source })?;
        if let Ok(r) = serde_json::from_str::<Record>(&line) {
            out.push(r);
        }
    }
    match out.first() {
        Some(Record::Session { .. }) => Ok(out),
        _ => Err(TranscriptError::Invalid {
            path: path.display().to_string(),
            message: "the first line is not a session record".into(),
        }),
    }
}

/// The conversation a transcript holds, ready to send again. A tool call left without a
/// result (a crash mid-tool) gets an `interrupted` error result, so the history stays whole.
pub fn history(records: &[Record]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    let mut open: Vec<(String, String)> = Vec::new();
    let close = |out: &mut Vec<Message>, open: &mut Vec<(String, String)>| {
        for (id, name) in open.drain(..) {
            let content = serde_json::json!({"error": {"code": "interrupted", "message": "The session stopped before this call finished; run it again if it is still needed."}});
            out.push(Message::Tool { call_id: id, name, content: content.to_string() });
        }
    };
    for r in records {
        let Record::Message { message } = r else { continue };
        match message {
            Message::Tool { call_id, .. } => open.retain(|(id, _)| id != call_id),
            Message::User { .. } | Message::Assistant { .. } => close(&mut out, &mut open),
        }
        if let Message::Assistant { tool_calls, .. } = message {
            open = tool_calls.iter().map(|c| (c.id.clone(), c.name.clone())).collect();
        }
        out.push(message.clone());
    }
    close(&mut out, &mut open);
    out
}

/// One session, as `skilldeck sessions` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionSummary {
    /// The id, for `--resume`.
    pub id: String,
    /// The workspace folder.
    pub workspace: PathBuf,
    /// Who answered first.
    pub provider: String,
    /// When it began.
    pub created: String,
    /// How many turns it holds.
    pub turns: usize,
    /// Its first request, shortened.
    pub title: String,
}

/// Summarizes the transcript at `path`.
pub fn summary(path: &Path) -> Result<SessionSummary, TranscriptError> {
    let records = read(path)?;
    let mut s = match records.first() {
        Some(Record::Session { id, workspace, provider, created, .. }) => SessionSummary {
            id: id.clone(),
            workspace: workspace.clone(),
            provider: provider.label.clone(),
            created: created.clone(),
            turns: 0,
            title: String::new(),
        },
        _ => return Err(TranscriptError::Invalid { path: path.display().to_string(), message: "no session".into() }),
    };
    for r in &records {
        match r {
            Record::TurnStarted { .. } => s.turns += 1,
            Record::Message { message: Message::User { content } } if s.title.is_empty() => {
                s.title = content.lines().next().unwrap_or_default().chars().take(80).collect();
            }
            _ => {}
        }
    }
    Ok(s)
}

/// Every session in `dir`, newest first. Files that are not transcripts are skipped.
pub fn list(dir: &Path) -> Result<Vec<SessionSummary>, TranscriptError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(TranscriptError::Io { path: dir.display().to_string(), source }),
    };
    let mut out: Vec<SessionSummary> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|p| summary(&p).ok())
        .collect();
    out.sort_by(|a, b| (b.created.as_str(), b.id.as_str()).cmp(&(a.created.as_str(), a.id.as_str())));
    Ok(out)
}
