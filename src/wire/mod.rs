//! The wire format: every serde type spill prints as JSON, in one place. The field order of each
//! struct is the key order of its output (serde_json's `preserve_order`); `schemas/*.json`
//! (`spill schema`) describe them and `tests/schema.rs` checks the two against each other.

pub mod envelope;
pub mod store;

pub use store::{GcOutput, GcRemoval, LsEntry, LsOutput, RmOutput};
