//! keyroute across a fleet: the servers a topology routes to, and the stores it is read from.
//!
//! The core and the WebAssembly build never depend on this crate: it needs `std`, sockets and
//! files. The CLI, Python and Node do.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

pub mod file;
pub mod source;

pub use file::FileSource;
pub use source::{Event, Source, Stored, Watch, WatchOptions};
