//! `arena serve [DIR ...] [--bind ADDR]`: the live dashboard over the run folders under DIR
//! (default `results/`), read-only (docs/dashboard.md). Prints the address it listens on, and a
//! warning when that is not a loopback address.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Result;
use mancala_arena::serve::{serve, ServeOptions};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Folders whose run folders to show (searched four levels deep) [default: results].
    pub dirs: Vec<PathBuf>,
    /// Address and port to listen on; port 0 picks a free one. Anything but a loopback address
    /// makes the dashboard reachable from other machines (a warning says so).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let roots = if args.dirs.is_empty() {
        vec![PathBuf::from("results")]
    } else {
        args.dirs.clone()
    };
    if !args.bind.ip().is_loopback() {
        eprintln!(
            "warning: listening on {}, not a loopback address: anyone who can reach this machine \
             can read these run folders (names, games, bots' logs). The dashboard has no login.",
            args.bind
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    runtime.block_on(serve(
        ServeOptions {
            roots,
            bind: args.bind,
        },
        |addr| {
            // The first line of stdout, for scripts and tests that asked for port 0.
            let _ = outln!("listening on http://{addr}/");
            eprintln!(
                "arena serve: run folders under {}, read-only; Ctrl-C stops",
                shown.join(", ")
            );
        },
    ))
}
