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
    // The call's tokens, as OpenAI and llama.cpp send them when asked (`include_usage`).
    out += &format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "model": "scripted-model", "choices": [],
               "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
    );
    out + "data: [DONE]\n\n"
}

/// The grader's verdicts: an expectation passes when the output it was shown holds the words
/// it names in quotes (`holds "March"`), with that line as evidence.
fn grade(prompt: &str) -> String {
    let (work, wanted) = prompt.split_once("## The expectations").unwrap();
    let verdicts: Vec<Value> = wanted
        .lines()
        .filter_map(|l| l.split_once(". ").map(|(_, text)| text.to_owned()))
        .map(|text| {
            let word = text.split('"').nth(1).unwrap_or("\u{0}");
            match work.lines().find(|l| l.contains(word)) {
                Some(line) => {
                    json!({"text": text, "passed": true, "evidence": format!("the output says {:?}", line.trim())})
                }
                None => {
                    json!({"text": text, "passed": false, "evidence": format!("{word:?} is nowhere in the output")})
                }
            }
        })
        .collect();
    answer(None, &format!("My verdicts:\n{}", json!({"expectations": verdicts})))
}

/// What the scripted model does with a request whose messages are `messages`: it loads a skill
/// only when its listing (the system prompt) shows it.
fn decide(messages: &[Value]) -> String {
    let last = messages.last().cloned().unwrap_or_default();
    let system = messages.first().map(|m| m["content"].as_str().unwrap_or_default()).unwrap_or_default();
    if system.starts_with("You grade the work") {
        return grade(last["content"].as_str().unwrap_or_default());
    }
    if system.starts_with("You improve the description") {
        return answer(
            None,
            "Here it is:\n<description>Use this skill when a customer wants money returned to them: refunds, \
             reimbursements and chargebacks.</description>",
        );
    }
    if last["role"] == "tool" {
        // What the reporting skill's instructions make it do: write the report, then say so.
        let called = messages.iter().rev().find_map(|m| m["tool_calls"][0]["function"]["name"].as_str());
        let loaded_report =
            messages.iter().any(|m| m["content"].as_str().is_some_and(|c| c.contains("Top month first")));
        return match called {
            Some("view_skill") if loaded_report => answer(
                Some(("write_file", json!({"path": "report.md", "content": "# Sales\n\nTop month: March (300)\n"}))),
                "",
            ),
            Some("write_file") => answer(None, "I wrote report.md; the total is 600."),
            _ => answer(None, "Done."),
        };
    }
    let listed = |name: &str| {
        messages.iter().any(|m| m["role"] == "system" && m["content"].to_string().contains(&format!("**{name}**")))
    };
    let asked = last["content"].to_string().to_lowercase();
    if asked.contains("refund") && listed("refunds") {
        answer(Some(("view_skill", json!({"name": "refunds"}))), "")
    } else if asked.contains("invoice") && listed("invoices") {
        answer(Some(("view_skill", json!({"name": "invoices"}))), "")
    } else if let Some(line) = system.lines().find(|l| l.contains("**payouts**")) {
        // Loads `payouts` when its listing line shares a word with the request.
        let line = line.to_lowercase();
        let shared = ["money", "refund", "reimburse"].iter().any(|w| asked.contains(w) && line.contains(w));
        if shared {
            answer(Some(("view_skill", json!({"name": "payouts"}))), "")
        } else {
            answer(None, "I can answer that without a skill.")
        }
    } else if asked.contains("sales") && listed("sales-report") {
        answer(Some(("view_skill", json!({"name": "sales-report"}))), "")
    } else if asked.contains("sales") {
        answer(None, "Sales look fine to me.")
    } else if asked.contains("run the tests") {
        answer(Some(("shell", json!({"command": "cargo test"}))), "")
    } else {
        answer(None, "I can answer that without a skill.")
    }
}

/// A loopback Chat Completions server running `decide`; the system prompt and last message of
/// each request it saw are kept.
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
                let last = messages.last().map(|m| m["content"].to_string()).unwrap_or_default();
                kept.lock().unwrap().push(format!("{}\n\n{last}", system["content"]));
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
    add_files(home, &dir, files);
}

/// Writes `files` into the skill folder `dir` and imports it: a new revision.
fn add_files(home: &Path, dir: &Path, files: &[(&str, &str)]) {
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
    // Kept for History, by revision.
    let log = fs::read_to_string(home.join("evals/user/refunds.jsonl")).unwrap();
    let kept: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(
        (kept["kind"].as_str(), kept["revision"].as_u64(), kept["passed"].as_u64(), kept["total"].as_u64()),
        (Some("triggers"), Some(1), Some(4), Some(5))
    );
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

/// The reporting skill's instructions at revision 1 (no report) and 2 (a report, top month first).
const WEAK: &str = "---\nname: sales-report\ndescription: Summarise sales figures into a report.\n---\n# Sales report\n\nLook at the figures.\n";
const GOOD: &str = "---\nname: sales-report\ndescription: Summarise sales figures into a report.\n---\n# Sales report\n\nWrite report.md: Top month first, then the total.\n";

/// A check script of the skill: it reads the run's workspace and prints the guide's grading.
const CHECK: &str = "#!/bin/sh\nif grep -q March report.md 2>/dev/null; then\n  echo '{\"expectations\": [{\"text\": \"report.md names the top month\", \"passed\": true, \"evidence\": \"report.md: Top month: March\"}]}'\nelse\n  echo '{\"expectations\": [{\"text\": \"report.md names the top month\", \"passed\": false, \"evidence\": \"no report.md naming March\"}]}'\nfi\n";

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn output_evals_run_each_case_with_and_without_the_skill_grade_it_and_write_the_guides_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, src) = (tmp.path().join("home"), tmp.path().join("src"));
    let cases = json!({"skill_name": "sales-report", "evals": [
        {"id": 1, "prompt": "Summarise the sales in data/sales.csv into report.md",
         "expected_output": "report.md naming the top month, and the total",
         "files": ["evals/files/data/sales.csv"],
         "expectations": ["The report holds \"Top month: March\"", "The answer gives the total \"600\""]},
        {"id": 2, "name": "Checked by script", "prompt": "Put this month's sales in report.md",
         "expectations": ["report.md names the top month"], "check": "evals/check.sh"},
    ]});
    let dir = src.join("sales-report");
    fs::create_dir_all(&dir).unwrap();
    let cases = cases.to_string();
    let files = [
        ("SKILL.md", WEAK),
        ("evals/evals.json", cases.as_str()),
        ("evals/files/data/sales.csv", "month,total\nJan,100\nFeb,200\nMarch,300\n"),
        ("evals/check.sh", CHECK),
    ];
    add_files(&home, &dir, &files);
    add_files(&home, &dir, &[("SKILL.md", GOOD)]);
    let (url, _) = scripted_model();
    let eval = |extra: &[&str]| {
        let out = Command::new(BIN)
            .args([
                "eval",
                "sales-report",
                "--json",
                "--api",
                "openai",
                "--base-url",
                &url,
                "--model",
                "scripted-model",
            ])
            .args(extra)
            .current_dir(tmp.path())
            .env("SKILLDECK_HOME", &home)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        (out.status.code(), report, stderr)
    };

    // Iteration 1: against no skill. The check script is code of the skill: not run without --yes.
    let (code, report, stderr) = eval(&[]);
    assert_eq!(code, Some(2), "the script's case could not be graded: {stderr}\n{report:#}");
    let it = tmp.path().join("sales-report-workspace/iteration-1");
    let with = it.join("eval-1/with_skill");
    let without = it.join("eval-1/without_skill");
    // The skill's run wrote the report; the input file it started with is not an output.
    let report_md = fs::read_to_string(with.join("outputs/report.md")).unwrap();
    assert!(report_md.contains("Top month: March"), "{report_md}");
    assert!(!with.join("outputs/data/sales.csv").exists());
    assert_eq!(fs::read_dir(without.join("outputs")).unwrap().count(), 0);
    assert!(fs::read_to_string(with.join("response.md")).unwrap().contains("600"));
    // Graded with evidence, in the guide's shape.
    let graded = read_json(&with.join("grading.json"));
    assert_eq!(graded["summary"], json!({"passed": 2, "failed": 0, "total": 2, "pass_rate": 1.0}), "{graded:#}");
    assert!(graded["expectations"][0]["evidence"].as_str().unwrap().contains("Top month: March"), "{graded:#}");
    let graded = read_json(&without.join("grading.json"));
    assert_eq!(graded["summary"]["passed"], 0, "{graded:#}");
    assert!(graded["expectations"][0]["evidence"].as_str().unwrap().contains("nowhere"), "{graded:#}");
    // Time and tokens, as the provider counted them: three calls with the skill, one without.
    let timing = read_json(&with.join("timing.json"));
    assert_eq!(
        (timing["total_tokens"].as_u64(), timing["tokens_estimated"].as_bool()),
        (Some(330), Some(false)),
        "{timing:#}"
    );
    assert!(timing["duration_ms"].is_u64());
    assert_eq!(read_json(&without.join("timing.json"))["total_tokens"], 110);
    let refused = read_json(&it.join("eval-checked-by-script/with_skill/grading.json"));
    assert!(refused["expectations"][0]["evidence"].as_str().unwrap().contains("--yes"), "{refused:#}");
    // benchmark.json: the guide's run_summary, and who ran it on which revision.
    let bench = read_json(&it.join("benchmark.json"));
    assert_eq!(bench, report, "what is printed is what is written");
    let summary = &bench["run_summary"];
    assert_eq!(summary["with_skill"]["pass_rate"]["mean"], 0.5, "{summary:#}");
    assert_eq!(summary["without_skill"]["pass_rate"]["mean"], 0.0, "{summary:#}");
    assert_eq!(summary["delta"]["pass_rate"], 0.5);
    assert_eq!(summary["delta"]["tokens"], 220.0, "330 a run with the skill, 110 without");
    assert_eq!((bench["revision"].as_u64(), bench["baseline"].as_str()), (Some(2), Some("without_skill")));
    assert_eq!(bench["provider"]["model"], "scripted-model");
    let runs = bench["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    assert!(runs[0]["skill_loaded"].as_bool().unwrap() && !runs[1]["skill_loaded"].as_bool().unwrap());

    // Iteration 2: against revision 1, with --yes, so the check script runs (in the sandbox).
    let (code, report, stderr) = eval(&["--baseline", "v:1", "--yes"]);
    assert_eq!(code, Some(0), "{stderr}\n{report:#}");
    let it = tmp.path().join("sales-report-workspace/iteration-2");
    let checked = read_json(&it.join("eval-checked-by-script/with_skill/grading.json"));
    assert_eq!(checked["expectations"][0]["evidence"], "report.md: Top month: March", "{checked:#}");
    assert_eq!(checked["grader"], "check: evals/check.sh");
    let old = read_json(&it.join("eval-checked-by-script/old_skill/grading.json"));
    assert_eq!(old["summary"]["passed"], 0, "revision 1 writes no report: {old:#}");
    assert_eq!((report["baseline"].as_str(), report["baseline_revision"].as_u64()), (Some("old_skill"), Some(1)));
    assert_eq!(report["run_summary"]["delta"]["pass_rate"], 1.0, "{report:#}");
    let log = fs::read_to_string(home.join("evals/user/sales-report.jsonl")).unwrap();
    let kept: Value = serde_json::from_str(log.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (kept["kind"].as_str(), kept["with_skill"].as_f64(), kept["baseline"].as_f64()),
        (Some("outputs"), Some(1.0), Some(0.0)),
        "{kept}"
    );
    assert_eq!(kept["baseline_kind"], "old_skill v:1");

    // A token cap stops a run before its tool calls run; it is graded on what it left.
    let (code, report, _) = eval(&["--max-tokens", "150"]);
    assert_eq!(code, Some(2));
    let first = &report["runs"][0];
    assert_eq!(first["end"]["kind"], "failed", "{first:#}");
    assert!(first["end"]["message"].as_str().unwrap().contains("cap of 150"), "{first:#}");
    assert!(!tmp.path().join("sales-report-workspace/iteration-3/eval-1/with_skill/outputs/report.md").exists());

    // A baseline that is not a revision, or no cases, is said plainly.
    let out = Command::new(BIN)
        .args(["eval", "sales-report", "--baseline", "v:9"])
        .env("SKILLDECK_HOME", &home)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains('9'), "{said}");
    skill(&home, &src, "bare", "A skill with no evals.", &[]);
    let out = Command::new(BIN).args(["eval", "bare"]).env("SKILLDECK_HOME", &home).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains("evals/evals.json") && said.contains("--triggers"), "{said}");
}

#[test]
fn the_description_optimizer_splits_the_queries_rewrites_from_train_failures_and_offers_the_best_as_a_draft() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, src) = (tmp.path().join("home"), tmp.path().join("src"));
    let queries = json!([
        {"query": "I want my money back for order 7", "should_trigger": true},
        {"query": "Please refund the broken kettle", "should_trigger": true},
        {"query": "Reimburse my travel costs from May", "should_trigger": true},
        {"query": "The customer asks for their money back", "should_trigger": true},
        {"query": "Refund this duplicate charge", "should_trigger": true},
        {"query": "What is the weather in Lyon?", "should_trigger": false},
        {"query": "Write a haiku about autumn", "should_trigger": false},
        {"query": "Rename the file notes.txt", "should_trigger": false},
    ]);
    skill(&home, &src, "payouts", "Handles payouts.", &[("evals/eval_queries.json", &queries.to_string())]);
    skill(&home, &src, "invoices", "Write, correct and send invoices to customers.", &[]);
    let (url, seen) = scripted_model();
    let out = Command::new(BIN)
        .args(["eval", "payouts", "--optimize-description", "--runs", "1", "--json", "--api", "openai"])
        .args(["--base-url", &url, "--model", "scripted-model"])
        .env("SKILLDECK_HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let report = &v["report"];
    // A fixed, stratified 60/40 split: 3 of 5 and 2 of 3 to train.
    let train = report["split"]["train"].as_array().unwrap();
    let validation = report["split"]["validation"].as_array().unwrap();
    assert_eq!(train.iter().filter(|q| q["should_trigger"] == true).count(), 3, "{report:#}");
    assert_eq!(train.iter().filter(|q| q["should_trigger"] == false).count(), 2);
    assert_eq!(validation.len(), 3);
    // The original triggers for nothing; the rewrite for every request it should, and wins on
    // validation; train is all passed, so the loop stops there.
    let candidates = report["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2, "{report:#}");
    assert_eq!(
        (candidates[0]["validation"]["passed"].as_u64(), candidates[0]["validation"]["total"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(candidates[1]["validation"]["passed"], 3, "{report:#}");
    assert_eq!(candidates[1]["train"]["passed"], 5);
    assert_eq!(report["best"], 1);
    // The model was shown train failures only: no validation query reached it.
    {
        let prompts = seen.lock().unwrap();
        let proposer =
            prompts.iter().find(|p| p.contains("You improve the description")).expect("the proposer was asked");
        for q in validation {
            assert!(!proposer.contains(q["query"].as_str().unwrap()), "{q} reached the proposer: {proposer}");
        }
        assert!(proposer.contains("Handles payouts."), "{proposer}");
        // Each candidate ran among the user's other skills, as a real session lists them.
        let runs: Vec<&String> = prompts.iter().filter(|p| p.contains("**payouts**")).collect();
        assert!(runs.len() >= 16, "8 queries, 2 candidates, 1 run each: {}", runs.len());
        assert!(runs.iter().all(|p| p.contains("**invoices**")));
    }
    // Offered as a draft, never stored: the store still has revision 1 with the old description.
    let draft = v["draft"].as_str().expect("a draft was written");
    let drafted = fs::read_to_string(draft).unwrap();
    assert!(
        drafted.contains("description: \"Use this skill when a customer wants money returned to them: refunds"),
        "{drafted}"
    );
    assert!(drafted.contains("# payouts"), "the body is kept: {drafted}");
    let listed = Command::new(BIN).args(["list", "--json"]).env("SKILLDECK_HOME", &home).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("Handles payouts.") && !listed.contains("money returned"), "{listed}");

    // The offline router cannot propose a description, and says so.
    let out = Command::new(BIN)
        .args(["eval", "payouts", "--optimize-description"])
        .env("SKILLDECK_HOME", &home)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && said.contains("ranker"), "{said}");
}
