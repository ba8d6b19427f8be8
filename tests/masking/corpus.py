"""Planted-secrets corpus: realistic training-log lines with known secrets and diagnostic tokens.

``build_corpus(seed)`` returns lines (rank prefixes, timestamps, env dumps, tracebacks, launcher and
NCCL output) and, for each line index, the secrets planted there (must not survive masking) and the
diagnostic tokens there (must survive byte for byte). Deterministic for a seed; the benchmark reuses it.
"""

from __future__ import annotations

import base64
import random
import string
from collections import Counter
from dataclasses import dataclass, field

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


@dataclass(frozen=True)
class Planted:
    kind: str  # the counts key masking should report (a diagnostic token: "token")
    value: str
    line: int  # 0-based index into Corpus.lines


@dataclass
class Corpus:
    lines: list[str] = field(default_factory=list)
    secrets: list[Planted] = field(default_factory=list)
    tokens: list[Planted] = field(default_factory=list)

    def add(self, text: str, secrets: list[tuple[str, str]] = (), tokens: list[str] = ()) -> None:  # type: ignore[assignment]
        i = len(self.lines)
        self.lines.append(text)
        for kind, value in secrets:
            assert value in text, (kind, value, text)
            self.secrets.append(Planted(kind, value, i))
        for tok in tokens:
            assert tok in text, (tok, text)
            self.tokens.append(Planted("token", tok, i))

    @property
    def kinds(self) -> Counter[str]:
        return Counter(s.kind for s in self.secrets)


class Values:
    """Random but well-formed credential and identity values."""

    FIRST = ["jchen", "mlopez", "aokafor", "dkimura", "spatel", "rnovak", "tsato", "lgarcia", "bwright", "hmuller"]

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def aws_key_id(self) -> str:
        return self.r.choice(["AKIA", "ASIA"]) + self.s(string.ascii_uppercase + "234567", 16)

    def aws_secret(self) -> str:
        return self.s(ALNUM + "/+", 39) + self.r.choice(ALNUM)

    def hf(self) -> str:
        return "hf_" + self.s(ALNUM, 34)

    def openai(self) -> str:
        return "sk-proj-" + self.s(ALNUM + "_-", 60) + str(self.r.randint(0, 9)) + self.s(ALNUM, 8)

    def anthropic(self) -> str:
        return "sk-ant-api03-" + self.s(ALNUM + "_-", 93) + "AA"

    def github(self) -> str:
        if self.r.random() < 0.3:
            return "github_pat_" + self.s(ALNUM, 22) + "_" + self.s(ALNUM, 59)
        return self.r.choice(["ghp_", "gho_", "ghs_"]) + self.s(ALNUM, 36)

    def gitlab(self) -> str:
        return "glpat-" + self.s(ALNUM + "_-", 20)

    def slack(self) -> str:
        return f"xoxb-{self.s(string.digits, 12)}-{self.s(string.digits, 13)}-{self.s(ALNUM, 24)}"

    def slack_webhook(self) -> str:
        return f"https://hooks.slack.com/services/T{self.s(string.ascii_uppercase + string.digits, 8)}/B{self.s(string.ascii_uppercase + string.digits, 10)}/{self.s(ALNUM, 24)}"

    def hex(self, n: int) -> str:
        return self.s(HEX, n)

    def jwt(self) -> str:
        def part(obj: str) -> str:
            return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")

        header = part('{"alg":"HS256","typ":"JWT"}')
        payload = part('{"sub":"' + self.s(ALNUM, 12) + '","exp":1714564803}')
        return f"{header}.{payload}.{self.s(ALNUM + '_-', 43)}"

    def password(self) -> str:
        return self.s(string.ascii_letters, 4) + self.s(string.digits, 2) + self.r.choice("!#%^*_+.-") + self.s(ALNUM, 5)

    def user(self) -> str:
        return self.r.choice(self.FIRST) + str(self.r.randint(10, 99))

    def node(self) -> str:
        return self.r.choice(
            [f"gpu-node-{self.r.randint(1, 256):03d}", f"nid{self.r.randint(1, 9999):06d}", f"dgx-a100-{self.r.randint(1, 64):02d}",
             f"ip-10-{self.r.randint(0, 255)}-{self.r.randint(0, 255)}-{self.r.randint(1, 254)}", f"compute-{self.r.randint(0, 9)}-{self.r.randint(1, 40)}"]
        )

    def fqdn(self) -> str:
        return self.r.choice(
            [f"{self.node()}.cluster.internal", f"ip-10-0-{self.r.randint(0, 255)}-{self.r.randint(1, 254)}.ec2.internal",
             f"trainer-{self.r.randint(0, 31)}.ml.corp.example.com", f"db-{self.r.randint(1, 9)}.mlflow.acme-research.net",
             f"login{self.r.randint(1, 4)}.hpc.university.edu"]
        )

    def ipv4(self) -> str:
        return self.r.choice([f"10.{self.r.randint(0, 255)}.{self.r.randint(0, 255)}.{self.r.randint(1, 254)}",
                              f"172.{self.r.randint(16, 31)}.{self.r.randint(0, 255)}.{self.r.randint(1, 254)}",
                              f"192.168.{self.r.randint(0, 255)}.{self.r.randint(1, 254)}",
                              f"{self.r.randint(11, 99)}.{self.r.randint(0, 255)}.{self.r.randint(0, 255)}.{self.r.randint(1, 254)}"])

    def ipv6(self) -> str:
        return self.r.choice([f"fe80::{self.hex(3)}:{self.hex(4)}:{self.hex(4)}:{self.hex(4)}",
                              f"2001:db8:{self.hex(4)}:{self.hex(4)}::{self.hex(3)}"])

    def email(self) -> str:
        return f"{self.user()}@" + self.r.choice(["acme-research.com", "corp.example.org", "university.edu", "lab.internal"])

    def card(self) -> str:
        digits = [4] + [self.r.randint(0, 9) for _ in range(14)]
        total = 0
        for i, d in enumerate(reversed(digits)):
            d2 = d * 2 if i % 2 == 0 else d
            total += d2 - 9 if d2 > 9 else d2
        digits.append((10 - total % 10) % 10)
        n = "".join(map(str, digits))
        return " ".join(n[i : i + 4] for i in range(0, 16, 4)) if self.r.random() < 0.5 else n

    def iban(self) -> str:
        bban = self.s(string.digits, 18)
        num = int("".join(str(int(c, 36)) for c in bban + "DE00"))
        iban = f"DE{98 - num % 97:02d}{bban}"
        return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if self.r.random() < 0.5 else iban

    def mac(self) -> str:
        return ":".join(self.hex(2) for _ in range(6))

    def b64(self, n: int) -> str:
        return base64.b64encode(self.r.randbytes(n)).decode()


def _prefix(v: Values, rank: int) -> tuple[str, list[tuple[str, str]]]:
    """A realistic line prefix, and any identity it plants (pdsh and NCCL prefixes carry the host)."""
    r = v.r
    kind = r.randrange(7)
    ts = f"2024-05-01 12:{r.randint(0, 59):02d}:{r.randint(0, 59):02d},{r.randint(0, 999):03d}"
    if kind == 0:
        return f"[rank{rank}]: ", []
    if kind == 1:
        return f"[rank{rank}]:[{ts}] [INFO] ", []
    if kind == 2:
        host = v.node()
        return f"{host}: [rank{rank}]: ", [("hostname", host)]
    if kind == 3:
        return f"{rank}: ", []
    if kind == 4:
        return f"[default{rank}]:{ts.replace(',', '.')} ", []
    if kind == 5:
        return f"2024-05-01T12:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(0, 999999):06d}Z ", []
    return "", []


def _secret_lines(v: Values) -> tuple[list[tuple[str, list[tuple[str, str]]]], list[tuple[str, list[tuple[str, str]]]]]:
    """One round of every template: (text, planted secrets), then lines that need the round's names taught."""
    r = v.r
    u, u2, node, fq, ip, pw = v.user(), v.user(), v.node(), v.fqdn(), v.ipv4(), v.password()
    hf, oa, an, gh, gl = v.hf(), v.openai(), v.anthropic(), v.github(), v.gitlab()
    ak, sk, wb, db = v.aws_key_id(), v.aws_secret(), v.hex(40), "dapi" + v.hex(32)
    jwt, bearer, sl, hook = v.jwt(), v.s(ALNUM + "._-", 32), v.slack(), v.slack_webhook()
    acct_key, sig, gapi = v.b64(64), v.s(ALNUM, 43) + "%3D", "AIza" + v.s(ALNUM + "_-", 35)
    kid, email, card, iban, mac, v6 = v.hex(40), v.email(), v.card(), v.iban(), v.mac(), v.ipv6()
    pypi, npm, stripe, generic = "pypi-AgEIcHlwaS5vcmc" + v.s(ALNUM + "_-", 60), "npm_" + v.s(ALNUM, 36), "sk_live_" + v.s(ALNUM, 24), v.s(ALNUM, 32)
    pk_body = [v.b64(48) for _ in range(3)]
    acct = f"acme{r.randint(100, 999)}store"
    box = f"{v.s(string.ascii_lowercase, 6)}{r.randint(1, 9)}x"
    taught = [
        # after SLURM_JOB_USER=NAME or /home/NAME taught the name: a bare mention in another path
        (f"resumed from /data/{u}/ckpt/step_8000 (optimizer, scheduler, rng)", [("username", u)]),
        (f"HF_HOME=/scratch/{u}/hf WANDB_ENTITY={u}-lab", [("username", u)]),
        (f"rsync -a /data/{u2}/shards/ /fsx/{u2}-exp/shards/", [("username", u2)]),
    ]
    return [
        (f"HF_TOKEN={hf}", [("hf_token", hf)]),
        (f"huggingface_hub.utils._errors.HfHubHTTPError: 401 Client Error (token {hf[:6]}...) while using token={hf}", [("hf_token", hf)]),
        (f"export OPENAI_API_KEY={oa}", [("openai_key", oa)]),
        (f"openai.AuthenticationError: Error code: 401 - Incorrect API key provided: {oa}.", [("openai_key", oa)]),
        (f"ANTHROPIC_API_KEY='{an}'", [("anthropic_key", an)]),
        (f"remote: Invalid username or token. fatal: Authentication failed for 'https://x-access-token:{gh}@github.com/acme/llm.git/'", [("github_token", gh)]),
        (f"GITHUB_TOKEN={gh}", [("github_token", gh)]),
        (f"git clone https://oauth2:{gl}@gitlab.acme-research.com/ml/train.git", [("gitlab_token", gl), ("hostname", "gitlab.acme-research.com")]),
        (f"AWS_ACCESS_KEY_ID={ak} AWS_SECRET_ACCESS_KEY={sk} AWS_DEFAULT_REGION=us-east-1", [("aws_access_key", ak), ("aws_secret_key", sk)]),
        (f"aws_secret_access_key = {sk}", [("aws_secret_key", sk)]),
        (f"botocore.credentials: Found credentials in environment variables. {{'AccessKeyId': '{ak}', 'SecretAccessKey': '{sk}'}}", [("aws_access_key", ak), ("aws_secret_key", sk)]),
        (f"WANDB_API_KEY={wb}", [("wandb_key", wb)]),
        (f"$ wandb login --relogin {wb}", [("wandb_key", wb)]),
        (f"wandb.login(key=\"{wb}\", relogin=True)", [("wandb_key", wb)]),
        (f"machine api.wandb.ai login user password {wb}", [("wandb_key", wb)]),
        (f"DATABRICKS_HOST=https://adb-{r.randint(10**15, 10**16 - 1)}.7.azuredatabricks.net DATABRICKS_TOKEN={db}", [("databricks_token", db)]),
        (f"requests.exceptions.HTTPError: 401 Unauthorized for url: https://api.acme-research.com/v1/runs?token={jwt}", [("jwt", jwt), ("hostname", "api.acme-research.com")]),
        (f"curl -sS -H \"Authorization: Bearer {bearer}\" https://mlflow.acme-research.com/api/2.0/runs/get", [("bearer_token", bearer), ("hostname", "mlflow.acme-research.com")]),
        (f"headers={{'Authorization': 'Bearer {jwt}'}}", [("jwt", jwt)]),
        (f"SLACK_BOT_TOKEN={sl}", [("slack_token", sl)]),
        (f"slack_sdk.errors.SlackApiError: POST {hook} returned 404", [("slack_webhook", hook)]),
        (f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={acct_key};EndpointSuffix=core.windows.net", [("azure_connection_string", acct_key), ("azure_connection_string", acct)]),
        (f"Downloading https://{acct}.blob.core.windows.net/ckpt/model.pt?sv=2022-11-02&ss=b&sp=r&sig={sig}", [("azure_key", sig), ("hostname", f"{acct}.blob.core.windows.net")]),
        (f"google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/storage/v1/b/ckpt?key={gapi}", [("gcp_api_key", gapi)]),
        (f"{{\"type\": \"service_account\", \"project_id\": \"acme-ml\", \"private_key_id\": \"{kid}\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{pk_body[0]}\\n{pk_body[1]}\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"{u}@acme-ml.iam.gserviceaccount.com\"}}",
         [("gcp_key_id", kid), ("private_key", pk_body[0]), ("private_key", pk_body[1]), ("email", f"{u}@acme-ml.iam.gserviceaccount.com")]),
        (f"MLFLOW_TRACKING_URI=postgresql://{u}:{pw}@{fq}:5432/mlflow", [("password", pw), ("username", u), ("hostname", fq)]),
        (f"DB_PASSWORD={pw}", [("password", pw)]),
        (f"python train.py --config cfg.yaml --password {pw} --seed 1234", [("password", pw)]),
        (f"  password: \"{pw}\"", [("password", pw)]),
        (f"PGPASSWORD={pw} psql -h {fq} -U {u2}", [("password", pw), ("hostname", fq), ("username", u2)]),
        (f"MLFLOW_TRACKING_TOKEN={generic}", [("secret", generic)]),
        (f"\"client_secret\": \"{generic}\",", [("secret", generic)]),
        (f"accelerate launch train.py --hub_token {generic}", [("secret", generic)]),
        (f"TWINE_PASSWORD={pypi}", [("pypi_token", pypi)]),
        (f"//registry.npmjs.org/:_authToken={npm}", [("npm_token", npm)]),
        (f"STRIPE_API_KEY={stripe}", [("stripe_key", stripe)]),
        (f"MASTER_ADDR={node} MASTER_PORT=29500 WORLD_SIZE=64", [("hostname", node)]),
        (f"[E socket.cpp:957] [c10d] The client socket has timed out after 1800s while trying to connect to ({fq}, 29500).", [("hostname", fq)]),
        (f"torch.distributed.DistNetworkError: Connection to {fq}:29500 failed: Connection refused", [("hostname", fq)]),
        (f"{node}:{r.randint(1000, 99999)}:{r.randint(1000, 99999)} [{r.randint(0, 7)}] NCCL INFO NET/Socket : Using [0]eth0:{ip}<0> [1]ib0:{v.ipv4()}<0>", [("hostname", node), ("ip_address", ip)]),
        (f"  host      : {fq}", [("hostname", fq)]),
        (f"SLURM_JOB_NODELIST=gpu-node-[{r.randint(1, 99):03d}-{r.randint(100, 199):03d},{r.randint(200, 256):03d}] SLURMD_NODENAME={node} SLURM_JOB_USER={u}", [("hostname", node), ("username", u)]),
        (f"USER={u} LOGNAME={u} HOME=/home/{u} PWD=/home/{u}/llm", [("username", u)]),
        (f"  File \"/home/{u}/llm/train.py\", line {r.randint(10, 900)}, in <module>", [("username", u)]),
        (f"  File \"/Users/{u2}/code/finetune/run.py\", line {r.randint(10, 900)}, in main", [("username", u2)]),
        (f"FileNotFoundError: [Errno 2] No such file or directory: 'C:\\\\Users\\\\{u}\\\\data\\\\shard-00001.arrow'", [("username", u)]),
        (f"{u}@{node}:~/llm$ torchrun --nnodes 8 --nproc_per_node 8 train.py", [("username", u), ("hostname", node)]),
        (f"wandb: Currently logged in as: {u2} ({u2}-team). Use `wandb login --relogin` to force relogin", [("username", u2)]),
        (f"wandb: View run at https://wandb.ai/{u}/llama-pretrain/runs/{v.s(HEX, 8)}", [("username", u)]),
        (f"git config user.email {email}", [("email", email)]),
        (f"NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0:{v6}%eth0<0>", [("ip_address", v6)]),
        (f"    link/ether {mac} brd ff:ff:ff:ff:ff:ff", [("mac_address", mac)]),
        (f"sample 17: {{'text': 'please charge my card {card} thanks', 'label': 1}}", [("credit_card", card)]),
        (f"sample 23: {{'text': 'wire it to IBAN {iban} by friday', 'label': 0}}", [("iban", iban)]),
        (f"socket.gaierror: [Errno -2] Name or service not known: could not resolve host {node}.lab.acme-research.com", [("hostname", f"{node}.lab.acme-research.com")]),
        (f"[prolog] job {r.randint(1000, 999999)} user {u2} partition h100 nodes gpu-h[01-02] started", [("username", u2)]),
        (f"torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: '/tmp/torchinductor_{u}/fx_graph'", [("username", u)]),
        (f"== job {r.randint(1000, 999999)} ({u2}) on {node} ==", [("username", u2), ("hostname", node)]),
        (f"  hostname: {box}", [("hostname", box)]),
    ], taught


_TOKEN_LINES: list[tuple[str, list[str]]] = [
    ("torch 2.1.2+cu121 CUDA 12.1 cuDNN 8.9.2.26 NCCL 2.18.1 driver 535.104.05", ["2.1.2+cu121", "12.1", "8.9.2.26", "2.18.1", "535.104.05"]),
    ("GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-5a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d) sm_90 bus 00000000:3B:00.0",
     ["NVIDIA H100 80GB HBM3", "GPU-5a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", "sm_90", "00000000:3B:00.0"]),
    ("NVIDIA A100-SXM4-80GB compute capability sm_80, TensorRT 8.6.1.6", ["NVIDIA A100-SXM4-80GB", "sm_80", "8.6.1.6"]),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.02 GiB is free.",
     ["torch.OutOfMemoryError", "2.00 GiB", "79.15 GiB", "1.02 GiB"]),
    ("  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/api.py\", line 873, in _poll",
     ["/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/api.py", "line 873"]),
    ("frame #3: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x7f3a2c000000 (0x7f3a2c1b2e40 in /opt/conda/lib/python3.10/site-packages/torch/lib/libc10.so)",
     ["c10::detail::torchCheckFail", "0x7f3a2c000000", "0x7f3a2c1b2e40", "libc10.so", "std::string"]),
    ("torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 12345 closing signal SIGTERM",
     ["torch.distributed.elastic.multiprocessing.api", "SIGTERM", "12345"]),
    ("RuntimeError: shape '[8, 2048, 4096]' is invalid for input of size 67108864", ["[8, 2048, 4096]", "67108864"]),
    ("torch.Size([8, 2048, 4096]) vs torch.Size([8, 2048, 1024])", ["torch.Size([8, 2048, 4096])", "torch.Size([8, 2048, 1024])"]),
    ("NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", ["Channel 00/0", "0[0] -> 1[1]", "P2P/IPC/read"]),
    ("[E ProcessGroupNCCL.cpp:474] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=50331648, Timeout(ms)=1800000) ran for 1800713 milliseconds before timing out.",
     ["ProcessGroupNCCL.cpp:474", "[Rank 3]", "SeqNum=1234", "ALLREDUCE", "NumelIn=50331648", "Timeout(ms)=1800000"]),
    ("c10d store at localhost:29500 and 127.0.0.1:29500, rendezvous [::1]:29500 bound 0.0.0.0:29500", ["localhost:29500", "127.0.0.1:29500", "[::1]:29500", "0.0.0.0:29500"]),
    ("commit 3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a (HEAD -> main)", ["3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"]),
    ("Loading checkpoint shards: model-00001-of-00004.safetensors, model.safetensors.index.json", ["model-00001-of-00004.safetensors", "model.safetensors.index.json"]),
    ("python -m torch.distributed.run --nproc_per_node=8 --master_port=29500 train.py --bf16", ["torch.distributed.run", "--master_port=29500", "train.py"]),
    ("In file included from /usr/local/cuda/include/nccl.h:12, csrc/enqueue.cc:88 and kernel.cu:41", ["/usr/local/cuda/include/nccl.h", "enqueue.cc", "kernel.cu"]),
    ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", ["Xid", "PCI:0000:3b:00", "79"]),
    ("step 1200/100000 | loss 2.3456 | lr 3.0e-04 | grad_norm 1.23 | tokens/s 123456 | mem 71.23 GiB", ["step 1200/100000", "2.3456", "3.0e-04", "tokens/s 123456", "71.23 GiB"]),
    ("TOKENIZERS_PARALLELISM=false pad_token=<pad> eos_token: </s> max_new_tokens=512", ["TOKENIZERS_PARALLELISM=false", "pad_token=<pad>", "eos_token: </s>", "max_new_tokens=512"]),
    ("NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_SOCKET_IFNAME=eth0 NCCL_DEBUG=INFO CUDA_VISIBLE_DEVICES=0,1,2,3", ["NCCL_IB_HCA=mlx5_0,mlx5_1", "NCCL_SOCKET_IFNAME=eth0", "CUDA_VISIBLE_DEVICES=0,1,2,3"]),
    ("from torch.nn.parallel.distributed import DistributedDataParallel (torch.nn.parallel.distributed.py)", ["torch.nn.parallel.distributed", "DistributedDataParallel"]),
    ("Downloading https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json to model.pt", ["huggingface.co", "meta-llama/Llama-2-7b-hf", "config.json", "model.pt"]),
    ("timestamp 2024-05-01T12:00:03.123456+00:00 and 2024-05-01 12:00:03", ["2024-05-01T12:00:03.123456+00:00", "2024-05-01 12:00:03"]),
    ("deepspeed.runtime.engine: [INFO] DeepSpeed info: version=0.12.6, git-hash=unknown, git-branch=unknown", ["deepspeed.runtime.engine", "version=0.12.6"]),
    ("transformers.modeling_utils: loading weights file pytorch_model.bin from cache at /root/.cache/huggingface/hub", ["transformers.modeling_utils", "pytorch_model.bin", "/root/.cache/huggingface/hub"]),
    ("nvidia-smi: Driver Version: 535.104.05   CUDA Version: 12.2   Persistence-M: On", ["535.104.05", "12.2"]),
    ("accelerate.utils.dataclasses: mixed_precision=bf16 num_processes=64 machine_rank=3", ["accelerate.utils.dataclasses", "mixed_precision=bf16", "machine_rank=3"]),
    ("torch._dynamo.exc.Unsupported: call_function BuiltinVariable(setattr) in self.net", ["torch._dynamo.exc.Unsupported", "self.net"]),
    ("run dir outputs/24-05-01-12-00-03 and seed 4242", ["24-05-01-12-00-03", "seed 4242"]),
    ("killed by signal SIGKILL (-9); exitcode -9; local_rank: 3 (pid: 8812) of binary: /opt/conda/bin/python", ["SIGKILL", "local_rank: 3", "/opt/conda/bin/python"]),
    ("nvidia-cudnn-cu12        8.9.2.26", ["8.9.2.26"]),
    ("nvidia-cublas-cu12       12.1.3.1", ["12.1.3.1"]),
    ("Requirement already satisfied: nvidia-cusparse-cu12==12.1.0.106 in /opt/conda/lib/python3.10/site-packages", ["12.1.0.106"]),
    ("LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64:/opt/TensorRT-8.5.3.1/lib", ["/usr/local/cuda-11.8/lib64", "TensorRT-8.5.3.1"]),
    ("Get:1 http://azure.archive.ubuntu.com/ubuntu jammy/main amd64 libcublaslt11 amd64 11.7.4.6~11.5.1-1ubuntu1 [173 MB]",
     ["azure.archive.ubuntu.com", "11.7.4.6~11.5.1-1ubuntu1"]),
    ("pip install git+ssh://git@github.com/NVIDIA/apex.git; see http://www.nvidia.com/Download/index.aspx", ["git@github.com", "www.nvidia.com"]),
    ("apt-get install node-html5shiv libnvtoolsext1", ["node-html5shiv"]),
    ("UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.", ["UserWarning", "TypedStorage"]),
]


def build_corpus(seed: int = 1, rounds: int = 12) -> Corpus:
    """``rounds`` passes over every secret template (57 secrets each) and the diagnostic-token lines."""
    rng = random.Random(seed)
    v = Values(rng)
    corpus = Corpus()
    for round_ in range(rounds):
        items, taught = _secret_lines(v)
        rng.shuffle(items)
        for text, secrets in items + taught:
            prefix, planted = _prefix(v, rng.randrange(64))
            corpus.add(prefix + text, planted + secrets)
        for text, tokens in _TOKEN_LINES if round_ % 2 == 0 else []:
            prefix, planted = _prefix(v, rng.randrange(64))
            corpus.add(prefix + text, planted, tokens)
        # a PEM private key printed across several lines (a debug dump of a mounted secret)
        body = [v.b64(48) for _ in range(4)]
        prefix, planted = _prefix(v, rng.randrange(64))
        corpus.add(prefix + "-----BEGIN RSA PRIVATE KEY-----", planted)
        for b in body:
            corpus.add(prefix + b, [("private_key", b)])
        corpus.add(prefix + "-----END RSA PRIVATE KEY-----")
        # a .netrc written by `wandb login`, printed by a debugging `cat ~/.netrc`
        key, user = v.hex(40), v.user()
        corpus.add("machine api.wandb.ai")
        corpus.add(f"  login {user}", [("username", user)])
        corpus.add(f"  password {key}", [("wandb_key", key)])
    return corpus
