//! A live view watching a source, and waits for the events of its watch: for the source tests
//! (fleet/tests/file_source.rs, fleet/tests/etcd_source.rs). Every wait is for an event, with
//! a generous timeout; nothing asserts a duration.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use keyroute_bindings::LiveView;
use keyroute_fleet::Watch;
use keyroute_fleet::source::{Event, Source, WatchOptions};

/// How long a test waits for an event.
pub const WAIT: Duration = Duration::from_secs(60);

/// A live view watching `source`, and the events of its watch.
pub fn watch(source: &dyn Source, options: WatchOptions) -> (Arc<LiveView>, Watch, Receiver<Event>) {
    let view = Arc::new(LiveView::default());
    let (tx, rx) = mpsc::channel();
    let watch = source
        .watch(
            Arc::clone(&view),
            options,
            Box::new(move |e| {
                let _ = tx.send(e.clone());
            }),
        )
        .unwrap();
    (view, watch, rx)
}

/// Waits for an event `want` accepts, returning the events seen until then (it included).
pub fn wait_for(rx: &Receiver<Event>, what: &str, want: impl Fn(&Event) -> bool) -> Vec<Event> {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = rx.recv_timeout(left).unwrap_or_else(|_| panic!("no event {what} within {WAIT:?}; saw {seen:?}"));
        let done = want(&event);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

/// Accepts the event of version `version` applied.
pub fn applied(version: u64) -> impl Fn(&Event) -> bool {
    move |e| matches!(e, Event::Applied(v) if v.version() == version)
}
