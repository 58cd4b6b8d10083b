//! Fuzzes `spill::fuzzing::limits` (see its documentation for the invariants checked).
//! Run with `fuzz/run.sh limits SECONDS` or `cargo +nightly fuzz run limits` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::limits(data);
});
