//! `skilldeck eval NAME --triggers` against a scripted model on loopback that speaks the real
//! Chat Completions wire format (SSE chunks): it loads `refunds` for requests about refunds,
//! `invoices` for requests about invoices, tries a shell command when asked to run tests, and
//! answers in words otherwise. The report follows the guide's rule query by query, names the
//! neighbour loaded instead, counts the refused command, and says which model answered.

use serde_json::{Value, json};
use std::fs;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

const BIN: &str = env!("CARGO_BIN_EXE_skilldeck");

/// SSE chunks of one Chat Completions answer: a tool call, or text.
fn answer(call: Option<(&str, Value)>, text: &str) -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "model": "scripted-model",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut out = chunk(json!({"role": "assistant", "content": ""}), Value::Null);
    match call {
        Some((name, args)) => {
            out += &chunk(
                json!({"tool_calls": [{"index": 0, "id": "call-1", "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]}),
                Value::Null,
            );
            out += &chunk(json!({}), json!("tool_calls"));
        }
        None => {
            out += &chunk(json!({"content": text}), Value::Null);
            out += &chunk(json!({}), json!("stop"));
        }
    }
    out + "data: [DONE]\n\n"
}

/// What the scripted model does with a request whose messages are `messages`: it loads a skill
/// only when its listing (the system prompt) shows it.
fn decide(messages: &[Value]) -> String {
    let last = messages.last().cloned().unwrap_or_default();
    if last["role"] == "tool" {
        return answer(None, "Done.");
    }
    let listed = |name: &str| {
        messages.iter().any(|m| m["role"] == "system" && m["content"].to_string().contains(&format!("**{name}**")))
    };
    let asked = last["content"].to_string().to_lowercase();
    if asked.contains("refund") && listed("refunds") {
        answer(Some(("view_skill", json!({"name": "refunds"}))), "")
    } else if asked.contains("invoice") && listed("invoices") {
        answer(Some(("view_skill", json!({"name": "invoices"}))), "")
    } else if asked.contains("run the tests") {
        answer(Some(("shell", json!({"command": "cargo test"}))), "")
    } else {
        answer(None, "I can answer that without a skill.")
    }
}

/// A loopback Chat Completions server running `decide`; the system prompts it saw are kept.
fn scripted_model() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let kept = Arc::clone(&kept);
            // A connection each, so one left idle holds up no other.
            std::thread::spawn(move || serve_one(stream, &kept));
        }
    });
    (url, seen)
}

/// Answers one request on `stream`, keeping its system prompt in `kept`.
fn serve_one(mut stream: std::net::TcpStream, kept: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    {
        {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let request: Value = serde_json::from_slice(&body).unwrap_or_default();
            let messages = request["messages"].as_array().cloned().unwrap_or_default();
            if let Some(system) = messages.iter().find(|m| m["role"] == "system") {
                kept.lock().unwrap().push(system["content"].to_string());
            }
            let sse = decide(&messages);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}",
                sse.len()
            );
        }
    }
}

fn skill(home: &Path, src: &Path, name: &str, description: &str, files: &[(&str, &str)]) {
    let dir = src.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n")).unwrap();
    for (path, text) in files {
        fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
        fs::write(dir.join(path), text).unwrap();
    }
    let out = Command::new(BIN).args(["import", dir.to_str().unwrap()]).env("SKILLDECK_HOME", home).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn trigger_evals_count_each_query_by_the_guides_rule_and_name_the_neighbour_loaded_instead() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, src) = (tmp.path().join("home"), tmp.path().join("src"));
    let queries = json!([
        {"query": "Please refund order 1234, it arrived broken", "should_trigger": true},
        {"query": "Give the customer their money back on this invoice", "should_trigger": true},
        {"query": "Where is the customer's invoice from March?", "should_trigger": false},
        {"query": "What is the capital of France?", "should_trigger": false},
        {"query": "Run the tests before we ship", "should_trigger": false},
    ]);
    skill(
        &home,
        &src,
        "refunds",
        "Process customer refund requests and issue refunds for orders.",
        &[("evals/eval_queries.json", &queries.to_string())],
    );
    skill(&home, &src, "invoices", "Write, correct and send invoices to customers.", &[]);
    let (url, seen) = scripted_model();

    let out = Command::new(BIN)
        .args(["eval", "refunds", "--triggers", "--runs", "2", "--json", "--api", "openai", "--base-url", &url])
        .args(["--model", "scripted-model"])
        .env("SKILLDECK_HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One query fails (its neighbour is loaded instead): a refusal, exit 2.
    assert_eq!(out.status.code(), Some(2), "{stderr}\n{}", String::from_utf8_lossy(&out.stdout));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(report["skill"], "refunds");
    assert_eq!(report["provider"]["model"], "scripted-model", "{report:#}");
    assert_eq!((report["runs"].as_u64(), report["threshold"].as_f64()), (Some(2), Some(0.5)));
    let results = report["results"].as_array().unwrap_or_else(|| panic!("{report:#}"));
    let row = |i: usize| &results[i];
    // The guide's fields, query by query.
    assert_eq!(
        (
            row(0)["triggers"].as_u64(),
            row(0)["runs"].as_u64(),
            row(0)["trigger_rate"].as_f64(),
            row(0)["passed"].as_bool()
        ),
        (Some(2), Some(2), Some(1.0), Some(true))
    );
    assert_eq!((row(1)["triggers"].as_u64(), row(1)["passed"].as_bool()), (Some(0), Some(false)));
    assert_eq!(row(1)["loaded_instead"], json!({"invoices": 2}), "the neighbour that crowds it out");
    assert_eq!((row(2)["triggers"].as_u64(), row(2)["passed"].as_bool()), (Some(0), Some(true)));
    assert_eq!((row(3)["triggers"].as_u64(), row(3)["passed"].as_bool()), (Some(0), Some(true)));
    // The unattended run refused the shell command, and said so.
    assert_eq!(row(4)["refused_commands"].as_u64(), Some(2), "{:#}", row(4));
    assert_eq!((report["passed"].as_u64(), report["total"].as_u64()), (Some(4), Some(5)));
    assert_eq!((report["precision"].as_f64(), report["recall"].as_f64()), (Some(1.0), Some(0.5)));
    assert_eq!(report["spread"]["should"], json!([0.0, 1.0]));
    // Each run is a session of its own, on record.
    let sessions: Vec<&str> =
        results.iter().flat_map(|r| r["sessions"].as_array().unwrap()).map(|s| s.as_str().unwrap()).collect();
    assert_eq!(sessions.len(), 10);
    let mut unique = sessions.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 10);
    // The model saw the user's real listing, both skills in it.
    {
        let prompts = seen.lock().unwrap();
        assert!(prompts.iter().all(|p| p.contains("refunds") && p.contains("invoices")), "{:?}", prompts.first());
    }

    // --store empty: the skill alone. Nothing crowds it out now; the query it lost is answered
    // without a skill, so the failure is its description's, not its neighbour's.
    let out = Command::new(BIN)
        .args(["eval", "refunds", "--triggers", "--runs", "1", "--json", "--store", "empty", "--api", "openai"])
        .args(["--base-url", &url, "--model", "scripted-model"])
        .env("SKILLDECK_HOME", &home)
        .output()
        .unwrap();
    let alone: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(alone["results"][0]["triggers"], 1, "{alone:#}");
    assert_eq!(alone["results"][1]["loaded_instead"], json!({}), "{alone:#}");
    assert!(seen.lock().unwrap().last().is_some_and(|p| p.contains("**refunds**") && !p.contains("**invoices**")));

    // Without queries, the error says what to write where.
    skill(&home, &src, "bare", "A skill with no evals.", &[]);
    let out = Command::new(BIN).args(["eval", "bare", "--triggers"]).env("SKILLDECK_HOME", &home).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains("evals/eval_queries.json") && said.contains("--queries"), "{said}");
}
