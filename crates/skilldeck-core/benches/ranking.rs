//! Ranking a turn: the listing and `find_skills` over stores of 50 to 5,000 skills.
#![allow(clippy::unwrap_used, missing_docs)]

fn main() {}
