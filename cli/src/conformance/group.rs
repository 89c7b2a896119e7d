//! The adapter's process group: `conformance --exec` starts the adapter as the leader of a
//! process group of its own, and ends the whole group (SIGKILL) when the run is done with it:
//! after `bye`, on a fault or a timeout, and when keyroute itself gets SIGINT, SIGTERM or SIGHUP
//! (a thread of [`signal_hook`]'s ends every adapter's group, then keyroute ends by the signal
//! as it would have without the thread). So nothing an adapter starts outlives the run, and a
//! terminal's Ctrl-C, which reaches keyroute's group only, still ends the adapter.
//!
//! Elsewhere than on Unix the adapter is an ordinary child, which the runner kills.

use std::io;
use std::process::{Child, Command};

/// Starts `command` as the leader of a new process group that a signal to keyroute ends.
#[cfg(unix)]
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    use std::os::unix::process::CommandExt;
    SIGNALS.call_once(watch_signals);
    command.process_group(0);
    // Held across the spawn: a signal that comes meanwhile waits for the group to be known.
    let mut groups = groups();
    let child = command.spawn()?;
    groups.push(child.id());
    Ok(child)
}

/// Ends the process group `child` leads (every process in it), once; later calls do nothing,
/// so a group is never signalled after the run is done with it.
#[cfg(unix)]
pub fn end(child: &Child) {
    let mut groups = groups();
    if let Some(i) = groups.iter().position(|&g| g == child.id()) {
        groups.swap_remove(i);
        kill_group(child.id());
    }
}

/// The leaders of the adapters' process groups that have not been ended.
#[cfg(unix)]
static GROUPS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

#[cfg(unix)]
static SIGNALS: std::sync::Once = std::sync::Once::new();

#[cfg(unix)]
fn groups() -> std::sync::MutexGuard<'static, Vec<u32>> {
    GROUPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(unix)]
fn kill_group(leader: u32) {
    // Never 0 (our own group) or 1 (every process): a group this run started has neither id.
    let Ok(pgid) = libc::pid_t::try_from(leader) else { return };
    if pgid > 1 {
        // SAFETY: kill(2) takes no pointers and has no memory-safety preconditions; a negative
        // pid names the process group whose id is `pgid`, which this run created.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: end every adapter's group, then end keyroute by the signal
/// (its default action), or with status 128 + the signal's number if that fails. A signal that
/// keyroute was started ignoring (`nohup`, a background job of a shell without job control)
/// stays ignored.
#[cfg(unix)]
fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let watched: Vec<i32> = [SIGINT, SIGTERM, SIGHUP].into_iter().filter(|&s| !ignored(s)).collect();
    if watched.is_empty() {
        return;
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new(watched) else { return };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            for leader in std::mem::take(&mut *groups()) {
                kill_group(leader);
            }
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    });
}

/// Whether `signal`'s disposition is to be ignored (as keyroute was started).
#[cfg(unix)]
fn ignored(signal: i32) -> bool {
    // SAFETY: an all-zero `sigaction` is a valid value of that plain C struct; sigaction(2)
    // with a null new action only writes the current one into `old`, a live local.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Starts `command` (no process groups here).
#[cfg(not(unix))]
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    command.spawn()
}

/// Nothing to end beyond the child, which the runner kills.
#[cfg(not(unix))]
pub fn end(_child: &Child) {}
