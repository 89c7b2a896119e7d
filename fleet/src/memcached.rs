//! A memcached client for the meta protocol (memcached 1.6), written for what audit and
//! migrate need and nothing else:
//!
//! - `lru_crawler metadump hash`: every key, URI-encoded (`%XX` for bytes outside the safe
//!   set), with its absolute expiry and size, one `key=… exp=… … size=…` line each, then `END`;
//!   expired items are left out. memcached refuses it behind other pipelined commands, so it is
//!   sent alone. `hash` walks the hash table; `all` walks the LRUs and skips every item whose
//!   LRU bump is still queued (an item read in the last second or so, the keys a migration
//!   most wants), so `all` is used only where `hash` is unknown, twice (see `list`).
//! - `mg <key> v t f c`: the value (`VA <len> t<ttl> f<flags> c<cas>`), the remaining TTL in
//!   seconds (`t-1`: never expires), the client flags and the CAS value; `EN` when absent.
//! - `ms <key> <len> T<ttl> F<flags> ME`: add (mode `E`): `HD` when stored, `NS` when the key
//!   exists, which is never overwritten.
//! - `md <key> C<cas>`: delete only if the CAS value still matches (`HD`; `EX` or `NF` else).
//!
//! A key with a space or a control byte in it travels base64-encoded with the `b` flag, which
//! memcached decodes: the server stores the same bytes. memcached takes a key token of at most
//! 250 bytes, so such a key can be at most 186 bytes long; a longer one is an `io` error naming
//! it (other keys, UTF-8 text among them, are sent as they are, up to memcached's 250).
//!
//! memcached reads a TTL above 30 days as an absolute Unix time, so such a TTL is sent as
//! now + TTL (`ms … T0` would mean "never expires", which a copy must never turn a TTL into).

use std::time::{SystemTime, UNIX_EPOCH};

use keyroute_bindings::Result;

use crate::addr::NodeAddr;
use crate::cache::{Added, Cache, Conn, Encoding, Item, Listed, number, signed};

/// Requests per pipelined round. Each round is written whole before its replies are read,
/// which cannot stall: reads are small requests (only their replies carry values), and the
/// replies to writes are a few bytes each.
const ROUND: usize = 512;

/// memcached's limit on a relative TTL; larger values are absolute Unix times.
const RELATIVE_TTL_MAX: u64 = 30 * 24 * 3600;

/// One connection to a memcached server.
pub struct Memcached {
    conn: Conn,
}

impl Memcached {
    /// Connects to the node at `addr`.
    ///
    /// # Errors
    /// `io` naming the node.
    pub fn connect(addr: &NodeAddr) -> Result<Self> {
        Ok(Self { conn: Conn::open(addr)? })
    }

    /// Stores `value` under `key` (overwriting), with a TTL in seconds (0: never expires) and
    /// flags: a client's plain write, for loading test data and for replays.
    ///
    /// # Errors
    /// `io` naming the node.
    pub fn set(&mut self, key: &[u8], value: &[u8], ttl_s: u64, flags: u32) -> Result<()> {
        self.set_many(&[(key, value)], ttl_s, flags)
    }

    /// [`Memcached::set`] for many keys, pipelined.
    ///
    /// # Errors
    /// `io` naming the node.
    pub fn set_many(&mut self, items: &[(&[u8], &[u8])], ttl_s: u64, flags: u32) -> Result<()> {
        self.sendable(items.iter().map(|&(k, _)| k))?;
        for round in items.chunks(ROUND) {
            for &(key, value) in round {
                self.store_command(key, value, Some(ttl_s), flags, "")?;
            }
            self.conn.flush()?;
            for _ in round {
                self.expect_stored()?;
            }
        }
        Ok(())
    }

    /// A client's plain read: the value, or `None` on a miss.
    ///
    /// # Errors
    /// `io` naming the node.
    pub fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.fetch(&[key])?.into_iter().next().flatten().map(|item| item.value))
    }

    /// Writes `ms <key> <len> [b] T<ttl> F<flags> <mode>` and the data.
    fn store_command(&mut self, key: &[u8], value: &[u8], ttl_s: Option<u64>, flags: u32, mode: &str) -> Result<()> {
        let ttl = match ttl_s {
            None | Some(0) => 0,
            Some(t) if t > RELATIVE_TTL_MAX => unix_now().saturating_add(t),
            Some(t) => t,
        };
        let b = self.key_command("ms", key)?;
        let line = format!(" {} T{ttl} F{flags}{b}{}{mode}\r\n", value.len(), if mode.is_empty() { "" } else { " " });
        self.conn.write(line.as_bytes())?;
        self.conn.write(value)?;
        self.conn.write(b"\r\n")
    }

    /// Writes `<verb> <key>`; returns the flag to add to the command (` b` when the key
    /// travels base64-encoded, else nothing).
    fn key_command(&mut self, verb: &str, key: &[u8]) -> Result<&'static str> {
        self.conn.write(verb.as_bytes())?;
        self.conn.write(b" ")?;
        if plain_key(key) {
            self.conn.write(key)?;
            Ok("")
        } else {
            self.conn.write(base64(key).as_bytes())?;
            Ok(" b")
        }
    }

    /// Refuses a batch with a key the meta protocol cannot carry, before anything of it is
    /// written (so the connection stays in step): an empty key, or one that needs base64 and
    /// is longer than [`MAX_BASE64_KEY`].
    fn sendable<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) -> Result<()> {
        match keys.into_iter().find(|k| k.is_empty() || (!plain_key(k) && k.len() > MAX_BASE64_KEY)) {
            None => Ok(()),
            Some(key) => Err(self.conn.error(format_args!(
                "the key {} ({} bytes) cannot be sent in memcached's meta protocol: a key with a \
                 space or a control byte travels base64-encoded, in at most 250 bytes, so at most {MAX_BASE64_KEY}",
                crate::audit::key_text(key.get(..40).unwrap_or(key)),
                key.len()
            ))),
        }
    }

    fn expect_stored(&mut self) -> Result<Added> {
        let line = self.conn.read_line()?;
        match line {
            b"HD" => Ok(Added::Stored),
            b"NS" => Ok(Added::Exists),
            other => {
                let text = String::from_utf8_lossy(other).into_owned();
                Err(self.conn.error(format_args!("ms refused: {text}")))
            }
        }
    }

    /// `lru_crawler metadump MODE`; `None` when the server does not know the mode.
    fn metadump(&mut self, mode: &str) -> Result<Option<Vec<Listed>>> {
        let mut keys = Vec::new();
        for attempt in 0.. {
            self.conn.write(format!("lru_crawler metadump {mode}\r\n").as_bytes())?;
            self.conn.flush()?;
            let first = self.conn.read_line()?;
            // Another crawl is running (another audit): wait for it, up to 10 s.
            if first.starts_with(b"BUSY") && attempt < 100 {
                std::thread::sleep(std::time::Duration::from_millis(100));
                continue;
            }
            if first.starts_with(b"CLIENT_ERROR") || first == b"ERROR" {
                return Ok(None);
            }
            let mut line = first.to_vec();
            loop {
                if line == b"END" {
                    return Ok(Some(keys));
                }
                let listed = metadump_line(&line).ok_or_else(|| self.unexpected("lru_crawler metadump", &line))?;
                keys.push(listed);
                line = self.conn.read_line()?.to_vec();
            }
        }
        Ok(Some(keys))
    }

    fn unexpected(&self, verb: &str, line: &[u8]) -> keyroute_bindings::Error {
        self.conn.error(format_args!("unexpected reply to {verb}: {}", String::from_utf8_lossy(line)))
    }
}

impl Cache for Memcached {
    fn list(&mut self, _sizes: bool) -> Result<Vec<Listed>> {
        if let Some(keys) = self.metadump("hash")? {
            return Ok(keys);
        }
        // Before `hash` (memcached 1.6.x before 1.6.18): two passes over the LRUs, more than
        // the LRU maintainer's longest sleep (1 s) apart, so an item a pending bump hid from
        // one pass is in the other (memcached bumps an item at most once a minute).
        let first = self.metadump("all")?.unwrap_or_default();
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let second = self.metadump("all")?.unwrap_or_default();
        let mut seen: std::collections::HashSet<Vec<u8>> = first.iter().map(|l| l.key.clone()).collect();
        let mut keys = first;
        keys.extend(second.into_iter().filter(|l| seen.insert(l.key.clone())));
        Ok(keys)
    }

    fn fetch(&mut self, keys: &[&[u8]]) -> Result<Vec<Option<Item>>> {
        self.sendable(keys.iter().copied())?;
        let mut out = Vec::with_capacity(keys.len());
        for round in keys.chunks(ROUND) {
            for &key in round {
                let b = self.key_command("mg", key)?;
                self.conn.write(format!("{b} v t f c\r\n").as_bytes())?;
            }
            self.conn.flush()?;
            for _ in round {
                let line = self.conn.read_line()?.to_vec();
                if line == b"EN" {
                    out.push(None);
                    continue;
                }
                let header = value_header(&line).ok_or_else(|| self.unexpected("mg", &line))?;
                let value = self.conn.read_data(header.len)?;
                out.push(match header.ttl_s {
                    0 => None,
                    t => Some(Item {
                        value,
                        encoding: Encoding::Plain,
                        ttl_ms: u64::try_from(t).ok().map(|s| s.saturating_mul(1000)),
                        flags: header.flags,
                        cas: header.cas,
                    }),
                });
            }
        }
        Ok(out)
    }

    fn add(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<Added>> {
        self.sendable(items.iter().map(|&(k, _)| k))?;
        let mut out = Vec::with_capacity(items.len());
        for round in items.chunks(ROUND) {
            for &(key, item) in round {
                // Whole seconds, rounded up: the copy never outlives the original by a second.
                let ttl = item.ttl_ms.map(|ms| ms.div_ceil(1000).max(1));
                self.store_command(key, &item.value, ttl, item.flags, "ME")?;
            }
            self.conn.flush()?;
            for _ in round {
                out.push(self.expect_stored()?);
            }
        }
        Ok(out)
    }

    fn exists(&mut self, keys: &[&[u8]]) -> Result<Vec<bool>> {
        self.sendable(keys.iter().copied())?;
        let mut out = Vec::with_capacity(keys.len());
        for round in keys.chunks(ROUND) {
            for &key in round {
                let b = self.key_command("mg", key)?;
                self.conn.write(format!("{b}\r\n").as_bytes())?;
            }
            self.conn.flush()?;
            for _ in round {
                match self.conn.read_line()? {
                    b"HD" => out.push(true),
                    b"EN" => out.push(false),
                    other => {
                        let other = other.to_vec();
                        return Err(self.unexpected("mg", &other));
                    }
                }
            }
        }
        Ok(out)
    }

    fn delete(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<bool>> {
        self.sendable(items.iter().map(|&(k, _)| k))?;
        let mut out = Vec::with_capacity(items.len());
        for round in items.chunks(ROUND) {
            for &(key, item) in round {
                let b = self.key_command("md", key)?;
                self.conn.write(format!("{b} C{}\r\n", item.cas).as_bytes())?;
            }
            self.conn.flush()?;
            for _ in round {
                match self.conn.read_line()? {
                    b"HD" => out.push(true),
                    b"EX" | b"NF" => out.push(false),
                    other => {
                        let other = other.to_vec();
                        return Err(self.unexpected("md", &other));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Sends a key as it is when memcached's text protocol can carry it: 1 to 250 bytes, none of
/// them a space or a control byte (UTF-8 text is sent as it is).
fn plain_key(key: &[u8]) -> bool {
    !key.is_empty() && key.len() <= 250 && key.iter().all(|&b| b > b' ' && b != 0x7f)
}

/// memcached 1.6 takes a key token of at most 250 bytes, base64 text included: a key that
/// needs base64 (a space or a control byte in it) can be at most this long.
const MAX_BASE64_KEY: usize = 186;

/// Standard base64 with padding (RFC 4648, section 4), as memcached's `b` flag reads it.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sextet = |n: u32, shift: u32| char::from(ALPHABET.get(((n >> shift) & 63) as usize).copied().unwrap_or(b'='));
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sextet(n, 18));
        out.push(sextet(n, 12));
        out.push(if chunk.len() > 1 { sextet(n, 6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(n, 0) } else { '=' });
    }
    out
}

/// `VA <len> t<ttl> f<flags> c<cas>`, read.
struct ValueHeader {
    len: u64,
    ttl_s: i64,
    flags: u32,
    cas: u64,
}

fn value_header(line: &[u8]) -> Option<ValueHeader> {
    let mut words = line.split(|&b| b == b' ');
    if words.next()? != b"VA" {
        return None;
    }
    let mut header = ValueHeader { len: number(words.next()?)?, ttl_s: -1, flags: 0, cas: 0 };
    for word in words {
        let (flag, rest) = word.split_first()?;
        match flag {
            b't' => header.ttl_s = signed(rest)?,
            b'f' => header.flags = u32::try_from(number(rest)?).ok()?,
            b'c' => header.cas = number(rest)?,
            _ => {}
        }
    }
    Some(header)
}

/// One `key=<uri-encoded> exp=… … size=…` line of a metadump.
fn metadump_line(line: &[u8]) -> Option<Listed> {
    let mut key = None;
    let mut size = 0;
    for word in line.split(|&b| b == b' ') {
        if let Some(encoded) = word.strip_prefix(b"key=") {
            key = Some(uri_decode(encoded)?);
        } else if let Some(n) = word.strip_prefix(b"size=") {
            size = number(n)?;
        }
    }
    Some(Listed { key: key?, size })
}

/// `%XX` escapes back to bytes; anything else as it is.
fn uri_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = tail.get(..2)?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            rest = tail.get(2..)?;
        } else {
            out.push(b);
            rest = tail;
        }
    }
    Some(out)
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        let cases =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0, 1]), "AAE=");
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn metadump_lines_are_read() {
        let l = metadump_line(b"key=a%2520b%00 exp=-1 la=1 cas=2 fetch=no cls=1 size=65").unwrap();
        assert_eq!((l.key.as_slice(), l.size), (&b"a%20b\0"[..], 65));
        assert!(metadump_line(b"key=%0 size=1").is_none());
        assert!(metadump_line(b"ERROR").is_none());
    }

    #[test]
    fn value_headers_are_read() {
        let h = value_header(b"VA 2 t100 f5 c1").unwrap();
        assert_eq!((h.len, h.ttl_s, h.flags, h.cas), (2, 100, 5, 1));
        assert_eq!(value_header(b"VA 0 t-1").unwrap().ttl_s, -1);
        assert!(value_header(b"EN").is_none());
        assert!(value_header(b"VA x").is_none());
    }

    #[test]
    fn the_longest_base64_key_fits_the_token() {
        assert_eq!(base64(&[0; MAX_BASE64_KEY]).len(), 248);
        assert!(base64(&[0; MAX_BASE64_KEY + 1]).len() > 250);
    }

    #[test]
    fn only_printable_keys_travel_plain() {
        assert!(plain_key(b"user:42") && plain_key("caf\u{e9}".as_bytes()));
        for key in [&b""[..], b"a b", b"\x00", b"\x7f", &[b'k'; 251]] {
            assert!(!plain_key(key));
        }
    }
}
