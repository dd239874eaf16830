//! Choosing skills: the L1 listing and its budget, the BM25F ranker, `find_skills` and token
//! counts. Takes the catalogue's entries as plain values and never reaches into a store.

pub mod catalogue;
pub mod find;
pub mod listing;
pub mod ranker;
pub mod tokens;
pub mod tool;
