//! The `arena` command line: clap arguments in, library calls out.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::SUCCESS
}
