//! Archives of skills (`.tar.gz`, `.tgz`, `.zip`, `.skill`) unpacked safely into a folder, and
//! one archive or `SKILL.md` URL fetched into a skill folder.
//! This file only names the modules and hands on their public items: the kind in `kind`, the
//! errors in `error`, entry names in `entry`, the staging folder and its limits in `staging`,
//! the formats in `tar_gz` and `zip_archive`, `extract` in `unpack`, the fetches in `fetch`.

mod entry;
mod error;
mod fetch;
mod kind;
mod staging;
mod tar_gz;
mod unpack;
mod zip_archive;

pub use error::{ArchiveError, Hostility};
pub use fetch::{Extracted, FetchError, FetchedSkillMd, fetch_archive, fetch_skill_md};
pub use kind::ArchiveKind;
pub use staging::Unpacked;
pub use unpack::{extract, extract_file};

pub(crate) use fetch::write_skill_md;
