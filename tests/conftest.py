"""Shared fixtures: an isolated data directory, one engine per session, a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"

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
