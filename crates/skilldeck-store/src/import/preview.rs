//! The preview of an import of many paths: `preview_all` reads every skill the requests name
//! and says what importing each would do to the store (the item types are in `item`); writes
//! nothing.

use super::batch::{BatchProgress, ImportRequest, Names, open_all};
use super::item::{ErrorInfo, Incoming, ItemState, Preview, PreviewItem};
use super::single::current_revision;
use crate::storage::{FsStorage, Scope};
use skilldeck_skill::files::UploadLimits;

/// Reads every skill the requests name and says what importing each into `scope` would do,
/// against the store as it is now. Writes nothing. Only what is shown is kept: each skill's
/// files are dropped once read, so a collection of 20,000 skills previews in little memory.
/// Two skills of one name: the first is previewed, the later ones are `refused`
/// (`name_duplicate`), as `import_batch` would.
pub fn preview_all(
    storage: &FsStorage,
    scope: Scope,
    requests: &[ImportRequest],
    limits: UploadLimits,
    progress: &mut dyn FnMut(BatchProgress),
) -> Preview {
    let (mut opened, errors) = open_all(requests);
    let total = opened.iter().map(|(_, idx, _)| idx.len()).sum();
    let mut names = Names::default();
    let mut items = Vec::with_capacity(total);
    for (source, indices, _) in &mut opened {
        let shown = source.path().display().to_string();
        for &i in indices.iter() {
            let location = source.location(i).to_owned();
            let (skill, state) = match source.load(i, limits, &mut |_, _| {}) {
                Err(e) => (None, ItemState::Refused { error: ErrorInfo::from(&e) }),
                Ok(loaded) => {
                    let incoming = Incoming::of(&loaded);
                    let state = match names.claim(&incoming.name, &shown, &location) {
                        Err(e) => ItemState::Refused { error: ErrorInfo::from(&e) },
                        Ok(()) => state_against(storage, scope, &incoming),
                    };
                    (Some(incoming), state)
                }
            };
            items.push(PreviewItem { source: shown.clone(), location, skill, state });
            progress(BatchProgress::Reading { done: items.len(), total });
        }
    }
    Preview { items, errors }
}

/// What storing `incoming` would do to the store as it is now.
fn state_against(storage: &FsStorage, scope: Scope, incoming: &Incoming) -> ItemState {
    match current_revision(storage, scope, &incoming.name) {
        Some((revision, digest)) if digest == incoming.digest => ItemState::Identical { revision },
        Some((current, _)) => ItemState::Update { revision: storage.next_revision(scope, &incoming.name), current },
        None => ItemState::New { revision: storage.next_revision(scope, &incoming.name) },
    }
}
