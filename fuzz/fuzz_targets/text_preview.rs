//! Fuzzes `spill::fuzzing::text_preview` (see its documentation for the invariants checked).
//! Run with `fuzz/run.sh text_preview SECONDS` or `cargo +nightly fuzz run text_preview` from the repository root.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spill::fuzzing::text_preview(data);
});
