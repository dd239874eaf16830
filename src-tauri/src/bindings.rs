//! The UI's typed boundary: TypeScript declarations of every command's arguments and result,
//! and of the views they carry, generated from the Rust side (ts-rs for the types, the
//! `handlers!` list and the commands' signatures for the command map).
//!
//! The generated files are committed under `ui/types/`; the test below fails when they differ
//! from what the Rust code generates now, and `UPDATE_BINDINGS=1 cargo test -p skilldeck-app
//! --lib bindings` (or `scripts/bindings`) rewrites them. `tsc` then checks the UI's use of them.

use std::collections::BTreeMap;

/// How a command's error reaches the UI (`ApiError`'s wire shape, `{code, message, args?}`):
/// only declared for TypeScript, never built.
#[derive(ts_rs::TS)]
#[allow(dead_code)]
pub struct ApiErrorShape {
    /// A stable snake_case code.
    pub code: String,
    /// What went wrong and what to do, for people, in English.
    pub message: String,
    /// The values a translated message needs; left out when there are none.
    #[ts(optional)]
    pub args: Option<BTreeMap<String, String>>,
}

#[cfg(test)]
mod tests {
    //! The generator, run as a test: it compares, or with `UPDATE_BINDINGS=1` rewrites.

    use std::any::TypeId;
    use std::collections::{BTreeMap, BTreeSet, HashSet};
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};
    use ts_rs::{Config, TS, TypeVisitor};

    /// Every type a command takes or returns; their fields' types follow by themselves.
    /// A command naming a type missing here fails the test, saying which to add.
    fn roots(c: &mut Collect) {
        use crate::commands as cmd;
        c.root::<crate::views::SkillRow>();
        c.root::<crate::views::MeaningHit>();
        c.root::<crate::views::SkillDetail>();
        c.root::<crate::views::FileView>();
        c.root::<crate::views::FileRow>();
        c.root::<crate::views::GrantsRow>();
        c.root::<crate::views::ListingView>();
        c.root::<crate::views::AuditView>();
        c.root::<crate::views::ImportPreviewView>();
        c.root::<crate::views::ImportedView>();
        c.root::<crate::views::HistoryRow>();
        c.root::<crate::views::SourceView>();
        c.root::<crate::agent::SetupView>();
        c.root::<crate::evals::EvalsView>();
        c.root::<crate::evals::QueryRow>();
        c.root::<crate::evals::TriggerRunView>();
        c.root::<crate::evals::EvalProgress>();
        c.root::<crate::evals::CaseRow>();
        c.root::<crate::evals::OutputRequest>();
        c.root::<crate::evals::OutputRunView>();
        c.root::<crate::evals::ImproveView>();
        c.root::<crate::evals::ImproveProgress>();
        c.root::<crate::agent::SessionView>();
        c.root::<crate::agent::SendOutcome>();
        c.root::<crate::agent::SendRequest>();
        c.root::<crate::agent::PanelEvent>();
        c.root::<crate::agents::AgentsMerged>();
        c.root::<crate::settings::SettingsView>();
        c.root::<crate::settings::StorageView>();
        c.root::<crate::settings::AboutView>();
        c.root::<crate::updates::UpdatesView>();
        c.root::<cmd::add_source::SourceLook>();
        c.root::<cmd::collection::CollectionView>();
        c.root::<cmd::collection::CollectionItemView>();
        c.root::<cmd::agents::ScanView>();
        c.root::<cmd::agents::AdoptView>();
        c.root::<cmd::mcp_clients::McpClientPlan>();
        c.root::<cmd::revisions::DeletedRow>();
        c.root::<cmd::authoring::DraftView>();
        c.root::<cmd::authoring::DraftRow>();
        c.root::<cmd::authoring::DraftCheck>();
        c.root::<cmd::authoring::NameCheck>();
        c.root::<cmd::authoring::SavedView>();
        c.root::<skilldeck_core::authoring::TemplateInfo>();
        c.root::<cmd::team::TeamStatus>();
        c.root::<cmd::team::PublishPreview>();
        c.root::<cmd::team::Published>();
        c.root::<cmd::team::RemotesView>();
        c.root::<cmd::updates::UpdateDiff>();
        c.root::<cmd::updates::UpdateResult>();
        c.root::<skilldeck_skill::Scope>();
        c.root::<skilldeck_agent::events::ShellAnswer>();
        c.root::<skilldeck_agent::config::ShellConfig>();
        c.root::<skilldeck_agent::config_edit::SourcesForm>();
        c.root::<skilldeck_agent::config_edit::ProviderForm>();
        c.root::<skilldeck_targets::TargetPlan>();
        c.root::<skilldeck_targets::record::Mode>();
        c.root::<skilldeck_targets::diff::FileDiff>();
        c.root::<skilldeck_store::import::Layout>();
        c.root::<skilldeck_mcp::install::Applied>();
        c.root::<super::ApiErrorShape>();
    }

    /// The declarations found so far, by TypeScript name, and the Rust names each stands for.
    struct Collect {
        cfg: Config,
        seen: HashSet<TypeId>,
        decls: BTreeMap<String, (TypeId, String)>,
        /// Rust type name (last path segment) → TypeScript names, for the commands' signatures.
        rust_names: BTreeMap<String, BTreeSet<String>>,
        /// Two different declarations under one name, which would hide one of them.
        clashes: Vec<String>,
    }

    impl Collect {
        fn root<T: TS + 'static>(&mut self) {
            self.visit::<T>();
        }
    }

    impl TypeVisitor for Collect {
        fn visit<T: TS + 'static + ?Sized>(&mut self) {
            if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
                return;
            }
            let name = T::ident(&self.cfg);
            let mut text = T::docs().unwrap_or_default();
            text.push_str("export ");
            text.push_str(&T::decl(&self.cfg));
            // Two Rust types may share a declaration (serde_json's `Value` and ts-rs' stand-in
            // for it); two different declarations under one name would hide one of them.
            if let Some((_, other)) = self.decls.get(&name)
                && *other != text
            {
                self.clashes.push(format!("{name} ({})", std::any::type_name::<T>()));
                return;
            }
            self.decls.insert(name.clone(), (TypeId::of::<T>(), text));
            let rust = std::any::type_name::<T>();
            let rust = rust.split('<').next().unwrap_or(rust).rsplit("::").next().unwrap_or(rust);
            self.rust_names.entry(rust.to_owned()).or_default().insert(name);
            T::visit_dependencies(self);
        }
    }

    fn app_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    const NOTE: &str = "// Generated by src-tauri/src/bindings.rs from the Rust types; do not edit.\n\
                        // Regenerate: scripts/bindings (UPDATE_BINDINGS=1 cargo test -p skilldeck-app --lib bindings).\n";

    /// `bindings.d.ts`: every view and argument type, in name order.
    fn types_file(c: &Collect) -> String {
        let mut out = String::from(NOTE);
        for (_, text) in c.decls.values() {
            out.push('\n');
            out.push_str(text);
            out.push('\n');
        }
        out
    }

    /// One command as its signature says: name, documentation, arguments, result.
    struct Command {
        name: String,
        doc: String,
        args: Vec<(String, String, bool)>,
        result: String,
    }

    /// The commands `handlers!` registers, in its order, as (module, function).
    fn registered() -> Vec<(String, String)> {
        let lib = std::fs::read_to_string(app_dir().join("src/lib.rs")).unwrap();
        let list = lib.split("tauri::generate_handler![").nth(1).unwrap().split(']').next().unwrap();
        list.split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let p = p.trim_start_matches("$crate::commands::");
                let (module, name) = p.rsplit_once("::").unwrap();
                (module.to_owned(), name.to_owned())
            })
            .collect()
    }

    /// `snake_case` → `camelCase`, as Tauri names a command's arguments in JSON.
    fn camel(s: &str) -> String {
        let mut out = String::new();
        let mut up = false;
        for ch in s.chars() {
            if ch == '_' {
                up = true;
            } else if up {
                out.extend(ch.to_uppercase());
                up = false;
            } else {
                out.push(ch);
            }
        }
        out
    }

    /// The TypeScript of a Rust type as it crosses the boundary.
    fn ts_of(ty: &syn::Type, c: &Collect, missing: &mut BTreeSet<String>) -> String {
        match ty {
            syn::Type::Reference(r) => ts_of(&r.elem, c, missing),
            syn::Type::Tuple(t) if t.elems.is_empty() => "null".to_owned(),
            syn::Type::Tuple(t) => {
                let items: Vec<String> = t.elems.iter().map(|e| ts_of(e, c, missing)).collect();
                format!("[{}]", items.join(", "))
            }
            syn::Type::Path(p) => {
                let seg = p.path.segments.last().unwrap();
                let generic: Vec<String> = match &seg.arguments {
                    syn::PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            syn::GenericArgument::Type(t) => Some(ts_of(t, c, missing)),
                            _ => None,
                        })
                        .collect(),
                    _ => vec![],
                };
                let ident = seg.ident.to_string();
                match ident.as_str() {
                    "String" | "str" | "PathBuf" | "char" => "string".to_owned(),
                    "bool" => "boolean".to_owned(),
                    "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" | "f32" | "f64" => {
                        "number".to_owned()
                    }
                    "Option" => format!("{} | null", generic[0]),
                    "Vec" | "BTreeSet" | "HashSet" => format!("Array<{}>", generic[0]),
                    "BTreeMap" | "HashMap" => format!("{{ [key in {}]?: {} }}", generic[0], generic[1]),
                    "Channel" => format!("Channel<{}>", generic[0]),
                    "ApiResult" | "Result" => generic[0].clone(),
                    _ => match c.rust_names.get(&ident).map(|n| n.iter().collect::<Vec<_>>()).as_deref() {
                        Some([one]) => (*one).clone(),
                        Some(many) => panic!("`{ident}` is ambiguous in TypeScript: {many:?}"),
                        None => {
                            missing.insert(ident.clone());
                            ident
                        }
                    },
                }
            }
            _ => panic!(
                "a command's argument or result has a type the generator does not know (not a path, reference or tuple)"
            ),
        }
    }

    /// Whether an argument is Tauri's to fill (state, app handle, window), not the UI's.
    fn injected(ty: &syn::Type) -> bool {
        let syn::Type::Path(p) = ty else { return false };
        let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        matches!(last.as_str(), "State" | "AppHandle" | "Window" | "WebviewWindow" | "Webview" | "Request")
    }

    fn doc_of(attrs: &[syn::Attribute]) -> String {
        let mut lines = vec![];
        for a in attrs {
            if let syn::Meta::NameValue(nv) = &a.meta
                && nv.path.is_ident("doc")
                && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
            {
                lines.push(s.value().trim().to_owned());
            }
        }
        lines.join(" ")
    }

    /// The registered commands' signatures, read from `src/commands/*.rs`.
    fn commands(c: &Collect, missing: &mut BTreeSet<String>) -> Vec<Command> {
        let mut out = vec![];
        for (module, name) in registered() {
            let path = app_dir().join("src/commands").join(module.replace("::", "/") + ".rs");
            let file = syn::parse_file(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let f = file
                .items
                .iter()
                .find_map(|i| match i {
                    syn::Item::Fn(f) if f.sig.ident == name => Some(f),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{name} is registered but not a function in {}", path.display()));
            let snake = f.attrs.iter().any(|a| {
                a.path().segments.iter().any(|s| s.ident == "command")
                    && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string().contains("snake_case"))
            });
            let mut args = vec![];
            for input in &f.sig.inputs {
                let syn::FnArg::Typed(pt) = input else { continue };
                if injected(&pt.ty) {
                    continue;
                }
                let syn::Pat::Ident(id) = &*pt.pat else { panic!("{name}: an argument that is not a plain name") };
                let arg = id.ident.to_string();
                let arg = arg.trim_start_matches('_');
                let ts = ts_of(&pt.ty, c, missing);
                let optional = ts.ends_with(" | null");
                args.push((if snake { arg.to_owned() } else { camel(arg) }, ts, optional));
            }
            let result = match &f.sig.output {
                syn::ReturnType::Default => "null".to_owned(),
                syn::ReturnType::Type(_, ty) => ts_of(ty, c, missing),
            };
            out.push(Command { name, doc: doc_of(&f.attrs), args, result });
        }
        out
    }

    /// `commands.d.ts`: the map the UI's `invoke` is typed by.
    fn commands_file(c: &Collect, cmds: &[Command]) -> String {
        let mut out = String::from(NOTE);
        let names: Vec<&str> = c.decls.keys().map(String::as_str).collect();
        let _ = writeln!(out, "import type {{ {} }} from \"./bindings\";\n", names.join(", "));
        out.push_str(
            "/** A Tauri channel (`window.__TAURI__.core.Channel`): the backend sends `T` to `onmessage`. */\n",
        );
        out.push_str("export interface Channel<T> {\n  onmessage: (message: T) => void;\n}\n\n");
        out.push_str("/** Every command `handlers!` registers: its arguments (as JSON keys) and its result. */\n");
        out.push_str("export interface Commands {\n");
        for cmd in cmds {
            if !cmd.doc.is_empty() {
                let _ = writeln!(out, "  /** {} */", cmd.doc.replace("*/", "*\\/"));
            }
            let args = if cmd.args.is_empty() {
                "Record<string, never>".to_owned()
            } else {
                let fields: Vec<String> =
                    cmd.args.iter().map(|(n, t, opt)| format!("{n}{}: {t}", if *opt { "?" } else { "" })).collect();
                format!("{{ {} }}", fields.join("; "))
            };
            let _ = writeln!(out, "  {}: {{ args: {args}; result: {} }};", cmd.name, cmd.result);
        }
        out.push_str("}\n\n");
        out.push_str(
            "/** A command's name. */\n\
             export type CommandName = keyof Commands;\n\
             /** The arguments `invoke` takes after the name: none needed when every one is optional. */\n\
             export type InvokeArgs<K extends CommandName> = {} extends Commands[K][\"args\"]\n  \
             ? [args?: Commands[K][\"args\"]]\n  : [args: Commands[K][\"args\"]];\n\
             /** `invoke` typed by the command map. */\n\
             export type Invoke = <K extends CommandName>(cmd: K, ...args: InvokeArgs<K>) => Promise<Commands[K][\"result\"]>;\n",
        );
        out
    }

    fn check_or_write(path: &Path, text: &str, stale: &mut Vec<String>) {
        let now = std::fs::read_to_string(path).unwrap_or_default();
        if now == text {
            return;
        }
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        } else {
            stale.push(path.display().to_string());
        }
    }

    /// `frontendDist` embeds the whole of `ui/` in the app: the UI's tooling (TypeScript, its
    /// `node_modules`, the tests) lives in `ui-tests/`, and nothing of it may land in `ui/`.
    #[test]
    fn ui_holds_only_what_the_app_serves() {
        let ui = app_dir().join("../ui");
        for tooling in ["node_modules", "package.json", "package-lock.json", "tsconfig.json", "test"] {
            assert!(!ui.join(tooling).exists(), "ui/{tooling} would be embedded in the app; it belongs in ui-tests/");
        }
        let conf = std::fs::read_to_string(app_dir().join("tauri.conf.json")).unwrap();
        assert!(conf.contains("\"frontendDist\": \"../ui\""), "the app serves ui/ (this test guards that folder)");
    }

    #[test]
    fn bindings_match_the_rust_side() {
        let mut c = Collect {
            cfg: Config::new().with_large_int("number"),
            seen: HashSet::new(),
            decls: BTreeMap::new(),
            rust_names: BTreeMap::new(),
            clashes: vec![],
        };
        roots(&mut c);
        assert!(
            c.clashes.is_empty(),
            "two Rust types share these TypeScript names; give one `#[ts(rename = \"…\")]`: {:?}",
            c.clashes
        );
        let mut missing = BTreeSet::new();
        let cmds = commands(&c, &mut missing);
        assert!(
            missing.is_empty(),
            "commands name types with no TypeScript declaration; add them to `roots`: {missing:?}"
        );
        let dir = app_dir().join("../ui/types");
        let mut stale = vec![];
        check_or_write(&dir.join("bindings.d.ts"), &types_file(&c), &mut stale);
        check_or_write(&dir.join("commands.d.ts"), &commands_file(&c, &cmds), &mut stale);
        assert!(
            stale.is_empty(),
            "the UI's generated types are out of date: {stale:?}; run scripts/bindings, then fix what `tsc -p ui-tests` says"
        );
    }
}
