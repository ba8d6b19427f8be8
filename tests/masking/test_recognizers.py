"""One table per recognizer: real log lines that must be masked, near misses that must stay byte for byte.

``(payload, secret)`` rows: ``secret`` must be gone from the masked line and the kind counted.
``(payload, None)`` rows are near misses: the masked line must equal the payload.
"""

from __future__ import annotations

import base64

import pytest

from service.masking import Masker, mask_text
from service.masking.recognizers import REGISTRY

HEX40 = "0123456789abcdef0123456789abcdef01234567"
HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
AKID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SA_JSON_B64 = base64.b64encode(
    b'{\n  "type": "service_account",\n  "project_id": "acme-ml",\n  "private_key_id": "' + HEX40.encode()
    + b'",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQ...\\n"\n}\n'
).decode()
PLAIN_JSON_B64 = base64.b64encode(b'{\n  "epochs": 3,\n  "learning_rate": 0.0003,\n  "model": "llama-7b", "seq": 4096}').decode()
NGC = "nvapi-" + "Ab1_" * 17
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

TABLES: dict[str, list[tuple[str, str | None]]] = {
    "hf_token": [
        (f"HF_TOKEN={HF}", HF),
        (f"[rank0]: huggingface-cli login --token {HF}", HF),
        ("api_org_AbCdEfGhIjKlMnOpQrStUvWxYz012345 used", "api_org_AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
        ("from huggingface_hub import hf_hub_download, snapshot_download", None),
        ("HF_HUB_ENABLE_HF_TRANSFER=1 hf_transfer is installed", None),
        ("model.hf_device_map = {'': 0}", None),
    ],
    "aws_access_key": [
        (f"AWS_ACCESS_KEY_ID={AKID}", AKID),
        ("'AccessKeyId': 'ASIAY34FZKBOKMUTVV7A'", "ASIAY34FZKBOKMUTVV7A"),
        ("AKIA is the prefix of long-term AWS key ids", None),
        ("AKIAIOSFODNN7EXAMPLE1234 is 24 characters, not a key id", None),
    ],
    "aws_secret_key": [
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
        (f"AWS_SECRET_ACCESS_KEY=\"{AWS_SECRET}\"", AWS_SECRET),
        # (a checksum is hex in real logs; base64 of AWS-key shape is masked by its entropy, see high_entropy_token)
        ("sha256 checksum 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 of shard 3", None),
    ],
    "wandb_key": [
        (f"WANDB_API_KEY={HEX40}", HEX40),
        (f"$ wandb login {HEX40}", HEX40),
        (f"wandb.login(key='{HEX40}')", HEX40),
        (f"machine api.wandb.ai login alice password {HEX40}", HEX40),
        (f"print: wandb api key: {HEX40}", HEX40),
        (f"commit {HEX40} (HEAD -> main)", None),
        (f"wandb: Syncing run fluent-sun-42 at revision {HEX40}", None),
        ("WANDB_PROJECT=llama-pretrain WANDB_MODE=offline", None),
    ],
    "openai_key": [
        ("OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12"),
        ("pip install scikit-learn sk-video; task-runner-queue-preemptible-workers", None),
    ],
    "anthropic_key": [
        ("ANTHROPIC_API_KEY=sk-ant-api03-" + "a1B2" * 24, "sk-ant-api03-" + "a1B2" * 24),
    ],
    "github_token": [
        ("https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/org/repo", "ghs_16C7e42F292c6912E7710c838347Ae178B4a"),
        ("GH_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
        ("gh_token_path=/run/secrets/gh and ghp_ prefix docs", None),
    ],
    "gitlab_token": [
        ("git clone https://oauth2:glpat-x1y2z3a4b5c6d7e8f9g0@gitlab.com/ml/train.git", "glpat-x1y2z3a4b5c6d7e8f9g0"),
        ("linking against glibc-2.35 and glpat- prefix", None),
    ],
    "slack_token": [
        ("SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ],
    "slack_webhook": [
        ("POST https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D4E/AbCdEfGhIjKlMnOpQrStUvWx -> 404", "T0A1B2C3D/B0A1B2C3D4E/AbCdEfGhIjKlMnOpQrStUvWx"),
    ],
    "databricks_token": [
        ("DATABRICKS_TOKEN=dapi0123456789abcdef0123456789abcdef", "dapi0123456789abcdef0123456789abcdef"),
        ("rapidapi client and dapi prefix", None),
    ],
    "jwt": [
        (f"GET /v1/runs?token={JWT}", JWT),
        ("header eyJhbGciOiJIUzI1NiJ9 alone is not a token", None),
    ],
    "bearer_token": [
        ('curl -H "Authorization: Bearer abcdefghijklmnop1234567890"', "abcdefghijklmnop1234567890"),
        ("headers = {'Authorization': 'token 0123456789abcdef0123'}", "0123456789abcdef0123"),
        ("401: the request requires a Bearer token in the Authorization header", None),
    ],
    "private_key": [
        ('"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"', "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
        ("-----BEGIN CERTIFICATE----- (a public certificate stays)", None),
        ("-----BEGIN PUBLIC KEY-----", None),
    ],
    "azure_connection_string": [
        ("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4=="),
    ],
    "azure_key": [
        ("https://acme.blob.core.windows.net/c/m.pt?sv=2022-11-02&sp=r&sig=AbCdEfGhIjKlMnOpQrStUv%3D", "AbCdEfGhIjKlMnOpQrStUv%3D"),
    ],
    "gcp_api_key": [
        ("?key=AIzaSyD-1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P", "AIzaSyD-1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P"),
    ],
    "password": [
        ("postgresql://alice:hunter2@db.corp.internal:5432/mlflow", "hunter2"),
        ("DB_PASSWORD=hunter2", "hunter2"),
        ("PGPASSWORD='c0rrect horse' psql", "c0rrect horse"),
        ("python train.py --password hunter2 --seed 1", "hunter2"),
        ("  password: s3cr3t!", "s3cr3t!"),
        ("  password 0a1b2c3d4e", "0a1b2c3d4e"),
        ("password_file=/run/secrets/db --password-stdin", None),
        ("Password: ******** (hidden)", None),
        ("DB_PASSWORD=****a1b2", None),  # a tool showing the last characters only
        # a password that starts with an asterisk is a password, not a placeholder (the property test's find)
        ("+ SMTP_PASSWORD=*9t1m3zlWyCI2r python train_encoder.py", "*9t1m3zlWyCI2r"),
        ("PASSWORD=${DB_PASSWORD} bypass=1 passes=3 compass=north", None),
        ("PWD=/opt/app OLDPWD=/opt", None),
        ("no password given; see the docs", None),
        # shell-special characters: the whole value, not its head
        ("DB_PASSWORD=Wq8&n6WUWY;x#2", "Wq8&n6WUWY;x#2"),
        ("POSTGRES_PASSWORD=$Pm4oWy$2xpP5E", "$Pm4oWy$2xpP5E"),
        ('declare -x MYSQL_PWD="k9\\"Lp\\$v w2"', 'k9\\"Lp\\$v w2'),
        ("+ export 'SMTP_PASSWORD=ab c&d#e'", "ab c&d#e"),
        ("PGPASSWORD=avT9V5 Hj3qMY;ZfH36ce", "Hj3qMY;ZfH36ce"),  # env prints the value to the end of the line
        ("REDIS_PASSWORD=RA5K3G6t\"9EwNsRwL!Tty", "9EwNsRwL!Tty"),
        ("    password: 'bbbPIa8,UbHoWC8''owoRoWD8#glOU3s'", "owoRoWD8#glOU3s"),  # YAML's '' escape
        ("export DB_PASSWORD='Jm5ug1dT#N3phv7ls'\\''cwSf59'", "cwSf59"),  # the shell's '\'' escape
        ('                "MYSQL_ROOT_PASSWORD=e032Sb,8ZnNjg,yxI0jgM\'KzORB4",', "KzORB4"),  # docker inspect
        # command-line arguments
        ("+ docker login -u ci-bot -p Zq3Vb8Lp0Kx nvcr.io", "Zq3Vb8Lp0Kx"),
        ("sshpass -p 'Zq3Vb8Lp0Kx' ssh gpu-node-17 nvidia-smi", "Zq3Vb8Lp0Kx"),
        ("mysql -h db.corp.internal -u ml -pZq3Vb8Lp0Kx experiments", "Zq3Vb8Lp0Kx"),
        ("++ curl -sf -u ci:Zq3Vb8Lp0Kx https://artifacts.corp.internal/ckpt.tar", "Zq3Vb8Lp0Kx"),
        ("mysql -h db -u ml -p experiments  (prompts for the password)", None),
        ("docker login nvcr.io --password-stdin", None),
    ],
    "secret": [
        ("MLFLOW_TRACKING_TOKEN=0123456789abcdefXYZ", "0123456789abcdefXYZ"),
        ('"client_secret": "AbCdEf0123456789"', "AbCdEf0123456789"),
        ("accelerate launch train.py --hub_token AbCdEf0123456789", "AbCdEf0123456789"),
        ("api_key: 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"),
        ("pad_token=<pad> eos_token: </s> max_tokens=1500 tokens/s=1234 num_tokens: 2048", None),
        ("TOKENIZERS_PARALLELISM=false api_key=None token=null", None),
        ("OPENAI_API_KEY=${OPENAI_API_KEY} secret_name: hf-secret", None),
        # HTTP debug output: curl -v, boto3
        ("> Cookie: sessionid=q8Zx2LmN0pRt; csrftoken=Vb7Kp1Qw", "q8Zx2LmN0pRt"),
        ("< Set-Cookie: session=Zq3Vb8Lp0Kx9Wm2; Path=/; HttpOnly", "Zq3Vb8Lp0Kx9Wm2"),
        ("> X-API-Key: 4f9c2a7e1b8d3f60", "4f9c2a7e1b8d3f60"),
        ("DEBUG botocore.endpoint ... 'X-Amz-Security-Token': b'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJH'",
         "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJH"),
        ("{'Credentials': {'AccessKeyId': 'ASIAY34FZKBOKMUTVV7A', 'SessionToken': 'FwoGZXIvYXdzEBYaDH7s0a9Zq3Vb8Lp'}}",
         "FwoGZXIvYXdzEBYaDH7s0a9Zq3Vb8Lp"),
        # kubeconfig
        ("    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF"),
        ("Cookie policy: accepted; token_type: bearer; tokenizer.json loaded", None),
    ],
    "ngc_key": [
        (f"docker login nvcr.io -u '$oauthtoken' -p {NGC}", NGC),
        (f"NGC_API_KEY={NGC}", NGC),
        ("nvapi- keys are created at ngc.nvidia.com", None),
    ],
    "encoded_credentials": [
        (f"GOOGLE_APPLICATION_CREDENTIALS_JSON={SA_JSON_B64}", SA_JSON_B64),
        (f"+ echo {SA_JSON_B64} | base64 -d > /tmp/sa.json", SA_JSON_B64),
        (f"CONFIG_B64={PLAIN_JSON_B64}", None),  # base64 JSON that holds no key stays
    ],
    "high_entropy_token": [
        ("POST https://hooks.corp.internal/v1/Zq3Vb8Lp0Kx9Wm2TnQ7rYc4Hd1FgJe6S/notify 403", "Zq3Vb8Lp0Kx9Wm2TnQ7rYc4Hd1FgJe6S"),
        ("[rank0]: using credentials Zq3Vb8Lp0Kx9Wm2TnQ7rYc4Hd1FgJe6S/Xw5Ub+Mk1Op==", "Zq3Vb8Lp0Kx9Wm2TnQ7rYc4Hd1FgJe6S"),
        ("torch git version: 5d6c3a8f2b1e4d7c9a0b3e6f1d2c4b5a6e7f8091 (a build's SHA)", None),
        ("frame #4: _ZNK3c1010TensorImpl4sizeEv12345678901 + 0x1c in libc10.so", None),
        ("File /usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/errors.py", None),
        ("ProcessGroupNCCLWatchdogThreadTerminated01 DistributedDataParallelWrapperForFSDP2Module", None),
        ("NCCL_IB_GID_INDEX_3_NCCL_SOCKET_IFNAME_eth0 GPU-5c4bb7f1-9e2d-4a3b-8c6d-1f0e2d3c4b5a", None),
    ],
    "gcp_key_id": [
        (f"{{'type': 'service_account', 'private_key_id': '{HEX40}'}}", HEX40),
    ],
    "email": [
        ("git config user.email alice.chen@acme-research.com", "alice.chen@acme-research.com"),
        ("alice@lab.internal wrote this", "alice@lab.internal"),
        ("    @torch.no_grad() decorator; pip install torch@2.1.0", None),
    ],
    "hostname": [
        ("Using Kubernetes executor with image registry.corp.example/ml-platform/torch-slim:2.13", "registry.corp.example"),
        ("$ kubectl -n ml-team-a logs llama-ft-0412-master-0", "ml-team-a"),
        ("Namespace:    vision-research", "vision-research"),
        ("$ kubectl -n kube-system get pods; Namespace: default", None),
        ("Namespace(arch='resnet50', batch_size=32, workers=8)", None),
        ("torch.distributed.DistNetworkError: Connection to gpu-node-017.cluster.internal:29500 failed", "gpu-node-017.cluster.internal"),
        ("gpu-node-017:2345:2345 [3] NCCL INFO Bootstrap : Using eth0", "gpu-node-017"),
        ("MASTER_ADDR=trainer-0 MASTER_PORT=29500", "trainer-0"),
        ("SLURMD_NODENAME=a100x8-17", "a100x8-17"),
        ("SLURM_JOB_NODELIST=gpu-node-[001-004,017]", "gpu-node-[001-004,017]"),
        ("ip-10-0-3-17 joined the rendezvous", "ip-10-0-3-17"),
        ("nid001234: srun: error: task 3 exited", "nid001234"),
        ("  host      : node17.hpc.university.edu", "node17.hpc.university.edu"),
        ("could not resolve host db-1.mlflow.acme-research.net", "db-1.mlflow.acme-research.net"),
        ("[trainer-3:7] rank 7 heartbeat lost", "trainer-3"),
        ("python -m torch.distributed.run --nproc_per_node 8 train.py", None),
        ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError", None),
        ("saved model.safetensors, model.pt, kernel.cu, nccl.h, setup.py, run.sh, libnccl.so", None),
        ("os.path.join np.ma tf.io self.net(x) cls.app", None),
        ("Downloading https://huggingface.co/gpt2/resolve/main/config.json", None),
        ("c10d store at localhost:29500; gpu0 gpu1; compute-sanitizer; multi-node; host memory", None),
        ("node_rank=0 device=[cuda:0] [rank:3]", None),
        ("apt-get install node-html5shiv; Get:1 http://azure.archive.ubuntu.com/ubuntu jammy InRelease", None),
        ("(diff) pc@tower:~/code/ddpm-faces$ python sample.py", "tower"),
        ("[prolog] nodes gpu-h[01-02] started", "gpu-h[01-02]"),
    ],
    "ip_address": [
        ("NCCL INFO NET/Socket : Using [0]eth0:10.0.3.17<0>", "10.0.3.17"),
        ("OOB eth0:fe80::1c2:3dff:fe4e:5f60%eth0<0>", "fe80::1c2:3dff:fe4e:5f60"),
        ("connect to 2001:db8:85a3::8a2e:370:7334 port 29500", "2001:db8:85a3::8a2e:370:7334"),
        ("cuDNN 8.9.2.26 TensorRT 8.6.1.6 version 1.2.3.4 build 1.2.3.4.5", None),
        ("nvidia-cudnn-cu12        8.9.2.26", None),
        ("nvidia-cusparse-cu12==12.1.0.106 /opt/TensorRT-8.5.3.1/lib libcublaslt11 11.7.4.6~11.5.1-1ubuntu1", None),
        ("127.0.0.1:29500 ::1 0.0.0.0 [::]:8080", None),
        ("c10::Error std::vector<at::Tensor> at::native::foo 12:00:03 00000000:3B:00.0", None),
    ],
    "mac_address": [
        ("link/ether 00:1b:21:3a:4f:5c brd ff:ff:ff:ff:ff:ff", "00:1b:21:3a:4f:5c"),
        ("link/ether 00:11:22:33:44:55 brd ff:ff:ff:ff:ff:ff", "00:11:22:33:44:55"),
        ("outputs/24-05-01-12-00-03 at 12:00:03.123", None),
    ],
    "credit_card": [
        ("'text': 'card 4111 1111 1111 1111 please'", "4111 1111 1111 1111"),
        ("epoch ms 1714564803123 and NumelIn=50331648", None),
    ],
    "iban": [
        ("'iban': 'DE89 3704 0044 0532 0130 00'", "DE89 3704 0044 0532 0130 00"),
        ("GB00 ABCD 1234 5678 9012 34 fails its checksum", None),
    ],
    "username": [
        ("-rw-rw-r-- 1 priya.raman ml 9943040000 Feb  2 21:52 pytorch_model-00001-of-00002.bin", "priya.raman"),
        ("drwxr-xr-x 2 root root 4096 Feb  2 21:47 checkpoint-3000", None),
        ("tgarcia  pts/5        2026-11-30 04:12 (10.0.0.7)", "tgarcia"),
        ('  File "/home/alice/llm/train.py", line 88', "alice"),
        ("/Users/bob.smith/code/run.py", "bob.smith"),
        ("C:\\Users\\carol\\AppData\\Local\\Temp", "carol"),
        ("SLURM_JOB_USER=dave LOGNAME=dave", "dave"),
        ("erin@gpu-node-3:~/proj$ nvidia-smi", "erin"),
        ("wandb: Currently logged in as: frank42 (frank-team).", "frank42"),
        ("psql -h db.corp.internal -U grace -d mlflow", "grace"),
        ("[2023-10-02 11:04:51] job 5518032 'vit-b16-in1k' user=heidi partition=gpu", "heidi"),
        ("[prolog] job 88122 user ivan partition h100 nodes gpu-h[01-02] started", "ivan"),
        ("== job 991203 (judy) on gpu-c11,gpu-c12 ==", "judy"),
        ("PermissionError: [Errno 13] Permission denied: '/tmp/torchinductor_mallory/fx_graph'", "mallory"),
        ("pip install git+ssh://git@github.com/NVIDIA/apex.git", None),
        ("pip install -U torch; USER_ID=1000 NUM_USERS=4 /home/$USER/x /home/<user>/y", None),
        ("/opt/conda/lib/python3.10/site-packages/torch/__init__.py", None),
        ("HF_DATASETS_CACHE=/scratch/oscar/hf/datasets", "oscar"),
        ("(rpatel) $ python train_seg.py --data /data/floodnet", "rpatel"),
        ("(ft) $ python finetune.py; (pt22) $ nvidia-smi; (base) $ ls", None),
        ("/scratch/checkpoints/step_100/ /fsx/shared/datasets/ /data/imagenet/ /mnt/checkpoints/", None),
        # A person's directory on a lab machine's data disk, with no other mention of the name.
        ("docker run --gpus all -v /data/jkowalski:/data seg-train:1.10", "jkowalski"),
        ("Loading pretrained backbone from /mnt/rpatel2/pretrained/swin.pth", "rpatel2"),
        # The price: a dataset name the list does not know is masked like a person's (the diagnosis never
        # depends on it; a leaked name cannot be taken back).
        ("python train_seg.py --data /data/floodnet/", "floodnet"),
    ],
}

ROWS = [(kind, payload, secret) for kind, rows in TABLES.items() for payload, secret in rows]


def _id(row: tuple[str, str, str | None]) -> str:
    kind, payload, secret = row
    return f"{kind}-{'flag' if secret else 'keep'}-{payload[:40]}"


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_recognizer_table(row: tuple[str, str, str | None], masker: Masker) -> None:
    kind, payload, secret = row
    masked, counts = mask_text(payload, masker)
    if secret is None:
        assert masked == payload
    else:
        assert secret not in masked
        assert counts.get(kind, 0) >= 1, (masked, counts)


def test_every_registry_entity_has_a_table() -> None:
    from service.masking.kinds import KINDS

    keys = {KINDS[e.entity].key for e in REGISTRY}
    untested = keys - set(TABLES) - {"pypi_token", "npm_token", "stripe_key"}  # covered by the corpus
    assert untested == set()


def test_triggers_are_necessary_for_every_flagged_row(masker: Masker) -> None:
    """A trigger that misses its own recognizer's match would let a secret through the prefilter."""
    for kind, payload, secret in ROWS:
        if secret is not None:
            assert masker.may_hold(payload), (kind, payload)


@pytest.mark.parametrize(
    ("line", "shape_twin"),
    [
        ("step 1234 loss 2.31 host gpu-node-017", "step 9999 loss 8.88 host gpu-node-999"),
        ("NCCL INFO eth0:10.0.3.17<0>", "NCCL INFO eth0:99.9.9.99<0>"),
    ],
)
def test_prefilter_verdict_depends_only_on_the_digit_folded_shape(line: str, shape_twin: str, masker: Masker) -> None:
    assert masker.may_hold(line) == masker.may_hold(shape_twin)
