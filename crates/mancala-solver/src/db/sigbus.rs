//! A database file that shrinks under its map: a message naming the file, not a bare SIGBUS.
//!
//! Why a handler: the search reads the map at random, millions of times a second, so the file's
//! length cannot be checked around each read; a read past the end of a file truncated by
//! another program raises SIGBUS, which kills the process without a word (exit 135). Each
//! mapping registers its address range and a message naming its file; a SIGBUS whose fault
//! address lies in a registered range writes that message to stderr and ends the process with
//! status [`EXIT`]. Any other SIGBUS is given back to the default action (the fault repeats and
//! kills the process as before). The handler only reads atomics and calls `write` and `_exit`,
//! both async-signal-safe.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Acquire, Ordering::Release};
use std::sync::Once;

/// The exit status of a solve stopped by a database file that shrank (EX_IOERR).
pub const EXIT: i32 = 74;

const SLOTS: usize = 32;
/// Slot `i` watches `[START[i], END[i])` (START 0: free) and says `MSG[i]` (`MSG_LEN[i]`).
static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static END: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static MSG: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static MSG_LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// Slots taken (set before the slot is filled in, cleared after START).
static TAKEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static INSTALL: Once = Once::new();

/// A registered mapping; unregistered when dropped (before its map is).
pub struct Watch(Option<usize>);

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            START[i].store(0, Release);
            TAKEN[i].store(0, Release);
        }
    }
}

/// Registers the mapped bytes `range` of the database file `path` (see the module docs). With
/// every slot taken the mapping goes unwatched (a bare SIGBUS, as before).
pub fn watch(range: &[u8], path: &Path) -> Watch {
    INSTALL.call_once(install);
    let Some(i) = (0..SLOTS).find(|&i| TAKEN[i].compare_exchange(0, 1, Acquire, Acquire).is_ok())
    else {
        return Watch(None);
    };
    // Leaked: the handler may read it at any time; a few hundred bytes per mapping opened.
    let msg: &'static [u8] = Box::leak(
        format!(
            "arena: the database file {} shrank while it was being read (another program \
             truncated or rewrote it in place): stopped; the next run checks the file and \
             rebuilds it\n",
            path.display()
        )
        .into_bytes()
        .into_boxed_slice(),
    );
    MSG[i].store(msg.as_ptr() as usize, Release);
    MSG_LEN[i].store(msg.len(), Release);
    let start = range.as_ptr() as usize;
    END[i].store(start + range.len(), Release);
    START[i].store(start.max(1), Release);
    Watch(Some(i))
}

fn install() {
    // SAFETY: an all-zero sigaction is valid; the handler is async-signal-safe (module docs).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

extern "C" fn on_sigbus(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    for i in 0..SLOTS {
        let start = START[i].load(Acquire);
        if start != 0 && addr >= start && addr < END[i].load(Acquire) {
            let (msg, len) = (MSG[i].load(Acquire), MSG_LEN[i].load(Acquire));
            // SAFETY: `msg` is a leaked buffer of `len` bytes; write and _exit are
            // async-signal-safe.
            unsafe {
                libc::write(2, msg as *const libc::c_void, len);
                libc::_exit(EXIT);
            }
        }
    }
    // Not a database's: the default action, when the faulting access runs again.
    // SAFETY: signal() with SIG_DFL is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
}
