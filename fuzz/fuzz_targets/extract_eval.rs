//! Fuzzes `spill::fuzzing::extract_eval` (see its documentation for the invariants checked).
//! Run with `fuzz/run.sh extract_eval SECONDS` or `cargo +nightly fuzz run extract_eval` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::extract_eval(data);
});
