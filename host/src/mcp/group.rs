//! A server started as a command (`--mcp "npx -y acme-skills"`) runs in a process group of
//! its own, so that everything it started — the shell's children, npx's node — is killed
//! with it: when its source is dropped and when connecting to it fails. A group of its own
//! no longer gets the terminal's Ctrl-C, so a program that may be interrupted or told to
//! stop (SIGINT, SIGTERM, SIGHUP) while a source lives calls [`kill_servers_on_signals`]
//! at its start (the `skillwire` command does; a library does not take a process's signals
//! on its own). Unix only; elsewhere the command alone is killed when its source is
//! dropped.

#[cfg(unix)]
use std::sync::atomic::{AtomicI32, Ordering};

/// Most groups tracked for the signal handlers at once (one per `--mcp` command; a group
/// past them is still killed when its source is dropped).
#[cfg(unix)]
const TRACKED: usize = 64;

/// The groups running, by their leader's process id (0: a free slot). Read by the signal
/// handler, so atomics only.
#[cfg(unix)]
static RUNNING: [AtomicI32; TRACKED] = [const { AtomicI32::new(0) }; TRACKED];

/// The process group a server command was started in (its leader's process id), killed
/// when this is dropped.
#[derive(Debug)]
pub(crate) struct Group {
    #[cfg(unix)]
    leader: i32,
    #[cfg(unix)]
    slot: Option<usize>,
}

impl Group {
    /// The group whose leader is the started command `pid` (started with
    /// `process_group(0)`), tracked for the signal handlers.
    pub(crate) fn started(pid: u32) -> Option<Group> {
        #[cfg(unix)]
        {
            let leader = i32::try_from(pid).ok().filter(|&p| p > 0)?;
            let slot = RUNNING
                .iter()
                .position(|slot| slot.compare_exchange(0, leader, Ordering::SeqCst, Ordering::SeqCst).is_ok());
            Some(Group { leader, slot })
        }
        #[cfg(not(unix))]
        {
            let _ = pid;
            Some(Group {})
        }
    }
}

impl Drop for Group {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            // SAFETY: killpg takes any process group id; one that has ended is ESRCH.
            unsafe { libc::killpg(self.leader, libc::SIGKILL) };
            if let Some(slot) = self.slot.and_then(|i| RUNNING.get(i)) {
                slot.store(0, Ordering::SeqCst);
            }
        }
    }
}

/// Installs handlers for SIGINT, SIGTERM and SIGHUP (each whose disposition is the default:
/// handlers of the program's own are kept) that kill the process groups of the server
/// commands still running, then let the signal end the process as it would have. Once per
/// process; call it before connecting to servers. Nothing off unix.
pub fn kill_servers_on_signals() {
    #[cfg(unix)]
    install_handlers();
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn install_handlers() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction with a zeroed action reads the current one into `current`;
            // the handler installed is async-signal-safe (see `on_signal`).
            unsafe {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 || current.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// Kills every group still running, then ends the process as `signal` would have.
#[cfg(unix)]
#[allow(unsafe_code)]
extern "C" fn on_signal(signal: libc::c_int) {
    for slot in &RUNNING {
        let leader = slot.load(Ordering::SeqCst);
        if leader > 0 {
            // SAFETY: kill, signal and raise are async-signal-safe (killpg is not listed as
            // such: kill of the negated group id is the same).
            unsafe { libc::kill(-leader, libc::SIGKILL) };
        }
    }
    // SAFETY: as above.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}
