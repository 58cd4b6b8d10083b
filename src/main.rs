//! The `spill` binary.
fn main() {}
