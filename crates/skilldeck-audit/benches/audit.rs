//! The audit's speed on one skill of typical shape: SKILL.md, a reference and a script.

use criterion::{Criterion, criterion_group, criterion_main};

fn skill() -> Vec<(String, Vec<u8>)> {
    let body = "Use this skill to extract tables from PDF files. Run `python scripts/extract.py FILE`.\n".repeat(60);
    let md = format!(
        "---\nname: pdf\ndescription: Extract text and tables from PDF files\n---\n# PDF\n{body}```bash\npip install pdfplumber\n```\n"
    );
    let reference = "## Options\n- `--pages`: which pages\n".repeat(200);
    let script = "import sys\nimport pdfplumber\n\ndef main(path):\n    with pdfplumber.open(path) as pdf:\n        for page in pdf.pages:\n            print(page.extract_text())\n".repeat(40);
    vec![
        ("SKILL.md".into(), md.into_bytes()),
        ("references/options.md".into(), reference.into_bytes()),
        ("scripts/extract.py".into(), script.into_bytes()),
    ]
}

fn bench(c: &mut Criterion) {
    let files = skill();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    c.bench_function(&format!("audit one skill ({bytes} bytes, 3 files)"), |b| {
        b.iter(|| std::hint::black_box(skilldeck_audit::audit(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
