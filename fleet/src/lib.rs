//! keyroute across a fleet: the servers a topology routes to, and the stores it is read from.
//!
//! The core and the WebAssembly build never depend on this crate: it needs `std`, sockets and
//! files. The CLI, Python and Node do.
//!
//! Audit and migrate ([`audit`], [`migrate`]) work over memcached and Redis through [`Cache`],
//! with this crate's own clients of their protocols ([`memcached`], [`redis`]); node addresses
//! come from the spec or the operator ([`addr`]). Views come from a [`Source`] named by a URL
//! ([`source::open`]): [`FileSource`] is the file or directory one, [`EtcdSource`] one key of an
//! etcd cluster. The [`census`] says which instances route with which view.

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic))]

pub mod addr;
pub mod audit;
mod cache;
pub mod census;
pub mod etcd;
pub mod file;
pub mod memcached;
pub mod migrate;
pub mod redis;
pub mod source;

pub use cache::{Added, Backend, Cache, Encoding, Item, Listed};
pub use etcd::EtcdSource;
pub use file::FileSource;
pub use source::{Event, Source, Stored, Watch, WatchOptions};
