//! Both implementations of the waits against the same expectations: a ready stdout, a deadline
//! that passes (never early), a stop (from another thread, winning over a ready stdout, staying
//! set), and a bot's exit.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use super::*;

/// Every implementation this system has.
fn backends() -> Vec<Backend> {
    vec![
        #[cfg(target_os = "linux")]
        Backend::Epoll,
        Backend::Poll,
    ]
}

/// A pipe-like pair: what the test writes to `.1` is readable on `.0`, the "stdout".
fn pair() -> (UnixStream, UnixStream) {
    UnixStream::pair().unwrap()
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

#[test]
fn a_line_waiting_on_stdout_is_ready_at_index_0() {
    for backend in backends() {
        let stop = Stop::of(backend).unwrap();
        let (stdout, mut bot) = pair();
        let waiter = LineWait::of(backend, stdout.as_fd(), None, Some(&stop)).unwrap();
        bot.write_all(b"bestmove 3\n").unwrap();
        let woke = waiter.wait(stdout.as_fd(), None, soon());
        assert_eq!(woke, Woke::Ready(0), "{backend:?}");
    }
}

#[test]
fn the_deadline_ends_a_wait_and_never_early() {
    for backend in backends() {
        let stop = Stop::of(backend).unwrap();
        let (stdout, _bot) = pair();
        let waiter = LineWait::of(backend, stdout.as_fd(), None, Some(&stop)).unwrap();
        let start = Instant::now();
        let deadline = start + Duration::from_millis(30);
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, deadline),
            Woke::Deadline,
            "{backend:?}"
        );
        assert!(Instant::now() >= deadline, "{backend:?} ended early");
        // A deadline already past ends the wait at once.
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, start),
            Woke::Deadline,
            "{backend:?}"
        );
    }
}

#[test]
fn a_stop_from_another_thread_ends_the_wait_and_stays_set() {
    for backend in backends() {
        let stop = Stop::of(backend).unwrap();
        let (stdout, _bot) = pair();
        let waiter = LineWait::of(backend, stdout.as_fd(), None, Some(&stop)).unwrap();
        let trigger = std::thread::spawn({
            let stop = stop.clone();
            move || {
                std::thread::sleep(Duration::from_millis(20));
                stop.trigger();
            }
        });
        let start = Instant::now();
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, soon()),
            Woke::Stopped,
            "{backend:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(5), "{backend:?}");
        trigger.join().unwrap();
        // Set once, every later wait ends at once, including the general one, and triggering
        // again changes nothing.
        stop.trigger();
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, soon()),
            Woke::Stopped,
            "{backend:?}"
        );
        let woke = wait(&[Some(stdout.as_fd())], Interest::Read, None, Some(&stop));
        assert_eq!(woke, Woke::Stopped, "{backend:?}");
    }
}

#[test]
fn the_stop_wins_over_a_ready_stdout() {
    for backend in backends() {
        let stop = Stop::of(backend).unwrap();
        let (stdout, mut bot) = pair();
        let waiter = LineWait::of(backend, stdout.as_fd(), None, Some(&stop)).unwrap();
        bot.write_all(b"info\n").unwrap();
        stop.trigger();
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, soon()),
            Woke::Stopped,
            "{backend:?}"
        );
    }
}

#[test]
fn a_stop_with_many_triggers_never_blocks_the_trigger() {
    for backend in backends() {
        let stop = Stop::of(backend).unwrap();
        // Far more than a socket buffer holds: the portable trigger must drop, not block.
        for _ in 0..300_000 {
            stop.trigger();
        }
        let woke = wait(&[], Interest::Read, Some(soon()), Some(&stop));
        assert_eq!(woke, Woke::Stopped, "{backend:?}");
    }
}

/// A bot that exits closes its stdout: on either path the wait wakes for stdout, which then
/// reads as the end of the stream.
#[tokio::test]
async fn a_bot_that_exits_wakes_the_wait_through_its_stdout() {
    for backend in backends() {
        let mut cmd = tokio::process::Command::new("/bin/sh");
        cmd.args(["-c", "exit 3"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped());
        let mut child = spawn_registered(&mut cmd).unwrap();
        let pid = child.id().unwrap();
        let stdout = child.stdout.take().unwrap().into_owned_fd().unwrap();
        let waiter = LineWait::of(backend, stdout.as_fd(), None, None).unwrap();
        assert_eq!(
            waiter.wait(stdout.as_fd(), None, soon()),
            Woke::Ready(0),
            "{backend:?}"
        );
        let mut end = [0u8; 8];
        assert_eq!(read(&stdout, &mut end).unwrap(), 0, "{backend:?}");
        assert_eq!(child.wait().await.unwrap().code(), Some(3));
        forget(pid);
    }
}

/// With epoll, the exit itself wakes the wait (the pidfd, index 1), even while another process
/// holds the bot's stdout open, as a grandchild can.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn with_epoll_the_exit_wakes_the_wait_while_stdout_stays_open() {
    let (stdout, held_open) = pair();
    let mut cmd = tokio::process::Command::new("/bin/sh");
    cmd.args(["-c", "sleep 0.05"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    let mut child = spawn_registered(&mut cmd).unwrap();
    let pid = child.id().unwrap();
    let Some(exit) = linux::pidfd(pid) else {
        // A kernel before 5.3: no pidfds, which the engine handles by looking at the exit.
        let _ = child.kill().await;
        forget(pid);
        return;
    };
    let waiter = LineWait::of(Backend::Epoll, stdout.as_fd(), Some(exit.as_fd()), None).unwrap();
    let woke = waiter.wait(stdout.as_fd(), Some(exit.as_fd()), soon());
    assert_eq!(woke, Woke::Ready(1));
    assert!(child.wait().await.unwrap().success());
    forget(pid);
    drop(held_open);
}

#[test]
fn the_general_wait_keeps_the_index_of_an_absent_descriptor() {
    let (stdout, mut bot) = pair();
    bot.write_all(b"x").unwrap();
    let woke = wait(
        &[None, Some(stdout.as_fd())],
        Interest::Read,
        Some(soon()),
        None,
    );
    assert_eq!(woke, Woke::Ready(1));
    // An empty socket is writable at once, and not readable before the deadline.
    let (quiet, _other) = pair();
    let woke = wait(&[Some(quiet.as_fd())], Interest::Write, Some(soon()), None);
    assert_eq!(woke, Woke::Ready(0));
    let deadline = Instant::now() + Duration::from_millis(20);
    let woke = wait(&[Some(quiet.as_fd())], Interest::Read, Some(deadline), None);
    assert_eq!(woke, Woke::Deadline);
    assert!(Instant::now() >= deadline);
    // Nothing to watch at all: the deadline still ends the wait.
    let deadline = Instant::now() + Duration::from_millis(5);
    assert_eq!(
        wait(&[None], Interest::Read, Some(deadline), None),
        Woke::Deadline
    );
    assert!(Instant::now() >= deadline);
}

#[test]
fn non_blocking_reads_say_would_block_and_blocking_is_restored() {
    let (stdout, mut bot) = pair();
    set_nonblocking(&stdout, true).unwrap();
    let mut buf = [0u8; 4];
    let e = read(&stdout, &mut buf).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
    bot.write_all(b"ok").unwrap();
    set_nonblocking(&stdout, false).unwrap();
    assert_eq!(read(&stdout, &mut buf).unwrap(), 2);
    assert_eq!(&buf[..2], b"ok");
    assert_eq!(write(&bot, b"abc").unwrap(), 3);
    let mut rest = [0u8; 3];
    (&stdout).read_exact(&mut rest).unwrap();
    assert_eq!(&rest, b"abc");
}

#[test]
fn only_poll_selects_the_portable_waits() {
    assert_eq!(Backend::from_env(Some("poll")), Backend::Poll);
    #[cfg(target_os = "linux")]
    for value in [None, Some(""), Some("epoll"), Some("POLL")] {
        assert_eq!(Backend::from_env(value), Backend::Epoll, "{value:?}");
    }
}

#[test]
fn the_arenas_own_shortages_are_told_from_a_bots_faults() {
    let emfile = std::io::Error::from(rustix::io::Errno::MFILE);
    assert_eq!(arena_resource(&emfile), Some("open files"));
    assert!(out_of_open_files(&emfile));
    let enfile = std::io::Error::from(rustix::io::Errno::NFILE);
    assert_eq!(
        arena_resource(&enfile),
        Some("open files (the system's limit)")
    );
    assert!(!out_of_open_files(&enfile));
    // A missing program is the bot's fault, and an error with no errno is nobody's shortage.
    let missing = std::io::Error::from(rustix::io::Errno::NOENT);
    assert_eq!(arena_resource(&missing), None);
    let other = std::io::Error::other("no errno");
    assert_eq!(arena_resource(&other), None);
}

#[test]
fn the_open_file_limit_is_raised_to_the_hard_limit_once_and_for_all() {
    let limit = prepare_process();
    let now = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    assert_eq!(now.current.unwrap_or(u64::MAX), limit);
    assert_eq!(raise_open_file_limit(), limit);
    assert_eq!(prepare_process(), limit);
}

#[test]
fn this_process_is_alive_and_a_pid_out_of_range_is_not() {
    assert!(super::process_alive(std::process::id()));
    assert!(!super::process_alive(u32::MAX));
}
