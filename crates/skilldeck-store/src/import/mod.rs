//! Import: reading skills from a folder, a `SKILL.md`, a `.zip`/`.skill` archive, or a
//! collection of many skills in one folder or archive, safely; and storing them.
//! This file only names the modules and hands on their public items: a read skill in `loaded`,
//! sources in `folder`/`archive`, one skill's load, preview and store in `single`, finding skills
//! in a collection in `discover`, items in `item`, the preview in `preview`, batches in `batch`.
//! The store's own write is `storage`.

mod archive;
mod batch;
mod discover;
mod error;
mod folder;
mod item;
mod loaded;
mod preview;
mod single;

pub use batch::{BatchProgress, BatchReport, ImportRequest, ImportState, ImportedItem, import_batch};
pub use discover::{Discovered, Found, Layout, Source, WHOLE, discover};
pub use error::ImportError;
pub use folder::IGNORED;
pub use item::{ErrorInfo, Incoming, ItemState, PathError, Preview, PreviewItem};
pub use loaded::{LoadedSkill, Progress};
pub use preview::preview_all;
pub use single::{ImportPreview, Stored, load, preview, store};
