//! The `spill` binary: parse the command line, run the library, exit with its status.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(spill::run(std::env::args_os()))
}
