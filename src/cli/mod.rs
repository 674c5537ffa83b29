//! The clap definition of `arena`'s subcommands and the dispatch to their implementations.
//! Each subcommand's code is its own file here. `arena --help` lists them in the order a new
//! user meets them: `run` first, the rules-engine tools (`replay`, `perft`) last.
//! Exit codes: 0 success, 1 an error (printed once to stderr), 2 a usage error (from clap).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `print!` that returns the write error instead of panicking, so that a closed pipe
/// (`arena rate DIR | head`) ends the command quietly (`main` treats it as success).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `println!` that returns the write error; see [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod analyse;
mod calibrate;
mod check_bot;
mod gate;
mod merge;
mod openings;
mod output;
mod perft;
mod plot;
mod progress;
mod rate;
mod replay;
mod serve;
mod solve;
mod solve_split;
mod sprt;
mod tournament;
mod tune;

#[derive(Debug, Parser)]
#[command(
    name = "arena",
    version,
    about = "Plays mancala bots against each other and rates them"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a tournament (round robin or gauntlet) and write a results folder.
    ///
    /// With neither a tournament file nor --bot, plays the six bundled bots (random, greedy,
    /// easy, normal, hard, mcts) on Kalah(6,4): `arena run` alone is the README's first run.
    /// Players come from the file's [[bot]] tables and the --bot flags; flags override the
    /// file's other keys.
    #[command(visible_alias = "tournament")]
    Run(tournament::RunArgs),
    /// Rate a results folder or PGN files: Elo with confidence intervals, pairwise table, site
    /// ladder.
    Rate(rate::RateArgs),
    /// Rate a results folder and draw its plots, report.html and summary.md into it.
    Plot(plot::PlotArgs),
    /// A live web dashboard over run folders (read-only; loopback by default).
    Serve(serve::ServeArgs),
    /// Sequential probability ratio test between a base and a test bot (exit 0 H1, 3 H0, 4 inconclusive).
    #[command(mut_arg("opening_plies", |a| a.help("Random legal sows from the start that make each pair's opening [default: on Kalah(6,4) the bundled opening suite, otherwise 2]")))]
    Sprt(sprt::SprtArgs),
    /// Check that every level plays inside its Elo band against a fixed pool (exit 0 inside, 3 outside, 4 undecided).
    #[command(mut_arg("opening_plies", |a| a.help("Random legal sows from the start that make each pair's opening [default: on Kalah(6,4) the bundled opening suite, otherwise 2]")))]
    Gate(gate::GateArgs),
    /// Find the knob value at which a bot rates at each target Elo against a fixed reference pool.
    Calibrate(calibrate::CalibrateArgs),
    /// Tune a bot's numeric options with SPSA (fishtest's schedule), then verify the tuned
    /// values with an SPRT (exit 0 verified or not asked, 3 H0, 4 inconclusive).
    #[command(mut_arg("opening_plies", |a| a.help("Random legal sows from the start that make each pair's opening [default: on Kalah(6,4) the bundled opening suite, otherwise 2]")))]
    Tune(tune::TuneArgs),
    /// Run a bot through the whole protocol and report what it does wrong.
    CheckBot(check_bot::CheckBotArgs),
    /// Combine shard folders (`run --shard I/N`) into one run folder.
    Merge(merge::MergeArgs),
    /// Write a suite of distinct openings K sows deep, valued (exactly on Kalah) and filtered by value.
    Openings(openings::OpeningsArgs),
    /// Mistake meter: judge every sow of a results folder or PGN files with the solver.
    #[command(visible_alias = "analyze")]
    Analyse(analyse::AnalyseArgs),
    /// Solve a Kalah position: the perfect-play margin and every optimal move.
    Solve(solve::SolveArgs),
    /// Play MOVES from the start position (or --position STATE) and print the position reached.
    Replay(replay::ReplayArgs),
    /// Count the move sequences of each length from the start (rules engine check and benchmark).
    Perft(perft::PerftArgs),
}

/// Completes what clap's derive cannot express: the values of a repeatable player flag
/// (`run --bot`, `calibrate --reference-bot`) grouped per occurrence, and which flags of
/// `calibrate` were given (its `--resume` refuses the others).
pub fn with_grouped_values(mut cli: Cli, matches: &clap::ArgMatches) -> Cli {
    match (&mut cli.command, matches.subcommand()) {
        (Command::Run(args), Some(("run", sub))) => args.bot_groups = occurrences(sub, "bots"),
        (Command::Calibrate(args), Some(("calibrate", sub))) => {
            args.reference_bot_groups = occurrences(sub, "reference_bots");
            args.given = given(sub);
        }
        _ => {}
    }
    cli
}

/// The ids of the arguments given on the command line (not from a default).
fn given(matches: &clap::ArgMatches) -> Vec<String> {
    matches
        .ids()
        .filter(|id| {
            matches.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine)
        })
        .map(|id| id.to_string())
        .collect()
}

/// The values of the flag `id`, one group per occurrence.
fn occurrences(matches: &clap::ArgMatches, id: &str) -> Vec<Vec<String>> {
    match matches.try_get_occurrences::<String>(id) {
        Ok(Some(occurrences)) => occurrences.map(|o| o.cloned().collect()).collect(),
        _ => Vec::new(),
    }
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Replay(args) => replay::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Analyse(args) => analyse::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Solve(args) if args.split.active() => {
            solve_split::run(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Solve(args) => solve::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Perft(args) => perft::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Rate(args) => rate::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Plot(args) => plot::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Sprt(args) => sprt::run(&args),
        Command::Gate(args) => gate::run(&args),
        Command::Openings(args) => openings::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Merge(args) => merge::run(&args).map(|()| ExitCode::SUCCESS),
        Command::CheckBot(args) => check_bot::run(&args),
        Command::Calibrate(args) => calibrate::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Tune(args) => tune::run(&args),
        Command::Serve(args) => serve::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Run(args) => tournament::main(&args).map(|()| ExitCode::SUCCESS),
    }
}
