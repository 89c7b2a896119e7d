//! keyroute across a fleet: the servers a topology routes to, and the stores it is read from.
//!
//! The core and the WebAssembly build never depend on this crate: it needs `std`, sockets and
//! files. The CLI, Python and Node do.
