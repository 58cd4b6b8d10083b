//! Integration tests: one binary, one module per area (each runs the real `spill` binary).

mod common;

mod cat;
mod cli;
mod concurrency;
mod extract;
mod lifecycle;
mod redact;
mod search;
mod shape;
mod store;
mod wrap;
