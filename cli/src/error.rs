//! The CLI's errors: a kind from the bindings' one error table and a message, printed as one
//! line, and the exit status of each class of failure (the table in `keyroute --help`).

use std::fmt;
use std::io::{self, Write};

use keyroute_bindings::{Error, ErrorCategory, ErrorCode};

/// Exit status: the command did what was asked.
pub const EXIT_OK: u8 = 0;
/// Exit status: the command ran and found what it checks for (`plan --max-moved`: the change
/// moves more keys than allowed). The finding's line is printed on stderr before the report is
/// written to stdout, and the status stands when the reader of stdout stops early (`| head`).
pub const EXIT_FINDING: u8 = 1;
/// Exit status: the command line is wrong (clap's status for usage errors): an unknown option,
/// a missing argument, an option value out of its range.
pub const EXIT_USAGE: u8 = 2;
/// Exit status: the data is wrong: a spec, a key or a key stream the error table refuses.
pub const EXIT_DATA: u8 = 3;
/// Exit status: a file or stream could not be opened, read or written.
pub const EXIT_IO: u8 = 4;
/// Exit status: keyroute itself failed (a bug caught at the boundary, or out of memory).
pub const EXIT_INTERNAL: u8 = 5;

/// The exit status table, as `keyroute --help` and the README print it.
pub const EXIT_TABLE: &str = "\
Exit status:
  0  success
  1  a finding: the check a command was asked to make failed (plan --max-moved, a conformance mismatch)
  2  usage: unknown option, missing argument, option value out of range (clap's status)
  3  bad data: a spec, key or key stream refused, with its error code (invalid_json, …)
  4  I/O: a file or stream could not be opened, read or written (error io)
  5  internal: a bug caught before it could crash, or out of memory";

/// What went wrong.
#[derive(Debug)]
pub enum Kind {
    /// A kind from the error table, with its stable code.
    Code(ErrorCode),
    /// A check the command was asked to make failed (exit status 1): not an error kind.
    Finding,
    /// The reader of our output went away (`keyroute route … | head`): not an error.
    BrokenPipe,
}

/// An error with its context, ready for one line on stderr.
#[derive(Debug)]
pub struct CliError {
    kind: Kind,
    message: String,
    /// The error is about the command line, not the data (exit status 2).
    usage: bool,
    /// Its line is on stderr already ([`CliError::print_now`]).
    printed: bool,
}

impl CliError {
    /// An error of a table kind.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { kind: Kind::Code(code), message: one_line(&message.into()), usage: false, printed: false }
    }

    /// An error in the value of an option (exit status 2, like clap's usage errors).
    pub fn usage(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { usage: true, ..Self::new(code, message) }
    }

    /// A failed check (exit status 1).
    pub fn finding(message: impl Into<String>) -> Self {
        Self { kind: Kind::Finding, message: one_line(&message.into()), usage: false, printed: false }
    }

    /// An I/O error while doing `what`.
    pub fn io(what: impl fmt::Display, e: &io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Self { kind: Kind::BrokenPipe, message: String::new(), usage: false, printed: false };
        }
        Self::new(ErrorCode::Io, format!("{what}: {e}"))
    }

    /// A bindings error, with what it was about (a file name, a line).
    pub fn from_bindings(context: impl fmt::Display, e: &Error) -> Self {
        Self::new(e.code(), format!("{context}: {}", e.message()))
    }

    /// This error, as one about the command line (exit status 2).
    #[must_use]
    pub fn in_usage(self) -> Self {
        Self { usage: true, ..self }
    }

    /// Prints this error's line on stderr now (`keyroute: …`, as `main` prints an error), for an
    /// outcome settled before its report is written: the line then comes out whatever happens
    /// to stdout, and `main` does not print it again.
    #[must_use]
    pub fn print_now(self) -> Self {
        if self.exit_status() != EXIT_OK {
            let _ = writeln!(io::stderr().lock(), "keyroute: {self}");
        }
        Self { printed: true, ..self }
    }

    /// Whether the line is on stderr already.
    pub fn printed(&self) -> bool {
        self.printed
    }

    /// Whether this is the reader of stdout going away.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self.kind, Kind::BrokenPipe)
    }

    /// The exit status of this error (see [`EXIT_TABLE`]).
    pub fn exit_status(&self) -> u8 {
        match self.kind {
            Kind::BrokenPipe => EXIT_OK,
            Kind::Finding => EXIT_FINDING,
            Kind::Code(_) if self.usage => EXIT_USAGE,
            Kind::Code(code) => exit_status_of(code),
        }
    }
}

/// The result of a command whose `outcome` (a finding, or the error that stopped it) was settled,
/// and printed with [`CliError::print_now`], before its report was written (`written`). A reader
/// of stdout that went away early (`| head -1`) is its own choice and changes nothing: the
/// outcome's status stands, never 0 when a check failed. Another write failure (a full disk)
/// is reported as such.
pub fn settled(outcome: Option<CliError>, written: Result<()>) -> Result<()> {
    match (outcome, written) {
        (None, written) => written,
        (Some(outcome), Ok(())) => Err(outcome),
        (Some(outcome), Err(e)) if e.is_broken_pipe() => Err(outcome),
        (Some(_), Err(e)) => Err(e),
    }
}

/// The exit status of an error kind raised by data or the system (not by the command line).
pub fn exit_status_of(code: ErrorCode) -> u8 {
    match (code, code.category()) {
        (ErrorCode::InvalidArgument, _) => EXIT_USAGE,
        (_, ErrorCategory::Io) => EXIT_IO,
        (_, ErrorCategory::Internal | ErrorCategory::Memory) => EXIT_INTERNAL,
        _ => EXIT_DATA,
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Code(c) => write!(f, "error {} (code {}): {}", c.name(), c.code(), self.message),
            Kind::Finding => write!(f, "{}", self.message),
            Kind::BrokenPipe => write!(f, "broken pipe"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_kind_has_a_class() {
        for &code in ErrorCode::ALL {
            let status = exit_status_of(code);
            assert!((EXIT_USAGE..=EXIT_INTERNAL).contains(&status), "{code:?}");
            assert_eq!(CliError::new(code, "x").exit_status(), status);
            assert_eq!(CliError::usage(code, "x").exit_status(), EXIT_USAGE);
        }
        assert_eq!(exit_status_of(ErrorCode::Io), EXIT_IO);
        assert_eq!(exit_status_of(ErrorCode::InvalidJson), EXIT_DATA);
        assert_eq!(exit_status_of(ErrorCode::Internal), EXIT_INTERNAL);
        assert_eq!(CliError::finding("x").exit_status(), EXIT_FINDING);
        assert_eq!(CliError::io("x", &io::Error::from(io::ErrorKind::BrokenPipe)).exit_status(), EXIT_OK);
        let pipe = || CliError::io("x", &io::Error::from(io::ErrorKind::BrokenPipe));
        let disk = || CliError::io("x", &io::Error::from(io::ErrorKind::StorageFull));
        let finding = || Some(CliError::finding("x"));
        assert_eq!(settled(finding(), Err(pipe())).unwrap_err().exit_status(), EXIT_FINDING);
        assert_eq!(settled(finding(), Ok(())).unwrap_err().exit_status(), EXIT_FINDING);
        assert_eq!(settled(finding(), Err(disk())).unwrap_err().exit_status(), EXIT_IO);
        assert_eq!(settled(None, Err(pipe())).unwrap_err().exit_status(), EXIT_OK);
        assert!(settled(None, Ok(())).is_ok());
        for status in 0..=5 {
            assert!(EXIT_TABLE.contains(&format!("\n  {status}  ")), "{status}");
        }
    }
}
