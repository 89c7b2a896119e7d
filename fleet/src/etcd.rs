//! The etcd source: `etcd://HOST:PORT/KEY`, the view document as the value of one key of an
//! etcd v3 cluster (`/keyroute/cache` for `etcd://10.0.0.5:2379/keyroute/cache`: the URL's path
//! is the key, its leading slash included, as etcdctl users write keys).
//!
//! etcd is reached through its JSON gateway (`POST /v3/kv/range`, `/v3/kv/txn`, `/v3/kv/deleterange`
//! and `/v3/watch`, keys and values in base64), which every etcd since 3.3 serves on its client
//! port, so no gRPC stack is needed. Plain HTTP only: point it at a client port on a trusted
//! network (or at an etcd gRPC proxy beside the process); TLS and authentication are not
//! supported yet.
//!
//! - **Publish** is a compare-and-swap twice over: the document's `version` must be the one the
//!   publisher expects (as for every source), and the key must not have changed since it was
//!   read (a transaction comparing its `mod_revision`, or that it does not exist), so of two
//!   publishers exactly one wins, whichever etcd member each talks to. The same transaction
//!   writes the history entry, `KEY/history/<version, 20 digits>`; the 20 newest are kept.
//! - **Watch** re-reads the key whenever etcd's watch stream for it sends anything (the stream is
//!   only a wake-up: every read goes through the same applier as the file source's, which
//!   ignores documents it has seen), and every `poll_interval` as a safety net; a broken stream
//!   is opened again after `poll_interval`. Stopping the watch shuts the stream's socket, so it
//!   never waits on a quiet etcd.
//! - **Census**: each registered instance's entry is `KEY/census/INSTANCE` under an etcd lease
//!   ([`crate::census`]); each publish also writes `KEY/published` (its version and time), so
//!   `fleet status` knows how long an instance has been behind.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use keyroute_bindings::{Error, ErrorCode, Limits, LiveView, Result, ViewState};
use serde_json::{Value, json};

use crate::census::Lease;
use crate::file::version_of;
use crate::source::{Applier, Sink, Source, Stored, Watch, WatchOptions, check_versions, settle};

/// How many published versions the history keeps.
const HISTORY: usize = 20;
/// How long one request may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(10);
/// What a response may hold besides the documents it carries (headers, revisions, names).
const OVERHEAD: u64 = 64 * 1024;

/// A view document stored under one etcd key.
#[derive(Debug, Clone)]
pub struct EtcdSource {
    /// `HOST:PORT` of a client URL.
    endpoint: String,
    /// The key, as given in the URL's path.
    key: String,
    agent: ureq::Agent,
}

/// A key's value and the revision it was last changed in.
struct Value64 {
    bytes: Vec<u8>,
    mod_revision: i64,
}

impl EtcdSource {
    /// The source for `etcd://{endpoint}{key}` (`endpoint` is `HOST:PORT`, `key` starts with
    /// `/`).
    ///
    /// # Errors
    /// `unknown_source` when the endpoint has no port or the key is empty.
    pub fn new(endpoint: &str, key: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::new(
                ErrorCode::UnknownSource,
                format!(
                    "etcd://{endpoint}{key}: {why} (etcd://HOST:PORT/KEY, such as etcd://127.0.0.1:2379/keyroute/cache)"
                ),
            )
        };
        match endpoint.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0) => {}
            _ => return Err(bad("the endpoint needs a host and a port")),
        }
        if key.len() < 2 || !key.starts_with('/') {
            return Err(bad("the URL names no key"));
        }
        let agent =
            ureq::Agent::config_builder().timeout_global(Some(TIMEOUT)).http_status_as_error(false).build().into();
        Ok(Self { endpoint: endpoint.to_owned(), key: key.to_owned(), agent })
    }

    /// The key holding the document.
    pub fn key(&self) -> &str {
        &self.key
    }

    fn io(&self, what: &str, detail: impl std::fmt::Display) -> Error {
        Error::new(ErrorCode::Io, format!("etcd at {} ({}): {what}: {detail}", self.endpoint, self.key))
    }

    /// One gateway call: POSTs `body` to `/v3/{path}` and returns the JSON answer (at most
    /// `limit` bytes).
    fn call(&self, path: &str, body: &Value, limit: u64) -> Result<Value> {
        let url = format!("http://{}/v3/{path}", self.endpoint);
        let mut response = self
            .agent
            .post(&url)
            .header("content-type", "application/json")
            .send(body.to_string())
            .map_err(|e| self.io(&format!("cannot reach {url}"), e))?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| self.io(&format!("cannot read the answer of {path}"), e))?;
        let answer: Value =
            serde_json::from_slice(&text).map_err(|e| self.io(&format!("{path} answered no JSON"), e))?;
        if !status.is_success() {
            let message = answer.get("message").and_then(Value::as_str).unwrap_or("no message");
            return Err(self.io(&format!("{path} failed with HTTP {}", status.as_u16()), message));
        }
        Ok(answer)
    }

    /// The key's value (None when the key does not exist) and the store's revision then.
    fn get(&self, limits: &Limits) -> Result<(Option<Value64>, i64)> {
        let limit = base64_len(limits.max_spec_bytes.saturating_add(1)).saturating_add(OVERHEAD);
        let answer = self.call("kv/range", &json!({ "key": encode(&self.key) }), limit)?;
        let revision = answer.pointer("/header/revision").and_then(number).unwrap_or(0);
        let Some(kv) = answer.get("kvs").and_then(Value::as_array).and_then(|kvs| kvs.first()) else {
            return Ok((None, revision));
        };
        let bytes = self.decode(kv.get("value"))?;
        let mod_revision =
            kv.get("mod_revision").and_then(number).ok_or_else(|| self.io("range", "no mod_revision"))?;
        Ok((Some(Value64 { bytes, mod_revision }), revision))
    }

    fn decode(&self, value: Option<&Value>) -> Result<Vec<u8>> {
        // An empty value comes without the field.
        let text = value.and_then(Value::as_str).unwrap_or("");
        BASE64.decode(text).map_err(|e| self.io("a value is not base64", e))
    }

    fn history_prefix(&self) -> String {
        format!("{}/history/", self.key)
    }

    fn census_prefix(&self) -> String {
        format!("{}/census/", self.key)
    }

    /// The key holding the last publish's version and time.
    fn published_key(&self) -> String {
        format!("{}/published", self.key)
    }

    /// A lease of `ttl` (whole seconds, rounded up).
    fn grant(&self, ttl: Duration) -> Result<Lease> {
        let seconds = ttl.as_millis().div_ceil(1000).max(1);
        let answer = self.call("lease/grant", &json!({ "TTL": seconds.to_string() }), OVERHEAD)?;
        answer.get("ID").and_then(number).map(Lease).ok_or_else(|| self.io("lease/grant", "no lease ID"))
    }

    fn put_entry(&self, id: &str, entry: &[u8], lease: Lease) -> Result<()> {
        let key = format!("{}{id}", self.census_prefix());
        let value = BASE64.encode(entry);
        self.call("kv/put", &json!({ "key": encode(&key), "value": value, "lease": lease.0.to_string() }), OVERHEAD)
            .map(drop)
    }

    /// `KEY/history/…` entries as (key, version), oldest first.
    fn history_keys(&self) -> Result<Vec<(String, u64)>> {
        let prefix = self.history_prefix();
        let answer = self.call(
            "kv/range",
            &json!({ "key": encode(&prefix), "range_end": encode(&prefix_end(&prefix)), "keys_only": true }),
            OVERHEAD.saturating_mul(4),
        )?;
        let mut keys = Vec::new();
        for kv in answer.get("kvs").and_then(Value::as_array).into_iter().flatten() {
            let key = String::from_utf8(self.decode(kv.get("key"))?).map_err(|e| self.io("a history key", e))?;
            if let Some(version) = key.strip_prefix(&prefix).and_then(|v| v.parse().ok()) {
                keys.push((key, version));
            }
        }
        keys.sort_by_key(|k| k.1);
        Ok(keys)
    }

    /// Opens the watch stream for the key: a socket on which etcd sends a JSON message for each
    /// change (and one when the watch is created).
    fn open_stream(&self) -> Result<TcpStream> {
        let address = self
            .endpoint
            .to_socket_addrs()
            .map_err(|e| self.io("cannot resolve the endpoint", e))?
            .next()
            .ok_or_else(|| self.io("cannot resolve the endpoint", "no address"))?;
        let mut stream =
            TcpStream::connect_timeout(&address, TIMEOUT).map_err(|e| self.io("cannot connect for a watch", e))?;
        let body = json!({ "create_request": { "key": encode(&self.key) } }).to_string();
        let request = format!(
            "POST /v3/watch HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.endpoint,
            body.len()
        );
        stream.write_all(request.as_bytes()).map_err(|e| self.io("cannot start a watch", e))?;
        Ok(stream)
    }
}

/// The watch stream's reader: sends a wake-up for everything etcd writes on it, and one when it
/// ends (etcd closed it, or the watch shut it).
fn read_stream(mut stream: TcpStream, wake: Sender<()>, ended: Arc<AtomicBool>) {
    let mut buf = [0u8; 8192];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if wake.send(()).is_err() {
                    break;
                }
            }
        }
    }
    ended.store(true, Ordering::SeqCst);
    let _ = wake.send(());
}

/// The running stream of a watch: its socket (to shut it) and its reader.
struct Stream {
    socket: TcpStream,
    ended: Arc<AtomicBool>,
    reader: JoinHandle<()>,
}

impl Stream {
    fn close(self) {
        let _ = self.socket.shutdown(Shutdown::Both);
        let _ = self.reader.join();
    }
}

impl Source for EtcdSource {
    fn url(&self) -> String {
        format!("etcd://{}{}", self.endpoint, self.key)
    }

    fn read(&self, limits: &Limits) -> Result<Option<Vec<u8>>> {
        Ok(self.get(limits)?.0.map(|v| v.bytes))
    }

    fn publish(&self, view: &ViewState, expect_version: u64) -> Result<()> {
        // The publisher reads what it replaces under the ceiling: a document built with raised
        // limits is still read whole.
        let (current, _) = self.get(&Limits::CEILING)?;
        let stored = match &current {
            None => 0,
            Some(v) => match version_of(&v.bytes) {
                Some(version) => version,
                // A value with no readable version (written by hand): the newest published
                // version is what a publisher expects to replace.
                None => self.history_keys()?.last().map_or(0, |k| k.1),
            },
        };
        check_versions(stored, expect_version, view.version())?;
        let document = encode(&view.document_json());
        // Unchanged since read: the same mod_revision, or still absent (created in no revision).
        let compare = match &current {
            Some(v) => {
                json!({ "target": "MOD", "key": encode(&self.key), "result": "EQUAL", "mod_revision": v.mod_revision.to_string() })
            }
            None => json!({ "target": "CREATE", "key": encode(&self.key), "result": "EQUAL", "create_revision": "0" }),
        };
        let history_key = format!("{}{:020}", self.history_prefix(), view.version());
        let published =
            json!({ "version": view.version(), "unix_ms": keyroute_bindings::view::now_unix_ms() }).to_string();
        let txn = json!({
            "compare": [compare],
            "success": [
                { "request_put": { "key": encode(&self.key), "value": document } },
                { "request_put": { "key": encode(&history_key), "value": document } },
                { "request_put": { "key": encode(&self.published_key()), "value": encode(&published) } },
            ],
        });
        let answer = self.call("kv/txn", &txn, OVERHEAD)?;
        if answer.get("succeeded").and_then(Value::as_bool) != Some(true) {
            return Err(Error::new(
                ErrorCode::VersionConflict,
                format!(
                    "{} changed while version {} was being published: another publisher got there first (read it with \
                     `keyroute view show`, then publish again)",
                    self.url(),
                    view.version()
                ),
            ));
        }
        // The oldest entries beyond the newest HISTORY go; a failure here leaves a longer history.
        if let Ok(keys) = self.history_keys() {
            for (key, _) in keys.iter().rev().skip(HISTORY) {
                let _ = self.call("kv/deleterange", &json!({ "key": encode(key) }), OVERHEAD);
            }
        }
        Ok(())
    }

    fn history(&self) -> Result<Vec<Stored>> {
        let prefix = self.history_prefix();
        let answer = self.call(
            "kv/range",
            &json!({ "key": encode(&prefix), "range_end": encode(&prefix_end(&prefix)) }),
            base64_len(Limits::CEILING.max_spec_bytes).saturating_add(OVERHEAD).saturating_mul(HISTORY as u64 + 1),
        )?;
        let mut stored = Vec::new();
        for kv in answer.get("kvs").and_then(Value::as_array).into_iter().flatten() {
            let key = String::from_utf8(self.decode(kv.get("key"))?).map_err(|e| self.io("a history key", e))?;
            if let Some(version) = key.strip_prefix(&prefix).and_then(|v| v.parse().ok()) {
                stored.push(Stored { version, bytes: self.decode(kv.get("value"))? });
            }
        }
        stored.sort_by_key(|s| std::cmp::Reverse(s.version));
        Ok(stored)
    }

    fn watch(&self, view: Arc<LiveView>, options: WatchOptions, sink: Sink) -> Result<Watch> {
        let (tx, rx) = mpsc::channel::<()>();
        let stop = Arc::new(AtomicBool::new(false));
        let source = self.clone();
        let stopped = Arc::clone(&stop);
        let wake = tx.clone();
        let limits = *view.limits();
        let thread = std::thread::Builder::new()
            .name("keyroute-etcd-watch".into())
            .spawn(move || {
                let mut applier = Applier::new(view, sink);
                let mut stream: Option<Stream> = None;
                while !stopped.load(Ordering::SeqCst) {
                    if stream.as_ref().is_some_and(|s| s.ended.load(Ordering::SeqCst))
                        && let Some(s) = stream.take()
                    {
                        s.close();
                    }
                    // The stream is opened before the read, so no change falls between them.
                    if stream.is_none() && !options.poll_only {
                        stream = source.open_stream().ok().and_then(|socket| {
                            let ended = Arc::new(AtomicBool::new(false));
                            let reader_socket = socket.try_clone().ok()?;
                            let (wake, done) = (wake.clone(), Arc::clone(&ended));
                            let reader = std::thread::Builder::new()
                                .name("keyroute-etcd-stream".into())
                                .spawn(move || read_stream(reader_socket, wake, done))
                                .ok()?;
                            Some(Stream { socket, ended, reader })
                        });
                    }
                    applier.offer(source.read(&limits));
                    match rx.recv_timeout(options.poll_interval) {
                        Ok(()) => settle(&rx, options.settle),
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(options.poll_interval),
                    }
                }
                if let Some(s) = stream.take() {
                    s.close();
                }
            })
            .map_err(|e| self.io("cannot start the watch", e))?;
        Ok(Watch::new(stop, tx, thread))
    }

    fn published_at(&self, version: u64) -> Result<Option<u64>> {
        #[derive(serde::Deserialize)]
        struct Published {
            version: u64,
            unix_ms: u64,
        }
        let answer = self.call("kv/range", &json!({ "key": encode(&self.published_key()) }), OVERHEAD)?;
        let Some(kv) = answer.get("kvs").and_then(Value::as_array).and_then(|kvs| kvs.first()) else {
            return Ok(None);
        };
        let published = serde_json::from_slice::<Published>(&self.decode(kv.get("value"))?).ok();
        Ok(published.filter(|p| p.version == version).map(|p| p.unix_ms))
    }

    fn census_put(&self, id: &str, entry: &[u8], lease: Option<Lease>, ttl: Duration) -> Result<Lease> {
        crate::census::check_id(id)?;
        if let Some(lease) = lease
            && self.put_entry(id, entry, lease).is_ok()
        {
            return Ok(lease);
        }
        // No lease yet, or it expired (etcd refuses a put under it): a new one.
        let lease = self.grant(ttl)?;
        self.put_entry(id, entry, lease)?;
        Ok(lease)
    }

    fn census_keepalive(&self, _id: &str, lease: Lease, _ttl: Duration) -> Result<bool> {
        let answer = self.call("lease/keepalive", &json!({ "ID": lease.0.to_string() }), OVERHEAD)?;
        // An expired lease is answered with no TTL (or 0).
        Ok(answer.pointer("/result/TTL").and_then(number).is_some_and(|ttl| ttl > 0))
    }

    fn census_remove(&self, id: &str, lease: Option<Lease>) -> Result<()> {
        crate::census::check_id(id)?;
        match lease {
            // Revoking the lease deletes the entry with it.
            Some(lease) => self.call("lease/revoke", &json!({ "ID": lease.0.to_string() }), OVERHEAD).map(drop),
            None => {
                let key = format!("{}{id}", self.census_prefix());
                self.call("kv/deleterange", &json!({ "key": encode(&key) }), OVERHEAD).map(drop)
            }
        }
    }

    fn census_entries(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let prefix = self.census_prefix();
        let answer = self.call(
            "kv/range",
            &json!({ "key": encode(&prefix), "range_end": encode(&prefix_end(&prefix)) }),
            OVERHEAD.saturating_mul(256),
        )?;
        let mut entries = Vec::new();
        for kv in answer.get("kvs").and_then(Value::as_array).into_iter().flatten() {
            let key = String::from_utf8(self.decode(kv.get("key"))?).map_err(|e| self.io("a census key", e))?;
            if let Some(id) = key.strip_prefix(&prefix) {
                entries.push((id.to_owned(), self.decode(kv.get("value"))?));
            }
        }
        Ok(entries)
    }
}

/// Base64 of `text`, as the gateway takes keys and values.
fn encode(text: &str) -> String {
    BASE64.encode(text.as_bytes())
}

/// The length of the base64 of `n` bytes.
fn base64_len(n: u64) -> u64 {
    n.div_ceil(3).saturating_mul(4)
}

/// The end of the key range that holds every key starting with `prefix` (its last byte plus one;
/// the prefixes here end in `/`, never in 0xff).
fn prefix_end(prefix: &str) -> String {
    let mut bytes = prefix.as_bytes().to_vec();
    if let Some(last) = bytes.last_mut() {
        *last = last.saturating_add(1);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A revision as the gateway writes it: a decimal string (int64 in JSON).
fn number(value: &Value) -> Option<i64> {
    value.as_str().and_then(|s| s.parse().ok()).or_else(|| value.as_i64())
}
