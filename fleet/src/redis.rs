//! A Redis client speaking RESP2, written for what audit and migrate need:
//!
//! - `SCAN <cursor> COUNT 1000` until the cursor is 0 lists every key (a key added or removed
//!   during the scan may or may not be listed, as `SCAN` promises);
//! - `MEMORY USAGE <key>` for sizes (Redis 4.0 and later);
//! - a string (the common case) is read in a transaction, `MULTI`, then `PTTL` and `GET` of
//!   each key of a round, then `EXEC`: its remaining TTL in milliseconds (`-2`: absent, `-1`:
//!   never expires) and its value at one instant (a transaction runs alone), and added with
//!   `SET <key> <value> [PX <ttl>] NX`;
//! - a key of any other type (`GET` answers `WRONGTYPE`) is read again by a one-line Lua
//!   script (`EVAL`), its `PTTL` and `DUMP` at one instant, and added with
//!   `RESTORE <key> <ttl> <payload>`;
//! - neither add overwrites: `SET … NX` answers nil and `RESTORE` without `REPLACE` answers
//!   `BUSYKEY` when the key exists, and the TTL is the remaining one (a key with no time left
//!   is not copied: 0 would mean "never expires" to `RESTORE`);
//! - `EXISTS`; and a delete of the old copy by a two-line Lua script (`EVAL`) that deletes the
//!   key only while it still holds what was copied (its value, or its `DUMP`).
//!
//! Strings go the first way because it costs the server about a quarter of the second: on
//! Redis 7.0, 1,000-byte values, `INFO commandstats` gave 9.4 µs a key for the `EVAL` of
//! `PTTL` and `DUMP` (`DUMP` alone 4–6 µs: it serializes and tries to compress the value) and
//! 5.1 µs for `RESTORE` (which checks the payload's checksum), against about 2.6 µs for a
//! transaction a key and 2.9 µs for `SET … NX`. One transaction a round instead of one a key
//! cut the source's CPU by about another 30% (`INFO cpu`; queued commands are not counted in
//! `commandstats`).
//!
//! Commands are arrays of bulk strings, so keys are any bytes. Each batch is pipelined; an
//! error reply is one command's reply, read in its place.

use keyroute_bindings::Result;

use crate::addr::NodeAddr;
use crate::cache::{Added, Cache, Conn, Encoding, Item, Listed, number, signed};

/// Keys per pipelined round (a fetch sends two commands per key, in one transaction). As for
/// memcached, either the requests or the replies of a round are small, so writing it whole
/// cannot stall.
const ROUND: usize = 512;

/// Arrays nest at most this deep in the replies read here (`EXEC` of `SCAN`-free commands,
/// `SCAN` itself).
const MAX_DEPTH: u32 = 3;

/// The longest array read (a `SCAN` page, an `EXEC` result).
const MAX_ARRAY: u64 = 1 << 20;

/// `KEYS[1]`'s remaining TTL in milliseconds and its `DUMP`, read at one instant (a script runs
/// alone), for keys that are not strings.
const READ_WITH_TTL: &[u8] = b"return {redis.call('PTTL', KEYS[1]), redis.call('DUMP', KEYS[1])}";

/// Deletes `KEYS[1]` only while its `DUMP` is still `ARGV[1]`, the payload that was copied: a
/// value a client wrote on the old owner since is kept.
const DELETE_IF_SAME: &[u8] =
    b"if redis.call('DUMP', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// [`DELETE_IF_SAME`] for a string copied by value: deletes `KEYS[1]` only while it is still
/// the string `ARGV[1]` (`pcall`: a key that has become another type answers an error table,
/// which equals no string, and is kept).
const DELETE_IF_SAME_STRING: &[u8] =
    b"if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/// An item read with `PTTL` `ttl`: `None` for an absent key (-2) or one with no time left (0).
fn item(ttl: i64, value: Vec<u8>, encoding: Encoding) -> Option<Item> {
    let ttl_ms = match ttl {
        -1 => None,
        t if t > 0 => u64::try_from(t).ok(),
        _ => return None,
    };
    Some(Item { value, encoding, ttl_ms, flags: 0, cas: 0 })
}

/// A RESP2 reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`, `+QUEUED`.
    Status(Vec<u8>),
    /// `-ERR …`, `-BUSYKEY …`.
    Error(Vec<u8>),
    /// `:42`.
    Int(i64),
    /// `$…`; `None` for the nil bulk string.
    Bulk(Option<Vec<u8>>),
    /// `*…`; `None` for the nil array.
    Array(Option<Vec<Reply>>),
}

/// One connection to a Redis server.
pub struct Redis {
    conn: Conn,
}

impl Redis {
    /// Connects to the node at `addr`.
    ///
    /// # Errors
    /// `io` naming the node.
    pub fn connect(addr: &NodeAddr) -> Result<Self> {
        Ok(Self { conn: Conn::open(addr)? })
    }

    /// Runs the commands as one pipelined round trip; one reply each, error replies included.
    ///
    /// # Errors
    /// `io` naming the node, for a broken connection or a malformed reply.
    pub fn pipeline(&mut self, commands: &[Vec<&[u8]>]) -> Result<Vec<Reply>> {
        for command in commands {
            write!(self.conn, "*{}\r\n", command.len())?;
            for arg in command {
                write!(self.conn, "${}\r\n", arg.len())?;
                self.conn.write(arg)?;
                self.conn.write(b"\r\n")?;
            }
        }
        self.conn.flush()?;
        commands.iter().map(|_| self.reply(0)).collect()
    }

    /// Runs one command.
    ///
    /// # Errors
    /// As [`Redis::pipeline`].
    pub fn command(&mut self, args: &[&[u8]]) -> Result<Reply> {
        let mut replies = self.pipeline(&[args.to_vec()])?;
        replies.pop().ok_or_else(|| self.conn.error("no reply"))
    }

    fn reply(&mut self, depth: u32) -> Result<Reply> {
        let line = self.conn.read_line()?.to_vec();
        let (&kind, rest) = line.split_first().ok_or_else(|| self.conn.error("an empty reply line"))?;
        let bad =
            |conn: &Conn, rest: &[u8]| conn.error(format_args!("a malformed reply: {}", String::from_utf8_lossy(rest)));
        match kind {
            b'+' => Ok(Reply::Status(rest.to_vec())),
            b'-' => Ok(Reply::Error(rest.to_vec())),
            b':' => signed(rest).map(Reply::Int).ok_or_else(|| bad(&self.conn, rest)),
            b'$' if rest == b"-1" => Ok(Reply::Bulk(None)),
            b'$' => {
                let len = number(rest).ok_or_else(|| bad(&self.conn, rest))?;
                Ok(Reply::Bulk(Some(self.conn.read_data(len)?)))
            }
            b'*' if rest == b"-1" => Ok(Reply::Array(None)),
            b'*' => {
                let len = number(rest).filter(|&n| n <= MAX_ARRAY).ok_or_else(|| bad(&self.conn, rest))?;
                if depth >= MAX_DEPTH {
                    return Err(self.conn.error("replies nested too deep"));
                }
                (0..len).map(|_| self.reply(depth + 1)).collect::<Result<Vec<_>>>().map(|v| Reply::Array(Some(v)))
            }
            _ => Err(bad(&self.conn, &line)),
        }
    }

    fn unexpected(&self, what: &str, reply: &Reply) -> keyroute_bindings::Error {
        let text = match reply {
            Reply::Error(e) => String::from_utf8_lossy(e).into_owned(),
            other => format!("{other:?}"),
        };
        self.conn.error(format_args!("unexpected reply to {what}: {text}"))
    }

    /// `PTTL` and `DUMP` of each key, read at one instant by a script ([`READ_WITH_TTL`]).
    fn fetch_dumps(&mut self, keys: &[&[u8]]) -> Result<Vec<Option<Item>>> {
        let mut out = Vec::with_capacity(keys.len());
        for round in keys.chunks(ROUND) {
            let commands: Vec<Vec<&[u8]>> =
                round.iter().map(|&key| vec![&b"EVAL"[..], READ_WITH_TTL, b"1", key]).collect();
            for reply in self.pipeline(&commands)? {
                let Reply::Array(Some(pair)) = &reply else {
                    return Err(self.unexpected("EVAL (read with TTL)", &reply));
                };
                out.push(match (pair.first(), pair.get(1)) {
                    (Some(&Reply::Int(ttl)), Some(Reply::Bulk(Some(payload)))) => {
                        item(ttl, payload.clone(), Encoding::Dump)
                    }
                    // Absent (-2, and Lua ends the list at DUMP's nil).
                    (Some(Reply::Int(_)), _) => None,
                    _ => return Err(self.unexpected("EVAL (read with TTL)", &reply)),
                });
            }
        }
        Ok(out)
    }

    /// Runs one command per key (`verb key extra…`) in rounds.
    fn per_key(&mut self, keys: &[&[u8]], verb: &'static [u8]) -> Result<Vec<Reply>> {
        let mut out = Vec::with_capacity(keys.len());
        for round in keys.chunks(ROUND) {
            let commands: Vec<Vec<&[u8]>> = round.iter().map(|&k| vec![verb, k]).collect();
            out.extend(self.pipeline(&commands)?);
        }
        Ok(out)
    }
}

impl Cache for Redis {
    fn list(&mut self, sizes: bool) -> Result<Vec<Listed>> {
        let mut keys = Vec::new();
        let mut cursor = b"0".to_vec();
        loop {
            let reply = self.command(&[b"SCAN", &cursor, b"COUNT", b"1000"])?;
            let Reply::Array(Some(mut parts)) = reply else { return Err(self.unexpected("SCAN", &reply)) };
            let (Some(Reply::Array(Some(page))), Some(Reply::Bulk(Some(next)))) = (parts.pop(), parts.pop()) else {
                return Err(self.conn.error("unexpected reply to SCAN"));
            };
            for key in page {
                let Reply::Bulk(Some(key)) = key else { return Err(self.unexpected("SCAN", &key)) };
                keys.push(Listed { key, size: 0 });
            }
            if next == b"0" {
                break;
            }
            cursor = next;
        }
        if sizes {
            for round in keys.chunks_mut(ROUND) {
                let commands: Vec<Vec<&[u8]>> =
                    round.iter().map(|l| vec![&b"MEMORY"[..], b"USAGE", l.key.as_slice()]).collect();
                let replies = self.pipeline(&commands)?;
                for (listed, reply) in round.iter_mut().zip(replies) {
                    // Nil: the key went away since the scan.
                    listed.size = match reply {
                        Reply::Int(n) => u64::try_from(n).unwrap_or(0),
                        _ => 0,
                    };
                }
            }
        }
        Ok(keys)
    }

    fn fetch(&mut self, keys: &[&[u8]]) -> Result<Vec<Option<Item>>> {
        let mut out = Vec::with_capacity(keys.len());
        // Where the keys that are not strings sit in `out`, read again below.
        let mut others = Vec::new();
        for round in keys.chunks(ROUND) {
            // One transaction a round: `PTTL` and `GET` of every key, run together at one
            // instant when `EXEC` arrives (the server queues the commands and runs them
            // alone), so the round costs the server two queued commands a key, not a
            // `MULTI`/`EXEC` pair around each.
            let commands: Vec<Vec<&[u8]>> = std::iter::once(vec![&b"MULTI"[..]])
                .chain(round.iter().flat_map(|&key| [vec![&b"PTTL"[..], key], vec![&b"GET"[..], key]]))
                .chain(std::iter::once(vec![&b"EXEC"[..]]))
                .collect();
            // MULTI's `+OK` and each `+QUEUED` are skipped: a command refused while queued
            // makes EXEC answer `EXECABORT`, which is an unexpected reply below.
            let exec = self.pipeline(&commands)?.pop();
            let results = match exec {
                Some(Reply::Array(Some(results))) if results.len() == 2 * round.len() => results,
                other => return Err(self.unexpected("EXEC (PTTL, GET)", &other.unwrap_or(Reply::Array(None)))),
            };
            let mut results = results.into_iter();
            while let (Some(ttl), Some(value)) = (results.next(), results.next()) {
                out.push(match (ttl, value) {
                    (Reply::Int(ttl), Reply::Bulk(Some(value))) => item(ttl, value, Encoding::Plain),
                    (Reply::Int(_), Reply::Bulk(None)) => None,
                    (Reply::Int(_), Reply::Error(e)) if e.starts_with(b"WRONGTYPE") => {
                        others.push(out.len());
                        None
                    }
                    (ttl, value) => {
                        let read = Reply::Array(Some(vec![ttl, value]));
                        return Err(self.unexpected("EXEC (PTTL, GET)", &read));
                    }
                });
            }
        }
        let names: Vec<&[u8]> = others.iter().filter_map(|&i| keys.get(i).copied()).collect();
        for (&i, dumped) in others.iter().zip(self.fetch_dumps(&names)?) {
            if let Some(slot) = out.get_mut(i) {
                *slot = dumped;
            }
        }
        Ok(out)
    }

    fn add(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<Added>> {
        let mut out = Vec::with_capacity(items.len());
        for round in items.chunks(ROUND) {
            let ttls: Vec<String> = round.iter().map(|(_, item)| item.ttl_ms.unwrap_or(0).to_string()).collect();
            let commands: Vec<Vec<&[u8]>> = round
                .iter()
                .zip(&ttls)
                .map(|(&(key, item), ttl)| match (item.encoding, item.ttl_ms) {
                    (Encoding::Plain, Some(_)) => vec![&b"SET"[..], key, &item.value, b"PX", ttl.as_bytes(), b"NX"],
                    (Encoding::Plain, None) => vec![&b"SET"[..], key, &item.value, b"NX"],
                    (Encoding::Dump, _) => vec![&b"RESTORE"[..], key, ttl.as_bytes(), &item.value],
                })
                .collect();
            for (reply, (_, item)) in self.pipeline(&commands)?.iter().zip(round) {
                out.push(match (item.encoding, reply) {
                    (_, Reply::Status(s)) if s == b"OK" => Added::Stored,
                    (Encoding::Plain, Reply::Bulk(None)) => Added::Exists,
                    (Encoding::Dump, Reply::Error(e)) if e.starts_with(b"BUSYKEY") => Added::Exists,
                    (Encoding::Plain, other) => return Err(self.unexpected("SET NX", other)),
                    (Encoding::Dump, other) => return Err(self.unexpected("RESTORE", other)),
                });
            }
        }
        Ok(out)
    }

    fn exists(&mut self, keys: &[&[u8]]) -> Result<Vec<bool>> {
        self.per_key(keys, b"EXISTS")?
            .iter()
            .map(|r| match r {
                Reply::Int(n) => Ok(*n > 0),
                other => Err(self.unexpected("EXISTS", other)),
            })
            .collect()
    }

    fn delete(&mut self, items: &[(&[u8], &Item)]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(items.len());
        for round in items.chunks(ROUND) {
            let commands: Vec<Vec<&[u8]>> = round
                .iter()
                .map(|&(key, item)| {
                    let script = match item.encoding {
                        Encoding::Plain => DELETE_IF_SAME_STRING,
                        Encoding::Dump => DELETE_IF_SAME,
                    };
                    vec![&b"EVAL"[..], script, b"1", key, item.value.as_slice()]
                })
                .collect();
            for reply in self.pipeline(&commands)? {
                out.push(match &reply {
                    Reply::Int(n) => *n > 0,
                    other => return Err(self.unexpected("EVAL (delete if unchanged)", other)),
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::tests::hostile;
    use keyroute_bindings::ErrorCode;

    fn first_reply(bytes: &[u8]) -> Result<Reply> {
        Redis { conn: hostile(bytes.to_vec(), false) }.reply(0)
    }

    #[test]
    fn replies_past_the_array_limits_are_io_errors_naming_the_node() {
        let e = first_reply(format!("*{}\r\n", MAX_ARRAY + 1).as_bytes()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert!(e.message().contains("node evil") && e.message().contains("a malformed reply: 1048577"), "{e}");
        let deep = "*1\r\n".repeat(MAX_DEPTH as usize + 1);
        let e = first_reply(deep.as_bytes()).unwrap_err();
        assert!(e.message().contains("nested too deep"), "{e}");
        // At the limits, what the server sends is read.
        let nested = format!("{}:7\r\n", "*1\r\n".repeat(MAX_DEPTH as usize));
        let mut want = Reply::Int(7);
        for _ in 0..MAX_DEPTH {
            want = Reply::Array(Some(vec![want]));
        }
        assert_eq!(first_reply(nested.as_bytes()).unwrap(), want);
    }
}
