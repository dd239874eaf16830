//! Records the commit the binaries are built from (`VERGEN_GIT_SHA`, `VERGEN_GIT_COMMIT_DATE`),
//! asking the `git` command line; cargo runs this again when HEAD moves. Outside a Git checkout
//! (a source tarball) vergen emits placeholders with a warning and the build goes on: set
//! `VERGEN_GIT_SHA` and `VERGEN_GIT_COMMIT_DATE` to name the commit then.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let git = vergen_gitcl::Gitcl::builder().sha(false).commit_date(true).build();
    vergen_gitcl::Emitter::default().add_instructions(&git)?.emit()?;
    Ok(())
}
