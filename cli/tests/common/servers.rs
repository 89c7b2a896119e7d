//! Real memcached and redis-server processes on 127.0.0.1, started on free ports for a test
//! and stopped (by their own pid) when dropped. A missing server binary fails the test: the
//! test scripts install both (`scripts/fleet-servers.sh`).

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use keyroute_fleet::Backend;
use keyroute_fleet::addr::NodeAddr;

/// One server process.
pub struct Server {
    pub backend: Backend,
    pub port: u16,
    child: Option<Child>,
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Server {
    /// Starts a server of `backend` on a free port.
    pub fn start(backend: Backend) -> Self {
        let mut s = Self { backend, port: free_port(), child: None };
        s.restart();
        s
    }

    /// (Re)starts the process on its port, empty.
    pub fn restart(&mut self) {
        let port = self.port.to_string();
        let mut command = match self.backend {
            // 2 MB items, so 1 MB values fit with their overhead; -u for a run as root.
            Backend::Memcached => {
                let mut c = Command::new("memcached");
                c.args(["-l", "127.0.0.1", "-p", &port, "-U", "0", "-m", "512", "-I", "2m", "-t", "2", "-u", "nobody"]);
                c
            }
            Backend::Redis => {
                let mut c = Command::new("redis-server");
                c.args(["--bind", "127.0.0.1", "--port", &port, "--save", "", "--appendonly", "no"]);
                c
            }
        };
        let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap_or_else(|e| {
            panic!("cannot start {} (scripts/fleet-servers.sh installs it): {e}", self.backend.name())
        });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "{} did not listen on {}", self.backend.name(), self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `127.0.0.1:PORT`: the node id the tests' specs use.
    pub fn id(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn addr(&self) -> NodeAddr {
        NodeAddr { id: self.id(), host: "127.0.0.1".into(), port: self.port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A spec over `servers`' ids: `{"algorithm": ALGORITHM, "nodes": [{"id": "127.0.0.1:P"}, …]}`.
pub fn spec(algorithm: &str, servers: &[&Server]) -> String {
    let nodes: Vec<String> = servers.iter().map(|s| format!("{{\"id\": \"{}\"}}", s.id())).collect();
    format!("{{\"algorithm\": \"{algorithm}\", \"nodes\": [{}]}}", nodes.join(", "))
}

/// A spec naming `servers` `cache-a`, `cache-b`, … with their host and port: the same ids, so
/// the same placement, whatever ports the servers got.
pub fn named_spec(algorithm: &str, servers: &[&Server]) -> String {
    let nodes: Vec<String> = servers
        .iter()
        .zip(b'a'..)
        .map(|(s, c)| format!("{{\"id\": \"cache-{}\", \"host\": \"127.0.0.1\", \"port\": {}}}", char::from(c), s.port))
        .collect();
    format!("{{\"algorithm\": \"{algorithm}\", \"nodes\": [{}]}}", nodes.join(", "))
}
