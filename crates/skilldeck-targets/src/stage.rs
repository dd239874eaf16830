//! Writing a skill's files into a new folder: the tree a sync renames into a target folder, or
//! an export. Beneath both `sync` and `export`, which decide where.

use skilldeck_skill::SkillFiles;
use std::fs;
use std::path::Path;

/// Writes `files` into the new folder `dir`; a file starting with `#!` is made executable, as
/// the store does.
pub(crate) fn stage(dir: &Path, files: &SkillFiles) -> std::io::Result<()> {
    fs::create_dir(dir)?;
    let written = (|| {
        for (rel, bytes) in files.iter() {
            let p = rel.under(dir);
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&p, bytes)?;
            if bytes.starts_with(b"#!") {
                executable(&p)?;
            }
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_dir_all(dir);
    }
    written
}

/// Makes the file at `p` executable; on a file system that keeps no modes (FAT, some network
/// shares: the call is not implemented or not supported) the file is left as it is.
fn executable(p: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    match fs::set_permissions(p, fs::Permissions::from_mode(0o755)) {
        Err(e) if matches!(e.kind(), std::io::ErrorKind::Unsupported) => Ok(()),
        Err(e)
            if [rustix::io::Errno::NOSYS, rustix::io::Errno::OPNOTSUPP]
                .iter()
                .any(|n| e.raw_os_error() == Some(n.raw_os_error())) =>
        {
            Ok(())
        }
        other => other,
    }
}
