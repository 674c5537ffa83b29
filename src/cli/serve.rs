//! `arena serve [DIR ...] [--bind ADDR]`: the live dashboard over the run folders under DIR
//! (default `results/`), read-only (docs/dashboard.md). Prints the address it listens on, and a
//! warning when that is not a loopback address.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use anyhow::{bail, Result};
use mancala_arena::serve::{serve, ServeOptions};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Folders whose run folders to show (searched four levels deep) [default: results].
    pub dirs: Vec<PathBuf>,
    /// Address and port to listen on (`127.0.0.1:8080`, `localhost:8081`, `[::1]:8080`); port 0
    /// picks a free one. Anything but a loopback address makes the dashboard reachable from other
    /// machines (a warning says so).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = bind_address)]
    pub bind: SocketAddr,
}

/// `--bind`'s value: an address with its port, or a host name with its port (`localhost:8081`,
/// the first address it resolves to, IPv4 first).
fn bind_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let wanted = "an address and a port, e.g. 127.0.0.1:8080 or localhost:8080";
    let addrs: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| format!("{wanted} ({e})"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| format!("{wanted} ({text} resolves to no address)"))
}

pub fn run(args: &ServeArgs) -> Result<()> {
    let roots = if args.dirs.is_empty() {
        let results = PathBuf::from("results");
        if !results.is_dir() {
            eprintln!(
                "note: there is no results/ folder here (yet): the dashboard lists the runs that \
                 `arena run` writes there from now on; give the folders to show as arguments"
            );
        }
        vec![results]
    } else {
        for dir in &args.dirs {
            if !dir.is_dir() {
                bail!(
                    "{} {}: give the folders that hold the run folders (default results/)",
                    dir.display(),
                    if dir.exists() {
                        "is not a folder"
                    } else {
                        "does not exist"
                    }
                );
            }
        }
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
