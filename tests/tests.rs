//! Integration tests: one binary, one module per area (each runs the real `spill` binary).

mod common;

mod adversarial;
mod architecture_facts;
mod cat;
mod cli;
mod color;
mod concurrency;
mod consistency;
mod docs_agree;
mod env;
mod extract;
mod faults;
mod fuzz_cases;
mod hook;
mod init;
mod json_test_suite;
mod layering;
mod lifecycle;
mod live;
mod mcp;
mod packaging;
mod props;
mod readers;
mod readme;
mod redact;
mod schema;
mod search;
mod security;
mod shape;
mod shape_budget;
mod shorthand;
mod signals;
mod store;
mod terminal;
mod wrap;
