//! The `arena` command line: clap arguments in, library calls out. The subcommands live in
//! `cli/`, one file each.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod cli;

fn main() -> ExitCode {
    let matches = cli::Cli::command().get_matches();
    let args = match cli::Cli::from_arg_matches(&matches) {
        Ok(args) => cli::with_grouped_values(args, &matches),
        Err(err) => err.exit(),
    };
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`arena replay ... | head`) is not an error.
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}
