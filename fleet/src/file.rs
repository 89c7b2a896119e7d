//! The file source: a view document in a file, the embedded default that needs no server (a
//! Kubernetes ConfigMap mounted as files, or the mirror a per-host daemon writes).
//!
//! - **Watching** is of the file's directory, not the file, through `notify` (inotify on
//!   Linux), so a document replaced by an atomic rename, or a ConfigMap's `..data` symlink
//!   swapped to a new folder, is seen like a write in place. The file is also read again every
//!   poll interval, which is the whole mechanism when notifications are unavailable.
//! - **Partial writes** are never applied: a document is applied only when it parses and
//!   builds, and a writer that truncates and rewrites in place leaves, at worst, a prefix that
//!   is not JSON, which is refused (the last good view stays) until the complete write is read.
//! - **Publishing** is a compare-and-swap under an exclusive lock file, `.NAME.lock` beside
//!   the document (created only if absent, removed after): read the version, compare it with the expected one, write a temporary file, flush
//!   it, rename it over the document. Readers see the old document or the new one, whole.
//! - **TOML**: a document whose name ends in `.toml` is read as TOML (written by hand, or by a
//!   config tool); publishing writes JSON, so it refuses a `.toml` document.
//! - **History**: each published document is also kept as `.NAME.history/VERSION.json`, the
//!   last [`HISTORY`] of them; the entry's modification time is when it was published.
//! - **Census**: each registered instance's entry is `.NAME.census/INSTANCE.json`, its
//!   modification time the heartbeat ([`crate::census`]).

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime};

use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Result, ViewState};
use notify::{RecursiveMode, Watcher};

use crate::census::Lease;
use crate::source::{Applier, Sink, Source, Stored, Watch, WatchOptions, check_versions, settle};

/// How many published documents a file source keeps in its history.
pub const HISTORY: usize = 20;

/// The document's name in a source given as a directory.
pub const DIRECTORY_DOCUMENT: &str = "view.json";

/// A view document in a file.
#[derive(Debug, Clone)]
pub struct FileSource {
    path: PathBuf,
    dir: PathBuf,
    name: OsString,
}

impl FileSource {
    /// The source of the document at `path`; a directory stands for its `view.json`.
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        let path = if path.is_dir() { path.join(DIRECTORY_DOCUMENT) } else { path };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(OsString::from).unwrap_or_else(|| OsString::from(DIRECTORY_DOCUMENT));
        Self { path, dir, name }
    }

    /// The document's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn beside(&self, suffix: &str) -> PathBuf {
        let mut name = OsString::from(".");
        name.push(&self.name);
        name.push(suffix);
        self.dir.join(name)
    }

    fn history_dir(&self) -> PathBuf {
        self.beside(".history")
    }

    fn census_dir(&self) -> PathBuf {
        self.beside(".census")
    }

    fn io(&self, what: &str, e: &io::Error) -> Error {
        Error::new(ErrorCode::Io, format!("{what} {}: {e}", self.path.display()))
    }

    /// The version of the document stored now (0 for none), read under the publish lock.
    fn stored_version(&self) -> Result<u64> {
        match self.read(&Limits::CEILING)? {
            None => Ok(0),
            Some(bytes) => match version_of(&bytes) {
                Some(v) => Ok(v),
                // A document with no readable version (written by hand, broken): the newest
                // published version is what a publisher expects to replace.
                None => Ok(self.history()?.first().map_or(0, |s| s.version)),
            },
        }
    }
}

/// The `version` field of a document, if it has a readable one.
pub(crate) fn version_of(bytes: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Versioned {
        version: u64,
    }
    serde_json::from_slice::<Versioned>(bytes).ok().map(|v| v.version)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, renamed over `path`, and the directory flushed, so a reader sees the old file or the
/// new one, whole.
///
/// # Errors
/// `io`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let io = |what: &str, e: io::Error| Error::new(ErrorCode::Io, format!("{what} {}: {e}", path.display()));
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".tmp-{}-{}", std::process::id(), SEQUENCE.fetch_add(1, Ordering::Relaxed)));
    let temp = dir.join(name);
    let written = File::create(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(io("cannot write", e));
    }
    // The rename is durable once the directory is; a failure here loses nothing readers see.
    let _ = File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

impl Source for FileSource {
    fn url(&self) -> String {
        match fs::canonicalize(&self.dir) {
            Ok(dir) => format!("file://{}", dir.join(&self.name).display()),
            Err(_) => format!("file://{}", self.path.display()),
        }
    }

    fn read(&self, limits: &Limits) -> Result<Option<Vec<u8>>> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.io("cannot open", &e)),
        };
        let mut bytes = Vec::new();
        file.take(limits.max_spec_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| self.io("cannot read", &e))?;
        if keyroute_bindings::is_toml(&self.path) {
            // A document written by hand in TOML: handed on as the JSON it spells.
            return Ok(Some(keyroute_bindings::view::toml_to_json(&bytes, limits)?.into_bytes()));
        }
        Ok(Some(bytes))
    }

    fn publish(&self, view: &ViewState, expect_version: u64) -> Result<()> {
        if keyroute_bindings::is_toml(&self.path) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "{}: a TOML view document is read, never written; publish to a .json file",
                    self.path.display()
                ),
            ));
        }
        let _lock = LockFile::acquire(self.beside(".lock"))?;
        let stored = self.stored_version()?;
        check_versions(stored, expect_version, view.version())?;
        let document = view.document_json();
        write_atomically(&self.path, document.as_bytes())?;
        let history = self.history_dir();
        fs::create_dir_all(&history).map_err(|e| self.io("cannot create the history of", &e))?;
        write_atomically(&history.join(format!("{:020}.json", view.version())), document.as_bytes())?;
        for old in self.history()?.iter().skip(HISTORY) {
            let _ = fs::remove_file(history.join(format!("{:020}.json", old.version)));
        }
        Ok(())
    }

    fn history(&self) -> Result<Vec<Stored>> {
        let entries = match fs::read_dir(self.history_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.io("cannot list the history of", &e)),
        };
        let mut versions: Vec<(u64, PathBuf)> = entries
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let version = path.file_name()?.to_str()?.strip_suffix(".json")?.parse().ok()?;
                Some((version, path))
            })
            .collect();
        versions.sort_by_key(|v| std::cmp::Reverse(v.0));
        versions
            .into_iter()
            .map(|(version, path)| {
                fs::read(&path)
                    .map(|bytes| Stored { version, bytes })
                    .map_err(|e| self.io("cannot read the history of", &e))
            })
            .collect()
    }

    fn watch(&self, view: Arc<LiveView>, options: WatchOptions, sink: Sink) -> Result<Watch> {
        let (tx, rx) = mpsc::channel::<()>();
        let notified = tx.clone();
        let watcher = if options.poll_only {
            None
        } else {
            // A directory that cannot be watched (missing, or no inotify instances left) is
            // polled instead.
            notify::recommended_watcher(move |_event: notify::Result<notify::Event>| {
                let _ = notified.send(());
            })
            .and_then(|mut w| w.watch(&self.dir, RecursiveMode::NonRecursive).map(|()| w))
            .ok()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let source = self.clone();
        let stopped = Arc::clone(&stop);
        let limits = *view.limits();
        let thread = std::thread::Builder::new()
            .name("keyroute-file-watch".into())
            .spawn(move || {
                let _watcher = watcher;
                let mut applier = Applier::new(view, sink);
                while !stopped.load(Ordering::SeqCst) {
                    applier.offer(source.read(&limits));
                    match rx.recv_timeout(options.poll_interval) {
                        Ok(()) => settle(&rx, options.settle),
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(options.poll_interval),
                    }
                }
            })
            .map_err(|e| self.io("cannot start the watch of", &e))?;
        Ok(Watch::new(stop, tx, thread))
    }

    fn published_at(&self, version: u64) -> Result<Option<u64>> {
        // The history entry is written by the publish; a document written by other means has
        // none, and its own modification time is when it was written.
        let entry = self.history_dir().join(format!("{version:020}.json"));
        let modified = match fs::metadata(&entry) {
            Ok(m) => m.modified(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => match self.stored_version() {
                Ok(v) if v == version => match fs::metadata(&self.path) {
                    Ok(m) => m.modified(),
                    Err(e) => return Err(self.io("cannot read the time of", &e)),
                },
                _ => return Ok(None),
            },
            Err(e) => return Err(self.io("cannot read the history of", &e)),
        };
        Ok(modified.ok().map(keyroute_bindings::view::unix_ms))
    }

    fn census_put(&self, id: &str, entry: &[u8], _lease: Option<Lease>, _ttl: Duration) -> Result<Lease> {
        crate::census::check_id(id)?;
        let dir = self.census_dir();
        fs::create_dir_all(&dir).map_err(|e| self.io("cannot create the census of", &e))?;
        write_atomically(&dir.join(format!("{id}.json")), entry)?;
        Ok(Lease(0))
    }

    fn census_keepalive(&self, id: &str, _lease: Lease, _ttl: Duration) -> Result<bool> {
        crate::census::check_id(id)?;
        // The entry's modification time is its heartbeat.
        match File::options().write(true).open(self.census_dir().join(format!("{id}.json"))) {
            Ok(file) => file
                .set_modified(SystemTime::now())
                .map(|()| true)
                .map_err(|e| self.io("cannot refresh the census of", &e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(self.io("cannot refresh the census of", &e)),
        }
    }

    fn census_remove(&self, id: &str, _lease: Option<Lease>) -> Result<()> {
        crate::census::check_id(id)?;
        match fs::remove_file(self.census_dir().join(format!("{id}.json"))) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.io("cannot leave the census of", &e)),
        }
    }

    fn census_entries(&self) -> Result<Vec<(String, Vec<u8>)>> {
        #[derive(serde::Deserialize)]
        struct Lives {
            ttl_ms: u64,
        }
        let entries = match fs::read_dir(self.census_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.io("cannot list the census of", &e)),
        };
        let now = SystemTime::now();
        let mut alive = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if id.starts_with('.') {
                continue; // a write in progress
            }
            let (Ok(bytes), Ok(modified)) = (fs::read(&path), entry.metadata().and_then(|m| m.modified())) else {
                continue; // gone since it was listed
            };
            let age = now.duration_since(modified).unwrap_or(Duration::ZERO);
            if let Ok(lives) = serde_json::from_slice::<Lives>(&bytes) {
                let ttl = Duration::from_millis(lives.ttl_ms);
                if age > ttl {
                    // Expired: its instance died without leaving. Long dead ones are removed.
                    if age > ttl.saturating_mul(10).max(Duration::from_secs(600)) {
                        let _ = fs::remove_file(&path);
                    }
                    continue;
                }
            }
            alive.push((id.to_owned(), bytes));
        }
        Ok(alive)
    }
}

/// How long a publisher waits for another one's lock.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// A publisher's exclusive lock: the file `.NAME.lock`, created only if it does not exist (an
/// atomic create on every file system keyroute supports) and removed when dropped. A publisher
/// that finds it waits up to [`LOCK_WAIT`]; a lock left by a publisher that died is reported,
/// never removed by another publisher (two of them removing it could both go on).
struct LockFile {
    path: PathBuf,
}

impl LockFile {
    fn acquire(path: PathBuf) -> Result<Self> {
        let deadline = Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_millis(1);
        loop {
            match File::options().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let _ = writeln!(file, "{}", std::process::id());
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(Error::new(
                        ErrorCode::Io,
                        format!(
                            "{} is held by another publisher after {} s; if no publisher is running, one died \
                             while publishing: remove the file",
                            path.display(),
                            LOCK_WAIT.as_secs()
                        ),
                    ));
                }
                Err(e) => return Err(Error::new(ErrorCode::Io, format!("cannot create {}: {e}", path.display()))),
            }
        }
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
