//! The CLI's errors: a kind from the bindings' one error table and a message, printed as one
//! line. Every one exits with status 2.

use std::fmt;
use std::io;

use keyroute_bindings::{Error, ErrorCode};

/// What went wrong.
#[derive(Debug)]
pub enum Kind {
    /// A kind from the error table, with its stable code.
    Code(ErrorCode),
    /// The reader of our output went away (`keyroute route … | head`): not an error.
    BrokenPipe,
    /// A check found what it looks for (`keyroute conformance`: answers that differ from the
    /// vectors): exit status 1, not an error of the command.
    Mismatch,
}

/// An error with its context, ready for one line on stderr.
#[derive(Debug)]
pub struct CliError {
    kind: Kind,
    message: String,
}

impl CliError {
    /// An error of a table kind.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { kind: Kind::Code(code), message: one_line(&message.into()) }
    }

    /// An I/O error while doing `what`.
    pub fn io(what: impl fmt::Display, e: &io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Self { kind: Kind::BrokenPipe, message: String::new() };
        }
        Self::new(ErrorCode::Io, format!("{what}: {e}"))
    }

    /// A bindings error, with what it was about (a file name, a line).
    pub fn from_bindings(context: impl fmt::Display, e: &Error) -> Self {
        Self::new(e.code(), format!("{context}: {}", e.message()))
    }

    /// A check's finding (exit status 1).
    pub fn mismatch(message: impl Into<String>) -> Self {
        Self { kind: Kind::Mismatch, message: one_line(&message.into()) }
    }

    /// The kind.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Code(c) => write!(f, "error {} (code {}): {}", c.name(), c.code(), self.message),
            Kind::BrokenPipe => write!(f, "broken pipe"),
            Kind::Mismatch => write!(f, "{}", self.message),
        }
    }
}

/// Writes to stdout fail only when its reader is gone or the disk is full.
impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        Self::io("writing the output", &e)
    }
}

/// Messages from parsers can span lines (TOML prints a snippet): keep one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Result with [`CliError`].
pub type Result<T, E = CliError> = std::result::Result<T, E>;
