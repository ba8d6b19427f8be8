"""End to end: the bundled example through the CLI subprocess and through a real server process."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import httpx
import pytest

from tests.conftest import EXAMPLES, REPO

CONTRACT = {
    "id", "entry_id", "title", "category", "confidence", "summary", "candidates", "evidence", "facts",
    "initiating_rank", "collateral", "fix", "verify", "masked", "timings_ms", "kb_version", "composer",
}
FUSED = "deepspeed-fusedadam-illegal-memory-access"


@pytest.fixture(scope="module")
def cli_data_dir(session_data_dir, tmp_path_factory):  # type: ignore[no-untyped-def]
    """The CLI processes' own data dir (their own database), sharing the session's built index."""
    data = tmp_path_factory.mktemp("cli-data")
    index = session_data_dir / "index"
    if index.exists():
        os.symlink(index, data / "index")
    return data


def run_cli(*args: str, data_dir: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "CRASHDOC_DATA_DIR": data_dir}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=REPO, env=env, input=stdin,
                          capture_output=True, timeout=300, check=False)


def check_fused_adam(d: dict) -> None:
    assert set(d) >= CONTRACT
    assert d["entry_id"] == FUSED
    assert d["composer"] == "deterministic"
    texts = [e["text"] for e in d["evidence"]]
    assert any("illegal memory access" in t for t in texts)
    assert d["facts"]["optimizer"]["value"] == "FusedAdam"
    assert d["facts"]["gpu_model"]["value"].startswith("H100")
    assert d["fix"] and d["verify"]
    assert 0 < d["confidence"] <= 1


def test_cli_diagnose_json_on_bundled_example(cli_data_dir):
    r = run_cli("diagnose", str(EXAMPLES / "fusedadam-h100.log"), "--format", "json", data_dir=str(cli_data_dir))
    assert r.returncode == 0, r.stderr.decode()
    check_fused_adam(json.loads(r.stdout))


def test_cli_diagnose_reads_gzip_from_stdin(cli_data_dir):
    data = gzip.compress((EXAMPLES / "fusedadam-h100.log").read_bytes())
    r = run_cli("diagnose", "-", "--format", "json", data_dir=str(cli_data_dir), stdin=data)
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["entry_id"] == FUSED


def test_cli_text_and_markdown_name_the_cause(cli_data_dir):
    for fmt, marker in (("text", "Root cause:"), ("markdown", "<!-- crashdoc:comment key=")):
        r = run_cli("diagnose", str(EXAMPLES / "fusedadam-h100.log"), "--format", fmt, data_dir=str(cli_data_dir))
        out = r.stdout.decode()
        assert r.returncode == 0 and marker in out and FUSED in out


def test_cli_user_errors_exit_2_without_traceback(cli_data_dir, tmp_path):
    missing = run_cli("diagnose", str(tmp_path / "nope.log"), data_dir=str(cli_data_dir))
    empty_file = tmp_path / "empty.log"
    empty_file.write_bytes(b"")
    empty = run_cli("diagnose", str(empty_file), data_dir=str(cli_data_dir))
    binary_file = tmp_path / "weights.bin"
    binary_file.write_bytes(bytes(range(256)) * 64)
    binary = run_cli("diagnose", str(binary_file), data_dir=str(cli_data_dir))
    for r in (missing, empty, binary):
        err = r.stderr.decode()
        assert r.returncode == 2
        assert "Traceback" not in err and err.startswith("crashdoc: ")
        assert len(err.strip().splitlines()) == 1


def test_api_post_and_get_serve_the_same_contract(server):
    url = server.url
    body = (EXAMPLES / "fusedadam-h100.log").read_bytes()
    r = httpx.post(f"{url}/v1/diagnoses", content=body, headers={"Content-Type": "text/plain"}, timeout=60)
    assert r.status_code == 201, r.text
    d = r.json()
    check_fused_adam(d)
    again = httpx.get(f"{url}/v1/diagnoses/{d['id']}", timeout=10)
    assert again.status_code == 200
    assert again.json()["entry_id"] == FUSED and again.json()["evidence"] == d["evidence"]


def test_api_accepts_gzip_body_and_multipart_files(server):
    url = server.url
    raw = (EXAMPLES / "fusedadam-h100.log").read_bytes()
    gz = httpx.post(f"{url}/v1/diagnoses", content=gzip.compress(raw),
                    headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}, timeout=60)
    assert gz.status_code == 201 and gz.json()["entry_id"] == FUSED
    half = raw.count(b"\n") // 2
    lines = raw.splitlines(keepends=True)
    files = [("files", ("rank_0.log", b"".join(lines[:half]))), ("files", ("rank_1.log", b"".join(lines[half:])))]
    mp = httpx.post(f"{url}/v1/diagnoses", files=files, timeout=60)
    assert mp.status_code == 201, mp.text
    assert {f["name"] for f in mp.json()["files"]} == {"rank_0.log", "rank_1.log"}


def test_api_errors_are_json_with_the_right_status(server):
    url = server.url
    empty = httpx.post(f"{url}/v1/diagnoses", content=b"", headers={"Content-Type": "text/plain"})
    binary = httpx.post(f"{url}/v1/diagnoses", content=bytes(range(256)) * 64, headers={"Content-Type": "text/plain"})
    missing = httpx.get(f"{url}/v1/diagnoses/d_doesnotexist")
    wrong_type = httpx.post(f"{url}/v1/diagnoses", content=b"{}", headers={"Content-Type": "application/json"})
    for r, status in ((empty, 422), (binary, 415), (missing, 404), (wrong_type, 415)):
        assert r.status_code == status, r.text
        assert set(r.json()["error"]) >= {"code", "message"}
    assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
    assert httpx.get(f"{url}/v1/kb/{FUSED}").json()["id"] == FUSED
