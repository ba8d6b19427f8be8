"""Shared fixtures: an isolated data directory, one engine per session, a real server process."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

# A PostgreSQL server the tests may use (.ci/run starts one and sets it): each module gets a database of its own
# there. Read before the CRASHDOC_* variables are cleared; it is not a crashdoc setting.
POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "").strip()

# Hermetic: nothing reaches a hub, and no setting leaks in from the developer's shell.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
for key in [k for k in os.environ if k.startswith("CRASHDOC_")]:
    del os.environ[key]


@pytest.fixture(scope="session")
def session_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crashdoc-data")


@pytest.fixture(scope="session")
def settings(session_data_dir: Path):  # type: ignore[no-untyped-def]
    from service.settings import Settings

    return Settings(data_dir=session_data_dir)


@pytest.fixture(scope="session")
def engine(settings):  # type: ignore[no-untyped-def]
    from service.pipeline import Engine

    return Engine(settings)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise TimeoutError("server did not become healthy")


def read_bytes_elsewhere(paths: list[Path]) -> dict[Path, bytes]:
    """The raw bytes of files, read by a child process: for a live SQLite database (its -wal and -shm included).

    Opening and closing a database file in this process releases every POSIX lock the process holds on it, so the
    SQLite connections of the session's engine lose their shared lock without knowing it. The next process to close
    that database then believes it is the last one, checkpoints and deletes the -wal and -shm files, and this
    process's connections fail with "disk I/O error" from then on (CI failed so on 2026-12-02). A child's close
    releases only the child's locks."""
    code = ("import sys\nfor p in sys.argv[1:]:\n    b = open(p, 'rb').read()\n"
            "    sys.stdout.buffer.write(len(b).to_bytes(8, 'big') + b)")
    out = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True, check=True, timeout=60).stdout
    blobs: dict[Path, bytes] = {}
    for p in paths:
        n = int.from_bytes(out[:8], "big")
        blobs[p], out = out[8:8 + n], out[8 + n:]
    return blobs


@dataclass(frozen=True)
class LiveServer:
    url: str
    data_dir: Path
    log_path: Path
    pid: int


@pytest.fixture(scope="session")
def server(session_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`crashdoc serve` as a real process on a free loopback port, with its data dir and its log file."""
    port = free_port()
    data = tmp_path_factory.mktemp("server-data")
    # Reuse the session's index cache so the server does not embed the KB again.
    index = session_data_dir / "index"
    if index.exists():
        os.symlink(index, data / "index")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(data), "CRASHDOC_LOG_LEVEL": "DEBUG"}
    log_path = data / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield LiveServer(url=url, data_dir=data, log_path=log_path, pid=proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


# ---------------------------------------------------------------- PostgreSQL


def _postgres_binaries() -> tuple[str | None, str | None]:
    """initdb and pg_ctl from PATH, else from the Debian package's versioned folder."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return initdb, pg_ctl
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    for bin_dir in reversed(versions):
        if (bin_dir / "initdb").exists() and (bin_dir / "pg_ctl").exists():
            return str(bin_dir / "initdb"), str(bin_dir / "pg_ctl")
    return None, None


@contextmanager
def _database_on(server_url: str) -> Iterator[str]:
    """A fresh database on the server of ``server_url`` (its role may create databases), dropped afterwards."""
    import psycopg

    plain = server_url.replace("postgresql+psycopg://", "postgresql://", 1)
    name = f"crashdoc_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(plain, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = server_url.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(plain, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _throwaway_server() -> Iterator[str]:
    """A PostgreSQL server of its own in a temporary folder, on a free loopback port; removed afterwards."""
    initdb, pg_ctl = _postgres_binaries()
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (and TEST_POSTGRES_URL is not set)")
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root
        if shutil.which("runuser") is None or subprocess.run(["id", "postgres"], capture_output=True).returncode:
            pytest.skip("running as root without a 'postgres' user to run the server")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    home = Path(tempfile.mkdtemp(prefix="crashdoc-pg-"))
    home.chmod(0o777)
    port = free_port()
    try:
        subprocess.run([*as_postgres, initdb, "-D", str(home / "data"), "-U", "crashdoc", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, timeout=120)
        subprocess.run([*as_postgres, pg_ctl, "-D", str(home / "data"), "-l", str(home / "server.log"), "-w", "-t", "60",
                        "-o", f"-c listen_addresses=127.0.0.1 -p {port} -k {home} -c fsync=off -c max_connections=300",
                        "start"], check=True, capture_output=True, timeout=120)
        yield f"postgresql+psycopg://crashdoc@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_postgres, pg_ctl, "-D", str(home / "data"), "-m", "immediate", "stop"], capture_output=True,
                       timeout=60, check=False)
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A PostgreSQL database for one test module: on TEST_POSTGRES_URL's server when set (CI), else on a throwaway
    server of its own; skipped only where neither is possible, and never when TEST_POSTGRES_URL is set."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if POSTGRES_URL:
            pytest.fail("TEST_POSTGRES_URL is set but the psycopg driver is not installed")
        pytest.skip("the psycopg driver is not installed")
    if POSTGRES_URL:
        with _database_on(POSTGRES_URL) as url:
            yield url
        return
    with _throwaway_server() as url:
        yield url


_pg_skipped: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Remember every skipped test that asked for PostgreSQL (a skip in setup is where pg_url skips)."""
    if report.skipped and "pg_url" in getattr(report, "fixturenames", ()):
        _pg_skipped.append(report.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    report.fixturenames = tuple(getattr(item, "fixturenames", ()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With TEST_POSTGRES_URL set (CI), a skipped PostgreSQL test fails the run: none may be skipped there."""
    if POSTGRES_URL and _pg_skipped:
        print(f"\nTEST_POSTGRES_URL is set but {len(_pg_skipped)} PostgreSQL test(s) were skipped:", *_pg_skipped,
              sep="\n  ", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
