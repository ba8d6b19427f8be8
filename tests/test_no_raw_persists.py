"""Proof that nothing raw persists: planted secrets go through the API, then we search everything written."""

from __future__ import annotations

import httpx

from tests.conftest import EXAMPLES, read_bytes_elsewhere

SECRETS = {
    "hf_token": "hf_Vq3LmZ8xTn2KpR7wYc5HbJ4dGs9AeF1uXo",
    "aws_key": "AKIAQ4W7E2R9T5Y3U8I1",
    "aws_secret": "wJ9rXq2Lm5Nz8Vb3Kc7Hd1Fg4Ts6Yp0Ua2Ie5Ow",
    "github": "ghp_4fK9LmQ2xZ8vN3bT6wR1yH5cJ7dG0sA2eP9u",
    "password": "Tr0ub4dor&3-horse",
    "wandb": "3c1f9e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e",
    "host": "gpu-a100-017.hpc.acme-research.net",
    "user": "mgarcia",
    "email": "maria.garcia@acme-research.net",
    "bearer": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtZ2FyY2lhIn0.c2lnbmF0dXJlLWhlcmUtMTIzNDU2",
}


def planted_log() -> bytes:
    env = "\n".join([
        f"HF_TOKEN={SECRETS['hf_token']}",
        f"AWS_ACCESS_KEY_ID={SECRETS['aws_key']}",
        f"AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']}",
        f"GITHUB_TOKEN={SECRETS['github']}",
        f"WANDB_API_KEY={SECRETS['wandb']}",
        f"MASTER_ADDR={SECRETS['host']}",
        f"SLURM_JOB_USER={SECRETS['user']}",
        f"REDIS_URL=redis://default:{SECRETS['password']}@cache.internal:6379/0",
        f"notify: {SECRETS['email']}",
        f"DEBUG http: GET /api/runs Authorization: Bearer {SECRETS['bearer']}",
        f"Saving checkpoint to /home/{SECRETS['user']}/runs/ckpt-100",
    ])
    return env.encode() + b"\n" + (EXAMPLES / "fusedadam-h100.log").read_bytes()


def test_planted_secrets_never_reach_the_database_data_dir_or_logs(server):
    body = planted_log()
    r = httpx.post(f"{server.url}/v1/diagnoses", content=body, headers={"Content-Type": "text/plain"}, timeout=60)
    assert r.status_code == 201, r.text
    d = r.json()
    assert sum(d["masked"].values()) >= len(SECRETS)
    q = httpx.post(f"{server.url}/v1/diagnoses/{d['id']}/messages",
                   json={"question": f"does {SECRETS['host']} matter? my token is {SECRETS['hf_token']}"}, timeout=60)
    assert q.status_code == 201, q.text
    files = [p for p in server.data_dir.rglob("*") if p.is_file()]
    assert any(p.suffix == ".db" for p in files)
    blobs = {str(p): b for p, b in read_bytes_elsewhere(files).items()}  # a live database: see the helper
    blobs["response"] = r.content + q.content
    for kind, value in SECRETS.items():
        for where, blob in blobs.items():
            assert value.encode() not in blob, f"{kind} found raw in {where}"
