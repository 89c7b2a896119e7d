//! View sources: where a fleet's view document is stored, named by one URL on every surface
//! (`file:///etc/keyroute/cache.json` or a plain path, and `etcd://host:port/key`). A source stores documents, compares and swaps them by version, keeps a
//! history, and feeds a [`LiveView`] with every change it sees.

use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Refusal, Result, ViewDocument, ViewState};

use crate::census::Lease;
use crate::etcd::EtcdSource;
use crate::file::FileSource;

/// A stored view document, as a source holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The document's version.
    pub version: u64,
    /// The document as stored.
    pub bytes: Vec<u8>,
}

/// What a watch did with a change it saw.
#[derive(Debug, Clone)]
pub enum Event {
    /// A newer view was applied to the live view.
    Applied(Arc<ViewState>),
    /// A document was refused (or the source could not be read): the live view keeps the
    /// view it had.
    Refused(Refusal),
}

/// How a watch waits for changes.
#[derive(Debug, Clone, Copy)]
pub struct WatchOptions {
    /// How often the source is read again with no notification (the fallback when change
    /// notifications are not available, and a safety net when they are).
    pub poll_interval: Duration,
    /// After a notification, how long the source must stay quiet before it is read, so that a
    /// burst of writes is read once (at most ten times this in all).
    pub settle: Duration,
    /// Poll only, without change notifications.
    pub poll_only: bool,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self { poll_interval: Duration::from_secs(1), settle: Duration::from_millis(10), poll_only: false }
    }
}

/// Receives each [`Event`] of a watch, on the watch's thread.
pub type Sink = Box<dyn FnMut(&Event) + Send>;

/// A place view documents are stored.
pub trait Source: Send + Sync + Debug {
    /// The source's URL.
    fn url(&self) -> String;

    /// The current document, or `None` when the source holds none.
    ///
    /// # Errors
    /// `io` when it cannot be read.
    fn read(&self, limits: &Limits) -> Result<Option<Vec<u8>>>;

    /// Stores `view` (built already, so a source only ever holds documents that build) if the
    /// source's current version is `expect_version` (0 for a source that holds none): a
    /// compare-and-swap, so of two publishers that expect the same version exactly one wins.
    ///
    /// # Errors
    /// `version_conflict` when the source holds another version, `stale_version` when `view`
    /// is not newer than `expect_version`, `io`.
    fn publish(&self, view: &ViewState, expect_version: u64) -> Result<()>;

    /// The last versions published, newest first.
    ///
    /// # Errors
    /// `io`.
    fn history(&self) -> Result<Vec<Stored>>;

    /// Applies the current document to `view` now, then every change the source sees, in a
    /// thread of its own, until the returned [`Watch`] is stopped or dropped.
    ///
    /// # Errors
    /// `io` when the watch cannot start.
    fn watch(&self, view: Arc<LiveView>, options: WatchOptions, sink: Sink) -> Result<Watch>;

    /// When `version` was published (milliseconds since the Unix epoch, the publisher's
    /// clock), when the source knows (not for a document written by other means).
    ///
    /// # Errors
    /// `io`.
    fn published_at(&self, version: u64) -> Result<Option<u64>>;

    /// Writes the census entry of instance `id` (`entry`, JSON), held alive by `lease` (a new
    /// one, for `ttl`, when `None` or no longer valid), and returns the lease that holds it.
    ///
    /// # Errors
    /// `io`.
    fn census_put(&self, id: &str, entry: &[u8], lease: Option<Lease>, ttl: Duration) -> Result<Lease>;

    /// Keeps the entry of `id` alive for another `ttl`: `false` when the source no longer holds
    /// it (its lease expired, or it was removed), so it must be written again.
    ///
    /// # Errors
    /// `io`.
    fn census_keepalive(&self, id: &str, lease: Lease, ttl: Duration) -> Result<bool>;

    /// Removes the entry of `id` (and its lease).
    ///
    /// # Errors
    /// `io`.
    fn census_remove(&self, id: &str, lease: Option<Lease>) -> Result<()>;

    /// The census entries alive now, as (instance id, JSON entry).
    ///
    /// # Errors
    /// `io`.
    fn census_entries(&self) -> Result<Vec<(String, Vec<u8>)>>;
}

/// Opens the source named by `url`: `file:///abs/path` or a plain path (a file, or a
/// directory holding `view.json`), or `etcd://HOST:PORT/KEY` (one key of an etcd v3 cluster,
/// through its JSON gateway: [`EtcdSource`]).
///
/// # Errors
/// The longest a time option of a watch, a census or a status may be: a year.
pub const MAX_SECONDS: f64 = 86_400.0 * 365.0;

/// `value` seconds as a duration, for the time options every surface takes (a poll interval,
/// a census TTL, a status deadline): a finite number from `min` to [`MAX_SECONDS`].
///
/// # Errors
/// `invalid_parameter` naming `name` for any other number.
pub fn seconds(name: &str, value: f64, min: f64) -> Result<Duration> {
    if value.is_finite() && value >= min && value <= MAX_SECONDS {
        return Ok(Duration::from_secs_f64(value));
    }
    Err(Error::new(
        ErrorCode::InvalidParameter,
        format!("{name} must be a number of seconds from {min} to a year, not {value}"),
    ))
}

/// `unknown_source` for any other scheme, or a malformed URL of these.
pub fn open(url: &str) -> Result<Box<dyn Source>> {
    if let Some(path) = url.strip_prefix("file://") {
        if !path.starts_with('/') {
            return Err(Error::new(
                ErrorCode::UnknownSource,
                format!("{url}: a file URL names an absolute path (file:///etc/keyroute/view.json)"),
            ));
        }
        return Ok(Box::new(FileSource::new(PathBuf::from(path))));
    }
    if let Some(rest) = url.strip_prefix("etcd://") {
        let (endpoint, key) = rest.find('/').map_or((rest, ""), |at| rest.split_at(at));
        return Ok(Box::new(EtcdSource::new(endpoint, key)?));
    }
    if let Some((scheme, _)) = url.split_once("://") {
        return Err(Error::new(
            ErrorCode::UnknownSource,
            format!("{url}: no source for {scheme}:// (the sources are file://, plain paths and etcd://)"),
        ));
    }
    Ok(Box::new(FileSource::new(PathBuf::from(url))))
}

/// The view a source holds now, built (`None` when it holds none).
///
/// # Errors
/// As [`Source::read`], then any error of reading or building the document.
pub fn current(source: &dyn Source, limits: &Limits) -> Result<Option<ViewState>> {
    match source.read(limits)? {
        None => Ok(None),
        Some(bytes) => Ok(Some(ViewDocument::from_bytes(&bytes, limits)?.build(limits)?)),
    }
}

/// Builds `document` and publishes it to `source` if the source holds `expect_version`.
///
/// # Errors
/// Any error of [`ViewDocument::build`] (nothing is written), then as [`Source::publish`].
pub fn publish(
    source: &dyn Source,
    document: &ViewDocument,
    expect_version: u64,
    limits: &Limits,
) -> Result<ViewState> {
    let view = document.build(limits)?;
    source.publish(&view, expect_version)?;
    Ok(view)
}

/// A thread that runs until told to stop: its stop flag, the channel that interrupts its
/// waits, and its handle. Watches and census members are each one.
#[derive(Debug)]
pub(crate) struct Worker {
    stop: Arc<AtomicBool>,
    wake: Mutex<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// The worker running `thread`, which ends when `stop` is set (`wake` interrupts its wait).
    pub(crate) fn new(stop: Arc<AtomicBool>, wake: Sender<()>, thread: JoinHandle<()>) -> Self {
        Self { stop, wake: Mutex::new(wake), thread: Some(thread) }
    }

    /// Interrupts the thread's wait.
    pub(crate) fn wake(&self) {
        if let Ok(wake) = self.wake.lock() {
            let _ = wake.send(());
        }
    }

    /// Stops the thread and waits for it to end; false when it had ended already.
    pub(crate) fn end(&mut self) -> bool {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
        match self.thread.take() {
            Some(thread) => {
                let _ = thread.join();
                true
            }
            None => false,
        }
    }
}

/// A running watch: stopped (and its thread joined) by [`Watch::stop`] or on drop.
#[derive(Debug)]
pub struct Watch {
    worker: Worker,
}

impl Watch {
    /// A watch run by `thread`, which ends when `stop` is set (`wake` interrupts its wait).
    pub(crate) fn new(stop: Arc<AtomicBool>, wake: Sender<()>, thread: JoinHandle<()>) -> Self {
        Self { worker: Worker::new(stop, wake, thread) }
    }

    /// Stops the watch and waits for its thread to end.
    pub fn stop(mut self) {
        self.worker.end();
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.worker.end();
    }
}

/// What every watch does with what it reads: applies a changed document to the live view and
/// reports the outcome once per change. A document read again unchanged is no event, nor is
/// the document applied last coming back after a gap; a missing or unreadable source is one
/// refusal until what is read changes again.
pub(crate) struct Applier {
    view: Arc<LiveView>,
    sink: Sink,
    /// What the last read gave: XXH3-64 of the bytes, or of the error's message.
    last: Option<Read>,
    /// XXH3-64 of the document applied last.
    applied: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    Document(u64),
    Missing,
    Failed(u64),
}

impl Applier {
    pub(crate) fn new(view: Arc<LiveView>, sink: Sink) -> Self {
        Self { view, sink, last: None, applied: None }
    }

    /// Offers what a read of the source gave.
    pub(crate) fn offer(&mut self, read: Result<Option<Vec<u8>>>) {
        let hash = keyroute_bindings::core::hash::xxh3_64;
        let seen = match &read {
            Ok(Some(bytes)) => Read::Document(hash(bytes)),
            Ok(None) => Read::Missing,
            Err(e) => Read::Failed(hash(e.message().as_bytes())),
        };
        if self.last == Some(seen) {
            return;
        }
        self.last = Some(seen);
        let refused = match read {
            Ok(Some(bytes)) => {
                let Read::Document(h) = seen else { return };
                if self.applied == Some(h) {
                    return;
                }
                match self.view.publish_bytes(&bytes) {
                    Ok(view) => {
                        self.applied = Some(h);
                        (self.sink)(&Event::Applied(view));
                        return;
                    }
                    Err(e) => e,
                }
            }
            Ok(None) => self.view.refuse(None, Error::new(ErrorCode::Io, "the source holds no view document")),
            Err(e) => self.view.refuse(None, e),
        };
        let refusal = self.view.last_refusal().unwrap_or(Refusal {
            version: None,
            code: refused.code(),
            message: refused.message().to_owned(),
            at: std::time::SystemTime::now(),
        });
        (self.sink)(&Event::Refused(refusal));
    }
}

/// Waits until no notification has come for `quiet`, for at most ten times `quiet`.
pub(crate) fn settle(rx: &std::sync::mpsc::Receiver<()>, quiet: Duration) {
    let until = std::time::Instant::now() + quiet * 10;
    while std::time::Instant::now() < until && rx.recv_timeout(quiet).is_ok() {}
}

/// A publish's checks, the same for every source: the source must hold `expected` (else
/// `version_conflict`), and `new` must be newer than what it holds (else `stale_version`).
pub(crate) fn check_versions(stored: u64, expected: u64, new: u64) -> Result<()> {
    if stored != expected {
        return Err(Error::new(
            ErrorCode::VersionConflict,
            format!(
                "the source holds version {stored}, not the expected {expected}: another publisher got there first \
                 (read it with `keyroute view show`, then publish again expecting {stored})"
            ),
        ));
    }
    if new <= stored {
        return Err(Error::new(
            ErrorCode::StaleVersion,
            format!("version {new} is not newer than version {stored} in the source"),
        ));
    }
    Ok(())
}
