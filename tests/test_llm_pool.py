"""A hanging model stalls nothing: LLM calls run in their own bounded pool, the rest is answered at once."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient

from service.app import create_app
from service.pipeline import Engine
from tests.conftest import EXAMPLES
from tests.fake_llm import FakeLLMServer, Script

LOG = (EXAMPLES / "fusedadam-h100.log").read_bytes()
SLOTS = 2
WAITING = 40


def test_healthz_and_new_diagnoses_answer_while_the_model_hangs(engine: Engine, tmp_path: Path):
    with FakeLLMServer() as fake:
        fake.state.default = Script(content="{}", delay=20.0)  # a model that hangs past every deadline below
        settings = engine.settings.model_copy(update={
            "data_dir": tmp_path, "database_url": None, "llm_model": "openai/hanging", "llm_api_base": fake.url,
            "llm_timeout_s": 15.0, "llm_budget_s": 15.0, "llm_max_retries": 0, "llm_concurrency": SLOTS,
        })
        e = Engine(settings)
        for shared in ("kb", "index", "masker"):
            e.__dict__[shared] = getattr(engine, shared)
        with TestClient(create_app(settings, e)) as client:
            post = lambda: client.post("/v1/diagnoses", content=LOG, headers={"Content-Type": "text/plain"})  # noqa: E731
            with ThreadPoolExecutor(max_workers=SLOTS + WAITING) as pool:
                hanging = [pool.submit(post) for _ in range(SLOTS)]
                deadline = time.monotonic() + 30
                while len(fake.state.requests) < SLOTS and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert len(fake.state.requests) == SLOTS  # both slots wait on the model now
                others = [pool.submit(post) for _ in range(WAITING)]
                health = client.get("/healthz")  # with 42 diagnoses in flight, 2 of them on the hanging model
                assert health.status_code == 200 and not any(f.done() for f in hanging)
                answered = [f.result(timeout=60) for f in others]
                for r in answered:
                    body = r.json()
                    assert r.status_code == 201 and body["composer"] == "deterministic"
                    assert any("LLM is busy" in n for n in body["notes"])
                assert len(fake.state.requests) == SLOTS  # nothing else reached the model
                for f in hanging:
                    body = f.result(timeout=60).json()
                    assert body["composer"] == "deterministic" and "did not answer" in body["llm"]["fallback_reason"]
