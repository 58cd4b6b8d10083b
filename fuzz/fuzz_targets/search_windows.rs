//! Fuzzes `spill::fuzzing::search_windows` (see its documentation for the invariants checked).
//! Run with `fuzz/run.sh search_windows SECONDS` or `cargo +nightly fuzz run search_windows` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::search_windows(data);
});
