//! Fuzzes `shape`: the skeleton is valid JSON within --max-bytes for any input.
//! Run with `cargo +nightly fuzz run json_shape` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::json_shape(data);
});
