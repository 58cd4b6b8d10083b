//! Integration tests: one binary, one module per area (each runs the real `spill` binary).

mod common;

mod adversarial;
mod cat;
mod cli;
mod color;
mod concurrency;
mod extract;
mod faults;
mod fuzz_cases;
mod hook;
mod lifecycle;
mod packaging;
mod props;
mod readme;
mod redact;
mod schema;
mod search;
mod security;
mod shape;
mod store;
mod wrap;
