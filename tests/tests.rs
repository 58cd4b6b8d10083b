//! Integration tests: one binary, one module per area (each runs the real `spill` binary).

mod common;

mod cat;
mod cli;
mod color;
mod concurrency;
mod extract;
mod lifecycle;
mod packaging;
mod readme;
mod redact;
mod schema;
mod search;
mod shape;
mod store;
mod wrap;
