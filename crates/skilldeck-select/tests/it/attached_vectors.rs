//! A set's vectors: the main model's rank as soon as they are attached, a companion's join
//! them when they come later, and nothing else replaces them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use skilldeck_select::ranker::{Dense, Encoder, Query, SkillSet};
use skilldeck_skill::entry::{Scope, SkillEntry, Stored};
use skilldeck_skill::validate::{ValidateOptions, validate_text};
use std::sync::Arc;

/// A model that places every request at one fixed point.
#[derive(Debug)]
struct Fixed(&'static str, [f32; 2]);

impl Encoder for Fixed {
    fn model_id(&self) -> &str {
        self.0
    }
    fn encode_query(&self, _request: &str) -> Option<Arc<[f32]>> {
        Some(Arc::from(self.1.as_slice()))
    }
}

fn entry(name: &str, description: &str) -> Arc<SkillEntry> {
    let md = format!("---\nname: {name}\ndescription: {description}\n---\n\n# Steps\n");
    let v = validate_text(&md, ValidateOptions { dir_name: Some(name), ..ValidateOptions::default() });
    let stored = Stored { skill_md: Some(md.as_bytes()), ..Stored::default() };
    Arc::new(SkillEntry::new(Scope::User, name, v, stored))
}

fn set() -> SkillSet {
    // No word of the request below is in any description: only meaning ranks.
    SkillSet::build(vec![
        entry("alpha", "Fill in tax forms."),
        entry("beta", "Draw diagrams of systems."),
        entry("gamma", "Tune database queries."),
    ])
}

fn vectors(points: [[f32; 2]; 3]) -> Vec<Arc<[f32]>> {
    points.iter().map(|p| Arc::from(p.as_slice())).collect()
}

fn first(set: &SkillSet) -> String {
    let ranked = set.rank(&Query::new("something else entirely"), &[0, 1, 2]);
    set.entries()[ranked[0].pos].name.clone()
}

#[test]
fn a_companions_vectors_attached_later_join_the_main_models() {
    let set = set();
    // The main model puts the request nearest `alpha`; the companion, far more surely, `beta`.
    let main: Arc<dyn Encoder> = Arc::new(Fixed("main", [1.0, 0.0]));
    let main_vectors = vectors([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9]]);
    let companion: Arc<dyn Encoder> = Arc::new(Fixed("companion", [0.0, 1.0]));
    let companion_vectors = vectors([[0.3, 0.3], [0.0, 1.0], [0.3, 0.3]]);

    assert!(set.attach(Dense::new(Arc::clone(&main), main_vectors.clone())));
    assert_eq!(set.dense().unwrap().model_ids(), ["main"]);
    assert_eq!(first(&set), "alpha", "the main model ranks alone while the companion's vectors are missing");

    // The same models again change nothing; a vector count that does not match neither.
    assert!(!set.attach(Dense::new(Arc::clone(&main), main_vectors.clone())));
    let short = Dense::new(Arc::clone(&main), main_vectors[..2].to_vec());
    assert!(!set.attach(short.with_companion(Arc::clone(&companion), companion_vectors[..2].to_vec())));

    let both = Dense::new(Arc::clone(&main), main_vectors.clone()).with_companion(companion, companion_vectors);
    assert!(set.attach(both));
    assert_eq!(set.dense().unwrap().model_ids(), ["main", "companion"]);
    assert_eq!(first(&set), "beta", "with the companion's vectors, its say counts");

    // Once both rank, the main model's alone never take over again.
    assert!(!set.attach(Dense::new(main, main_vectors)));
    assert_eq!(set.dense().unwrap().model_ids(), ["main", "companion"]);
}
