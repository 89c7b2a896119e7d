//! A real etcd member (Debian's etcd-server) on free ports of 127.0.0.1, its data in a scratch
//! folder, stopped by its own pid when dropped: for fleet/tests/etcd_source.rs and the CLI's
//! tests of `keyroute view` on etcd (cli/tests/view.rs includes this file). A missing etcd
//! fails the test: `scripts/fleet-servers.sh` installs it.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use keyroute_bindings::Limits;
use keyroute_fleet::EtcdSource;
use keyroute_fleet::source::Source;

/// How long etcd may take to serve.
const START: Duration = Duration::from_secs(60);

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One etcd member on 127.0.0.1, its data in a scratch folder.
pub struct Etcd {
    /// The client port.
    pub client: u16,
    peer: u16,
    data: PathBuf,
    child: Option<Child>,
}

impl Etcd {
    /// Starts a member whose data lives in `dir` (emptied first).
    pub fn start(dir: PathBuf) -> Self {
        let data = dir;
        let _ = std::fs::remove_dir_all(&data);
        let mut etcd = Self { client: free_port(), peer: free_port(), data, child: None };
        etcd.restart();
        etcd
    }

    /// (Re)starts the member on its ports, with the data it had.
    pub fn restart(&mut self) {
        let client = format!("http://127.0.0.1:{}", self.client);
        let peer = format!("http://127.0.0.1:{}", self.peer);
        let child = Command::new("etcd")
            .args(["--name", "keyroute-test", "--data-dir"])
            .arg(&self.data)
            .args(["--listen-client-urls", &client, "--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer, "--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &format!("keyroute-test={peer}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start etcd (scripts/fleet-servers.sh installs etcd-server): {e}"));
        self.child = Some(child);
        // Listening is not serving: wait until a read answers.
        let deadline = Instant::now() + START;
        let probe = self.source("/keyroute/probe");
        while TcpStream::connect(("127.0.0.1", self.client)).is_err() || probe.read(&Limits::DEFAULT).is_err() {
            assert!(Instant::now() < deadline, "etcd did not serve on {}", self.client);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills the process (SIGKILL) and waits for it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes the process (SIGSTOP): it holds its sockets and answers nothing.
    pub fn freeze(&self) {
        self.signal("-STOP");
    }

    /// Lets a frozen process go on (SIGCONT).
    pub fn thaw(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().expect("etcd runs").id().to_string();
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
    }

    /// `etcd://127.0.0.1:PORT{key}`.
    pub fn url(&self, key: &str) -> String {
        format!("etcd://127.0.0.1:{}{key}", self.client)
    }

    /// The source of `key` on this member.
    pub fn source(&self, key: &str) -> EtcdSource {
        EtcdSource::new(&format!("127.0.0.1:{}", self.client), key).unwrap()
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.kill();
    }
}
