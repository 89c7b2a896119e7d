//! The census: which instances route with which view, so an operator (or a rollout script) can
//! see that every instance applied a version before the next step.
//!
//! Each instance that watches a source registers an [`Entry`] in the source's census with a
//! [`Member`]: its id, surface, keyroute version, host and pid, and the view it routes with
//! (version, fingerprint as text, progress, when it applied it) and its last refusal. The entry
//! is rewritten after every view event ([`Member::record`], by the member's own thread, so the
//! watch never waits on it) and kept alive by a heartbeat; it goes
//! when the instance leaves, and expires when the instance dies:
//!
//! - **etcd**: `KEY/census/<instance>` under an etcd lease of the entry's time to live, kept
//!   alive every third of it; a lease that expired (the instance was cut off from etcd for
//!   longer) is granted again and the entry written again, and leaving revokes the lease.
//! - **file**: `.NAME.census/<instance>.json` beside the document, its modification time the
//!   heartbeat; an entry not refreshed within its time to live counts as gone.
//!
//! [`status`] reads the census against the view the source holds and gives each instance a
//! [`Standing`]: in sync, behind (for less than a deadline), stale, refused or diverged.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use keyroute_bindings::view::{fingerprint_text, unix_ms};
use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Result, ViewDocument};
use serde::{Deserialize, Serialize};

use crate::file::version_of;
use crate::source::{Source, Worker};

/// How long an entry outlives its instance's last heartbeat, unless told otherwise.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10);
/// The shortest time to live an entry may have (etcd's leases are counted in seconds).
pub const MIN_TTL: Duration = Duration::from_secs(2);
/// How long an instance may be behind the source's view before it counts as stale, unless told
/// otherwise.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);
/// The longest instance id.
pub const MAX_INSTANCE_LEN: usize = 128;

/// What a source's census holds for one instance (JSON, one object per instance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The instance's id, unique in the census.
    pub instance: String,
    /// Which surface it runs (`cli`, `rust`, `python`, `node`, …).
    pub surface: String,
    /// The keyroute version it runs.
    pub keyroute_version: String,
    /// Its host name.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// When it registered (milliseconds since the Unix epoch, its clock).
    pub started_unix_ms: u64,
    /// How long the entry outlives the instance's last heartbeat, in milliseconds.
    pub ttl_ms: u64,
    /// The version of the view it routes with (`None` before its first).
    pub view_version: Option<u64>,
    /// That view's fingerprint, as text (16 lowercase hex digits).
    pub fingerprint: Option<String>,
    /// That view's rollout progress, when it is a rollout (when it was applied, for a schedule).
    pub progress: Option<f64>,
    /// When it applied that view.
    pub applied_unix_ms: Option<u64>,
    /// Its last refusal.
    pub refusal: Option<RefusalEntry>,
    /// How many documents it has refused.
    pub refusals: u64,
}

/// A refusal as the census holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusalEntry {
    /// The refused document's version, when it could be read.
    pub version: Option<u64>,
    /// The error's stable code.
    pub code: u32,
    /// The error's name (`invalid_spec`, …).
    pub error: String,
    /// Why, for people.
    pub message: String,
    /// When.
    pub at_unix_ms: u64,
}

/// Who an instance is, for its census entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The id: 1 to [`MAX_INSTANCE_LEN`] characters of `A–Z a–z 0–9 . _ -`.
    pub id: String,
    /// The surface (`cli`, `rust`, `python`, `node`, …).
    pub surface: String,
}

impl Instance {
    /// An instance named `id` on `surface`.
    ///
    /// # Errors
    /// `invalid_parameter` when `id` is empty, too long, or holds another character (it names
    /// a key or a file).
    pub fn new(id: &str, surface: &str) -> Result<Self> {
        check_id(id)?;
        Ok(Self { id: id.to_owned(), surface: surface.to_owned() })
    }

    /// The instance `HOST-PID` (this host's name, this process's id) on `surface`.
    #[must_use]
    pub fn this_process(surface: &str) -> Self {
        let host: String = host_name()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' })
            .take(MAX_INSTANCE_LEN - 11)
            .collect();
        Self { id: format!("{host}-{}", std::process::id()), surface: surface.to_owned() }
    }
}

/// The longest surface name a census entry takes (see [`check_surface`]).
pub const MAX_SURFACE_LEN: usize = 32;

/// Checks a surface name (a binding over the C library names itself: `go`, `java`, …): 1 to
/// [`MAX_SURFACE_LEN`] characters of `a–z 0–9 _ -`.
///
/// # Errors
/// `invalid_parameter`.
pub fn check_surface(surface: &str) -> Result<()> {
    let fine = !surface.is_empty()
        && surface.len() <= MAX_SURFACE_LEN
        && surface.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-'));
    if fine {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidParameter,
            format!("surface {surface:?}: 1 to {MAX_SURFACE_LEN} characters of a-z, 0-9, '_' and '-'"),
        ))
    }
}

/// Checks an instance id: 1 to [`MAX_INSTANCE_LEN`] characters of `A–Z a–z 0–9 . _ -`, and
/// neither `.` nor `..`.
///
/// # Errors
/// `invalid_parameter`.
pub fn check_id(id: &str) -> Result<()> {
    let fine = !id.is_empty()
        && id.len() <= MAX_INSTANCE_LEN
        && id != "."
        && id != ".."
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if fine {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidParameter,
            format!(
                "instance id {id:?}: 1 to {MAX_INSTANCE_LEN} characters of A-Z, a-z, 0-9, '.', '_' and '-' (it names a \
                 census key or file)"
            ),
        ))
    }
}

/// This host's name, as the kernel has it (`localhost` when it cannot be read).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// How a source holds an entry alive: an etcd lease's id, or nothing for the file source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease(pub i64);

/// What a member shares with its heartbeat.
#[derive(Debug)]
struct Shared {
    source: Arc<dyn Source>,
    ttl: Duration,
    entry: Mutex<Entry>,
    /// The lease holding the entry, and whether the source holds the entry as it is now.
    state: Mutex<(Option<Lease>, bool)>,
}

impl Shared {
    fn bytes(&self) -> Vec<u8> {
        let entry = self.entry.lock().map(|e| e.clone());
        entry.ok().and_then(|e| serde_json::to_vec(&e).ok()).unwrap_or_default()
    }

    fn id(&self) -> String {
        self.entry.lock().map(|e| e.instance.clone()).unwrap_or_default()
    }

    /// Writes the entry as it is now (under a new lease when it has none or it expired).
    fn write(&self) -> Result<()> {
        let Ok(mut state) = self.state.lock() else { return Ok(()) };
        let lease = self.source.census_put(&self.id(), &self.bytes(), state.0, self.ttl)?;
        *state = (Some(lease), true);
        Ok(())
    }

    /// One heartbeat: keeps the lease alive, or writes the entry again when the source lost it
    /// (the lease expired) or holds an older one.
    fn beat(&self) -> Result<()> {
        let (lease, written) = self.state.lock().map(|s| *s).unwrap_or((None, false));
        if let (Some(lease), true) = (lease, written) {
            if self.source.census_keepalive(&self.id(), lease, self.ttl)? {
                return Ok(());
            }
            if let Ok(mut state) = self.state.lock() {
                state.0 = None;
            }
        }
        self.write()
    }
}

/// An instance registered in a source's census: its entry is kept alive by a heartbeat thread
/// until [`Member::leave`] (or drop) removes it.
#[derive(Debug)]
pub struct Member {
    shared: Arc<Shared>,
    worker: Worker,
}

impl Member {
    /// Registers `instance` in `source`'s census (its entry says it routes with no view yet)
    /// and starts the heartbeat, every third of `ttl`.
    ///
    /// The first write is tried at once ([`Member::registered`] says whether it succeeded); a
    /// source that cannot be reached now is tried again at every heartbeat, so an instance
    /// started while etcd is down appears once it is back.
    ///
    /// # Errors
    /// `invalid_parameter` for a `ttl` below [`MIN_TTL`] or a bad instance id; `io` when the
    /// heartbeat thread cannot start.
    pub fn join(source: Arc<dyn Source>, instance: &Instance, ttl: Duration) -> Result<Self> {
        if ttl < MIN_TTL {
            return Err(Error::new(
                ErrorCode::InvalidParameter,
                format!("a census entry lives at least {} s (given {} ms)", MIN_TTL.as_secs(), ttl.as_millis()),
            ));
        }
        check_id(&instance.id)?;
        let now = unix_ms(SystemTime::now());
        let entry = Entry {
            instance: instance.id.clone(),
            surface: instance.surface.clone(),
            keyroute_version: env!("CARGO_PKG_VERSION").to_owned(),
            host: host_name(),
            pid: std::process::id(),
            started_unix_ms: now,
            ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
            view_version: None,
            fingerprint: None,
            progress: None,
            applied_unix_ms: None,
            refusal: None,
            refusals: 0,
        };
        let shared = Arc::new(Shared { source, ttl, entry: Mutex::new(entry), state: Mutex::new((None, false)) });
        // A failure is tried again by the heartbeat.
        let _ = shared.write();
        let (tx, rx) = mpsc::channel::<()>();
        let stop = Arc::new(AtomicBool::new(false));
        let (beating, stopped) = (Arc::clone(&shared), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("keyroute-census".into())
            .spawn(move || {
                while !stopped.load(Ordering::SeqCst) {
                    // Woken by a record (or a leave), or a third of the time to live passed.
                    match rx.recv_timeout(ttl / 3) {
                        Ok(()) | Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                    if !stopped.load(Ordering::SeqCst) {
                        // A failed beat (the source unreachable) is tried again at the next.
                        let _ = beating.beat();
                    }
                }
            })
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot start the census heartbeat: {e}")))?;
        Ok(Self { shared, worker: Worker::new(stop, tx, thread) })
    }

    /// The instance's id.
    #[must_use]
    pub fn id(&self) -> String {
        self.shared.id()
    }

    /// Whether a write of the entry has succeeded (false until one has).
    #[must_use]
    pub fn registered(&self) -> bool {
        self.shared.state.lock().is_ok_and(|s| s.0.is_some())
    }

    /// The entry as this member last wrote it (or will write it at its next heartbeat).
    #[must_use]
    pub fn entry(&self) -> Option<Entry> {
        self.shared.entry.lock().ok().map(|e| e.clone())
    }

    /// Records what `view` routes with now (its view, its last refusal); the heartbeat thread
    /// writes the entry at once (so a watch never waits on the census, even with its source
    /// unreachable), and again at each heartbeat until a write succeeds.
    pub fn record(&self, view: &LiveView) {
        if let Ok(mut entry) = self.shared.entry.lock() {
            if let Some(v) = view.load() {
                entry.view_version = Some(v.version());
                entry.fingerprint = Some(fingerprint_text(v.fingerprint()));
                entry.progress = v.progress();
                entry.applied_unix_ms = Some(unix_ms(v.applied_at()));
            }
            entry.refusal = view.last_refusal().map(|r| RefusalEntry {
                version: r.version,
                code: r.code.code(),
                error: r.code.name().to_owned(),
                message: r.message,
                at_unix_ms: unix_ms(r.at),
            });
            entry.refusals = view.refusals();
        }
        if let Ok(mut state) = self.shared.state.lock() {
            state.1 = false;
        }
        self.worker.wake();
    }

    /// Whether the source holds the entry as last recorded.
    #[must_use]
    pub fn written(&self) -> bool {
        self.shared.state.lock().is_ok_and(|s| s.1)
    }

    /// Removes the entry and stops the heartbeat.
    pub fn leave(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if self.worker.end() {
            let lease = self.shared.state.lock().ok().and_then(|s| s.0);
            let _ = self.shared.source.census_remove(&self.shared.id(), lease);
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.end();
    }
}

/// A sink for [`Source::watch`] that records each event in `member`'s entry (what `view`, the
/// watched live view, routes with now), then hands the event to `sink`.
pub fn recording(member: Arc<Member>, view: Arc<LiveView>, mut sink: crate::source::Sink) -> crate::source::Sink {
    Box::new(move |event| {
        member.record(&view);
        sink(event);
    })
}

/// Where an instance stands against the view the source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// It routes with the source's view (the same version and fingerprint).
    Sync,
    /// It routes with an older view (or none), for less than the deadline so far.
    Behind,
    /// It has routed with an older view (or none) for longer than the deadline.
    Stale,
    /// It refused the source's view (or cannot read the source) and routes with an older one.
    Refused,
    /// It routes with the source's version under another fingerprint, or with a version the
    /// source never reached: its instances do not agree on what a version routes like.
    Diverged,
}

impl Standing {
    /// The standing's name, as `fleet status` prints it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Sync => "sync",
            Self::Behind => "behind",
            Self::Stale => "stale",
            Self::Refused => "refused",
            Self::Diverged => "diverged",
        }
    }
}

/// One instance of a [`Status`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceStatus {
    /// Where it stands.
    pub standing: Standing,
    /// How long it has been behind the source's view, in milliseconds (behind or stale, when
    /// the view's publish time is known).
    pub behind_ms: Option<u64>,
    /// Its entry.
    #[serde(flatten)]
    pub entry: Entry,
}

/// A census entry that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    /// The entry's name in the census.
    pub instance: String,
    /// Why.
    pub message: String,
}

/// The census against the source's view, as [`status`] reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    /// The source's URL.
    pub source: String,
    /// The version the source holds (`None` when it holds none).
    pub version: Option<u64>,
    /// Its fingerprint, as text.
    pub fingerprint: Option<String>,
    /// When it was published (milliseconds since the Unix epoch), when the source knows.
    pub published_unix_ms: Option<u64>,
    /// Why the source's document does not build, when it does not (`at_unix_ms` is when this
    /// status was read): no instance can route with it.
    pub problem: Option<RefusalEntry>,
    /// The deadline, in milliseconds.
    pub deadline_ms: u64,
    /// The instances registered, by id.
    pub instances: Vec<InstanceStatus>,
    /// The entries that could not be read.
    pub unreadable: Vec<Unreadable>,
}

impl Status {
    /// How many instances stand at `standing`.
    #[must_use]
    pub fn count(&self, standing: Standing) -> usize {
        self.instances.iter().filter(|i| i.standing == standing).count()
    }

    /// Every registered instance routes with the source's view (and there is at least one, and
    /// no unreadable entry): the gate a rollout step waits for.
    #[must_use]
    pub fn converged(&self) -> bool {
        !self.instances.is_empty()
            && self.problem.is_none()
            && self.unreadable.is_empty()
            && self.instances.iter().all(|i| i.standing == Standing::Sync)
    }

    /// Some instance is stale, refused or diverged, or an entry is unreadable: waiting longer
    /// will not converge on its own.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.problem.is_some()
            || !self.unreadable.is_empty()
            || self.instances.iter().any(|i| i.standing > Standing::Behind)
    }
}

/// Reads `source`'s view and census, and gives each instance its standing at `now`: behind
/// for longer than `deadline` since the view was published is stale (and so is any instance
/// behind a view whose publish time the source does not know, as one written by hand).
///
/// A document in the source that does not build is no error: it is the status's
/// [`Status::problem`], and the instances that refused it are [`Standing::Refused`].
///
/// # Errors
/// Any error of reading the source or its census.
pub fn status(source: &dyn Source, limits: &Limits, deadline: Duration, now: SystemTime) -> Result<Status> {
    let (version, fingerprint, problem) = match source.read(limits)? {
        None => (None, None, None),
        Some(bytes) => match ViewDocument::from_bytes(&bytes, limits).and_then(|d| d.build(limits)) {
            Ok(v) => (Some(v.version()), Some(fingerprint_text(v.fingerprint())), None),
            // Every instance refuses it (and keeps its last good view): the census says which.
            Err(e) => (
                version_of(&bytes),
                None,
                Some(RefusalEntry {
                    version: version_of(&bytes),
                    code: e.code().code(),
                    error: e.code().name().to_owned(),
                    message: e.message().to_owned(),
                    at_unix_ms: unix_ms(now),
                }),
            ),
        },
    };
    let published = match version {
        Some(v) => source.published_at(v)?,
        None => None,
    };
    let now_ms = unix_ms(now);
    let deadline_ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX);
    let mut instances = Vec::new();
    let mut unreadable = Vec::new();
    for (name, bytes) in source.census_entries()? {
        match serde_json::from_slice::<Entry>(&bytes) {
            Ok(entry) => {
                let (standing, behind_ms) =
                    standing(&entry, version, fingerprint.as_deref(), published, now_ms, deadline_ms);
                instances.push(InstanceStatus { standing, behind_ms, entry });
            }
            Err(e) => unreadable.push(Unreadable { instance: name, message: e.to_string() }),
        }
    }
    instances.sort_by(|a, b| a.entry.instance.cmp(&b.entry.instance));
    Ok(Status {
        source: source.url(),
        version,
        fingerprint,
        published_unix_ms: published,
        problem,
        deadline_ms,
        instances,
        unreadable,
    })
}

/// One entry's standing against the source's view.
fn standing(
    entry: &Entry,
    version: Option<u64>,
    fingerprint: Option<&str>,
    published: Option<u64>,
    now_ms: u64,
    deadline_ms: u64,
) -> (Standing, Option<u64>) {
    let Some(version) = version else {
        // No view in the source: an instance routing with one is ahead of it.
        let standing = if entry.view_version.is_some() { Standing::Diverged } else { Standing::Sync };
        return (standing, None);
    };
    match entry.view_version {
        Some(v) if v == version => {
            let standing =
                if entry.fingerprint.as_deref() == fingerprint { Standing::Sync } else { Standing::Diverged };
            return (standing, None);
        }
        Some(v) if v > version => return (Standing::Diverged, None),
        _ => {}
    }
    // Behind. A refusal since its last view, of this version or of a document it could not
    // read a version from, is why.
    let refused = entry.refusal.as_ref().is_some_and(|r| {
        entry.applied_unix_ms.is_none_or(|applied| r.at_unix_ms >= applied) && r.version.is_none_or(|rv| rv >= version)
    });
    let behind_ms = published.map(|p| now_ms.saturating_sub(p));
    let standing = match behind_ms {
        _ if refused => Standing::Refused,
        Some(ms) if ms <= deadline_ms => Standing::Behind,
        _ => Standing::Stale,
    };
    (standing, behind_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(version: Option<u64>, fingerprint: &str) -> Entry {
        Entry {
            instance: "a-1".into(),
            surface: "rust".into(),
            keyroute_version: "0".into(),
            host: "a".into(),
            pid: 1,
            started_unix_ms: 0,
            ttl_ms: 10_000,
            view_version: version,
            fingerprint: Some(fingerprint.into()),
            progress: None,
            applied_unix_ms: Some(1_000),
            refusal: None,
            refusals: 0,
        }
    }

    #[test]
    fn standings() {
        let f = Some("00000000000000aa");
        let at = |e: &Entry, published: Option<u64>, now: u64| standing(e, Some(5), f, published, now, 100).0;
        assert_eq!(at(&entry(Some(5), "00000000000000aa"), Some(0), 0), Standing::Sync);
        assert_eq!(at(&entry(Some(5), "00000000000000bb"), Some(0), 0), Standing::Diverged);
        assert_eq!(at(&entry(Some(6), "00000000000000aa"), Some(0), 0), Standing::Diverged);
        assert_eq!(at(&entry(Some(4), "x"), Some(1_000), 1_100), Standing::Behind);
        assert_eq!(at(&entry(Some(4), "x"), Some(1_000), 1_101), Standing::Stale);
        assert_eq!(at(&entry(Some(4), "x"), None, 1_000), Standing::Stale);
        assert_eq!(at(&entry(None, "x"), Some(1_000), 1_050), Standing::Behind);
        let mut refused = entry(Some(4), "x");
        let r = |version, at_unix_ms| RefusalEntry {
            version,
            code: 2,
            error: "invalid_spec".into(),
            message: "m".into(),
            at_unix_ms,
        };
        refused.refusal = Some(r(Some(5), 1_500));
        assert_eq!(at(&refused, Some(1_000), 1_050), Standing::Refused);
        // A refusal before the view it routes with, or of an older version, is not why.
        refused.refusal = Some(r(Some(5), 500));
        assert_eq!(at(&refused, Some(1_000), 1_050), Standing::Behind);
        refused.refusal = Some(r(Some(3), 1_500));
        assert_eq!(at(&refused, Some(1_000), 1_050), Standing::Behind);
        refused.refusal = Some(r(None, 1_500));
        assert_eq!(at(&refused, Some(1_000), 1_050), Standing::Refused);
        assert_eq!(standing(&entry(None, "x"), None, None, None, 0, 0).0, Standing::Sync);
    }

    #[test]
    fn instance_ids() {
        assert!(Instance::new("web-7.eu_1", "rust").is_ok());
        for bad in ["", ".", "..", "a/b", "a b", "é", &"x".repeat(MAX_INSTANCE_LEN + 1)] {
            assert_eq!(Instance::new(bad, "rust").unwrap_err().code(), ErrorCode::InvalidParameter, "{bad:?}");
        }
        let me = Instance::this_process("cli");
        assert!(check_id(&me.id).is_ok(), "{}", me.id);
        assert!(me.id.ends_with(&format!("-{}", std::process::id())));
    }

    #[test]
    fn surface_names() {
        for fine in ["c", "go", "java", "dotnet", "node-wasm", "py_3", &"s".repeat(MAX_SURFACE_LEN)] {
            assert!(check_surface(fine).is_ok(), "{fine:?}");
        }
        for bad in ["", "Go", "c++", "a b", "a.b", "é", &"s".repeat(MAX_SURFACE_LEN + 1)] {
            assert_eq!(check_surface(bad).unwrap_err().code(), ErrorCode::InvalidParameter, "{bad:?}");
        }
    }
}
