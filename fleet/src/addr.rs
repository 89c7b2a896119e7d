//! Where each node of a spec listens: its `host`/`port` fields, its id when that is `host:port`,
//! or an operator's `--addr id=host:port` (which wins over both).
//!
//! Nothing is resolved here: the host stays text until a client connects to it, so a spec
//! names the same servers wherever it is read.

use keyroute_bindings::{Error, ErrorCode, NodeSpec, Result, Spec};

/// One node's network address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeAddr {
    /// The node's id in the spec.
    pub id: String,
    /// Host name or IP address (IPv6 without brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl NodeAddr {
    /// `host:port`, with brackets around an IPv6 host: what a socket connects to.
    #[must_use]
    pub fn socket_text(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// `node ID (HOST:PORT)`: how errors and reports name the node.
    #[must_use]
    pub fn label(&self) -> String {
        format!("node {} ({})", self.id, self.socket_text())
    }
}

/// An `--addr id=host:port` option, parsed.
///
/// # Errors
/// `invalid_argument` when there is no `=`, the id is empty, or the address is not
/// `host:port` with a port in 1..=65535.
pub fn parse_override(text: &str) -> Result<NodeAddr> {
    let bad =
        |why: &str| Error::new(ErrorCode::InvalidArgument, format!("--addr {text:?}: {why} (write id=host:port)"));
    let (id, address) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
    if id.is_empty() {
        return Err(bad("empty node id"));
    }
    let (host, port) = split_host_port(address).map_err(|why| bad(&why))?;
    Ok(NodeAddr { id: id.to_owned(), host, port })
}

/// `host:port` or `[v6]:port` into its parts; the port is required and not 0.
fn split_host_port(address: &str) -> std::result::Result<(String, u16), String> {
    if !address.contains(':') {
        return Err(format!("{address:?} has no port"));
    }
    // The bindings' reading of server addresses (brackets, a port that is a number).
    let node = NodeSpec::from_server(address, 1).map_err(|e| e.message().to_owned())?;
    match (node.host, node.port) {
        (Some(host), Some(port)) if port != 0 => Ok((host, port)),
        _ => Err(format!("{address:?}: port 0 is not a server's port")),
    }
}

/// The address of every node of `spec`, in its node order.
///
/// For each node, the first that applies: an entry of `overrides` with its id; its `host`
/// field (with its `port`, else `default_port`); its id read as `host:port`.
///
/// # Errors
/// `invalid_argument` for an override naming no node of the spec; `invalid_spec` for a node
/// with no address by any of the three rules (the message names the node and the rules).
pub fn addresses(spec: &Spec, overrides: &[NodeAddr], default_port: u16) -> Result<Vec<NodeAddr>> {
    union(&[spec], overrides, default_port)
}

/// The addresses of the nodes of several specs (a change's two ends), each id once, in the
/// order first seen, by [`addresses`]' rules. A node in two specs must have the same address
/// in both.
///
/// # Errors
/// As [`addresses`]; `invalid_spec` when one id has two addresses.
pub fn union(specs: &[&Spec], overrides: &[NodeAddr], default_port: u16) -> Result<Vec<NodeAddr>> {
    if let Some(stray) = overrides.iter().find(|o| !specs.iter().any(|s| s.nodes.iter().any(|n| n.id == o.id))) {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("--addr {}={}: no spec has a node {:?}", stray.id, stray.socket_text(), stray.id),
        ));
    }
    let mut all: Vec<NodeAddr> = Vec::new();
    for node in specs.iter().flat_map(|s| &s.nodes) {
        let a = address(node, overrides, default_port)?;
        match all.iter().find(|b| b.id == a.id) {
            Some(b) if *b != a => {
                return Err(Error::new(
                    ErrorCode::InvalidSpec,
                    format!("node {:?} is at {} in one spec and {} in another", a.id, b.socket_text(), a.socket_text()),
                ));
            }
            Some(_) => {}
            None => all.push(a),
        }
    }
    Ok(all)
}

fn address(node: &NodeSpec, overrides: &[NodeAddr], default_port: u16) -> Result<NodeAddr> {
    if let Some(o) = overrides.iter().rev().find(|o| o.id == node.id) {
        return Ok(o.clone());
    }
    if let Some(host) = &node.host {
        return Ok(NodeAddr { id: node.id.clone(), host: host.clone(), port: node.port.unwrap_or(default_port) });
    }
    split_host_port(&node.id).map(|(host, port)| NodeAddr { id: node.id.clone(), host, port }).map_err(|why| {
        Error::new(
            ErrorCode::InvalidSpec,
            format!(
                "node {:?} has no address: give it host/port fields, an id of the form host:port, \
                 or --addr {}=HOST:PORT ({why})",
                node.id, node.id
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> Spec {
        Spec::from_json(json).unwrap()
    }

    #[test]
    fn overrides_then_fields_then_ids() {
        let s = spec(
            r#"{"algorithm": "ring", "nodes": [{"id": "a", "host": "10.0.0.1", "port": 7000},
                {"id": "b", "host": "cache-b"}, {"id": "127.0.0.1:11311"}, {"id": "[::1]:6380"}, {"id": "e"}]}"#,
        );
        let o = [parse_override("e=127.0.0.1:9").unwrap(), parse_override("a=h:1").unwrap()];
        let got: Vec<String> = addresses(&s, &o, 11211).unwrap().iter().map(NodeAddr::socket_text).collect();
        assert_eq!(got, ["h:1", "cache-b:11211", "127.0.0.1:11311", "[::1]:6380", "127.0.0.1:9"]);
    }

    #[test]
    fn a_node_without_an_address_is_named() {
        let s = spec(r#"{"algorithm": "ring", "nodes": [{"id": "cache-a"}]}"#);
        let e = addresses(&s, &[], 6379).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidSpec);
        assert!(e.message().contains("\"cache-a\"") && e.message().contains("--addr cache-a=HOST:PORT"), "{e:?}");
        let e = addresses(&s, &[parse_override("nope=h:1").unwrap()], 6379).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
    }

    #[test]
    fn bad_overrides_are_refused() {
        for bad in ["a", "=h:1", "a=h", "a=h:", "a=h:x", "a=h:70000", "a=::1:5", "a=h:0"] {
            assert_eq!(parse_override(bad).unwrap_err().code(), ErrorCode::InvalidArgument, "{bad}");
        }
        assert_eq!(parse_override("a=[::1]:5").unwrap().host, "::1");
    }

    #[test]
    fn a_shared_node_has_one_address() {
        let a = spec(r#"{"algorithm": "ring", "nodes": [{"id": "h:1"}, {"id": "h:2"}]}"#);
        let b = spec(r#"{"algorithm": "ring", "nodes": [{"id": "h:1"}, {"id": "h:2"}, {"id": "h:3"}]}"#);
        assert_eq!(union(&[&a, &b], &[], 1).unwrap().len(), 3);
        let c = spec(r#"{"algorithm": "ring", "nodes": [{"id": "h:1", "host": "other"}]}"#);
        assert_eq!(union(&[&a, &c], &[], 1).unwrap_err().code(), ErrorCode::InvalidSpec);
    }
}
