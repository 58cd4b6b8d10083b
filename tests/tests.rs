//! Integration tests: one binary, one module per area (each runs the real `spill` binary).

mod common;

mod adversarial;
mod architecture_facts;
mod cat;
mod cli;
mod color;
mod concurrency;
mod condense;
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
// `spill mcp --http` and `proxy --url`: built with `--features http` (.ci/run runs them).
#[cfg(feature = "http")]
mod mcp_http;
mod packaging;
mod props;
mod readers;
mod readme;
mod redact;
mod schema;
mod search;
mod search_all;
mod security;
mod shape;
mod shape_budget;
mod shorthand;
mod signals;
mod stats;
mod store;
mod terminal;
mod wrap;
