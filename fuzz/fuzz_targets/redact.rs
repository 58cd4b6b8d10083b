//! Fuzzes `spill::fuzzing::redact` (see its documentation for the invariants checked).
//! Run with `fuzz/run.sh redact SECONDS` or `cargo +nightly fuzz run redact` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::redact(data);
});
