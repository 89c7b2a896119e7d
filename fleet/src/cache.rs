//! What audit and migrate need of a cache server, whichever kind it is ([`Cache`]), and the
//! connection every client of this crate shares ([`Conn`]: a buffered TCP stream with
//! timeouts, whose errors name the node).

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use keyroute_bindings::{Error, ErrorCode, Result};

use crate::addr::NodeAddr;

/// The kind of server a fleet runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// memcached 1.6 or later (meta commands, `lru_crawler metadump`).
    Memcached,
    /// Redis 2.8 or later (`SCAN`, `DUMP`/`RESTORE`; `MEMORY USAGE` from 4.0 for sizes).
    Redis,
}

impl Backend {
    /// The name the CLI takes (`memcached`, `redis`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Memcached => "memcached",
            Self::Redis => "redis",
        }
    }

    /// The backend called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Memcached, Self::Redis].into_iter().find(|b| b.name() == name)
    }

    /// The port a node listens on when its spec gives a host and no port.
    #[must_use]
    pub fn default_port(self) -> u16 {
        match self {
            Self::Memcached => 11211,
            Self::Redis => 6379,
        }
    }

    /// A connection to the node at `addr`.
    ///
    /// # Errors
    /// `io` naming the node when it cannot be reached.
    pub fn connect(self, addr: &NodeAddr) -> Result<Box<dyn Cache>> {
        Ok(match self {
            Self::Memcached => Box::new(crate::memcached::Memcached::connect(addr)?),
            Self::Redis => Box::new(crate::redis::Redis::connect(addr)?),
        })
    }
}

/// A key a server holds, as its listing gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The key's bytes.
    pub key: Vec<u8>,
    /// Bytes the server counts for it (memcached's item size; Redis's `MEMORY USAGE` when sizes
    /// were asked for), else 0.
    pub size: u64,
}

/// How an [`Item`]'s value is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// The value's own bytes: every memcached item, and Redis strings.
    Plain,
    /// A Redis `DUMP` payload (a key of any other type, with its checksum), which only
    /// `RESTORE` reads.
    Dump,
}

/// A value read for copying, with what must travel with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The value, held as [`Item::encoding`] says.
    pub value: Vec<u8>,
    /// Whether `value` is the value itself or a Redis `DUMP` payload.
    pub encoding: Encoding,
    /// Remaining time to live in milliseconds (memcached counts whole seconds); `None` when the
    /// key never expires. Never 0: a key with no time left is reported as absent.
    pub ttl_ms: Option<u64>,
    /// memcached's client flags (0 on Redis).
    pub flags: u32,
    /// memcached's CAS value when read (0 on Redis): a delete of the source copy checks it.
    pub cas: u64,
}

/// What adding a key to a server did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// The key was absent and now holds the copy.
    Stored,
    /// The key was there already (a client wrote it, or an earlier run copied it): left as is.
    Exists,
}

/// One cache server, as audit and migrate use it. Every batch method pipelines its batch:
/// all requests are written, then all replies read, so a batch costs one round trip.
pub trait Cache: Send {
    /// Every key the server holds now (expired keys it has not yet reclaimed left out), with
    /// sizes when `sizes` is set and the server can give them.
    ///
    /// # Errors
    /// `io` naming the node.
    fn list(&mut self, sizes: bool) -> Result<Vec<Listed>>;

    /// Reads each key with its remaining TTL and flags; `None` for a key that is absent or
    /// has no time left.
    ///
    /// # Errors
    /// `io` naming the node.
    fn fetch(&mut self, keys: &[&[u8]]) -> Result<Vec<Option<Item>>>;

    /// Adds each key only where it is absent, with the item's TTL and flags.
    ///
    /// # Errors
    /// `io` naming the node, also when the server refuses a value (too large).
    fn add(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<Added>>;

    /// Whether each key is present.
    ///
    /// # Errors
    /// `io` naming the node.
    fn exists(&mut self, keys: &[&[u8]]) -> Result<Vec<bool>>;

    /// Deletes each key if it still holds what was read (memcached compares the CAS value;
    /// Redis deletes unconditionally); true where a key was deleted.
    ///
    /// # Errors
    /// `io` naming the node.
    fn delete(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<bool>>;
}

/// The longest reply line read (a metadump line holds a key of up to 250 bytes, URI-encoded).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// The largest value read: memcached's largest item size (`-I 1024m`), and above Redis's 512 MB.
pub(crate) const MAX_VALUE: u64 = 1 << 30;

/// A buffered connection to one node, whose errors name it.
pub(crate) struct Conn {
    label: String,
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
    line: Vec<u8>,
}

impl Conn {
    /// Connects with a 5 s connect timeout and 60 s read and write timeouts.
    pub(crate) fn open(addr: &NodeAddr) -> Result<Self> {
        let label = addr.label();
        let fail = |e: std::io::Error| Error::new(ErrorCode::Io, format!("{label}: cannot connect: {e}"));
        let target = (addr.host.as_str(), addr.port)
            .to_socket_addrs()
            .map_err(fail)?
            .next()
            .ok_or_else(|| Error::new(ErrorCode::Io, format!("{label}: the host resolves to no address")))?;
        let stream = TcpStream::connect_timeout(&target, Duration::from_secs(5)).map_err(fail)?;
        let setup = |s: &TcpStream| -> std::io::Result<()> {
            s.set_nodelay(true)?;
            s.set_read_timeout(Some(Duration::from_secs(60)))?;
            s.set_write_timeout(Some(Duration::from_secs(60)))
        };
        setup(&stream).map_err(fail)?;
        let reader = BufReader::with_capacity(256 * 1024, stream.try_clone().map_err(fail)?);
        Ok(Self { label, reader, writer: BufWriter::with_capacity(256 * 1024, stream), line: Vec::new() })
    }

    /// An `io` error about this node.
    pub(crate) fn error(&self, what: impl std::fmt::Display) -> Error {
        Error::new(ErrorCode::Io, format!("{}: {what}", self.label))
    }

    /// Queues formatted text for the next [`Conn::flush`] (no allocation).
    pub(crate) fn write_fmt(&mut self, text: std::fmt::Arguments<'_>) -> Result<()> {
        self.writer.write_fmt(text).map_err(|e| self.error(format_args!("write failed: {e}")))
    }

    /// Queues bytes for the next [`Conn::flush`].
    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer.write_all(bytes).map_err(|e| self.error(format_args!("write failed: {e}")))
    }

    /// Sends what was queued.
    pub(crate) fn flush(&mut self) -> Result<()> {
        self.writer.flush().map_err(|e| self.error(format_args!("write failed: {e}")))
    }

    /// The next reply line, without its `\r\n`, at most [`MAX_LINE`] bytes.
    pub(crate) fn read_line(&mut self) -> Result<&[u8]> {
        self.line.clear();
        let got = (&mut self.reader)
            .take(MAX_LINE as u64 + 2)
            .read_until(b'\n', &mut self.line)
            .map_err(|e| Error::new(ErrorCode::Io, format!("{}: read failed: {e}", self.label)))?;
        if got == 0 {
            return Err(self.error("the server closed the connection"));
        }
        if self.line.last() != Some(&b'\n') {
            if got < MAX_LINE + 2 {
                return Err(self.error("the server closed the connection in the middle of a reply line"));
            }
            return Err(self.error(format_args!("a reply line longer than {MAX_LINE} bytes")));
        }
        self.line.pop();
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(&self.line)
    }

    /// Reads `len` bytes of data and the `\r\n` after them.
    pub(crate) fn read_data(&mut self, len: u64) -> Result<Vec<u8>> {
        if len > MAX_VALUE {
            return Err(self.error(format_args!("a value of {len} bytes, above the {MAX_VALUE}-byte limit")));
        }
        let mut data = Vec::new();
        let fail = |e: std::io::Error, label: &str| Error::new(ErrorCode::Io, format!("{label}: read failed: {e}"));
        let got = (&mut self.reader).take(len + 2).read_to_end(&mut data).map_err(|e| fail(e, &self.label))?;
        if got as u64 != len + 2 || !data.ends_with(b"\r\n") {
            return Err(self.error("a value cut short"));
        }
        data.truncate(data.len() - 2);
        Ok(data)
    }
}

/// An unsigned decimal number from ASCII digits.
pub(crate) fn number(text: &[u8]) -> Option<u64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// A signed decimal number from ASCII digits.
pub(crate) fn signed(text: &[u8]) -> Option<i64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write as _;
    use std::net::TcpListener;

    use super::*;

    /// A connection to a one-shot server on 127.0.0.1 that sends `reply`, then holds the
    /// connection open (so nothing ends a read but the reader's own limit) or, with `close`,
    /// closes it.
    pub(crate) fn hostile(reply: Vec<u8>, close: bool) -> Conn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let _ = s.write_all(&reply);
            if !close {
                std::thread::sleep(Duration::from_secs(30));
            }
        });
        Conn::open(&NodeAddr { id: "evil".into(), host: "127.0.0.1".into(), port }).unwrap()
    }

    #[test]
    fn a_reply_line_past_the_limit_is_an_io_error_naming_the_node() {
        let mut conn = hostile(vec![b'x'; MAX_LINE * 4], false);
        let e = conn.read_line().unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert!(e.message().contains("node evil") && e.message().contains("longer than 65536"), "{e}");
        // What was read is bounded by the limit, not by what the server sent (4 × the limit):
        // at most one doubling past the limit's MAX_LINE + 2 bytes, however the bytes arrived
        // (one read leaves an exact capacity, several a doubled one: 131,072 seen in CI).
        assert!(conn.line.capacity() <= 2 * (MAX_LINE + 2), "{}", conn.line.capacity());
    }

    #[test]
    fn a_claimed_value_length_past_the_limit_is_refused_before_reading() {
        let mut conn = hostile(b"abc\r\n".to_vec(), false);
        let e = conn.read_data(MAX_VALUE + 1).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert!(e.message().contains("above the 1073741824-byte limit"), "{e}");
        // The connection is untouched: the next reply is still there.
        assert_eq!(conn.read_line().unwrap(), b"abc");
        // A value the server cuts short is an error too, not a short value.
        let mut conn = hostile(b"ab".to_vec(), true);
        let e = conn.read_data(10).unwrap_err();
        assert!(e.message().contains("cut short"), "{e}");
        // A line cut off by the server closing says so (not that it was too long).
        let mut conn = hostile(b"VA 10".to_vec(), true);
        let e = conn.read_line().unwrap_err();
        assert!(e.message().contains("closed the connection in the middle of a reply line"), "{e}");
    }
}
