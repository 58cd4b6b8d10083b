//! The `spill` binary: parse the command line, run the library, exit with its status.

use std::process::ExitCode;

fn main() -> ExitCode {
    spill::main(std::env::args_os())
}
