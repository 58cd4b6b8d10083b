//! Fuzzes the JSONPath parser and evaluator: arbitrary bytes as a query must never panic,
//! errors must point into the text, and accepted queries must evaluate consistently.
//! The checks live in `spill::fuzzing::jsonpath_parse`, which the unit tests also run.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    spill::fuzzing::jsonpath_parse(data);
});
