"""Client addresses: X-Forwarded-For counts only when the request comes from a configured trusted proxy
(CRASHDOC_TRUSTED_PROXIES). Before, `crashdoc serve` believed it from any loopback caller (uvicorn's default), who
could rotate it and escape the anonymous daily allowance: 5 of 5 tries."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import httpx
import pytest
from starlette.requests import Request

from service.api.deps import client_address
from service.settings import Settings
from tests.conftest import REPO, free_port, wait_healthy
from tests.test_accounts import OOM_LOG, TEXT


def request_from(peer: str, forwarded: list[str], trusted: list[str]) -> Request:
    headers = [(b"x-forwarded-for", v.encode()) for v in forwarded]
    app = SimpleNamespace(state=SimpleNamespace(settings=Settings(trusted_proxies=trusted)))
    return Request({"type": "http", "method": "GET", "path": "/", "headers": headers, "client": (peer, 5000), "app": app})


@pytest.mark.parametrize(("peer", "forwarded", "trusted", "expected"), [
    ("127.0.0.1", ["203.0.113.9"], [], "127.0.0.1"),  # no proxy configured: the header is anyone's to write
    ("198.51.100.4", ["203.0.113.9"], ["10.0.0.0/8"], "198.51.100.4"),  # not from the proxy: ignored
    ("10.1.2.3", ["203.0.113.9"], ["10.0.0.0/8"], "203.0.113.9"),  # from the proxy: the client it saw
    # The client wrote its own X-Forwarded-For; the proxy appended the address it saw: the right-most untrusted wins.
    ("10.1.2.3", ["1.1.1.1, 203.0.113.9"], ["10.0.0.0/8"], "203.0.113.9"),
    ("10.1.2.3", ["1.1.1.1, 203.0.113.9, 10.9.9.9"], ["10.0.0.0/8"], "203.0.113.9"),  # two proxies in a row
    ("10.1.2.3", ["1.1.1.1", "203.0.113.9"], ["10.1.2.3"], "203.0.113.9"),  # the header sent twice
    ("::1", ["2001:db8::7"], ["::1"], "2001:db8::7"),
    ("10.1.2.3", [], ["10.0.0.0/8"], "10.1.2.3"),  # the proxy sent none: the proxy itself
])
def test_forwarded_for_is_believed_only_from_a_trusted_proxy(peer, forwarded, trusted, expected):
    assert client_address(request_from(peer, forwarded, trusted)) == expected


def test_a_loopback_caller_cannot_rotate_forwarded_for_to_escape_the_anonymous_allowance(session_data_dir, tmp_path):
    """The real `crashdoc serve` (uvicorn as it is started), 2 anonymous diagnoses a day per address."""
    port, data = free_port(), tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")
    env = {**os.environ, "CRASHDOC_DATA_DIR": str(data), "CRASHDOC_ANONYMOUS_DAILY": "2"}
    with open(tmp_path / "server.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], cwd=REPO, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        statuses = [httpx.post(f"{url}/v1/diagnoses", content=OOM_LOG, timeout=120,
                               headers={**TEXT, "X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(5)]
        assert statuses == [201, 201, 429, 429, 429]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
