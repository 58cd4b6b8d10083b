//! spill: keeps oversized command output out of a language model's context window.
pub mod json;
