//! Fuzzes the JSON engine: validate, skip, navigation, walk and paths must agree and never panic.
//! Run with `cargo +nightly fuzz run json_engine` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::json_engine(data);
});
