"""Secret kinds and the syntaxes logs print them in: the matrix the masking tests plant.

A kind is a value generator (the shape the vendor or tool issues) and the names it is found under; a
syntax is how a line of a training log carries a name and a value (env dumps, shell traces, config
dumps, client debug output, command lines, URLs). Every kind is rendered in every syntax. Near misses
are lines of the same shapes that hold no secret and must come through masking unchanged.

The values are random, drawn from a seed: no real credential is in here.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def _s(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def _mixed(r: random.Random, alphabet: str, n: int) -> str:
    """n characters with at least one upper, lower and digit (what issued keys look like)."""
    core = _s(r, alphabet, n - 3)
    return core + r.choice(string.ascii_uppercase) + r.choice(string.digits) + r.choice(string.ascii_lowercase)


def _b64json(obj: dict) -> str:
    return base64.b64encode(json.dumps(obj).encode()).decode()


def _jwt(r: random.Random) -> str:
    def part(obj: str) -> str:
        return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")

    return part('{"alg":"RS256","typ":"JWT"}') + "." + part('{"sub":"' + _s(r, ALNUM, 10) + '","exp":1767225600}') + "." + _s(r, URLSAFE, 86)


@dataclass(frozen=True)
class SecretKind:
    name: str  # the kind, as the tests report it
    env: str  # the variable or setting name it is usually found under
    make: Callable[[random.Random], str]

    @property
    def key(self) -> str:
        """The name as a config key or argument (snake case)."""
        return self.env.lower()


# Issued formats (vendor prefixes, fixed lengths) and generic secrets that only their name gives away.
KINDS: tuple[SecretKind, ...] = (
    SecretKind("hf-token", "HF_TOKEN", lambda r: "hf_" + _mixed(r, ALNUM, 34)),
    SecretKind("aws-access-key-id", "AWS_ACCESS_KEY_ID", lambda r: r.choice(["AKIA", "ASIA"]) + _s(r, string.ascii_uppercase + "234567", 16)),
    SecretKind("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY", lambda r: _mixed(r, B64, 40)),
    SecretKind("aws-session-token", "AWS_SESSION_TOKEN", lambda r: "IQoJb3JpZ2luX2Vj" + _mixed(r, B64, 180)),
    SecretKind("github-classic-token", "GITHUB_TOKEN", lambda r: r.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + _mixed(r, ALNUM, 36)),
    SecretKind("github-fine-grained-token", "GH_TOKEN", lambda r: "github_pat_" + _mixed(r, ALNUM, 22) + "_" + _mixed(r, ALNUM, 59)),
    SecretKind("gitlab-token", "GITLAB_TOKEN", lambda r: "glpat-" + _mixed(r, URLSAFE, 20)),
    SecretKind("openai-key", "OPENAI_API_KEY", lambda r: "sk-proj-" + _mixed(r, URLSAFE, 120)),
    SecretKind("anthropic-key", "ANTHROPIC_API_KEY", lambda r: "sk-ant-api03-" + _mixed(r, URLSAFE, 93) + "AA"),
    SecretKind("wandb-key", "WANDB_API_KEY", lambda r: _s(r, HEX, 40)),
    SecretKind("ngc-key", "NGC_API_KEY", lambda r: "nvapi-" + _mixed(r, URLSAFE, 64)),
    SecretKind("slack-bot-token", "SLACK_BOT_TOKEN", lambda r: f"xoxb-{_s(r, string.digits, 12)}-{_s(r, string.digits, 13)}-{_mixed(r, ALNUM, 24)}"),
    SecretKind("slack-signing-secret", "SLACK_SIGNING_SECRET", lambda r: _s(r, HEX, 32)),
    SecretKind("google-api-key", "GOOGLE_API_KEY", lambda r: "AIza" + _mixed(r, URLSAFE, 35)),
    SecretKind("google-oauth-client-secret", "GOOGLE_CLIENT_SECRET", lambda r: "GOCSPX-" + _mixed(r, URLSAFE, 28)),
    SecretKind("azure-storage-key", "AZURE_STORAGE_KEY", lambda r: _mixed(r, B64, 86) + "=="),
    SecretKind("azure-client-secret", "AZURE_CLIENT_SECRET", lambda r: _mixed(r, ALNUM, 3) + "8Q~" + _mixed(r, URLSAFE + ".~", 34)),
    SecretKind("stripe-key", "STRIPE_SECRET_KEY", lambda r: "sk_live_" + _mixed(r, ALNUM, 99)),
    SecretKind("sendgrid-key", "SENDGRID_API_KEY", lambda r: "SG." + _mixed(r, URLSAFE, 22) + "." + _mixed(r, URLSAFE, 43)),
    SecretKind("npm-token", "NPM_TOKEN", lambda r: "npm_" + _mixed(r, ALNUM, 36)),
    SecretKind("pypi-token", "PYPI_TOKEN", lambda r: "pypi-AgEIcHlwaS5vcmc" + _mixed(r, URLSAFE, 60)),
    SecretKind("dockerhub-token", "DOCKERHUB_TOKEN", lambda r: "dckr_pat_" + _mixed(r, URLSAFE, 27)),
    SecretKind("databricks-token", "DATABRICKS_TOKEN", lambda r: "dapi" + _s(r, HEX, 32)),
    SecretKind("replicate-token", "REPLICATE_API_TOKEN", lambda r: "r8_" + _mixed(r, ALNUM, 37)),
    SecretKind("groq-key", "GROQ_API_KEY", lambda r: "gsk_" + _mixed(r, ALNUM, 52)),
    SecretKind("jwt", "ACCESS_TOKEN", _jwt),
    SecretKind("telegram-bot-token", "TELEGRAM_BOT_TOKEN", lambda r: f"{r.randint(10**8, 10**10)}:AA" + _mixed(r, URLSAFE, 33)),
    SecretKind("comet-key", "COMET_API_KEY", lambda r: _mixed(r, ALNUM, 25)),
    SecretKind("neptune-token", "NEPTUNE_API_TOKEN", lambda r: _b64json({"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai", "api_key": _s(r, HEX, 8) + "-" + _s(r, HEX, 4) + "-" + _s(r, HEX, 4) + "-" + _s(r, HEX, 4) + "-" + _s(r, HEX, 12)})),
    SecretKind("kaggle-key", "KAGGLE_KEY", lambda r: _s(r, HEX, 32)),
    SecretKind("datadog-api-key", "DD_API_KEY", lambda r: _s(r, HEX, 32)),
    SecretKind("mlflow-password", "MLFLOW_TRACKING_PASSWORD", lambda r: _mixed(r, ALNUM + "!#%*+-.", 18)),
    SecretKind("mlflow-token", "MLFLOW_TRACKING_TOKEN", lambda r: _mixed(r, URLSAFE, 40)),
    SecretKind("db-password", "POSTGRES_PASSWORD", lambda r: _mixed(r, ALNUM + "$&;#!%^*@~", 16)),
    SecretKind("redis-password", "REDIS_PASSWORD", lambda r: _mixed(r, ALNUM, 32)),
    SecretKind("smtp-password", "SMTP_PASSWORD", lambda r: _mixed(r, ALNUM + "!$%&*", 14)),
    SecretKind("django-secret-key", "DJANGO_SECRET_KEY", lambda r: "django-insecure-" + _mixed(r, ALNUM + "!@#%^&*(-_=+)", 40)),
    SecretKind("flask-secret", "SECRET_KEY", lambda r: _s(r, HEX, 64)),
    SecretKind("api-key-generic", "SERVICE_API_KEY", lambda r: _mixed(r, ALNUM, 32)),
    SecretKind("auth-token-generic", "AUTH_TOKEN", lambda r: _mixed(r, URLSAFE, 44)),
    SecretKind("client-secret-generic", "OIDC_CLIENT_SECRET", lambda r: _mixed(r, ALNUM, 40)),
    SecretKind("encryption-key", "ENCRYPTION_KEY", lambda r: _mixed(r, B64, 43) + "="),
    SecretKind("webhook-secret", "WEBHOOK_SECRET", lambda r: "whsec_" + _mixed(r, B64, 32)),
    SecretKind("pinecone-key", "PINECONE_API_KEY", lambda r: "pcsk_" + _mixed(r, ALNUM, 5) + "_" + _mixed(r, ALNUM, 64)),
)


@dataclass(frozen=True)
class Syntax:
    name: str
    render: Callable[[SecretKind, str], str]  # (kind, value) -> line(s); may hold "\n" for two-line forms


def _dashed(kind: SecretKind) -> str:
    return kind.key.replace("_", "-")


# How a name and a value stand on a log line, from the tools that print them.
SYNTAXES: tuple[Syntax, ...] = (
    Syntax("env-raw", lambda k, v: f"{k.env}={v}"),  # `env`, printenv, /proc/<pid>/environ dumps
    Syntax("export", lambda k, v: f"export {k.env}={v}"),  # a job script echoed by `set -v`
    Syntax("env-single-quoted", lambda k, v: f"{k.env}='{v}'"),  # .env files, `set` output
    Syntax("env-double-quoted", lambda k, v: f'{k.env}="{v}"'),
    Syntax("declare-x", lambda k, v: f'declare -x {k.env}="{v}"'),  # `export -p` / `declare -x`
    Syntax("bash-x", lambda k, v: f"+ export '{k.env}={v}'"),  # `bash -x` trace of an export
    Syntax("json", lambda k, v: f'{{"run": "sft-7b", "{k.key}": "{v}", "region": "us-east-1"}}'),  # json.dumps of a config
    Syntax("yaml", lambda k, v: f"  {k.key}: {v}"),  # a config dumped with yaml.dump / OmegaConf
    Syntax("yaml-quoted", lambda k, v: f'  {k.key}: "{v}"'),
    Syntax("python-repr", lambda k, v: f"config: {{'model': 'llama-3-8b', '{k.key}': '{v}', 'lr': 2e-05}}"),  # print(dict)
    Syntax("python-repr-double", lambda k, v: f'settings={{"{k.key}": "{v}", "debug": False}}'),
    Syntax("namespace", lambda k, v: f"Namespace(batch_size=8, {k.key}='{v}', lr=0.0002)"),  # print(argparse args)
    Syntax("kwargs", lambda k, v: f"Launching with {k.key}={v!r}, seed=42"),  # an f-string of kwargs
    Syntax("header", lambda k, v: f"> X-{_dashed(k).title()}: {v}"),  # curl -v request header
    Syntax("cli-flag", lambda k, v: f"python train.py --{_dashed(k)} {v} --epochs 3"),  # a command line echoed
    Syntax("cli-flag-equals", lambda k, v: f"accelerate launch train.py --{_dashed(k)}={v} --bf16"),
    Syntax("url-query", lambda k, v: f"GET https://api.internal.example.com/v1/runs?{k.key}={v}&page=2 HTTP/1.1"),
    Syntax("k8s-env", lambda k, v: f"        - name: {k.env}\n          value: {v}"),  # kubectl get pod -o yaml
    Syntax("docker-inspect", lambda k, v: f'                "{k.env}={v}",'),  # docker inspect Config.Env
    Syntax("log-message", lambda k, v: f"INFO:root:using {k.env.lower().replace('_', ' ')} {v} for the upload"),  # prose
)

# Lines a log prefixes them with: torchrun --tee, torch>=2.3 [rankN]:, srun -l, logging, pdsh, k8s.
PREFIXES: tuple[str, ...] = (
    "",
    "[rank3]: ",
    "[default0]:",
    "1: ",
    "2026-11-30 14:02:11,482 - INFO - ",
    "gpu-node-017: ",
    "trainer-7c9d5b8f4-x2lqk | ",
)


def render(kind: SecretKind, syntax: Syntax, value: str, prefix: str) -> list[str]:
    """The line(s) of a log that carry one secret, each with the prefix."""
    return [prefix + line for line in syntax.render(kind, value).split("\n")]


# Lines of the same shapes that hold no secret: each must come through masking unchanged.
NEAR_MISSES: tuple[str, ...] = (
    "TOKENIZERS_PARALLELISM=false",
    "export TOKENIZERS_PARALLELISM=true",
    "declare -x PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\"",
    "+ export 'NCCL_DEBUG=INFO'",
    "  max_new_tokens: 512",
    "  tokenizer_name: meta-llama/Meta-Llama-3-8B",
    '{"pad_token_id": 0, "eos_token_id": 2, "bos_token_id": 1}',
    "config: {'model': 'llama-3-8b', 'max_tokens': 4096, 'lr': 2e-05}",
    "Namespace(batch_size=8, num_tokens=2048, lr=0.0002, key_padding_mask=None)",
    "python train.py --password-file /run/secrets/db_password --epochs 3",
    "  password: ${DB_PASSWORD}",
    "  api_key: null",
    "HF_TOKEN=",
    "AUTH_ENABLED=true",
    "  secret_name: wandb-api-key",
    "        - name: WANDB_API_KEY\n          valueFrom:\n            secretKeyRef:\n              name: wandb\n              key: api-key",
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered at 0x7f3a2c000000",
    "torch.Size([4096, 11008]) vs torch.Size([4096, 4096])",
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5f3c9a2e-7b1d-4e8f-9a6c-2d4b8e1f3a7c)",
    "NCCL INFO comm 0x5581e8f0 rank 3 nRanks 8 nNodes 1 localRanks 8 localRank 3 MNNVL 0 busId 0000:3B:00.0",
    "torch 2.5.1+cu124, transformers 4.46.3, git sha 9f2c4e7a1b3d5f60718293a4b5c6d7e8f9012345",
    "Loading checkpoint shards: 100%|##########| 4/4 [00:12<00:00,  3.02s/it]",
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed)",
    "KeyError: 'secret_key' (the config has no such key)",
    "triton cache: /root/.triton/cache/2c4f9e1a7b3d5c6e8f0a1b2c3d4e5f60/matmul_kernel.cubin",
)
