//! Views' sources in Node.js (the addon only; the WebAssembly build has no files or sockets):
//! `watchSource`, `publishView` and `fleetStatus`, each done by `keyroute-fleet` on a thread of
//! libuv's pool (a watch's start reads the source and may join its census over the network)
//! and settled as a promise. A watch then runs on a thread of its own, feeding the live view;
//! `NativeWatch.stop()` ends it (and leaves the census), also off the event loop.
//!
//! A promise always resolves: to the result, or to an `Error` carrying `code` and `errno`
//! (`error::value`), which the JavaScript layer throws as its `KeyrouteError` class. Errors made
//! on the pool thread thus reach JavaScript typed, as every other error does.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use keyroute_bindings::{Error, ErrorCode, Limits, ViewDocument};
use keyroute_fleet::census::{self, Instance, Member};
use keyroute_fleet::source::{self, Source, WatchOptions};
use napi::Task;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::host::Napi;
use crate::{NativeLiveView, error};
use keyroute_js::Host as _;

/// Work for libuv's pool: `work` runs there; its result, or its error as a value, is what the
/// promise resolves to.
pub struct Blocking<T: ToNapiValue + Send + 'static> {
    work: Option<Box<dyn FnOnce() -> keyroute_bindings::Result<T> + Send>>,
}

impl<T: ToNapiValue + Send + 'static> Blocking<T> {
    fn task(work: impl FnOnce() -> keyroute_bindings::Result<T> + Send + 'static) -> AsyncTask<Self> {
        AsyncTask::new(Self { work: Some(Box::new(work)) })
    }
}

impl<T: ToNapiValue + Send + 'static> Task for Blocking<T> {
    type Output = keyroute_bindings::Result<T>;
    type JsValue = Unknown<'static>;

    fn compute(&mut self) -> Result<Self::Output> {
        let Some(work) = self.work.take() else {
            return Ok(Err(Error::new(ErrorCode::Internal, "a task ran twice")));
        };
        Ok(catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|_| Err(Error::new(ErrorCode::Internal, "a bug in keyroute (a panic); please report it"))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        let value = match output {
            // SAFETY: a live env (this callback's).
            Ok(value) => unsafe { T::to_napi_value(env.raw(), value)? },
            Err(e) => error::value(&env, &e)?,
        };
        // SAFETY: a value just made in this env.
        Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
    }
}

/// A running watch of a source.
#[napi]
pub struct NativeWatch {
    watch: Arc<Mutex<Option<keyroute_fleet::Watch>>>,
    url: String,
    instance: Option<String>,
}

#[napi]
impl NativeWatch {
    /// Stops the watch (and leaves the census); the live view keeps the view it has. Resolves
    /// once the watch's thread has ended; stopping twice is harmless.
    #[napi(catch_unwind)]
    pub fn stop(&self) -> AsyncTask<Blocking<bool>> {
        let watch = self.watch.lock().ok().and_then(|mut w| w.take());
        Blocking::task(move || {
            let stopped = watch.is_some();
            if let Some(watch) = watch {
                watch.stop();
            }
            Ok(stopped)
        })
    }

    /// Whether the watch runs.
    #[napi(getter, catch_unwind)]
    pub fn running(&self) -> bool {
        self.watch.lock().is_ok_and(|w| w.is_some())
    }

    /// The source's URL, as the source names itself.
    #[napi(getter, catch_unwind)]
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The id the watch registered in the census as, or null.
    #[napi(getter, catch_unwind)]
    pub fn instance(&self) -> Option<String> {
        self.instance.clone()
    }
}

/// A watch collected without `stop()` is ended on a thread of its own: ending it leaves the
/// census, a request that may wait on an unreachable etcd, and the garbage collector runs this on
/// the JavaScript thread.
impl Drop for NativeWatch {
    fn drop(&mut self) {
        let Some(watch) = self.watch.lock().ok().and_then(|mut w| w.take()) else { return };
        let ender = std::thread::Builder::new().name("keyroute-watch-end".into());
        // Without a thread, the watch ends here.
        let _ = ender.spawn(move || watch.stop());
    }
}

fn seconds(h: &Napi<'_>, name: &str, value: f64, min: f64) -> Result<Duration> {
    h.check(source::seconds(name, value, min))
}

fn open(url: &str) -> keyroute_bindings::Result<Arc<dyn Source>> {
    source::open(url).map(Arc::from)
}

/// Starts a watch of the source `url` feeding `view`: the current document, then each change,
/// seen at once where the source notifies and at the latest every `pollInterval` seconds. With
/// `census` (`null`: the default, on for an etcd source) it registers in the source's census as
/// `instance` (`null`: `HOST-PID`), its entry outliving it by `censusTtl` seconds. Resolves to
/// the `NativeWatch`.
#[napi(js_name = "watchSource", catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn watch_source(
    env: Env,
    url: String,
    view: &NativeLiveView,
    poll_interval: f64,
    poll_only: bool,
    census: Option<bool>,
    instance: Option<String>,
    census_ttl: f64,
) -> Result<AsyncTask<Blocking<NativeWatch>>> {
    let h = Napi(&env);
    let poll_interval = seconds(&h, "pollInterval", poll_interval, 0.01)?;
    let ttl = seconds(&h, "censusTtl", census_ttl, census::MIN_TTL.as_secs_f64())?;
    let register = census.unwrap_or_else(|| url.starts_with("etcd://"));
    let instance = match (register, instance) {
        (false, _) => None,
        (true, Some(id)) => Some(h.check(Instance::new(&id, "node"))?),
        (true, None) => Some(Instance::this_process("node")),
    };
    let live = Arc::clone(&view.inner.view);
    Ok(Blocking::task(move || {
        let source = open(&url)?;
        let options = WatchOptions { poll_interval, poll_only, ..WatchOptions::default() };
        let mut sink: source::Sink = Box::new(|_| {});
        if let Some(instance) = &instance {
            let member = Member::join(Arc::clone(&source), instance, ttl)?;
            sink = census::recording(Arc::new(member), Arc::clone(&live), sink);
        }
        let url = source.url();
        let watch = source.watch(live, options, sink)?;
        Ok(NativeWatch { watch: Arc::new(Mutex::new(Some(watch))), url, instance: instance.map(|i| i.id) })
    }))
}

/// Publishes a view document (JSON text, or its bytes) to the source `url` if it holds
/// `expectVersion` (0 for none), a compare-and-swap as `keyroute view publish` does; the
/// document is built first, and nothing is written when it does not build. Resolves to the
/// version published.
#[napi(js_name = "publishView", catch_unwind)]
pub fn publish_view(
    env: Env,
    url: String,
    document: Unknown<'_>,
    expect_version: f64,
    limits: Unknown<'_>,
) -> Result<AsyncTask<Blocking<f64>>> {
    let h = Napi(&env);
    let bytes = match h.with_bytes(&document, <[u8]>::to_vec)? {
        Some(bytes) => bytes,
        None => h.text(&document, "a view document")?.into_bytes(),
    };
    let limits = h.limits(&limits)?;
    if !(expect_version >= 0.0
        && expect_version.fract() == 0.0
        && expect_version <= keyroute_bindings::MAX_VERSION as f64)
    {
        return Err(
            h.fail(ErrorCode::InvalidParameter, format!("expectVersion must be an integer ≥ 0, not {expect_version}"))
        );
    }
    let expect = expect_version as u64;
    Ok(Blocking::task(move || {
        let source = open(&url)?;
        let document = ViewDocument::from_bytes(&bytes, &limits)?;
        source::publish(source.as_ref(), &document, expect, &limits).map(|v| v.version() as f64)
    }))
}

/// The census of the source `url` against its view, as JSON (`keyroute fleet status --json`):
/// an instance behind for longer than `deadline` seconds is stale.
#[napi(js_name = "fleetStatus", catch_unwind)]
pub fn fleet_status(env: Env, url: String, deadline: f64, limits: Unknown<'_>) -> Result<AsyncTask<Blocking<String>>> {
    let h = Napi(&env);
    let deadline = seconds(&h, "deadline", deadline, 0.0)?;
    let limits: Limits = h.limits(&limits)?;
    Ok(Blocking::task(move || {
        let source = open(&url)?;
        let status = census::status(source.as_ref(), &limits, deadline, SystemTime::now())?;
        serde_json::to_string(&status).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
    }))
}
