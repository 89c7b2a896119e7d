"""Shared fixtures: the repository layout, real memcached servers, and a "figures" section in
pytest's summary for the numbers the lead asked for (hit rates, cross-check counts)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(os.environ.get("KEYROUTE_VECTORS", REPO / "conformance" / "vectors" / "v1"))

#: Ports the memcached tests may use (the project's range for this surface).
PORTS = range(27500, 27600)

_FIGURES: List[str] = []


@pytest.fixture
def figure() -> Any:
    """Records one line for the "keyroute figures" summary section."""
    return _FIGURES.append


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _FIGURES:
        terminalreporter.section("keyroute figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _wait_listening(port: int, proc: "subprocess.Popen[bytes]", timeout: float = 10.0, host: str = "127.0.0.1") -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Memcached:
    """memcached servers started (and stopped) by this test session only."""

    def __init__(self) -> None:
        binary = shutil.which("memcached") or "/usr/bin/memcached"
        if not os.path.exists(binary):
            pytest.fail("memcached is not installed (py/test.sh installs Debian's package)")
        self.binary = binary
        self.procs: List[Tuple[int, "subprocess.Popen[bytes]"]] = []

    def start(self, count: int, host: str = "127.0.0.1") -> List[Tuple[str, int]]:
        """Starts `count` servers on free ports of PORTS, listening on `host` (127.0.0.1, or
        ::1 for IPv6 loopback); returns their addresses."""
        started: List[Tuple[str, int]] = []
        for port in PORTS:
            if len(started) == count:
                break
            if any(p == port for p, _ in self.procs) or not _port_free(port, host):
                continue
            args = [self.binary, "-l", host, "-p", str(port), "-U", "0", "-m", "64", "-t", "2"]
            if os.geteuid() == 0:
                args += ["-u", "nobody"]
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if _wait_listening(port, proc, host=host):
                self.procs.append((port, proc))
                started.append((host, port))
            else:  # lost a race for the port, or it failed: stop it and try the next port
                self._stop(proc)
        if len(started) < count:
            pytest.fail(f"could not start {count} memcached servers on ports {PORTS.start}-{PORTS.stop - 1}")
        return started

    @staticmethod
    def _stop(proc: "subprocess.Popen[bytes]") -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop_all(self) -> None:
        for _, proc in self.procs:
            self._stop(proc)
        self.procs.clear()


@pytest.fixture(scope="session")
def memcached() -> Iterator[Memcached]:
    servers = Memcached()
    try:
        yield servers
    finally:
        servers.stop_all()


def run_threads(worker: Callable[[int], None], count: int = 4) -> None:
    """Runs ``worker(0)`` … ``worker(count - 1)`` in threads at once; re-raises the first error."""
    errors: List[BaseException] = []

    def guarded(t: int) -> None:
        try:
            worker(t)
        except BaseException as e:  # reported by the calling thread
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Etcd:
    """One etcd member (Debian's etcd-server) on free ports of 127.0.0.1, started and stopped by
    this test session only; ``url(key)`` names a view source on it."""

    def __init__(self, data: str) -> None:
        binary = shutil.which("etcd") or "/usr/bin/etcd"
        if not os.path.exists(binary):
            pytest.fail("etcd is not installed (py/test.sh installs Debian's etcd-server)")
        self.client, peer = _free_port(), _free_port()
        client_url, peer_url = f"http://127.0.0.1:{self.client}", f"http://127.0.0.1:{peer}"
        args = [binary, "--name", "keyroute-py", "--data-dir", data]
        args += ["--listen-client-urls", client_url, "--advertise-client-urls", client_url]
        args += ["--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url]
        args += ["--initial-cluster", f"keyroute-py={peer_url}"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not _wait_listening(self.client, self.proc, timeout=60):
            Memcached._stop(self.proc)
            pytest.fail(f"etcd did not listen on {self.client}")

    def url(self, key: str) -> str:
        return f"etcd://127.0.0.1:{self.client}{key}"


@pytest.fixture(scope="session")
def etcd(tmp_path_factory: Any) -> Iterator[Etcd]:
    server = Etcd(str(tmp_path_factory.mktemp("etcd")))
    try:
        yield server
    finally:
        Memcached._stop(server.proc)
