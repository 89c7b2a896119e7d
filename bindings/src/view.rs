//! Views: the topology a fleet routes with, as every instance holds it.
//!
//! A view is a spec with a version (a monotonic `u64` per source), its fingerprint and,
//! optionally, a rollout towards another spec, at a fixed progress or on a schedule (a start
//! time and a duration, so every instance moves on its own clock without a push per step). The
//! document every surface loads is described in `docs/views.md`:
//!
//! ```json
//! {"version": 8, "fingerprint": "3f0c2a9d81b7e645",
//!  "spec": {"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]},
//!  "rollout": {"to": {"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]},
//!              "progress": 0.25}}
//! ```
//!
//! [`LiveView`] is the live handle: lookups go through an atomically swapped pointer (no lock),
//! [`LiveView::publish`] builds a new version completely before it swaps it in, refuses a
//! version that is not newer than the one in effect, and keeps the last good view when a
//! document does not build, recording the refusal (a NACK, as Envoy's xDS does).

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use arc_swap::{ArcSwap, ArcSwapOption};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use web_time::{SystemTime, UNIX_EPOCH};

use crate::{Error, ErrorCode, Limits, MAX_VERSION, Placement, Result, Router, Spec, Transition};

/// A scheduled rollout's progress moves in this many equal steps over its duration, so every
/// instance whose clock reads the same millisecond routes with exactly the same progress.
pub const SCHEDULE_STEPS: u64 = 1000;

/// How far a rollout is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// A fixed progress in [0, 1], raised by publishing a new version.
    Fixed(f64),
    /// Progress that follows the wall clock: 0 before `start_unix_ms`, 1 from `start_unix_ms +
    /// duration_ms`, and in between `floor(SCHEDULE_STEPS · elapsed / duration) / SCHEDULE_STEPS`.
    Scheduled {
        /// When the rollout starts, in milliseconds since the Unix epoch.
        start_unix_ms: u64,
        /// How long it takes to reach progress 1, in milliseconds (at least 1).
        duration_ms: u64,
    },
}

impl Progress {
    /// The progress at `now_unix_ms`.
    #[must_use]
    pub fn at(&self, now_unix_ms: u64) -> f64 {
        match *self {
            Self::Fixed(p) => p,
            Self::Scheduled { .. } => self.step_at(now_unix_ms) as f64 / SCHEDULE_STEPS as f64,
        }
    }

    /// A scheduled rollout's step (0 to [`SCHEDULE_STEPS`]) at `now_unix_ms`.
    fn step_at(&self, now_unix_ms: u64) -> u64 {
        match *self {
            Self::Fixed(p) => (p * SCHEDULE_STEPS as f64).round() as u64,
            Self::Scheduled { start_unix_ms, duration_ms } => {
                let elapsed = u128::from(now_unix_ms.saturating_sub(start_unix_ms));
                let step = elapsed * u128::from(SCHEDULE_STEPS) / u128::from(duration_ms.max(1));
                u64::try_from(step.min(u128::from(SCHEDULE_STEPS))).unwrap_or(SCHEDULE_STEPS)
            }
        }
    }
}

/// A rollout from a view's spec towards `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollout {
    /// The spec the fleet moves to.
    pub to: Spec,
    /// How far it is.
    pub progress: Progress,
}

/// A view document, parsed and checked for shape (not yet built).
#[derive(Debug, Clone, PartialEq)]
pub struct ViewDocument {
    /// The view's version: 1 to 2^53 − 1, higher for every new view of a source.
    pub version: u64,
    /// The spec routed with (the rollout's starting point when there is one).
    pub spec: Spec,
    /// A rollout in progress.
    pub rollout: Option<Rollout>,
    /// The fingerprint the document claims, checked against what it builds to.
    pub fingerprint: Option<u64>,
}

/// The document as written, with the specs left as text so that they are read exactly as a
/// bare spec is (the same checks, in the same order, with the same codes).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDocument<'a> {
    version: u64,
    #[serde(default)]
    fingerprint: Option<String>,
    #[serde(borrow)]
    spec: &'a RawValue,
    #[serde(default, borrow)]
    rollout: Option<RawRollout<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRollout<'a> {
    #[serde(borrow)]
    to: &'a RawValue,
    #[serde(default)]
    progress: Option<f64>,
    #[serde(default)]
    schedule: Option<RawSchedule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    start_unix_ms: u64,
    duration_ms: u64,
}

impl ViewDocument {
    /// A plain view (no rollout) of `spec` at `version`.
    #[must_use]
    pub fn new(version: u64, spec: Spec) -> Self {
        Self { version, spec, rollout: None, fingerprint: None }
    }

    /// Parses a view document from JSON bytes under `limits`: its size, then UTF-8, then its
    /// syntax and shape, then each spec as [`Spec::from_bytes`] reads a bare spec (so a
    /// hostile spec gets the same code inside a document as alone).
    ///
    /// # Errors
    /// `spec_too_large`, `invalid_utf8`, `invalid_json`, `invalid_view` (a missing or unknown
    /// field, a version out of range, a rollout with neither or both of progress and schedule,
    /// a fingerprint that is not 16 lowercase hex digits), then any spec error (the message
    /// says which spec: `spec` or `rollout.to`).
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Self> {
        limits.check_spec_bytes(bytes.len(), "the view document")?;
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::new(ErrorCode::InvalidUtf8, format!("the view document is not UTF-8: {e}")))?;
        let raw: RawDocument<'_> = serde_json::from_str(text).map_err(|e| {
            let code = if e.is_data() { ErrorCode::InvalidView } else { ErrorCode::InvalidJson };
            let at = if e.line() > 0 { format!("line {}, column {}: ", e.line(), e.column()) } else { String::new() };
            let full = e.to_string();
            let message = full.split(" at line ").next().unwrap_or(&full);
            Error::new(code, format!("{at}view document: {message}"))
        })?;
        if raw.version == 0 || raw.version > MAX_VERSION {
            return Err(Error::new(ErrorCode::InvalidView, "a view's version must be from 1 to 2^53 - 1"));
        }
        let spec = read_spec("spec", raw.spec, limits)?;
        let rollout = match raw.rollout {
            None => None,
            Some(r) => Some(Rollout {
                to: read_spec("rollout.to", r.to, limits)?,
                progress: progress(r.progress, r.schedule)?,
            }),
        };
        let fingerprint = raw.fingerprint.as_deref().map(parse_fingerprint).transpose()?;
        Ok(Self { version: raw.version, spec, rollout, fingerprint })
    }

    /// Parses a view document written in TOML (the same fields in TOML's syntax).
    ///
    /// # Errors
    /// `invalid_toml` with its line, then as [`ViewDocument::from_bytes`].
    #[cfg(feature = "files")]
    pub fn from_toml(bytes: &[u8], limits: &Limits) -> Result<Self> {
        let json = toml_to_json(bytes, limits)?;
        Self::from_bytes(json.as_bytes(), &Limits { max_spec_bytes: u64::MAX, ..*limits })
    }

    /// Builds the view: both routers, the transition of a rollout, the fingerprint (checked
    /// against the document's, when it has one).
    ///
    /// # Errors
    /// Any error of [`Router::from_spec_with`] for either spec (the message says which),
    /// `fingerprint_mismatch` when the document's fingerprint is not what it builds to.
    pub fn build(&self, limits: &Limits) -> Result<ViewState> {
        let end = |name: &str, spec: &Spec| {
            Router::from_spec_with(spec, limits).map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))
        };
        let from = end("spec", &self.spec)?;
        let routing = match &self.rollout {
            None => Routing::Plain(from),
            Some(rollout) => {
                let to = end("rollout.to", &rollout.to)?;
                let now = now_unix_ms();
                let at = rollout.progress.at(now);
                let transition = Transition::new(from, to, at)
                    .map_err(|e| Error::new(e.code(), format!("rollout: {}", e.message())))?;
                match rollout.progress {
                    Progress::Fixed(_) => Routing::Rollout(transition),
                    Progress::Scheduled { .. } => Routing::Scheduled {
                        progress: rollout.progress,
                        current: ArcSwap::from_pointee(transition.clone()),
                        base: transition,
                    },
                }
            }
        };
        let fingerprint = routing.fingerprint();
        if let Some(claimed) = self.fingerprint
            && claimed != fingerprint
        {
            return Err(Error::new(
                ErrorCode::FingerprintMismatch,
                format!("the document says fingerprint {claimed:016x} but its view builds to {fingerprint:016x}"),
            ));
        }
        Ok(ViewState {
            version: self.version,
            fingerprint,
            applied_at: SystemTime::now(),
            document: self.clone(),
            routing,
            derived: OnceLock::new(),
        })
    }
}

/// A view document written in TOML, as the JSON text of the same document (for a source that
/// stores TOML and hands JSON to [`LiveView::publish_bytes`]). The JSON may be a little longer
/// than the TOML, so it is read again without a size limit: the TOML's size was checked.
///
/// # Errors
/// `spec_too_large`, `invalid_utf8`, `invalid_toml` with its line.
#[cfg(feature = "files")]
pub fn toml_to_json(bytes: &[u8], limits: &Limits) -> Result<String> {
    crate::file::toml_to_json(bytes, limits, "the view document")
}

/// Reads one spec of a view document as a bare spec is read.
fn read_spec(name: &str, raw: &RawValue, limits: &Limits) -> Result<Spec> {
    Spec::from_bytes(raw.get().as_bytes(), limits).map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))
}

fn progress(progress: Option<f64>, schedule: Option<RawSchedule>) -> Result<Progress> {
    match (progress, schedule) {
        (Some(p), None) if (0.0..=1.0).contains(&p) => Ok(Progress::Fixed(p)),
        (Some(_), None) => Err(Error::new(ErrorCode::InvalidView, "rollout.progress must be within [0, 1]")),
        (None, Some(s)) if s.duration_ms == 0 || s.duration_ms > MAX_VERSION || s.start_unix_ms > MAX_VERSION => {
            Err(Error::new(
                ErrorCode::InvalidView,
                "rollout.schedule needs a duration_ms from 1 and a start_unix_ms, each at most 2^53 - 1",
            ))
        }
        (None, Some(s)) => Ok(Progress::Scheduled { start_unix_ms: s.start_unix_ms, duration_ms: s.duration_ms }),
        _ => Err(Error::new(
            ErrorCode::InvalidView,
            "a rollout has either a progress or a schedule, not both or neither",
        )),
    }
}

/// Reads a fingerprint's text form: exactly 16 lowercase hex digits.
///
/// # Errors
/// `invalid_view` for any other text.
pub fn parse_fingerprint(text: &str) -> Result<u64> {
    let ok = text.len() == 16 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    match u64::from_str_radix(text, 16) {
        Ok(v) if ok => Ok(v),
        _ => Err(Error::new(
            ErrorCode::InvalidView,
            format!("fingerprint {text:?} is not 16 lowercase hex digits (as keyroute writes them: 0badc0ffee15900d)"),
        )),
    }
}

/// A fingerprint's text form: 16 lowercase hex digits, the same on every surface.
#[must_use]
pub fn fingerprint_text(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}

/// Milliseconds since the Unix epoch now (0 for a clock set before 1970).
#[must_use]
pub fn now_unix_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What a built view routes with.
#[derive(Debug)]
enum Routing {
    Plain(Router),
    Rollout(Transition),
    /// A scheduled rollout: `base` gives the node list (the same at every progress), `current`
    /// the transition at the latest step a lookup has seen.
    Scheduled {
        progress: Progress,
        base: Transition,
        current: ArcSwap<Transition>,
    },
}

impl Routing {
    /// A plain view's fingerprint is its spec's ([`Router::fingerprint`]); a rollout's is
    /// XXH3-64 of `{"from":"<fp>","progress":P,"to":"<fp>"}` (or `"schedule":{…}` in place of
    /// the progress), keys sorted, no whitespace (`docs/views.md`).
    fn fingerprint(&self) -> u64 {
        let t = match self {
            Self::Plain(r) => return r.fingerprint(),
            Self::Rollout(t) | Self::Scheduled { base: t, .. } => t,
        };
        let mut doc = Map::new();
        doc.insert("from".into(), Value::String(fingerprint_text(t.from().fingerprint())));
        match self {
            Self::Scheduled { progress: Progress::Scheduled { start_unix_ms, duration_ms }, .. } => {
                let mut s = Map::new();
                s.insert("duration_ms".into(), Value::from(*duration_ms));
                s.insert("start_unix_ms".into(), Value::from(*start_unix_ms));
                doc.insert("schedule".into(), Value::Object(s));
            }
            _ => {
                doc.insert("progress".into(), Value::from(t.progress()));
            }
        }
        doc.insert("to".into(), Value::String(fingerprint_text(t.to().fingerprint())));
        keyroute::hash::xxh3_64(Value::Object(doc).to_string().as_bytes())
    }
}

/// A built view: what a [`LiveView`] routes with, immutable once applied (a scheduled rollout
/// moves its progress with the clock, never its node list).
#[derive(Debug)]
pub struct ViewState {
    version: u64,
    fingerprint: u64,
    applied_at: SystemTime,
    document: ViewDocument,
    routing: Routing,
    /// What a binding derives from this view, once ([`ViewState::derived`]).
    derived: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl ViewState {
    /// A binding's own data made from this view (Python's node id strings, say), made by the
    /// first call and then shared, so it lives and goes with the view and costs one atomic
    /// load to reach. Two threads that find it missing may both call `make`; one result is
    /// kept. `None` when data of another type was made first (one binding per live view).
    pub fn derived<T: Any + Send + Sync>(&self, make: impl FnOnce(&Self) -> T) -> Option<&T> {
        if self.derived.get().is_none() {
            // Made outside the cell, so no thread ever waits on another's `make` (which may
            // run code of the binding's runtime that waits on that thread in turn).
            let _ = self.derived.set(Box::new(make(self)));
        }
        self.derived.get()?.downcast_ref()
    }

    /// The owner of `key`, as an index into [`ViewState::node_id`]'s list (a plain view's
    /// nodes; during a rollout, the target's nodes in order, then the nodes only the start has).
    ///
    /// # Errors
    /// `invalid_key` for a key the view's routers cannot take.
    #[inline(always)]
    pub fn route(&self, key: &[u8]) -> Result<u32> {
        match &self.routing {
            Routing::Plain(r) => r.route(key),
            _ => self.route_changing(key),
        }
    }

    /// [`ViewState::route`] during a rollout, out of the plain view's way.
    #[inline(never)]
    fn route_changing(&self, key: &[u8]) -> Result<u32> {
        match &self.routing {
            Routing::Rollout(t) => t.route(key),
            _ => Ok(self.route_with_fallback(key)?.owner),
        }
    }

    /// The owner's id.
    ///
    /// # Errors
    /// As [`ViewState::route`].
    pub fn route_id(&self, key: &[u8]) -> Result<&str> {
        let i = self.route(key)?;
        self.node_id(i).ok_or_else(|| Error::new(ErrorCode::Internal, "route outside the node list"))
    }

    /// The owner and, during a rollout, the previous owner of a key that has cut over (read
    /// there on a miss).
    ///
    /// # Errors
    /// As [`ViewState::route`].
    pub fn route_with_fallback(&self, key: &[u8]) -> Result<Placement> {
        match &self.routing {
            Routing::Plain(r) => Ok(Placement { owner: r.route(key)?, previous: None }),
            Routing::Rollout(t) => t.route_with_fallback(key),
            Routing::Scheduled { progress, current, .. } => {
                let step = progress.step_at(now_unix_ms());
                let t = current.load();
                if Progress::Fixed(t.progress()).step_at(0) == step {
                    return t.route_with_fallback(key);
                }
                // The clock passed a step: the first lookup to see it builds that step's
                // transition (a copy of both routers) and shares it; lookups never wait.
                let next = t.with_progress(step as f64 / SCHEDULE_STEPS as f64)?;
                let placed = next.route_with_fallback(key);
                current.store(Arc::new(next));
                placed
            }
        }
    }

    /// The id of node `index`.
    #[must_use]
    pub fn node_id(&self, index: u32) -> Option<&str> {
        match &self.routing {
            Routing::Plain(r) => r.node_id(index),
            Routing::Rollout(t) | Routing::Scheduled { base: t, .. } => t.node_id(index),
        }
    }

    /// How many nodes [`ViewState::node_id`] names.
    #[must_use]
    pub fn node_count(&self) -> usize {
        match &self.routing {
            Routing::Plain(r) => r.len(),
            Routing::Rollout(t) | Routing::Scheduled { base: t, .. } => t.len(),
        }
    }

    /// The view's version.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The view's fingerprint (see `docs/views.md`); [`fingerprint_text`] gives its text.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// When this process applied the view.
    #[must_use]
    pub fn applied_at(&self) -> SystemTime {
        self.applied_at
    }

    /// The rollout's progress now, or `None` for a plain view.
    #[must_use]
    pub fn progress(&self) -> Option<f64> {
        self.document.rollout.as_ref().map(|r| r.progress.at(now_unix_ms()))
    }

    /// The document the view was built from.
    #[must_use]
    pub fn document(&self) -> &ViewDocument {
        &self.document
    }

    /// The plain view's router, or the rollout's starting router.
    #[must_use]
    pub fn router(&self) -> &Router {
        match &self.routing {
            Routing::Plain(r) => r,
            Routing::Rollout(t) | Routing::Scheduled { base: t, .. } => t.from(),
        }
    }

    /// The rollout's target router, if there is a rollout.
    #[must_use]
    pub fn rollout_target(&self) -> Option<&Router> {
        match &self.routing {
            Routing::Plain(_) => None,
            Routing::Rollout(t) | Routing::Scheduled { base: t, .. } => Some(t.to()),
        }
    }

    /// The view document as a source stores it: `version`, `fingerprint` (text), `spec` and
    /// `rollout`, keys sorted, no whitespace; [`ViewDocument::from_bytes`] reads it back to
    /// the same view.
    #[must_use]
    pub fn document_json(&self) -> String {
        let spec = |s: &Spec| serde_json::to_value(s).unwrap_or(Value::Null);
        let mut doc = Map::new();
        doc.insert("fingerprint".into(), Value::String(fingerprint_text(self.fingerprint)));
        if let Some(r) = &self.document.rollout {
            let mut rollout = Map::new();
            match r.progress {
                Progress::Fixed(p) => {
                    rollout.insert("progress".into(), Value::from(p));
                }
                Progress::Scheduled { start_unix_ms, duration_ms } => {
                    let mut s = Map::new();
                    s.insert("duration_ms".into(), Value::from(duration_ms));
                    s.insert("start_unix_ms".into(), Value::from(start_unix_ms));
                    rollout.insert("schedule".into(), Value::Object(s));
                }
            }
            rollout.insert("to".into(), spec(&r.to));
            doc.insert("rollout".into(), Value::Object(rollout));
        }
        doc.insert("spec".into(), spec(&self.document.spec));
        doc.insert("version".into(), Value::from(self.version));
        Value::Object(doc).to_string()
    }
}

/// A document a [`LiveView`] refused (a NACK): it keeps routing with the view it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The refused document's version, when it could be read.
    pub version: Option<u64>,
    /// Why, as a stable code.
    pub code: ErrorCode,
    /// Why, for people.
    pub message: String,
    /// When.
    pub at: SystemTime,
}

impl Refusal {
    /// The refusal as JSON: `{"at_unix_ms":…,"code":28,"error":"stale_version","message":…,"version":…}`.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut m = Map::new();
        m.insert("at_unix_ms".into(), Value::from(unix_ms(self.at)));
        m.insert("code".into(), Value::from(self.code.code()));
        m.insert("error".into(), Value::from(self.code.name()));
        m.insert("message".into(), Value::from(self.message.clone()));
        m.insert("version".into(), self.version.map_or(Value::Null, Value::from));
        Value::Object(m).to_string()
    }
}

/// Milliseconds since the Unix epoch of `t` (0 before it).
#[must_use]
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_millis().try_into().unwrap_or(u64::MAX)
}

/// The live handle: the view in effect, swapped atomically by [`LiveView::publish`].
///
/// Lookups ([`LiveView::with`], [`LiveView::route_id`], or a thread's [`ViewReader`], the
/// fastest) read one pointer without a lock and see a whole view, old or new, never a mix. Publishers take a lock among themselves only, so
/// that checking the version and swapping are one step.
#[derive(Debug)]
pub struct LiveView {
    current: ArcSwapOption<ViewState>,
    /// How many views have been applied, raised after each is in place ([`LiveView::generation`]).
    generation: AtomicU64,
    refusal: ArcSwapOption<Refusal>,
    refusals: AtomicU64,
    publishing: Mutex<()>,
    limits: Limits,
}

impl Default for LiveView {
    fn default() -> Self {
        Self::new(Limits::DEFAULT)
    }
}

impl LiveView {
    /// A handle with no view yet; specs are read and built under `limits`.
    #[must_use]
    pub fn new(limits: Limits) -> Self {
        Self {
            current: ArcSwapOption::empty(),
            generation: AtomicU64::new(0),
            refusal: ArcSwapOption::empty(),
            refusals: AtomicU64::new(0),
            publishing: Mutex::new(()),
            limits,
        }
    }

    /// The limits documents are read and built under.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Applies `document` if its version is newer than the one in effect and it builds;
    /// otherwise keeps the view in effect, records the refusal ([`LiveView::last_refusal`])
    /// and returns it as the error.
    ///
    /// # Errors
    /// `stale_version` for a version not above the one in effect; any error of
    /// [`ViewDocument::build`].
    pub fn publish(&self, document: &ViewDocument) -> Result<Arc<ViewState>> {
        let _publisher = self.publishing.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let result = self.check_version(document.version).and_then(|()| document.build(&self.limits));
        match result {
            Ok(state) => {
                let state = Arc::new(state);
                // Odd while the pointer is swapped, even again after: a reader that has seen
                // the new view (the swap releases, the load acquires) then reads an odd or a
                // newer generation, so it never goes back to a view it cached before.
                self.generation.fetch_add(1, Ordering::SeqCst);
                self.current.store(Some(Arc::clone(&state)));
                self.generation.fetch_add(1, Ordering::SeqCst);
                Ok(state)
            }
            Err(e) => Err(self.refuse(Some(document.version), e)),
        }
    }

    /// Parses a JSON document ([`ViewDocument::from_bytes`]) and publishes it; a document that does not parse is refused like one that does not build.
    ///
    /// # Errors
    /// Any error of parsing, then as [`LiveView::publish`].
    pub fn publish_bytes(&self, bytes: &[u8]) -> Result<Arc<ViewState>> {
        match ViewDocument::from_bytes(bytes, &self.limits) {
            Ok(doc) => self.publish(&doc),
            Err(e) => Err(self.refuse(peek_version(bytes), e)),
        }
    }

    /// Records a refusal that happened before a document could be published (a source that
    /// could not be read), and returns its error.
    pub fn refuse(&self, version: Option<u64>, error: Error) -> Error {
        let refusal =
            Refusal { version, code: error.code(), message: error.message().to_owned(), at: SystemTime::now() };
        self.refusal.store(Some(Arc::new(refusal)));
        self.refusals.fetch_add(1, Ordering::Relaxed);
        error
    }

    fn check_version(&self, version: u64) -> Result<()> {
        match self.current.load().as_ref() {
            Some(now) if version <= now.version => Err(Error::new(
                ErrorCode::StaleVersion,
                format!("version {version} is not newer than version {} in effect", now.version),
            )),
            _ => Ok(()),
        }
    }

    /// The view in effect, to route several keys with one view or to read its details.
    #[must_use]
    pub fn load(&self) -> Option<Arc<ViewState>> {
        self.current.load_full()
    }

    /// Calls `f` with the view in effect, without a lock or a reference count (the cheapest
    /// way to route one key).
    ///
    /// # Errors
    /// `no_view` before a first view is applied; what `f` returns.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&ViewState) -> Result<R>) -> Result<R> {
        match self.current.load().as_deref() {
            Some(view) => f(view),
            None => Err(no_view()),
        }
    }

    /// A reader for one thread, whose lookups cost one relaxed atomic load while the view
    /// stays the same ([`ViewReader`]).
    #[must_use]
    pub fn reader(&self) -> ViewReader<'_> {
        ViewReader { live: self, seen: Seen::NONE }
    }

    /// Twice the number of views this handle has applied, plus one while a publish swaps the
    /// pointer (0 before the first). A reader that reads an even generation `g` and then loads
    /// the view holds the view in effect for as long as the generation still reads `g`: one
    /// acquire load (a plain load on x86-64, `ldar` on aarch64) tells a cached view is
    /// current. An odd one means a swap is under way: the reader loads the pointer itself
    /// until the generation is even again. Never wraps.
    #[inline(always)]
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The owner's id of `key` in the view in effect.
    ///
    /// # Errors
    /// `no_view`, or as [`ViewState::route`].
    pub fn route_id(&self, key: &[u8]) -> Result<String> {
        self.with(|v| v.route_id(key).map(str::to_owned))
    }

    /// The version in effect (`None` before the first).
    #[must_use]
    pub fn version(&self) -> Option<u64> {
        self.current.load().as_ref().map(|v| v.version)
    }

    /// The last refusal, if any.
    #[must_use]
    pub fn last_refusal(&self) -> Option<Refusal> {
        self.refusal.load_full().map(|r| (*r).clone())
    }

    /// How many documents this handle has refused.
    #[must_use]
    pub fn refusals(&self) -> u64 {
        self.refusals.load(Ordering::Relaxed)
    }
}

/// The view a reader last loaded, and the generation it loaded it at.
#[derive(Debug)]
struct Seen {
    generation: u64,
    view: Option<Arc<ViewState>>,
}

impl Seen {
    /// Nothing seen yet: generation 0 has no view, as a new [`LiveView`].
    const NONE: Self = Self { generation: 0, view: None };

    /// A generation no live view reaches: what was loaded is used once and loaded again.
    const UNSEEN: u64 = u64::MAX;

    /// The view in effect of `live`: the one held while `live`'s generation has not moved.
    #[inline(always)]
    fn current(&mut self, live: &LiveView) -> Option<&Arc<ViewState>> {
        let now = live.generation();
        if now != self.generation {
            self.reload(live, now);
        }
        self.view.as_ref()
    }

    /// Loads the view in effect after reading generation `now` (so the view is that
    /// generation's or a newer one, and a newer one is seen as a change on the next call). An
    /// odd `now` (a swap under way) is not kept: the next call loads again, since a view loaded
    /// before the swap would otherwise be kept after another thread has seen the new one.
    #[cold]
    #[inline(never)]
    fn reload(&mut self, live: &LiveView, now: u64) {
        self.view = live.current.load_full();
        self.generation = if now.is_multiple_of(2) { now } else { Self::UNSEEN };
    }
}

/// One thread's reader of a [`LiveView`]: it keeps the view it last saw and checks with one
/// atomic load ([`LiveView::generation`]) whether a newer one was published, so a lookup
/// through it costs about what a lookup on the plain router does (`make bench-views`). It holds
/// the view it last saw until its next lookup, so a replaced view is freed by the last reader
/// to move on.
#[derive(Debug)]
pub struct ViewReader<'a> {
    live: &'a LiveView,
    seen: Seen,
}

impl ViewReader<'_> {
    /// Calls `f` with the view in effect.
    ///
    /// # Errors
    /// `no_view` before a first view is applied; what `f` returns.
    #[inline(always)]
    pub fn with<R>(&mut self, f: impl FnOnce(&ViewState) -> Result<R>) -> Result<R> {
        match self.seen.current(self.live) {
            Some(view) => f(view),
            None => Err(no_view()),
        }
    }

    /// The owner of `key` in the view in effect, as an index into that view's node list.
    ///
    /// # Errors
    /// `no_view`, or as [`ViewState::route`].
    #[inline(always)]
    pub fn route(&mut self, key: &[u8]) -> Result<u32> {
        self.with(|v| v.route(key))
    }
}

/// A [`ViewReader`] holding its own reference to the live view, for a reader that outlives any
/// borrow: the handle of a JavaScript object or of a C caller. One per thread, as a
/// `ViewReader`.
#[derive(Debug)]
pub struct OwnedViewReader {
    live: Arc<LiveView>,
    seen: Seen,
}

impl OwnedViewReader {
    /// A reader of `view`.
    #[must_use]
    pub fn new(view: Arc<LiveView>) -> Self {
        Self { live: view, seen: Seen::NONE }
    }

    /// Calls `f` with the view in effect.
    ///
    /// # Errors
    /// `no_view` before a first view is applied; what `f` returns.
    #[inline(always)]
    pub fn with<R>(&mut self, f: impl FnOnce(&ViewState) -> Result<R>) -> Result<R> {
        match self.seen.current(&self.live) {
            Some(view) => f(view),
            None => Err(no_view()),
        }
    }

    /// The view in effect (`None` before the first), and the generation of the live view it
    /// was current at (or one no live view reaches, when it was loaded during a swap): this
    /// reader holds that view until a call here finds another generation, so a caller may keep
    /// its address while [`LiveView::generation`] still reads the same.
    #[inline]
    pub fn current(&mut self) -> (u64, Option<&Arc<ViewState>>) {
        self.seen.current(&self.live);
        (self.seen.generation, self.seen.view.as_ref())
    }

    /// Whether this reader reads `view` (the same live view, not an equal one).
    #[must_use]
    pub fn reads(&self, view: &LiveView) -> bool {
        std::ptr::eq(Arc::as_ptr(&self.live), view)
    }
}

#[cold]
#[inline(never)]
fn no_view() -> Error {
    Error::new(ErrorCode::NoView, "no view applied yet")
}

/// The `version` of a document that may not parse as a whole, for the refusal's record.
fn peek_version(bytes: &[u8]) -> Option<u64> {
    #[derive(Deserialize)]
    struct Versioned {
        version: u64,
    }
    serde_json::from_slice::<Versioned>(bytes).ok().map(|v| v.version)
}

/// Loading the transition document ([`Transition::document_json`]).
impl Transition {
    /// Loads a transition document ([`Transition::document_json`]); each end's `fingerprint`
    /// and `version`, when present, must be what its spec builds to.
    ///
    /// # Errors
    /// `invalid_json`, `invalid_view` for a document of the wrong shape (a description without
    /// specs, from [`Transition::describe_json`], names the views but cannot build them), any
    /// spec error (naming the end), `fingerprint_mismatch`, `invalid_parameter` for progress.
    pub fn from_document(bytes: &[u8], limits: &Limits) -> Result<Self> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct End<'a> {
            #[serde(borrow)]
            spec: &'a RawValue,
            #[serde(default)]
            fingerprint: Option<String>,
            #[serde(default)]
            version: Option<u64>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Doc<'a> {
            #[serde(borrow)]
            from: End<'a>,
            #[serde(borrow)]
            to: End<'a>,
            progress: f64,
        }
        limits.check_spec_bytes(bytes.len(), "the transition document")?;
        let doc: Doc<'_> = serde_json::from_slice(bytes).map_err(|e| {
            let code = if e.is_data() { ErrorCode::InvalidView } else { ErrorCode::InvalidJson };
            Error::new(code, format!("transition document: {e}"))
        })?;
        let end = |name: &str, end: &End<'_>| -> Result<Router> {
            let router = Router::from_spec_with(&read_spec(name, end.spec, limits)?, limits)
                .map_err(|e| Error::new(e.code(), format!("{name}: {}", e.message())))?;
            if let Some(text) = &end.fingerprint
                && parse_fingerprint(text)? != router.fingerprint()
            {
                return Err(Error::new(
                    ErrorCode::FingerprintMismatch,
                    format!("{name}: fingerprint {text} but the spec builds to {:016x}", router.fingerprint()),
                ));
            }
            if end.version.is_some_and(|v| v != router.version()) {
                return Err(Error::new(ErrorCode::InvalidView, format!("{name}: version differs from its spec's")));
            }
            Ok(router)
        };
        Self::new(end("from", &doc.from)?, end("to", &doc.to)?, doc.progress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#;
    const B: &str = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#;

    fn doc(version: u64, spec: &str) -> String {
        format!(r#"{{"version":{version},"spec":{spec}}}"#)
    }

    #[test]
    fn publishes_newer_versions_and_refuses_older_ones() {
        let view = LiveView::default();
        assert_eq!(view.route_id(b"k").unwrap_err().code(), ErrorCode::NoView);
        let v1 = view.publish_bytes(doc(1, A).as_bytes()).unwrap();
        assert_eq!(v1.fingerprint(), Router::from_json(A).unwrap().fingerprint());
        assert_eq!(view.version(), Some(1));
        for stale in [1, 0] {
            let e = view.publish_bytes(doc(stale, B).as_bytes()).unwrap_err();
            assert!(matches!(e.code(), ErrorCode::StaleVersion | ErrorCode::InvalidView), "{e}");
        }
        assert_eq!(view.refusals(), 2);
        view.publish_bytes(doc(5, B).as_bytes()).unwrap();
        assert_eq!(view.version(), Some(5));
        let e = view.publish_bytes(doc(3, A).as_bytes()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::StaleVersion);
        let nack = view.last_refusal().unwrap();
        assert_eq!((nack.version, nack.code), (Some(3), ErrorCode::StaleVersion));
        assert!(nack.to_json().contains(r#""error":"stale_version""#), "{}", nack.to_json());
    }

    #[test]
    fn a_spec_that_fails_to_build_is_a_nack_and_the_last_good_view_stays() {
        let view = LiveView::default();
        view.publish_bytes(doc(1, A).as_bytes()).unwrap();
        let before = view.route_id(b"user:1").unwrap();
        let dup = r#"{"algorithm":"ring","nodes":[{"id":"a"},{"id":"a"}]}"#;
        let e = view.publish_bytes(doc(2, dup).as_bytes()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::DuplicateNodeId);
        assert!(e.message().starts_with("spec: "), "{}", e.message());
        let nack = view.last_refusal().unwrap();
        assert_eq!((nack.version, nack.code), (Some(2), ErrorCode::DuplicateNodeId));
        assert_eq!(view.version(), Some(1));
        assert_eq!(view.route_id(b"user:1").unwrap(), before);
        // A truncated document is refused with what it could tell.
        let e = view.publish_bytes(&doc(3, B).as_bytes()[..20]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidJson);
        // The next good one applies.
        view.publish_bytes(doc(3, B).as_bytes()).unwrap();
        assert_eq!(view.version(), Some(3));
    }

    #[test]
    fn documents_round_trip_with_their_fingerprint_text() {
        let limits = Limits::DEFAULT;
        let text = format!(r#"{{"version":4,"spec":{A},"rollout":{{"to":{B},"progress":0.25}}}}"#);
        let state = ViewDocument::from_bytes(text.as_bytes(), &limits).unwrap().build(&limits).unwrap();
        let written = state.document_json();
        let value: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(value["fingerprint"], fingerprint_text(state.fingerprint()));
        assert_eq!(value["fingerprint"].as_str().unwrap().len(), 16);
        let again = ViewDocument::from_bytes(written.as_bytes(), &limits).unwrap().build(&limits).unwrap();
        assert_eq!(again.fingerprint(), state.fingerprint());
        assert_eq!(again.progress(), Some(0.25));
        // A changed progress changes the fingerprint; a claimed fingerprint is checked.
        let other = written.replace("0.25", "0.5");
        let e = ViewDocument::from_bytes(other.as_bytes(), &limits).unwrap().build(&limits).unwrap_err();
        assert_eq!(e.code(), ErrorCode::FingerprintMismatch);
        for bad in ["ABCDEF0123456789", "abc", "0x0123456789abcd"] {
            let text = format!(r#"{{"version":1,"fingerprint":"{bad}","spec":{A}}}"#);
            assert_eq!(ViewDocument::from_bytes(text.as_bytes(), &limits).unwrap_err().code(), ErrorCode::InvalidView);
        }
        for bad in [
            format!(r#"{{"version":1,"spec":{A},"rollout":{{"to":{B}}}}}"#),
            format!(r#"{{"version":1,"spec":{A},"rollout":{{"to":{B},"progress":1.5}}}}"#),
            format!(r#"{{"version":1,"spec":{A},"extra":1}}"#),
            format!(r#"{{"spec":{A}}}"#),
        ] {
            assert_eq!(
                ViewDocument::from_bytes(bad.as_bytes(), &limits).unwrap_err().code(),
                ErrorCode::InvalidView,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_rollout_routes_as_the_transition_and_a_schedule_follows_the_clock() {
        let limits = Limits::DEFAULT;
        let t = Transition::from_json(A, B, 0.5).unwrap();
        let text = format!(r#"{{"version":2,"spec":{A},"rollout":{{"to":{B},"progress":0.5}}}}"#);
        let state = ViewDocument::from_bytes(text.as_bytes(), &limits).unwrap().build(&limits).unwrap();
        for i in 0..1000u32 {
            let key = format!("k{i}");
            assert_eq!(state.route_id(key.as_bytes()).unwrap(), t.route_id(key.as_bytes()).unwrap());
        }
        // A schedule that ended is progress 1; one that has not started is 0.
        let now = now_unix_ms();
        let ended = format!(
            r#"{{"version":3,"spec":{A},"rollout":{{"to":{B},"schedule":{{"start_unix_ms":{},"duration_ms":1000}}}}}}"#,
            now - 10_000
        );
        let future = ended.replace(&format!("{}", now - 10_000), &format!("{}", now + 3_600_000));
        let (a, b) = (Router::from_json(A).unwrap(), Router::from_json(B).unwrap());
        let ended = ViewDocument::from_bytes(ended.as_bytes(), &limits).unwrap().build(&limits).unwrap();
        let future = ViewDocument::from_bytes(future.as_bytes(), &limits).unwrap().build(&limits).unwrap();
        assert_eq!((ended.progress(), future.progress()), (Some(1.0), Some(0.0)));
        for i in 0..1000u32 {
            let key = format!("k{i}");
            assert_eq!(ended.route_id(key.as_bytes()).unwrap(), b.route_id(key.as_bytes()).unwrap());
            assert_eq!(future.route_id(key.as_bytes()).unwrap(), a.route_id(key.as_bytes()).unwrap());
        }
        let steps = Progress::Scheduled { start_unix_ms: 1_000, duration_ms: 10_000 };
        assert_eq!((steps.at(0), steps.at(6_000), steps.at(6_009), steps.at(99_999)), (0.0, 0.5, 0.5, 1.0));
    }

    #[test]
    fn transition_documents_load() {
        let limits = Limits::DEFAULT;
        let t = Transition::from_json(A, B, 0.25).unwrap();
        let back = Transition::from_document(t.document_json().as_bytes(), &limits).unwrap();
        assert_eq!((back.from_view(), back.to_view(), back.progress()), (t.from_view(), t.to_view(), 0.25));
        let e = Transition::from_document(t.describe_json().as_bytes(), &limits).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidView);
        assert!(e.message().contains("spec"), "{}", e.message());
    }

    /// The documents `docs/views.md` shows load, and build to the fingerprints they claim.
    #[test]
    fn the_documented_examples_load() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/views.md");
        let text = std::fs::read_to_string(path).unwrap();
        let blocks: Vec<&str> = text.split("```json\n").skip(1).filter_map(|b| b.split("```").next()).collect();
        assert_eq!(blocks.len(), 3, "{path}");
        let limits = Limits::DEFAULT;
        let claimed = ViewDocument::from_bytes(blocks[0].as_bytes(), &limits).unwrap();
        assert!(claimed.fingerprint.is_some());
        assert_eq!(claimed.build(&limits).unwrap().progress(), Some(0.5));
        let scheduled = ViewDocument::from_bytes(blocks[1].as_bytes(), &limits).unwrap();
        assert!(matches!(scheduled.rollout.unwrap().progress, Progress::Scheduled { duration_ms: 600_000, .. }));
        let t = Transition::from_document(blocks[2].as_bytes(), &limits).unwrap();
        assert_eq!((t.from_view().version, t.to_view().version, t.progress()), (7, 8, 0.25));
    }

    /// Readers route while a writer publishes a new version every round: every lookup sees one
    /// whole view, whose version and fingerprint agree with the nodes it routes to.
    #[test]
    fn lookups_racing_publishes_never_see_a_torn_view() {
        let specs: Vec<String> = (0..4)
            .map(|n| {
                let nodes: Vec<String> = (0..3 + n).map(|i| format!(r#"{{"id":"v{n}-{i}"}}"#)).collect();
                format!(r#"{{"algorithm":"ring","nodes":[{}]}}"#, nodes.join(","))
            })
            .collect();
        let view = Arc::new(LiveView::default());
        view.publish_bytes(doc(1, &specs[0]).as_bytes()).unwrap();
        let fingerprints: Vec<u64> = specs.iter().map(|s| Router::from_json(s).unwrap().fingerprint()).collect();
        let rounds = if cfg!(miri) { 20u64 } else { 400 };
        std::thread::scope(|s| {
            for thread in 0..4 {
                let (view, fingerprints) = (Arc::clone(&view), &fingerprints);
                s.spawn(move || {
                    let mut last = 0;
                    // Each thread reads through a reader of its own and through `with` in
                    // turn: what one way has seen, the other never goes back from.
                    let mut reader = view.reader();
                    for i in 0..20_000u32 {
                        let check = |v: &ViewState| {
                            let n = fingerprints.iter().position(|f| *f == v.fingerprint()).unwrap();
                            let id = v.route_id(&i.to_le_bytes())?;
                            assert!(id.starts_with(&format!("v{n}-")), "{id} in view {n}");
                            assert!(v.version() >= last, "versions went back");
                            last = v.version();
                            Ok(())
                        };
                        if (thread + i as usize).is_multiple_of(2) { reader.with(check) } else { view.with(check) }
                            .unwrap();
                    }
                });
            }
            for version in 2..rounds {
                let spec = &specs[(version % 4) as usize];
                view.publish_bytes(doc(version, spec).as_bytes()).unwrap();
            }
        });
    }
}
