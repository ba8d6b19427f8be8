"""Blind secret-masking corpus for crashdoc.

Written without reading crashdoc's masker: every case reflects how real tools
print secrets (env/printenv, bash -x, declare -x, curl -v, boto3/botocore debug,
kubectl, docker, mysql/psql, HF/W&B/NGC CLIs, python repr, JSON/YAML configs).

cases(seed) -> list of {"kind", "syntax", "line", "secrets", "keep"}
  line    : one or several log lines joined by "\n"
  secrets : exact substrings (as printed, escapes included) that must not survive
  keep    : diagnostic tokens (or, for near misses, whole lines) that must survive

All values are random strings of the right alphabet/length for the kind,
generated from the seed. None is a real credential.
"""
import base64
import json
import random
import string
import urllib.parse

ALNUM = string.ascii_letters + string.digits
LOWNUM = string.ascii_lowercase + string.digits
UPNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"

FIRST = ["kmartinez", "jchen", "asharma", "tnguyen", "mkowalski", "rpatel", "lgarcia",
         "dmueller", "yokafor", "snakamura", "bjohansson", "eroussel", "hkim", "vpetrov"]
CORP = ["acme", "zentrix", "novalab", "corvid", "halcyon", "quarkly", "meridian", "obsidia"]


class Gen:
    def __init__(self, rng):
        self.r = rng

    def s(self, alphabet, n):
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def alnum(self, n):
        # guarantee mixed classes so it looks like a real random token
        while True:
            v = self.s(ALNUM, n)
            if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v):
                return v

    def hex(self, n):
        return self.s(HEX, n)

    def b64(self, nbytes):
        return base64.b64encode(self.r.randbytes(nbytes)).decode()

    def urlsafe(self, n):
        return self.s(URLSAFE, n)

    def digits(self, n):
        return str(self.r.randint(1, 9)) + self.s(string.digits, n - 1)

    def pw(self, specials="$&;,# \"'\\!", n_special=None):
        """Password with shell-special characters between alnum runs >= 6."""
        r = self.r
        parts = [self.alnum(r.randint(5, 8))]
        for _ in range(n_special or r.randint(2, 3)):
            parts.append(r.choice(specials))
            parts.append(self.alnum(r.randint(6, 8)))
        return "".join(parts)

    def user(self):
        return self.r.choice(FIRST) + self.s(string.digits, 2)

    def host(self, role="db"):
        c = self.r.choice(CORP)
        return f"{role}-{self.s(LOWNUM, 5)}.{c}-{self.s(string.ascii_lowercase, 4)}.internal"

    def uuid(self):
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def jwt(self, alg="HS256", payload=None):
        def b64u(b):
            return base64.urlsafe_b64encode(b).decode().rstrip("=")
        head = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
        payload = payload or {"sub": self.uuid(), "iat": self.r.randint(1.6e9, 1.75e9),
                              "scope": "read write", "jti": self.hex(16)}
        body = b64u(json.dumps(payload, separators=(",", ":")).encode())
        sig = b64u(self.r.randbytes(32 if alg.startswith("HS") else 256))
        return f"{head}.{body}.{sig}"


# ---------------------------------------------------------------- escapes

def dq(v):
    """bash double-quote escaping, as declare -x / declare -p print it."""
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")


def bx(word):
    """How bash -x (xtrace) prints one word."""
    safe = set(ALNUM + "_./:=@%+-")
    if word and all(c in safe for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def bx_inner(word):
    w = bx(word)
    return w[1:-1] if w.startswith("'") else w


def jstr(v):
    return json.dumps(v)[1:-1]


def pyrepr_inner(v):
    return repr(v)[1:-1]


def yaml_scalar(v):
    """(rendered, secret-as-printed) like PyYAML safe_dump would."""
    plain_bad = set(":#'\"\\{}[],&*!|>%@`") | {" "}
    if not any(c in plain_bad for c in v):
        return v, v
    if "\\" in v or '"' in v and "'" in v:
        j = json.dumps(v)
        return j, j[1:-1]
    s = v.replace("'", "''")
    return f"'{s}'", s


def pct(v):
    return urllib.parse.quote(v, safe="")


def pem_body(g, header_b64="", nbytes=1190, width=64):
    data = base64.b64encode(g.r.randbytes(nbytes)).decode()
    if header_b64:
        data = header_b64 + data[len(header_b64):]
    return [data[i:i + width] for i in range(0, len(data), width)]


PEM_TYPES = {
    "rsa": ("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 1190, 64),
    "ec": ("EC PRIVATE KEY", "MHcCAQEEI", 118, 64),
    "openssh": ("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 390, 70),
    "pkcs8": ("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1210, 64),
    "encrypted": ("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1270, 64),
    "cert": ("CERTIFICATE", "MIIDBTCCAe2gAwIBAgII", 760, 64),
}


def pem(g, kind):
    label, head, n, w = PEM_TYPES[kind]
    body = pem_body(g, head, n, w)
    return label, body


def pem_text(label, body):
    return "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"])


# ---------------------------------------------------------------- noise

def noise(g):
    """A realistic distributed-training line and the diagnostic tokens it holds."""
    r = g.r
    rank = r.randint(0, 7)
    addr = "0x7f" + g.hex(10)
    comm = "0x55" + g.hex(10)
    node = f"gpu-node-{r.randint(1, 64)}"
    pid = r.randint(1000, 99999)
    opts = [
        (f"[rank{rank}]:[W{r.randint(1,12):02d}{r.randint(1,28):02d} 12:0{r.randint(0,9)}:3{r.randint(0,9)}.{r.randint(100000,999999)} {pid} torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1168] [PG 0 (default_pg) Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=18874, OpType=ALLREDUCE, NumelIn=67108864, NumelOut=67108864, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.",
         ["torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1168", "SeqNum=18874", "OpType=ALLREDUCE", "Timeout(ms)=600000"]),
        (f"{node}:{pid}:{pid} [{rank}] NCCL INFO comm {comm} rank {rank} nranks 16 cudaDev {rank} nvmlDev {rank} busId 3b000 commId 0x9f1c2a7e3b4d5e6f - Init COMPLETE",
         [comm, "commId 0x9f1c2a7e3b4d5e6f", "busId 3b000", "Init COMPLETE"]),
        (f"{node}:{pid}:{pid} [{rank}] NCCL INFO NCCL version 2.21.5+cuda12.4",
         ["NCCL version 2.21.5+cuda12.4"]),
        (f"[2024-05-03 12:01:22,{r.randint(100,999)}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
         ["real_accelerator.py:203:get_accelerator", "ds_accelerator"]),
        (f"[rank{rank}]: DeepSpeed info: version=0.14.4+a1b2c3d4, git-hash=a1b2c3d4, git-branch=HEAD",
         ["version=0.14.4+a1b2c3d4", "git-hash=a1b2c3d4"]),
        (f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU {rank} has a total capacity of 79.10 GiB of which 1.23 GiB is free.",
         ["torch.OutOfMemoryError", "1.96 GiB", "79.10 GiB"]),
        (f"[rank{rank}]: frame #3: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 ({addr} in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10_cuda.so)",
         [addr, "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10_cuda.so", "c10_cuda_check_implementation"]),
        (f'[rank{rank}]:   File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1553, in _wrapped_call_impl',
         ["/usr/lib/python3/dist-packages/torch/nn/modules/module.py", "_wrapped_call_impl"]),
        (f"[rank{rank}]: RuntimeError: shape '[4096, 11008]' is invalid for input of size 45088768",
         ["RuntimeError", "[4096, 11008]", "45088768"]),
        (f"{{'loss': {r.uniform(0.5, 3):.4f}, 'grad_norm': 0.8712, 'learning_rate': 2e-05, 'epoch': 0.12, 'step': 1200}}",
         ["'grad_norm': 0.8712", "'learning_rate': 2e-05", "'step': 1200"]),
        ("torch 2.4.0+cu124 | CUDA 12.4 | cuDNN 90100 | transformers 4.44.2 | torch.version.git_version e2d141dbde55c2a4370fac5165b0561b6af4798b",
         ["2.4.0+cu124", "cuDNN 90100", "4.44.2", "e2d141dbde55c2a4370fac5165b0561b6af4798b"]),
        (f"[{rank}] GPU {rank}: NVIDIA H100 80GB HBM3 (UUID: GPU-5b1e2c3d-4f5a-6b7c-8d9e-0f1a2b3c4d5e) Bus-Id 00000000:3B:00.0",
         ["GPU-5b1e2c3d-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "00000000:3B:00.0"]),
        ("NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
         ["Xid (PCI:0000:3b:00): 79", "GPU has fallen off the bus"]),
        (f"[rank{rank}]: step 1200 | loss 2.3456 | lr 1.000e-04 | tokens/s 123456 | mem 71.2GiB",
         ["step 1200", "loss 2.3456", "lr 1.000e-04", "tokens/s 123456"]),
        (f"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED (exitcode: -6, local_rank: {rank}, pid: {pid})",
         ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError", "exitcode: -6"]),
        ("ncclUniqueId: 0200b9a4ac1f00000000000000000000000000000000000000000000000000000000",
         ["0200b9a4ac1f00000000000000000000000000000000000000000000000000000000"]),
    ]
    return r.choice(opts)


def embed(g, case, p_noise=0.45, prefix_ok=True):
    """Sometimes surround a case with noise lines, sometimes prefix it with a rank tag."""
    r = g.r
    lines = case["line"].split("\n")
    keep = list(case["keep"])
    if prefix_ok and case["syntax"] != "near_miss" and r.random() < 0.15:
        tag = f"[rank{r.randint(0, 7)}]: "
        lines = [tag + l for l in lines]
    if r.random() < p_noise:
        n, k = noise(g)
        lines.insert(0, n)
        keep += k
    if r.random() < p_noise:
        n, k = noise(g)
        lines.append(n)
        keep += k
    case["line"] = "\n".join(lines)
    case["keep"] = keep
    return case


def C(kind, syntax, line, secrets, keep=()):
    if isinstance(line, (list, tuple)):
        line = "\n".join(line)
    secrets = [s for s in secrets if s]
    for s in secrets:
        assert s in line, (kind, syntax, s, line)
    for k in keep:
        assert k in line, (kind, syntax, k, line)
    return {"kind": kind, "syntax": syntax, "line": line, "secrets": list(secrets), "keep": list(keep)}


# ---------------------------------------------------------------- generic named renders

def named(kind, name, v, syntaxes, key=None):
    """Render a secret held by a secret-like name in several syntaxes."""
    key = key or name.lower()
    out = []
    for syn in syntaxes:
        if syn == "raw":
            out.append(C(kind, syn, f"{name}={v}", [v]))
        elif syn == "env_dump":
            out.append(C(kind, syn, [
                "NV_LIBCUBLAS_VERSION=12.4.5.8-1", "CUDA_VERSION=12.4.1", f"{name}={v}",
                "NCCL_DEBUG=INFO", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                "NV_CUDNN_VERSION=9.1.0.70-1"], [v],
                ["CUDA_VERSION=12.4.1", "NV_CUDNN_VERSION=9.1.0.70-1", "NV_LIBCUBLAS_VERSION=12.4.5.8-1",
                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]))
        elif syn == "export_dq":
            out.append(C(kind, syn, f'export {name}="{dq(v)}"', [dq(v)]))
        elif syn == "export_sq":
            inner = v.replace("'", "'\\''")
            out.append(C(kind, syn, f"export {name}='{inner}'", [inner]))
        elif syn == "declare_x":
            out.append(C(kind, syn, [f'declare -x CUDA_HOME="/usr/local/cuda"', f'declare -x {name}="{dq(v)}"',
                                     'declare -x NCCL_SOCKET_IFNAME="eth0"'], [dq(v)], ['CUDA_HOME="/usr/local/cuda"']))
        elif syn == "bashx_export":
            w = bx(f"{name}={v}")
            sec = w[len(name) + 2:-1] if w.startswith("'") else v
            out.append(C(kind, syn, ["+ source /etc/profile.d/train-env.sh", f"++ export {w}"], [sec]))
        elif syn == "json":
            out.append(C(kind, syn, json.dumps({"host": "localhost", key: v, "timeout": 30}), [jstr(v)]))
        elif syn == "json_pretty":
            txt = json.dumps({"run": {"name": "llama-7b-sft", key: v, "retries": 3}}, indent=2)
            out.append(C(kind, syn, txt, [jstr(v)], ['"retries": 3']))
        elif syn == "yaml":
            rendered, sec = yaml_scalar(v)
            out.append(C(kind, syn, ["trainer:", "  max_steps: 20000", "  logger:", f"    {key}: {rendered}",
                                     "    project: llama-sft"], [sec], ["max_steps: 20000"]))
        elif syn == "pyrepr":
            out.append(C(kind, syn, f"config = {{'lr': 0.0001, '{key}': {repr(v)}, 'bf16': True}}",
                         [pyrepr_inner(v)], ["'lr': 0.0001"]))
        elif syn == "argparse":
            out.append(C(kind, syn, f"Namespace(batch_size=32, bf16=True, {key}={repr(v)}, lr=0.0001, "
                                    f"model_name_or_path='meta-llama/Llama-2-7b-hf', seed=42)",
                         [pyrepr_inner(v)], ["model_name_or_path='meta-llama/Llama-2-7b-hf'", "batch_size=32"]))
        elif syn == "ini":
            out.append(C(kind, syn, ["[default]", f"{key} = {v}"], [v]))
        elif syn == "dotenv":
            out.append(C(kind, syn, ["# .env loaded by python-dotenv", f'{name}="{v}"'] if '"' not in v
                         else ["# .env loaded by python-dotenv", f"{name}={v}"], [v]))
        elif syn == "k8s_env":
            out.append(C(kind, syn, ["    env:", f"    - name: {name}", f"      value: {json.dumps(v)}"], [jstr(v)]))
        elif syn == "docker_inspect":
            out.append(C(kind, syn, ['            "Env": [', f'                {json.dumps(name + "=" + v)},',
                                     '                "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/bin",',
                                     '                "CUDA_VERSION=12.4.1"'], [jstr(v)], ['"CUDA_VERSION=12.4.1"']))
        else:
            raise ValueError(syn)
    return out


# ---------------------------------------------------------------- kinds

def k_passwords(g):
    out = []
    # generic DB password
    v = g.pw()
    out += named("db_password", "DB_PASSWORD", g.pw(), ["raw", "env_dump", "export_dq", "yaml", "json"], key="password")
    out += named("db_password", "DB_PASSWORD", g.pw(), ["export_sq", "declare_x", "bashx_export", "pyrepr", "argparse"], key="db_password")
    u, h = g.user(), g.host("db")
    v = g.pw("$&;,#!")
    out.append(C("db_password", "url_userinfo",
                 f"sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect, url=postgresql://{u}:{pct(v)}@{h}:5432/features",
                 [pct(v), h], ["sqlalchemy.exc.OperationalError", "psycopg2.OperationalError"]))
    # Redis
    v = g.pw("$&;,#!")
    h = g.host("redis")
    out.append(C("redis_password", "url_userinfo", f"CELERY_BROKER_URL=redis://:{pct(v)}@{h}:6379/0", [pct(v), h]))
    v = g.pw("$&#!")
    out.append(C("redis_password", "bashx_cmd", f"+ redis-cli -h 127.0.0.1 -p 6379 -a {bx(v)} ping", [bx_inner(v)]))
    out += named("redis_password", "REDIS_PASSWORD", g.pw(), ["raw", "declare_x", "k8s_env"], key="redis_password")
    v = g.pw("$&;#")
    out.append(C("redis_password", "pyrepr",
                 f"Redis<ConnectionPool<Connection<host=localhost,port=6379,db=0>>> kwargs={{'host': 'localhost', 'port': 6379, 'password': {repr(v)}, 'ssl': False}}",
                 [pyrepr_inner(v)]))
    # MySQL
    v = g.pw("$&;#!")
    out.append(C("mysql_password", "cli_attached", f"+ mysql -h 127.0.0.1 -u optuna {bx('-p' + v)} optuna -e 'SELECT 1'",
                 [bx_inner('-p' + v)[2:]]))
    v = g.alnum(16)
    out.append(C("mysql_password", "cli_attached", f"mysqldump -uroot -p{v} --single-transaction optuna > /backup/optuna.sql",
                 [v]))
    v = g.pw("$&#!")
    out.append(C("mysql_password", "cli_eq", f"++ mysql --user=optuna {bx('--password=' + v)} --host=127.0.0.1 optuna",
                 [bx_inner('--password=' + v)[len('--password='):]]))
    v = g.pw('"$\\`')
    out.append(C("mysql_password", "declare_x", f'declare -x MYSQL_PWD="{dq(v)}"', [dq(v)]))
    v = g.pw("$&;#!")
    out.append(C("mysql_password", "url_userinfo",
                 [f"optuna.create_study(storage='mysql+pymysql://optuna:{pct(v)}@127.0.0.1:3306/optuna', study_name='lr-sweep')",
                  "optuna.exceptions.StorageInternalError: An exception is raised during the commit. This typically happens due to invalid data in the commit, e.g. exceeding max length.",
                  '  File "/opt/conda/lib/python3.10/site-packages/optuna/storages/_rdb/storage.py", line 77, in _create_scoped_session'],
                 [pct(v)], ["optuna.exceptions.StorageInternalError", "/site-packages/optuna/storages/_rdb/storage.py"]))
    out += named("mysql_password", "MYSQL_ROOT_PASSWORD", g.pw(), ["raw", "docker_inspect"])
    # Postgres
    v = "$" + g.alnum(6) + "$" + g.alnum(8)
    out.append(C("postgres_password", "raw", f"POSTGRES_PASSWORD={v}", [v]))
    out += named("postgres_password", "PGPASSWORD", g.pw(), ["export_dq", "bashx_export", "env_dump"])
    v = g.pw("$&;#!")
    h = g.host("pg")
    out.append(C("postgres_password", "conn_kv",
                 f"psycopg2.OperationalError: connection to server failed; dsn: host={h} port=5432 dbname=mlflow user=mlflow password={v} sslmode=require",
                 [v, h], ["psycopg2.OperationalError"]))
    v = g.pw("$&;#!")
    out.append(C("postgres_password", "url_userinfo",
                 [f"+ mlflow server --backend-store-uri {bx('postgresql://mlflow:' + pct(v) + '@127.0.0.1:5432/mlflow')} --host 0.0.0.0",
                  "mlflow.exceptions.MlflowException: Detected out-of-date database schema (found version 97c46b4a38f8, but expected 5b50f3d0e1ad).",
                  '  File "/usr/local/lib/python3.10/site-packages/mlflow/store/tracking/sqlalchemy_store.py", line 158, in __init__'],
                 [pct(v)], ["mlflow.exceptions.MlflowException", "/site-packages/mlflow/store/tracking/sqlalchemy_store.py",
                            "97c46b4a38f8", "5b50f3d0e1ad"]))
    v = g.pw("$&;,!")
    out.append(C("postgres_password", "pgpass", f"+ echo '127.0.0.1:5432:mlflow:mlflow:{v}'", [v]))
    # SMTP
    v = g.pw("&#$; ")
    w = bx(f"SMTP_PASSWORD={v}")
    out.append(C("smtp_password", "bashx_export", f"+ export {w}", [w[len('SMTP_PASSWORD=') + 1:-1]]))
    out += named("smtp_password", "SMTP_PASSWORD", g.pw(), ["pyrepr", "yaml", "raw"], key="smtp_password")
    v = g.pw("$&;#")
    out.append(C("smtp_password", "pyrepr",
                 f"smtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted') | cfg={{'EMAIL_HOST': 'smtp.gmail.com', 'EMAIL_HOST_USER': 'alerts', 'EMAIL_HOST_PASSWORD': {repr(v)}}}",
                 [pyrepr_inner(v)], ["smtplib.SMTPAuthenticationError"]))
    # Docker registry
    v = g.pw("$&#!")
    out.append(C("docker_password", "cli_flag", f"+ docker login -u ci-bot -p {bx(v)} registry.gitlab.com", [bx_inner(v)]))
    v = g.alnum(24)
    out.append(C("docker_password", "cli_flag", [f"$ docker login --username ci-bot --password {v} ghcr.io",
                                                 "WARNING! Using --password via the CLI is insecure. Use --password-stdin."], [v],
                 ["WARNING! Using --password via the CLI is insecure. Use --password-stdin."]))
    v = g.alnum(20)
    auth = base64.b64encode(f"ci-bot:{v}".encode()).decode()
    out.append(C("docker_password", "json_b64", ["{", '  "auths": {', '    "registry.example.com": {', f'      "auth": "{auth}"', "    }", "  }", "}"],
                 [auth]))
    v = g.pw("$&#")
    out.append(C("docker_password", "bashx_cmd", f"+ echo {bx(v)}\n+ docker login registry.example.com -u ci-bot --password-stdin", [bx_inner(v)]))
    # SSH password
    v = g.pw("$&;#!")
    out.append(C("ssh_password", "cli_flag", f"+ sshpass -p {bx(v)} rsync -avz ckpt/ backup@10.20.0.4:/data/ckpt/", [bx_inner(v)]))
    v = g.alnum(14)
    out.append(C("ssh_password", "cli_attached", f"sshpass -p{v} scp model.safetensors backup@10.20.0.4:/models/", [v]))
    # generic free text password
    v = g.pw("$&;,#")
    out.append(C("db_password", "free_text", f"INFO connecting to feature store as svc_train with password {v} (attempt 1/3)", [v]))
    v = g.pw(" ")
    out.append(C("db_password", "dq_spaces", f'DB_PASSWORD="{v}"', [v]))
    return out


def k_aws(g):
    out = []
    akid = "AKIA" + g.s(UPNUM, 16)
    sk = g.s(ALNUM + "/+", 40)
    asia = "ASIA" + g.s(UPNUM, 16)
    sk2 = g.s(ALNUM + "/+", 40)
    tok = "IQoJb3JpZ2luX2VjE" + g.b64(420).rstrip("=")
    out += named("aws_access_key_id", "AWS_ACCESS_KEY_ID", akid, ["raw", "export_dq", "json"], key="aws_access_key_id")
    out += named("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", sk, ["raw", "env_dump", "export_sq", "yaml", "pyrepr"], key="aws_secret_access_key")
    out.append(C("aws_secret_access_key", "ini",
                 ["[default]", f"aws_access_key_id = {akid}", f"aws_secret_access_key = {sk}", "region = us-east-1"], [akid, sk], ["region = us-east-1"]))
    out.append(C("aws_session_token", "raw", f"AWS_SESSION_TOKEN={tok}", [tok]))
    out.append(C("aws_session_token", "declare_x", f'declare -x AWS_SESSION_TOKEN="{tok}"', [tok]))
    d = "20240503"
    sig = g.hex(64)
    out.append(C("aws_session_token", "boto_debug", [
        "2024-05-03 12:01:22,118 botocore.credentials [DEBUG] Found credentials in environment variables.",
        f"2024-05-03 12:01:22,126 botocore.endpoint [DEBUG] Sending http request: <AWSPreparedRequest stream_output=False, method=PUT, "
        f"url=https://ckpt-bucket.s3.us-east-1.amazonaws.com/run7/step_1000.pt, headers={{'User-Agent': b'Boto3/1.34.84 md/Botocore#1.34.84 ua/2.0 os/linux#5.15.0-105-generic lang/python#3.10.12', "
        f"'X-Amz-Date': b'{d}T120122Z', 'X-Amz-Security-Token': b'{tok}', 'X-Amz-Content-SHA256': b'UNSIGNED-PAYLOAD', "
        f"'Authorization': b'AWS4-HMAC-SHA256 Credential={asia}/{d}/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature={sig}', "
        f"'Content-Length': '1048576'}}>"], [tok, asia], ["Boto3/1.34.84", "botocore.credentials", "UNSIGNED-PAYLOAD"]))
    out.append(C("aws_session_token", "sts_dict",
                 f"{{'Credentials': {{'AccessKeyId': '{asia}', 'SecretAccessKey': '{sk2}', 'SessionToken': '{tok}', "
                 f"'Expiration': datetime.datetime(2024, 5, 3, 13, 1, 22, tzinfo=tzutc())}}, 'AssumedRoleUser': {{'AssumedRoleId': 'AROA{g.s(UPNUM, 17)}:train-job', "
                 f"'Arn': 'arn:aws:sts::123456789012:assumed-role/train-role/train-job'}}, 'ResponseMetadata': {{'HTTPStatusCode': 200, 'RetryAttempts': 0}}}}",
                 [asia, sk2, tok], ["'HTTPStatusCode': 200"]))
    out.append(C("aws_session_token", "boto_debug",
                 ["2024-05-03 12:01:22,301 botocore.parsers [DEBUG] Response body:",
                  f"b'<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\\n  <AssumeRoleResult>\\n    <Credentials>\\n      <AccessKeyId>{asia}</AccessKeyId>\\n      <SecretAccessKey>{sk2}</SecretAccessKey>\\n      <SessionToken>{tok}</SessionToken>\\n    </Credentials>\\n  </AssumeRoleResult>\\n</AssumeRoleResponse>'"],
                 [asia, sk2, tok], ["botocore.parsers"]))
    out.append(C("aws_secret_access_key", "bashx_cmd",
                 f"+ aws configure set aws_secret_access_key {bx(sk)} --profile train", [bx_inner(sk)]))
    out.append(C("aws_access_key_id", "free_text",
                 f"botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the PutObject operation: The AWS Access Key Id you provided does not exist in our records. (key {akid})",
                 [akid], ["botocore.exceptions.ClientError", "InvalidAccessKeyId"]))
    return out


def k_gcp(g):
    out = []
    kid = g.hex(40)
    label, body = pem(g, "pkcs8")
    pk = "\\n".join(["-----BEGIN PRIVATE KEY-----", *body, "-----END PRIVATE KEY-----"]) + "\\n"
    proj = f"ml-{g.s(string.ascii_lowercase, 6)}-{g.digits(6)}"
    sa = {"type": "service_account", "project_id": proj, "private_key_id": kid,
          "private_key": "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----\n",
          "client_email": f"trainer@{proj}.iam.gserviceaccount.com", "client_id": g.digits(21),
          "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token"}
    txt = json.dumps(sa, indent=2)
    out.append(C("gcp_sa_private_key", "json", txt, [kid] + body, ['"token_uri": "https://oauth2.googleapis.com/token"']))
    out.append(C("gcp_sa_private_key_id", "pyrepr", f"credentials info: {{'type': 'service_account', 'project_id': '{proj}', 'private_key_id': '{kid}', 'client_email': 'trainer@{proj}.iam.gserviceaccount.com'}}",
                 [kid]))
    enc = base64.b64encode(json.dumps(sa).encode()).decode()
    out.append(C("gcp_sa_b64", "raw", f"GOOGLE_APPLICATION_CREDENTIALS_JSON={enc}", [enc]))
    out.append(C("gcp_sa_b64", "export_dq", f'+ export GCP_SA_KEY_B64="{enc[:3000]}"' if False else f'export GCP_SA_KEY_B64="{enc}"', [enc]))
    out.append(C("gcp_sa_private_key", "yaml_oneline", f"  private_key: \"{pk}\"", body))
    tok = "ya29." + g.urlsafe(150)
    out.append(C("gcp_access_token", "http_header", ["> GET /storage/v1/b/ckpt-bucket/o HTTP/1.1", "> Host: storage.googleapis.com",
                                                     f"> Authorization: Bearer {tok}", "> User-Agent: gcloud-python/2.16.0"], [tok],
                 ["gcloud-python/2.16.0"]))
    return out


def k_azure(g):
    out = []
    key = g.b64(64)
    acct = "st" + g.s(LOWNUM, 10)
    cs = f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};EndpointSuffix=core.windows.net"
    out.append(C("azure_storage_key", "conn_string", f"AZURE_STORAGE_CONNECTION_STRING={cs}", [key]))
    out.append(C("azure_storage_key", "dq_escape", f'export AZURE_STORAGE_CONNECTION_STRING="{cs}"', [key]))
    out += named("azure_storage_key", "AZURE_STORAGE_KEY", g.b64(64), ["raw", "json"], key="account_key")
    sig = pct(g.b64(32))
    sas = f"sv=2022-11-02&ss=b&srt=sco&sp=rwdlacupiytfx&se=2024-06-01T00:00:00Z&st=2024-05-01T00:00:00Z&spr=https&sig={sig}"
    out.append(C("azure_sas", "url_query", f"+ azcopy copy ./ckpt 'https://{acct}.blob.core.windows.net/ckpt?{sas}' --recursive", [sig]))
    out.append(C("azure_sas", "raw", f"AZURE_STORAGE_SAS_TOKEN=?{sas}", [sig]))
    csec = g.alnum(3) + "8Q~" + g.s(ALNUM + "~._-", 34)
    out += named("azure_client_secret", "AZURE_CLIENT_SECRET", csec, ["raw", "export_sq", "yaml"], key="client_secret")
    out.append(C("azure_client_secret", "cli_flag", f"+ az login --service-principal -u {g.uuid()} -p {bx(csec)} --tenant {g.uuid()}", [bx_inner(csec)]))
    return out


def vendor(g):
    """(kind, env name, value, syntaxes, extra cases builder)"""
    out = []
    hf = "hf_" + g.s(string.ascii_letters, 34)
    out += named("hf_token", "HF_TOKEN", hf, ["raw", "env_dump", "export_dq", "pyrepr"], key="token")
    out.append(C("hf_token", "cli_flag", f"+ huggingface-cli login --token {hf} --add-to-git-credential", [hf]))
    out.append(C("hf_token", "free_text", f"Using token {hf} to download meta-llama/Llama-2-7b-hf", [hf], ["meta-llama/Llama-2-7b-hf"]))
    out.append(C("hf_token", "http_header", ["> GET /api/models/meta-llama/Llama-2-7b-hf/revision/main HTTP/2", "> Host: huggingface.co",
                                             f"> authorization: Bearer {hf}", "< HTTP/2 200"], [hf]))
    hf2 = "hf_" + g.s(string.ascii_letters, 34)
    out.append(C("hf_token", "url_userinfo", f"+ git clone https://user:{hf2}@huggingface.co/datasets/acme/private-sft /data/sft", [hf2]))

    oa = "sk-proj-" + g.urlsafe(74) + "T3BlbkFJ" + g.urlsafe(74)
    out += named("openai_key", "OPENAI_API_KEY", oa, ["raw", "declare_x", "json"], key="api_key")
    oa2 = "sk-" + g.alnum(20) + "T3BlbkFJ" + g.alnum(20)
    out.append(C("openai_key", "pyrepr", f"OpenAI(api_key={oa2!r}, base_url='https://api.openai.com/v1', max_retries=2)", [oa2]))
    out.append(C("openai_key", "http_header", ["> POST /v1/chat/completions HTTP/1.1", f"> Authorization: Bearer {oa2}",
                                                "> Content-Type: application/json"], [oa2]))

    an = "sk-ant-api03-" + g.urlsafe(93) + "AA"
    out += named("anthropic_key", "ANTHROPIC_API_KEY", an, ["raw", "export_sq", "yaml"], key="anthropic_api_key")
    out.append(C("anthropic_key", "http_header", f"DEBUG:httpx:Request headers: {{'x-api-key': '{an}', 'anthropic-version': '2023-06-01', 'content-type': 'application/json'}}",
                 [an], ["'anthropic-version': '2023-06-01'"]))

    wb = g.hex(40)
    out += named("wandb_key", "WANDB_API_KEY", wb, ["raw", "env_dump", "bashx_export", "argparse"], key="wandb_key")
    out.append(C("wandb_key", "free_text", f"wandb api key: {wb}", [wb]))
    out.append(C("wandb_key", "cli_flag", f"+ wandb login {wb} --relogin", [wb]))
    out.append(C("wandb_key", "netrc", ["machine api.wandb.ai", "  login user", f"  password {wb}"], [wb]))
    wb2 = "local-" + g.hex(40)
    out.append(C("wandb_key", "pyrepr", f"wandb.login(key='{wb2}', host='https://wandb.internal')", [wb2]))

    ngc = "nvapi-" + g.urlsafe(64)
    out.append(C("ngc_key", "cli_flag", f"+ docker login nvcr.io -u '$oauthtoken' -p {ngc}", [ngc], ["nvcr.io"]))
    out.append(C("ngc_key", "cli_flag", f"echo {ngc} | docker login nvcr.io --username '$oauthtoken' --password-stdin", [ngc]))
    out += named("ngc_key", "NGC_API_KEY", g.urlsafe(0) + "nvapi-" + g.urlsafe(64), ["raw", "declare_x", "k8s_env"], key="apikey")
    ngc_old = g.b64(63).rstrip("=")[:84]
    out.append(C("ngc_key", "ini", ["[CURRENT]", f"apikey = {ngc_old}", "format_type = ascii", "org = nvidia"], [ngc_old], ["format_type = ascii"]))

    ghp = "ghp_" + g.alnum(36)
    out += named("github_classic", "GITHUB_TOKEN", ghp, ["raw", "export_dq", "json"], key="token")
    out.append(C("github_classic", "url_userinfo", f"+ git clone https://{ghp}@github.com/acme-ml/private-trainer.git /workspace/trainer", [ghp]))
    out.append(C("github_classic", "http_header", [f"> Authorization: token {ghp}", "> User-Agent: PyGithub/Python"], [ghp]))
    gpat = "github_pat_" + g.alnum(22) + "_" + g.alnum(59)
    out += named("github_fine_grained", "GH_TOKEN", gpat, ["raw", "yaml", "bashx_export"], key="github_token")
    out.append(C("github_fine_grained", "url_userinfo",
                 f"Collecting trainer@ git+https://oauth2:{gpat}@github.com/acme-ml/trainer.git@4f2c9d1e7a3b5c6d8e9f0a1b2c3d4e5f6a7b8c9d",
                 [gpat], ["4f2c9d1e7a3b5c6d8e9f0a1b2c3d4e5f6a7b8c9d"]))
    ghs = "ghs_" + g.alnum(36)
    out.append(C("github_classic", "free_text", f"fatal: could not read from remote using installation token {ghs}", [ghs]))

    glp = "glpat-" + g.urlsafe(20)
    out += named("gitlab_token", "GITLAB_TOKEN", glp, ["raw", "declare_x", "pyrepr"], key="private_token")
    out.append(C("gitlab_token", "url_userinfo", f"remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'https://oauth2:{glp}@gitlab.{g.r.choice(CORP)}.com/ml/llm.git/'", [glp]))
    out.append(C("gitlab_token", "http_header", f"+ curl --header {bx('PRIVATE-TOKEN: ' + glp)} https://gitlab.com/api/v4/projects/42/jobs/artifacts/main/download", [glp]))

    xb = f"xoxb-{g.digits(12)}-{g.digits(13)}-{g.alnum(24)}"
    out += named("slack_bot_token", "SLACK_BOT_TOKEN", xb, ["raw", "json", "export_sq"], key="token")
    out.append(C("slack_bot_token", "http_header", [f"> Authorization: Bearer {xb}", "> Content-type: application/json; charset=utf-8"], [xb]))
    xa = f"xapp-1-A{g.s(UPNUM, 10)}-{g.digits(13)}-{g.hex(64)}"
    out += named("slack_app_token", "SLACK_APP_TOKEN", xa, ["raw", "yaml"], key="app_token")
    wh = f"https://hooks.slack.com/services/T{g.s(UPNUM, 8)}/B{g.s(UPNUM, 10)}/{g.alnum(24)}"
    whs = wh.split("/services/")[1]
    out += named("slack_webhook", "SLACK_WEBHOOK_URL", wh, ["raw", "pyrepr"], key="webhook_url")
    out.append(C("slack_webhook", "cli_flag", f"+ curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"run 7 failed: NCCL timeout\"}}' {wh}", [whs],
                 ["NCCL timeout"]))

    st = "sk_live_" + g.alnum(99)
    out += named("stripe_key", "STRIPE_SECRET_KEY", st, ["raw", "json"], key="stripe_secret_key")
    rk = "rk_live_" + g.alnum(99)
    out.append(C("stripe_key", "cli_flag", f"+ curl https://api.stripe.com/v1/charges -u {rk}:", [rk]))

    pypi = "pypi-AgEIcHlwaS5vcmcCJ" + g.urlsafe(150)
    out += named("pypi_token", "TWINE_PASSWORD", pypi, ["raw", "bashx_export"], key="password")
    out.append(C("pypi_token", "ini", ["[pypi]", "  username = __token__", f"  password = {pypi}"], [pypi]))
    out.append(C("pypi_token", "cli_flag", f"+ twine upload --repository pypi -u __token__ -p {pypi} dist/*", [pypi]))

    npm = "npm_" + g.alnum(36)
    out.append(C("npm_token", "npmrc", f"//registry.npmjs.org/:_authToken={npm}", [npm]))
    out += named("npm_token", "NPM_TOKEN", npm, ["raw", "declare_x"])

    dapi = "dapi" + g.hex(32)
    out += named("databricks_token", "DATABRICKS_TOKEN", dapi, ["raw", "env_dump", "json"], key="token")
    out.append(C("databricks_token", "ini", ["[DEFAULT]", f"host  = https://adb-{g.digits(16)}.7.azuredatabricks.net", f"token = {dapi}"], [dapi]))

    mlf = g.urlsafe(40)
    out += named("mlflow_token", "MLFLOW_TRACKING_TOKEN", mlf, ["raw", "export_dq", "k8s_env"])
    mlp = g.pw("$&#!")
    out += named("mlflow_token", "MLFLOW_TRACKING_PASSWORD", mlp, ["raw", "declare_x"])
    out.append(C("mlflow_token", "http_header", f"urllib3.connectionpool DEBUG: headers={{'User-Agent': 'mlflow-python-client/2.14.1', 'Authorization': 'Bearer {mlf}'}}",
                 [mlf], ["mlflow-python-client/2.14.1"]))

    com = g.alnum(25)
    out += named("comet_key", "COMET_API_KEY", com, ["raw", "pyrepr", "ini"], key="api_key")
    out.append(C("comet_key", "free_text", f"COMET INFO: Using API key {com} for workspace acme-ml", [com]))

    nep_payload = json.dumps({"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai", "api_key": g.uuid()})
    nep = base64.b64encode(nep_payload.encode()).decode().rstrip("=")
    out += named("neptune_token", "NEPTUNE_API_TOKEN", nep, ["raw", "export_dq", "argparse"], key="api_token")

    sdsn = f"https://{g.hex(32)}@o{g.digits(6)}.ingest.sentry.io/{g.digits(7)}"
    skey = sdsn.split("//")[1].split("@")[0]
    out += named("sentry_dsn", "SENTRY_DSN", sdsn, ["raw", "yaml", "pyrepr"], key="dsn")
    out.append(C("sentry_dsn", "free_text", f"[sentry] DEBUG: Setting up integrations (with default = True) dsn={sdsn}", [skey]))

    tg = f"{g.digits(10)}:AA{g.urlsafe(33)}"
    out += named("telegram_bot_token", "TELEGRAM_BOT_TOKEN", tg, ["raw", "json"], key="bot_token")
    out.append(C("telegram_bot_token", "url_path", f"requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.telegram.org', port=443): Read timed out. (url: /bot{tg}/sendMessage)",
                 [tg], ["requests.exceptions.ReadTimeout"]))
    did = base64.b64encode(g.digits(18).encode()).decode().rstrip("=")
    dc = f"{did}.{g.urlsafe(6)}.{g.urlsafe(38)}"
    out += named("discord_bot_token", "DISCORD_TOKEN", dc, ["raw", "export_sq"], key="discord_token")
    dwh_tok = g.urlsafe(68)
    out.append(C("discord_webhook", "url_path", f"POST https://discord.com/api/webhooks/{g.digits(18)}/{dwh_tok} -> 204", [dwh_tok]))

    tw_sid = "AC" + g.hex(32)
    tw_tok = g.hex(32)
    out += named("twilio_auth_token", "TWILIO_AUTH_TOKEN", tw_tok, ["raw", "yaml"], key="auth_token")
    out.append(C("twilio_auth_token", "cli_flag", f"+ curl -X POST https://api.twilio.com/2010-04-01/Accounts/{tw_sid}/Messages.json -u {tw_sid}:{tw_tok}", [tw_tok]))
    tw_sk = "SK" + g.hex(32)
    out.append(C("twilio_api_key", "pyrepr", f"Client(username='{tw_sk}', password='{g.alnum(32)}', account_sid='{tw_sid}')", [tw_sk]))

    sg = f"SG.{g.urlsafe(22)}.{g.urlsafe(43)}"
    out += named("sendgrid_key", "SENDGRID_API_KEY", sg, ["raw", "export_dq", "json"], key="sendgrid_api_key")
    mg = "key-" + g.hex(32)
    out += named("mailgun_key", "MAILGUN_API_KEY", mg, ["raw", "pyrepr"], key="mailgun_api_key")
    out.append(C("mailgun_key", "cli_flag", f"+ curl -s --user {bx('api:' + mg)} https://api.mailgun.net/v3/mg.example.com/messages", [mg]))

    dd = g.hex(32)
    out += named("datadog_api_key", "DD_API_KEY", dd, ["raw", "env_dump", "yaml"], key="api_key")
    out.append(C("datadog_api_key", "http_header", ["> POST /api/v2/series HTTP/1.1", "> Host: api.datadoghq.com", f"> DD-API-KEY: {dd}"], [dd]))
    ddapp = g.hex(40)
    out += named("datadog_app_key", "DD_APP_KEY", ddapp, ["raw", "json"], key="app_key")
    out.append(C("datadog_app_key", "http_header", f"+ curl -X GET https://api.datadoghq.com/api/v1/monitor -H 'DD-API-KEY: {dd}' -H 'DD-APPLICATION-KEY: {ddapp}'", [dd, ddapp]))
    return out


def k_k8s(g):
    out = []
    label, body = pem(g, "rsa")
    key_b64 = base64.b64encode((pem_text(label, body) + "\n").encode()).decode()
    clabel, cbody = pem(g, "cert")
    cert_b64 = base64.b64encode((pem_text(clabel, cbody) + "\n").encode()).decode()
    tok = g.jwt("RS256", {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "training",
                          "sub": "system:serviceaccount:training:trainer", "jti": g.uuid()})
    cfg = ["apiVersion: v1", "clusters:", "- cluster:", "    server: https://k8s-api.cluster.local:6443", "  name: gpu-cluster",
           "users:", "- name: trainer", "  user:", f"    client-certificate-data: {cert_b64}", f"    client-key-data: {key_b64}"]
    out.append(C("k8s_client_key_data", "yaml", ["+ kubectl config view --raw"] + cfg, [cert_b64, key_b64]))
    out.append(C("k8s_client_cert_data", "yaml", ["  user:", f"    client-certificate-data: {cert_b64}"], [cert_b64]))
    out.append(C("k8s_client_key_data", "json", json.dumps({"users": [{"name": "trainer", "user": {"client-key-data": key_b64}}]}), [key_b64]))
    out.append(C("k8s_token", "yaml", ["- name: trainer", "  user:", f"    token: {tok}"], [tok]))
    out.append(C("k8s_token", "cli_eq", f"+ kubectl --server=https://10.0.0.1:6443 --token={tok} -n training get pods", [tok]))
    sec_val = base64.b64encode(g.pw("$&#!").encode()).decode()
    out.append(C("k8s_secret_data", "yaml", ["apiVersion: v1", "data:", f"  password: {sec_val}", "kind: Secret", "metadata:", "  name: db-creds"], [sec_val]))
    return out


def k_web(g):
    out = []
    j = g.jwt()
    out.append(C("jwt", "http_header", ["> GET /api/v1/features HTTP/1.1", "> Host: api.example.com", f"> Authorization: Bearer {j}", "> Accept: */*"], [j]))
    j2 = g.jwt("RS256")
    out.append(C("jwt", "free_text", f"WARNING auth: token expired, refreshing (old={j2})", [j2]))
    out.append(C("jwt", "json", json.dumps({"access_token": j2, "token_type": "bearer", "expires_in": 3600}), [j2], ['"token_type": "bearer"']))
    bt = g.alnum(40)
    out.append(C("bearer_token", "http_header", [f"> Authorization: Bearer {bt}", "> User-Agent: python-requests/2.32.3"], [bt], ["python-requests/2.32.3"]))
    bt2 = g.urlsafe(43)
    out.append(C("bearer_token", "cli_flag", f"+ curl -sf -H {bx('Authorization: Bearer ' + bt2)} https://api.example.com/v1/jobs/7", [bt2]))
    out.append(C("bearer_token", "pyrepr", f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.example.com/v1/jobs | request headers: {{'Authorization': 'Bearer {bt2}', 'Accept': '*/*'}}",
                 [bt2], ["requests.exceptions.HTTPError"]))
    sid = g.alnum(32)
    csrf = g.alnum(64)
    out.append(C("cookie", "http_header", ["> GET /lab/api/kernels HTTP/1.1", "> Host: jupyter.example.com",
                                           f"> Cookie: _xsrf=2|{g.hex(8)}|{g.hex(32)}|1714737682; sessionid={sid}; csrftoken={csrf}"], [sid, csrf]))
    sess = g.urlsafe(40) + "." + g.urlsafe(27)
    out.append(C("cookie", "set_cookie", ["< HTTP/1.1 302 Found", f"< Set-Cookie: session={sess}; Path=/; HttpOnly; Secure; SameSite=Lax",
                                          "< Location: /dashboard"], [sess]))
    sess2 = g.hex(48)
    out.append(C("cookie", "cli_flag", f"+ curl -b {bx('JSESSIONID=' + sess2)} https://ci.example.com/job/train/lastBuild/consoleText", [sess2]))
    out.append(C("cookie", "pyrepr", f"<RequestsCookieJar[<Cookie session_id={sess2} for .example.com/>]>", [sess2]))
    xk = g.alnum(32)
    out.append(C("x_api_key", "http_header", ["> POST /v1/embed HTTP/1.1", f"> X-API-Key: {xk}", "> Content-Length: 512"], [xk]))
    out.append(C("x_api_key", "cli_flag", f"curl -H \"x-api-key: {xk}\" https://inference.example.com/v1/generate -d @req.json", [xk]))
    u, p = g.user(), g.pw("$&;#!", 2)
    out.append(C("basic_auth_url", "url_userinfo", f"Looking in indexes: https://pypi.org/simple, https://{u}:{pct(p)}@pypi.internal.example.com/simple",
                 [pct(p)], ["https://pypi.org/simple"]))
    p2 = g.alnum(18)
    out.append(C("basic_auth_url", "cli_flag", f"++ curl -u {u}:{p2} https://artifactory.example.com/artifactory/api/pypi/pypi/simple", [p2]))
    ba = base64.b64encode(f"{u}:{g.alnum(16)}".encode()).decode()
    out.append(C("basic_auth_url", "http_header", [f"> Authorization: Basic {ba}", "> User-Agent: pip/24.0"], [ba], ["pip/24.0"]))
    p3 = g.pw("$&#!")
    out.append(C("basic_auth_url", "cli_eq", f"+ wget --user=ci --password={bx(p3)[1:] if bx(p3).startswith(chr(39)) else p3} https://files.example.com/data.tar" if False else
                 f"+ wget --user=ci {bx('--password=' + p3)} https://files.example.com/data.tar", [bx_inner('--password=' + p3)[len('--password='):]]))
    qt = g.urlsafe(32)
    out.append(C("url_token_query", "url_query", f"GET https://api.example.com/v1/download?file=ckpt.pt&access_token={qt}&expires=1714737682 -> 403",
                 [qt], ["file=ckpt.pt"]))
    qt2 = g.alnum(40)
    out.append(C("url_token_query", "url_query", f"urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='hub.example.com', port=443): Max retries exceeded with url: /api/runs?token={qt2}&page=2",
                 [qt2], ["urllib3.exceptions.MaxRetryError"]))
    qt3 = g.hex(32)
    out.append(C("url_token_query", "url_query", f"wandb: Network error (ConnectionError), entering retry loop. url=https://example.com/hook?api_key={qt3}", [qt3]))
    return out


def k_pem(g):
    out = []
    for kind, pk in [("rsa_private_key", "rsa"), ("ec_private_key", "ec"), ("openssh_private_key", "openssh"),
                     ("encrypted_private_key", "encrypted"), ("pkcs8_private_key", "pkcs8")]:
        label, body = pem(g, pk)
        r = g.r
        rank = r.randint(0, 7)
        # a) BEGIN line prefixed, body not
        lines = [f"[rank{rank}]: -----BEGIN {label}-----", *body, f"-----END {label}-----"]
        out.append(C(kind, "pem_begin_prefixed", lines, body))
        label, body = pem(g, pk)
        # b) every line rank-prefixed
        out.append(C(kind, "pem_all_prefixed", [f"[rank{rank}]: " + l for l in pem_text(label, body).split("\n")], body))
        label, body = pem(g, pk)
        # c) timestamp prefix
        ts = lambda i: f"2024-05-03T12:01:{22 + i // 10:02d}.{i * 1731 % 1000000:06d}Z "
        out.append(C(kind, "pem_timestamp", [ts(i) + l for i, l in enumerate(pem_text(label, body).split("\n"))], body))
        label, body = pem(g, pk)
        # d) host prefix (pdsh / kubectl logs --prefix)
        hp = r.choice([f"gpu-node-{r.randint(1, 64)}: ", f"[pod/trainer-{r.randint(0, 9)}/main] "])
        out.append(C(kind, "pem_host_prefixed", [hp + l for l in pem_text(label, body).split("\n")], body))
    label, body = pem(g, "rsa")
    out.append(C("rsa_private_key", "pem_bashx", ["+ cat /root/.ssh/id_rsa", pem_text(label, body)], body))
    label, body = pem(g, "openssh")
    out.append(C("openssh_private_key", "pem_oneline", f"SSH_PRIVATE_KEY=-----BEGIN {label}----- " + " ".join(body) + f" -----END {label}-----", body))
    body = pem_body(g, "", 1190, 64)  # legacy encrypted body is ciphertext: no DER header
    legacy = ["-----BEGIN RSA PRIVATE KEY-----", "Proc-Type: 4,ENCRYPTED", f"DEK-Info: AES-128-CBC,{g.hex(32).upper()}", "", *body, "-----END RSA PRIVATE KEY-----"]
    out.append(C("encrypted_private_key", "pem_legacy_encrypted", ["[rank0]: " + legacy[0]] + legacy[1:], body))
    label, body = pem(g, "ec")
    out.append(C("ec_private_key", "pyrepr", f"{{'tls_key': '-----BEGIN {label}-----\\n" + "\\n".join(body) + f"\\n-----END {label}-----\\n', 'tls_verify': True}}", body))
    return out


def k_generic(g):
    out = []
    v = g.alnum(32)
    out += named("generic_api_key", "API_KEY", v, ["raw", "export_dq", "json", "yaml", "pyrepr"], key="api_key")
    v = g.urlsafe(48)
    out += named("generic_secret", "APP_SECRET", v, ["raw", "declare_x"], key="secret")
    v = g.b64(36)
    out.append(C("generic_api_key", "cli_flag", f"+ python eval.py --api-key {v} --model llama-7b", [v]))
    v = g.hex(48)
    out.append(C("generic_api_key", "cli_eq", f"+ python upload.py --token={v} --bucket ckpt", [v]))
    v = g.alnum(40)
    out.append(C("generic_api_key", "free_text", f"[launcher] using token {v} for the artifact store", [v]))
    v = g.alnum(36)
    out.append(C("generic_api_key", "no_name", f"curl https://feature-store.example.com/v2/{v}/features -o feats.parquet", [v]))
    v = g.pw("$&;,# '\"\\", 3)
    out.append(C("generic_secret", "export_dq", f'export CLIENT_SECRET="{dq(v)}"', [dq(v)]))
    v = g.pw("$&;,# \"\\", 3)
    out.append(C("generic_secret", "pyrepr_dq", f"settings: {{'client_secret': {repr(v + chr(39))}}}", [pyrepr_inner(v + "'")]))
    return out


def k_hosts_users(g):
    out = []
    h = g.host("mlflow")
    out.append(C("hostname", "gaierror", [
        '  File "/usr/lib/python3.10/socket.py", line 955, in getaddrinfo',
        "    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):",
        "socket.gaierror: [Errno -2] Name or service not known",
        "",
        f"urllib3.exceptions.NameResolutionError: <urllib3.connection.HTTPSConnection object at 0x7f3a91c2d510>: Failed to resolve '{h}' ([Errno -2] Name or service not known)"],
        [h], ["socket.gaierror: [Errno -2] Name or service not known", "0x7f3a91c2d510", "/usr/lib/python3.10/socket.py",
              "urllib3.exceptions.NameResolutionError"]))
    h = g.host("minio")
    out.append(C("hostname", "gaierror", f"requests.exceptions.ConnectionError: HTTPConnectionPool(host='{h}', port=9000): Max retries exceeded with url: /ckpt/run7 (Caused by NameResolutionError(\"<urllib3.connection.HTTPConnection object at 0x7f1c2b3a4d50>: Failed to resolve '{h}' ([Errno -2] Name or service not known)\"))",
                 [h], ["requests.exceptions.ConnectionError", "0x7f1c2b3a4d50", "port=9000"]))
    h = g.host("trainer")
    out.append(C("hostname", "c10d", f"[W503 12:01:22.123456 4711 torch/csrc/distributed/c10d/socket.cpp:697] [c10d] The client socket has failed to connect to [{h}]:29500 (errno: 22 - Invalid argument).",
                 [h], ["torch/csrc/distributed/c10d/socket.cpp:697", ":29500"]))
    h = g.host("nfs")
    out.append(C("hostname", "gaierror", f"socket.gaierror: [Errno -3] Temporary failure in name resolution (while connecting to {h}:2049)", [h],
                 ["socket.gaierror: [Errno -3] Temporary failure in name resolution"]))
    h = g.host("redis")
    out.append(C("hostname", "celery", [f"[2024-05-03 12:01:22,123: ERROR/MainProcess] consumer: Cannot connect to redis://{h}:6379/0: Error -2 connecting to {h}:6379. Name or service not known..",
                                        "Trying again in 2.00 seconds... (1/100)",
                                        '  File "/opt/conda/lib/python3.10/site-packages/celery/worker/consumer/consumer.py", line 340, in start',
                                        "celery.exceptions.WorkerLostError: Worker exited prematurely: signal 9 (SIGKILL) Job: 17."],
                 [h], ["/site-packages/celery/worker/consumer/consumer.py", "celery.exceptions.WorkerLostError"]))
    for _ in range(2):
        u = g.user()
        out.append(C("username_in_path", "traceback_path",
                     [f'  File "/home/{u}/miniconda3/envs/train/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 348, in wrapper',
                      f'  File "/home/{u}/projects/llm/train.py", line 211, in main',
                      "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"],
                     [u], ["site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", "torch.distributed.DistBackendError",
                           "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275", "NCCL version 2.21.5"]))
    u = g.user()
    out.append(C("username_in_path", "prompt", [f"({u}@gpu-node-17) $ torchrun --nproc_per_node 8 train.py",
                                                f"/Users/{u}/Library/Caches/pip/wheels/torch-2.4.0+cu124-cp310-cp310-linux_x86_64.whl"],
                 [u], ["torch-2.4.0+cu124-cp310-cp310-linux_x86_64.whl"]))
    # library names used as user / node names: the module names must stay
    out.append(C("username_in_path", "library_as_user", [
        "celery@gpu-node-17 v5.3.6 (emerald-rush)",
        "[2024-05-03 12:01:22,123: INFO/MainProcess] Connected to amqp://guest:**@127.0.0.1:5672//",
        '  File "/opt/conda/lib/python3.10/site-packages/celery/app/trace.py", line 477, in trace_task',
        "celery.exceptions.TimeLimitExceeded: TimeLimitExceeded(3600,)"],
        [], ["/site-packages/celery/app/trace.py", "celery.exceptions.TimeLimitExceeded", "v5.3.6"]))
    out.append(C("username_in_path", "library_as_user", [
        "(1045, \"Access denied for user 'optuna'@'localhost' (using password: YES)\")",
        '  File "/opt/conda/lib/python3.10/site-packages/optuna/storages/_rdb/storage.py", line 1269, in _create_scoped_session',
        "optuna.exceptions.StorageInternalError: An exception is raised during the commit."],
        [], ["/site-packages/optuna/storages/_rdb/storage.py", "optuna.exceptions.StorageInternalError", "(1045,"]))
    out.append(C("username_in_path", "library_as_user", [
        "drwxr-xr-x 2 mlflow mlflow 4096 May  3 12:01 /home/mlflow/mlruns",
        '  File "/usr/local/lib/python3.10/site-packages/mlflow/tracking/fluent.py", line 372, in start_run',
        "mlflow.exceptions.MlflowException: Run '3f2a' not found"],
        [], ["/site-packages/mlflow/tracking/fluent.py", "mlflow.exceptions.MlflowException"]))
    return out


# ---------------------------------------------------------------- near misses

def near_misses(g):
    r = g.r
    h40 = "e2d141dbde55c2a4370fac5165b0561b6af4798b"
    items = [
        ("db_password", "--password-file /run/secrets/db_password"),
        ("db_password", "+ psql --no-password -h 127.0.0.1 -U mlflow -d mlflow -c 'SELECT 1'"),
        ("db_password", "DB_PASSWORD="),
        ("db_password", 'DB_PASSWORD="${DB_PASSWORD}"'),
        ("db_password", "password: ${POSTGRES_PASSWORD}"),
        ("db_password", "  password: {{ .Values.postgresql.auth.password }}"),
        ("db_password", "psycopg2.OperationalError: FATAL:  password authentication failed for user \"mlflow\""),
        ("db_password", "KeyError: 'password'"),
        ("db_password", "password=None, port=5432, sslmode='require'"),
        ("db_password", "Password: "),
        ("mysql_password", "(1045, \"Access denied for user 'root'@'localhost' (using password: NO)\")"),
        ("mysql_password", "mysql: [Warning] Using a password on the command line interface can be insecure."),
        ("redis_password", "redis.exceptions.AuthenticationError: AUTH <password> called without any password configured for the default user."),
        ("docker_password", "WARNING! Your password will be stored unencrypted in /root/.docker/config.json."),
        ("docker_password", "Login Succeeded"),
        ("docker_password", f"Digest: sha256:{g.hex(64)}"),
        ("docker_password", "Status: Downloaded newer image for nvcr.io/nvidia/pytorch:24.05-py3"),
        ("hf_token", "Token is valid (permission: write)."),
        ("hf_token", "Your token has been saved to /root/.cache/huggingface/token"),
        ("hf_token", "tokenizer.pad_token = tokenizer.eos_token  # pad_token=<pad>"),
        ("hf_token", "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained."),
        ("hf_token", f"loading file tokenizer.json from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-2-7b-hf/snapshots/{h40}/tokenizer.json"),
        ("hf_token", "hf_hub_download(repo_id='meta-llama/Llama-2-7b-hf', filename='config.json', token=True)"),
        ("hf_token", "TOKENIZERS_PARALLELISM=false"),
        ("openai_key", "generation_config: max_tokens=4096, max_new_tokens=512, temperature=0.7"),
        ("openai_key", "ERROR: No matching distribution found for sk-learn"),
        ("openai_key", "scikit-learn==1.4.2 sk-video==1.1.10"),
        ("openai_key", "openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided.', 'type': 'invalid_request_error', 'code': 'invalid_api_key'}}"),
        ("wandb_key", "wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc"),
        ("wandb_key", "wandb: Currently logged in as: acme-ml. Use `wandb login --relogin` to force relogin"),
        ("wandb_key", f"wandb: Run data is saved locally in /workspace/wandb/run-20240503_120122-{g.s(LOWNUM, 8)}"),
        ("wandb_key", "WANDB_API_KEY is not set; wandb disabled (mode=offline)"),
        ("aws_secret_access_key", "AWS_DEFAULT_REGION=us-east-1"),
        ("aws_secret_access_key", "2024-05-03 12:01:22,118 botocore.credentials [DEBUG] Looking for credentials via: env"),
        ("aws_secret_access_key", "botocore.exceptions.NoCredentialsError: Unable to locate credentials"),
        ("aws_session_token", "'X-Amz-Content-SHA256': b'UNSIGNED-PAYLOAD'"),
        ("k8s_client_key_data", "    client-key-data: DATA+OMITTED"),
        ("k8s_client_cert_data", "    client-certificate-data: REDACTED"),
        ("k8s_token", "/var/run/secrets/kubernetes.io/serviceaccount/token"),
        ("jwt", '{"token_type": "bearer", "expires_in": 3600}'),
        ("jwt", "token_type: bearer"),
        ("bearer_token", "> Authorization: Bearer <redacted>"),
        ("bearer_token", "use_auth_token=True is deprecated, use token=True"),
        ("cookie", "http.cookiejar DEBUG: Cookie policy: DefaultCookiePolicy(rfc2965=False, netscape=True)"),
        ("cookie", "Saving cookies to cookies.txt"),
        ("generic_api_key", "api_key=None"),
        ("generic_api_key", '"api_key": null,'),
        ("generic_api_key", "secret = secrets.token_hex(16)"),
        ("generic_api_key", "num_tokens=2048000 tokens_per_sec=51234.5 max_seq_len=4096"),
        ("generic_api_key", f"torch.version.git_version: '{h40}'"),
        ("generic_api_key", f"triton cache hit: /root/.triton/cache/{g.s(ALNUM + '_-', 43)}/matmul_kernel.cubin"),
        ("generic_api_key", f"md5 of checkpoint shard: {g.hex(32)}  model-00001-of-00004.safetensors"),
        ("generic_api_key", f"<torch.cuda.Event object at 0x7f{g.hex(10)}>"),
        ("generic_api_key", "ncclUniqueId: 0200b9a4ac1f00000000000000000000000000000000000000000000000000000000"),
        ("generic_api_key", f"nvidia-smi: GPU 00000000:3B:00.0 UUID GPU-{g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)}"),
        ("generic_api_key", f"DeepSpeed general environment info: deepspeed info ... 0.14.4+{g.hex(7)}, {g.hex(7)}, HEAD"),
        ("generic_api_key", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4096x11008 and 4096x4096)"),
        ("generic_api_key", f"Successfully installed flash-attn-2.6.3+cu124torch2.4 triton-3.0.0 torch-2.4.0+cu124"),
        ("generic_secret", "secret_key_base is required in production"),
        ("rsa_private_key", "-----BEGIN PUBLIC KEY-----"),
        ("rsa_private_key", "Loaded private key from /etc/ssl/private/server.key (mode 0600)"),
        ("openssh_private_key", "Permissions 0644 for '/root/.ssh/id_rsa' are too open."),
        ("github_classic", "ghp_* tokens are classic personal access tokens"),
        ("github_classic", f"remote: Resolving deltas: 100% (412/412), done. HEAD is now at {g.hex(7)} fix: NCCL timeout"),
        ("slack_webhook", "Slack notifications disabled: SLACK_WEBHOOK_URL not set"),
        ("ngc_key", "Username: $oauthtoken"),
        ("sentry_dsn", "[sentry] DEBUG: Setting up integrations (with default = True)"),
        ("stripe_key", "sk_test_ keys are not accepted in production"),
        ("hostname", "socket.gaierror: [Errno -2] Name or service not known"),
        ("hostname", "MASTER_ADDR=localhost MASTER_PORT=29500 WORLD_SIZE=16"),
        ("azure_sas", "https://docs.microsoft.com/azure/storage/common/storage-sas-overview?view=azure-cli-latest"),
        ("mlflow_token", "MLFLOW_TRACKING_URI=http://localhost:5000"),
        ("twilio_auth_token", "TWILIO_AUTH_TOKEN environment variable is required"),
        ("datadog_api_key", "DD_API_KEY=${DD_API_KEY:?must be set}"),
        ("pypi_token", "  username = __token__"),
        ("username_in_path", '  File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", line 2288, in all_reduce'),
        ("username_in_path", '  File "/opt/conda/lib/python3.10/site-packages/celery/app/trace.py", line 477, in trace_task'),
        ("username_in_path", "optuna.exceptions.TrialPruned: Trial was pruned at iteration 12."),
        ("username_in_path", "mlflow.exceptions.RestException: RESOURCE_DOES_NOT_EXIST: Run 'abc' not found"),
    ]
    out = []
    for kind, line in items:
        out.append(C(kind, "near_miss", line, [], [line]))
    return out


# ---------------------------------------------------------------- entry point

def cases(seed: int) -> list:
    rng = random.Random(seed)
    g = Gen(rng)
    out = []
    for builder in (k_passwords, k_aws, k_gcp, k_azure, vendor, k_k8s, k_web, k_pem, k_generic, k_hosts_users):
        for c in builder(g):
            prefix_ok = not c["syntax"].startswith("pem")
            out.append(embed(g, c, prefix_ok=prefix_ok))
    for c in near_misses(g):
        # near misses also pasted among noise sometimes; the whole near-miss line must stay
        out.append(embed(g, c, p_noise=0.3, prefix_ok=False))
    return out


if __name__ == "__main__":
    import collections
    cs = cases(0)
    kinds = collections.Counter(c["kind"] for c in cs)
    syns = collections.Counter(c["syntax"] for c in cs)
    print(len(cs), "cases,", len(kinds), "kinds,", len(syns), "syntaxes,",
          sum(len(c["secrets"]) for c in cs), "secrets,", sum(len(c["keep"]) for c in cs), "keep tokens")
    print(sorted(syns))
