#!/usr/bin/env python3
"""Write the eval cases of kb-infra's second round: cloud credentials missing on the node, Slurm's memory options
in the job environment and requests no node can hold, vLLM refusing a prompt or a LoRA adapter, torch paired with a
Triton it cannot import from.

Captured cases (``REAL``) are small programs run for real on this CPU machine (``python`` or ``torchrun`` with gloo)
with the repository's venv, their output kept as the log with only machine paths rewritten (evals/generators/
torch_kb.py's capture). The cloud programs import boto3 1.44.5 (botocore 1.44.8) and google-auth 2.62.2, and the
Triton programs need triton 2.1.0 importable, none of which the repository depends on: capture them with
``--site DIR`` (``--only`` to pick the programs), a ``pip install --target DIR`` folder holding those packages (DIR
goes on PYTHONPATH and is rewritten to the case's site-packages in the log). The machine has no AWS or Google
credentials and no metadata service, as the compute nodes in the cases. Written cases (``WRITTEN``) are logs that
need a cluster or a GPU (Slurm, vLLM), written as the tools print them, their messages and frames read in the
released sources named by each entry. All were written before crashdoc ran on them.

Usage:  python evals/generators/infra_breadth.py [--out DIR] [--only SUBSTRING] [--capture [--site DIR]]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, parser, write_case  # noqa: E402  (the shared case writer)
from model import RealProgram  # noqa: E402
from torch_kb import capture  # noqa: E402


def _case(case_id: str, label: str, difficulty: str, description: str, facts: dict[str, str],
          must_mention: list[str], files: dict[str, str] | None = None,
          initiating_rank: int | list[int] | None = None) -> Case:
    return Case(case_id=case_id, label=label, difficulty=difficulty, description=description,
                initiating_rank=initiating_rank, facts=facts, must_mention=must_mention, files=files or {})


SITE = "/home/{user}/venvs/train/lib/python3.11/site-packages"
REAL: list[RealProgram] = []
WRITTEN: list[Case] = []
# the variables a capture may carry into one program's environment (as the job's pod spec or batch script sets them)
EXTRA_ENV: dict[str, dict[str, str]] = {}


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, user: str,
         env: dict[str, str] | None = None) -> None:
    import textwrap

    REAL.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home,
                            SITE.format(user=user)))
    if env:
        EXTRA_ENV[case.case_id] = env


# ---------------------------------------------------------------------------------------------- cloud-credentials-missing

real(
    _case("cloud-credentials-missing-boto3-upload-torchrun-01", "cloud-credentials-missing", "easy",
          "torchrun 2 ranks (gloo) on a node without AWS credentials: rank 0 saves the step-20 checkpoint and "
          "uploads it with boto3's upload_file, which raises NoCredentialsError through s3transfer; rank 1 waits "
          "at the barrier and is torn down",
          {"launcher": "torchrun", "world_size": "2", "torch_version": "2.13.0"}, ["credentials"]),
    "torchrun:2", "pretrain_ddp.py", '''
    """Pretrain a small MLP with DDP; rank 0 saves a checkpoint every 20 steps and ships it to S3."""
    import os
    import time

    import boto3
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP

    BUCKET = "acme-ml-checkpoints"
    PREFIX = "runs/mlp-ddp-0412"


    def ship_checkpoint(model, opt, step):
        os.makedirs("ckpt", exist_ok=True)
        path = f"ckpt/step_{step:06d}.pt"
        torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step}, path)
        print(f"[rank0] saved {path} ({os.path.getsize(path) / 1e3:.1f} kB), uploading to s3://{BUCKET}/{PREFIX}/", flush=True)
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.upload_file(path, BUCKET, f"{PREFIX}/{os.path.basename(path)}")


    def main():
        dist.init_process_group("gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
        torch.manual_seed(0)
        model = DDP(nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 1)))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        if rank == 0:
            print(f"world={world} params={sum(p.numel() for p in model.parameters())}", flush=True)
        t0 = time.time()
        for step in range(1, 41):
            x = torch.randn(64, 32)
            loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0 and step % 5 == 0:
                print(f"step {step:4d} | loss {loss.item():.4f} | {(time.time() - t0) / step * 1e3:.1f} ms/step", flush=True)
            if step % 20 == 0:
                if rank == 0:
                    ship_checkpoint(model, opt, step)
                dist.barrier()
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''', "train.log", "/home/dana/mlp", "dana")

real(
    _case("cloud-credentials-missing-google-auth-gcs-shards-01", "cloud-credentials-missing", "easy",
          "a fine-tuning script on an on-premises GPU node lists its training shards in a GCS bucket through "
          "google-auth; no GOOGLE_APPLICATION_CREDENTIALS, no gcloud ADC file and no metadata server, so "
          "google.auth.default() raises DefaultCredentialsError",
          {"launcher": "python", "torch_version": "2.13.0"}, ["GOOGLE_APPLICATION_CREDENTIALS"]),
    "python", "finetune.py", '''
    """Fine-tune a classifier on shards listed from a GCS bucket (the JSON API through google-auth)."""
    import json
    import logging

    import google.auth
    import torch
    from google.auth.transport.urllib3 import AuthorizedHttp

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("finetune")
    BUCKET, PREFIX = "acme-speech-data", "commands/v3/train/"


    def list_shards():
        creds, project = google.auth.default(scopes=["https://www.googleapis.com/auth/devstorage.read_only"])
        http = AuthorizedHttp(creds)
        r = http.request("GET", f"https://storage.googleapis.com/storage/v1/b/{BUCKET}/o", fields={"prefix": PREFIX})
        return [o["name"] for o in json.loads(r.data)["items"]]


    def main():
        log.info("torch %s, %d threads", torch.__version__, torch.get_num_threads())
        log.info("model: conv1d-small, 12 classes, lr=3e-4, batch 128")
        shards = list_shards()
        log.info("found %d shards under gs://%s/%s", len(shards), BUCKET, PREFIX)


    if __name__ == "__main__":
        main()
    ''', "finetune.log", "/home/ikram/kws", "ikram")

real(
    _case("cloud-credentials-missing-gcp-key-file-not-mounted-01", "cloud-credentials-missing", "medium",
          "the pod spec sets GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json but the Secret volume "
          "is not mounted: google.auth.default() raises 'File ... was not found.' when the evaluation job "
          "opens its GCS results bucket",
          {"launcher": "python", "torch_version": "2.13.0"}, ["GOOGLE_APPLICATION_CREDENTIALS"]),
    "python", "evaluate.py", '''
    """Evaluate a checkpoint and write the metrics next to it in GCS."""
    import google.auth
    import torch
    import torch.nn as nn


    def results_credentials():
        creds, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/devstorage.read_write"])
        return creds


    def main():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
        x, y = torch.randn(512, 16), torch.randint(0, 4, (512,))
        with torch.no_grad():
            acc = (model(x).argmax(1) == y).float().mean().item()
        print(f"eval: 512 examples, accuracy {acc:.4f}", flush=True)
        creds = results_credentials()
        print("writing metrics with", type(creds).__name__)


    if __name__ == "__main__":
        main()
    ''', "eval.log", "/workspace/eval", "app",
    env={"GOOGLE_APPLICATION_CREDENTIALS": "/var/secrets/google/key.json"})


# Written around frames captured here: boto3 1.44.5 / botocore 1.44.8 with AWS_ACCESS_KEY_ID set and no secret key
# (the traceback verbatim but for the site-packages path); the pod's log lines around it are written.
_K8S_SITE = "/usr/local/lib/python3.11/site-packages"
WRITTEN.append(_case(
    "cloud-credentials-missing-partial-env-k8s-secret-01", "cloud-credentials-missing", "medium",
    "kubectl logs of a training pod whose Secret maps AWS_ACCESS_KEY_ID but names the secret key "
    "aws_secret_access_key in lower case, so the env var AWS_SECRET_ACCESS_KEY is never set: botocore's "
    "environment provider raises PartialCredentialsError when the shard lister creates its S3 client",
    {"launcher": "python"}, ["AWS_SECRET_ACCESS_KEY"], files={"pod.log": f"""\
$ kubectl logs -n asr asr-conformer-train-7c9f6d5b8-q2kxw -c trainer
[2026-11-29 22:41:07] entrypoint: python -m asr.train --config configs/conformer_l.yaml
[2026-11-29 22:41:09] asr.train INFO  torch 2.13.0+cu128, CUDA available: True, devices: 1 (NVIDIA L4)
[2026-11-29 22:41:09] asr.train INFO  config: conformer_l, vocab 5000, batch 48, lr 1.5e-3, warmup 10000
[2026-11-29 22:41:10] asr.data INFO  listing shards under s3://acme-asr-corpus/shards/v4/ (region eu-west-1)
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "/app/asr/train.py", line 214, in <module>
    main()
  File "/app/asr/train.py", line 171, in main
    shards = list_shards(cfg.data.s3_uri)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/app/asr/data.py", line 38, in list_shards
    s3 = boto3.client("s3", region_name=region)
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/boto3/__init__.py", line 93, in client
    return _get_default_session().client(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/boto3/session.py", line 337, in client
    return self._session.create_client(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/context.py", line 123, in wrapper
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/session.py", line 986, in create_client
    credentials = self.get_credentials()
                  ^^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/session.py", line 522, in get_credentials
    ).load_credentials()
      ^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/credentials.py", line 2250, in load_credentials
    creds = provider.load()
            ^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/credentials.py", line 1265, in load
    credentials = fetcher(require_expiry=False)
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_K8S_SITE}/botocore/credentials.py", line 1308, in fetch_credentials
    raise PartialCredentialsError(
botocore.exceptions.PartialCredentialsError: Partial credentials found in env, missing: AWS_SECRET_ACCESS_KEY
"""}))


# ---------------------------------------------------------------------------------------------- protobuf-generated-code-outdated
# (lead, after kb-infra's round: --site holds tensorboard 2.8.0 and protobuf 4.21.0, `pip install --no-deps --target`)

real(
    _case("protobuf-generated-code-outdated-tensorboard-torchrun-01", "protobuf-generated-code-outdated", "easy",
          "torchrun 2 ranks (gloo): rank 0 creates a SummaryWriter after the first steps; the venv holds tensorboard "
          "2.8.0 (old-style _pb2 files) beside protobuf 4.21.0, so importing torch.utils.tensorboard fails with "
          "'Descriptors cannot not be created directly' (4.21's wording); rank 1 waits at the barrier and is torn down",
          {"launcher": "torchrun", "world_size": "2", "torch_version": "2.13.0"}, ["protobuf"], initiating_rank=0),
    "torchrun:2", "train_lm.py", '''
    """Train a tiny LM with DDP; rank 0 logs to TensorBoard from step 10 on."""
    import time

    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        torch.manual_seed(rank)
        model = DDP(nn.Sequential(nn.Embedding(256, 64), nn.Flatten(), nn.Linear(64 * 16, 256)))
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        writer = None
        t0 = time.time()
        for step in range(1, 31):
            x = torch.randint(0, 256, (32, 16))
            loss = F.cross_entropy(model(x), x[:, 0])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0 and step % 5 == 0:
                print(f"step {step:4d} | loss {loss.item():.4f} | {(time.time() - t0) / step * 1e3:.1f} ms/step", flush=True)
            if step == 10:
                if rank == 0:
                    from torch.utils.tensorboard import SummaryWriter
                    writer = SummaryWriter("runs/lm-ddp")
                dist.barrier()
            if writer is not None:
                writer.add_scalar("train/loss", loss.item(), step)
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''', "train.log", "/home/omar/lm", "omar")


# ---------------------------------------------------------------------------------------------- torch-triton-version-mismatch
# Captured with --site holding triton 2.1.0 (pip install --no-deps --target) over torch 2.13.0: the Triton an old
# requirements pin brings back.

real(
    _case("torch-triton-version-mismatch-compile-triton21-01", "torch-triton-version-mismatch", "easy",
          "a training script meant to torch.compile its model, in an environment where a requirements file pinned "
          "triton==2.1.0 over the Triton torch 2.13.0 needs: it fails one line earlier, at the AdamW optimizer, "
          "whose add_param_group (wrapped by torch._disable_dynamo) imports torch._dynamo and so "
          "torch/_inductor/runtime/hints.py",
          {"launcher": "python", "torch_version": "2.13.0"}, ["triton"]),
    "python", "train.py", '''
    """Train a small tabular regressor; the model is compiled for speed."""
    import time

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads", flush=True)
    model = nn.Sequential(nn.Linear(48, 256), nn.SiLU(), nn.Linear(256, 256), nn.SiLU(), nn.Linear(256, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    print(f"params: {sum(p.numel() for p in model.parameters()):,}; compiling ...", flush=True)
    model = torch.compile(model)
    t0 = time.time()
    for step in range(1, 201):
        x = torch.randn(512, 48)
        loss = F.mse_loss(model(x).squeeze(-1), x[:, :8].sum(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f} ({time.time() - t0:.1f}s)", flush=True)
    ''', "train.log", "/home/sam/tabular", "sam")

real(
    _case("torch-triton-version-mismatch-ddp-optimizer-triton21-02", "torch-triton-version-mismatch", "medium",
          "torchrun 2 ranks (gloo), DDP pretraining that never calls torch.compile, with triton 2.1.0 installed over "
          "torch 2.13.0: wrapping the model in DistributedDataParallel asks torch._dynamo for its DDP mode, the lazy "
          "import of torch._dynamo fails in torch/_inductor/runtime/hints.py on both ranks",
          {"launcher": "torchrun", "world_size": "2", "torch_version": "2.13.0"}, ["triton"]),
    "torchrun:2", "pretrain.py", '''
    """Pretrain a small transformer encoder with DDP on synthetic tokens."""
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP


    def main():
        dist.init_process_group("gloo")
        rank = dist.get_rank()
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True)
        model = DDP(nn.Sequential(nn.Embedding(1000, 128), nn.TransformerEncoder(layer, 2), nn.Linear(128, 1000)))
        if rank == 0:
            print(f"world={dist.get_world_size()} params={sum(p.numel() for p in model.parameters()):,}", flush=True)
        opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
        for step in range(1, 11):
            x = torch.randint(0, 1000, (8, 64))
            loss = nn.functional.cross_entropy(model(x).flatten(0, 1), x.flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
        dist.destroy_process_group()


    if __name__ == "__main__":
        main()
    ''', "pretrain.log", "/home/ines/lm", "ines")


# ---------------------------------------------------------------------------------------------- slurm-memory-options-conflict
# Slurm's texts from src/common/slurm_opt.c (_validate_memory_options) and log.c (fatal() prints "<prog>: fatal: ");
# the jobs around them are written.

WRITTEN.append(_case(
    "slurm-memory-options-conflict-mem-per-gpu-batch-01", "slurm-memory-options-conflict", "medium",
    "an 8-GPU sbatch job asks for --mem-per-gpu on a partition with DefMemPerCPU: the batch environment carries "
    "SLURM_MEM_PER_GPU and SLURM_MEM_PER_CPU, and the srun that starts torchrun stops at once",
    {"launcher": "srun"}, ["--mem-per-gpu", "srun"], files={"slurm-6120448.out": """\
=== job 6120448 (llama-sft-8b) on gpu-a07, 1 node(s), partition gpu ===
+ module load cuda/12.4 nccl/2.21.5
+ source /scratch/rvance/envs/sft/bin/activate
++ scontrol show hostnames gpu-a07
++ head -n 1
+ export MASTER_ADDR=gpu-a07
+ MASTER_ADDR=gpu-a07
+ export MASTER_PORT=29500
+ MASTER_PORT=29500
+ export NCCL_DEBUG=WARN
+ NCCL_DEBUG=WARN
+ echo 'starting sft: 8 GPUs, global batch 128, seq 4096'
starting sft: 8 GPUs, global batch 128, seq 4096
+ srun --ntasks-per-node=1 --cpus-per-task=64 torchrun --nnodes=1 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=gpu-a07:29500 train_sft.py --config configs/llama3_8b_sft.yaml
srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.
+ echo 'exit code: 1'
exit code: 1
"""}))

WRITTEN.append(_case(
    "slurm-memory-options-conflict-salloc-interactive-02", "slurm-memory-options-conflict", "easy",
    "an interactive salloc with --mem-per-gpu on a cluster with a default memory per CPU; in the allocation's "
    "shell every plain srun fails, while the same srun with --mem-per-gpu given works",
    {"launcher": "srun"}, ["--mem-per-gpu", "SLURM_MEM_PER_CPU"], files={"terminal.txt": """\
[tnguyen@login1 vit]$ salloc -p a100 -N 1 --gpus=2 --cpus-per-gpu=8 --mem-per-gpu=64G -t 02:00:00
salloc: Pending job allocation 880412
salloc: job 880412 queued and waiting for resources
salloc: job 880412 has been allocated resources
salloc: Granted job allocation 880412
salloc: Waiting for resource configuration
salloc: Nodes a100-n14 are ready for job
[tnguyen@login1 vit]$ srun python -c "import torch; print(torch.cuda.device_count())"
srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.
[tnguyen@login1 vit]$ srun torchrun --standalone --nproc_per_node=2 train.py --model vit_b16 --epochs 1 --debug
srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.
[tnguyen@login1 vit]$ env | grep ^SLURM_MEM
SLURM_MEM_PER_GPU=65536
SLURM_MEM_PER_CPU=4096
[tnguyen@login1 vit]$
"""}))

WRITTEN.append(_case(
    "slurm-memory-options-conflict-sbatch-two-directives-03", "slurm-memory-options-conflict", "easy",
    "a sweep submitter renders job scripts from a site template that already has #SBATCH --mem and adds "
    "#SBATCH --mem-per-gpu from the sweep config; sbatch refuses every script at submission",
    {"launcher": "sbatch"}, ["--mem"], files={"submit.log": """\
$ python tools/submit_sweep.py --sweep sweeps/lr_wd.yaml --template templates/a100x4.sbatch.j2
[submit_sweep] 6 configurations from sweeps/lr_wd.yaml
[submit_sweep] rendered jobs/lr_wd/run_000.sbatch:
    #!/bin/bash
    #SBATCH --job-name=lr_wd-000
    #SBATCH --partition=a100
    #SBATCH --nodes=1
    #SBATCH --gres=gpu:4
    #SBATCH --cpus-per-task=32
    #SBATCH --mem=240G
    #SBATCH --time=12:00:00
    #SBATCH --output=logs/%x-%j.out
    #SBATCH --mem-per-gpu=80G
    srun python train.py --lr 3e-4 --weight-decay 0.05 --out runs/lr_wd-000
[submit_sweep] sbatch jobs/lr_wd/run_000.sbatch
sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.
[submit_sweep] sbatch jobs/lr_wd/run_001.sbatch
sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.
[submit_sweep] sbatch jobs/lr_wd/run_002.sbatch
sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.
[submit_sweep] 3 submissions failed in a row, not submitting the remaining 3
submit_sweep: sbatch exited 1 for jobs/lr_wd/run_000.sbatch, jobs/lr_wd/run_001.sbatch, jobs/lr_wd/run_002.sbatch
"""}))


# ---------------------------------------------------------------------------------------------- slurm-node-config-unavailable
# Slurm's texts: slurm_errno.c's ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE after sbatch.c's, srun's allocate.c's and
# salloc.c's prefixes (20.11.9-25.11.7); sinfo's columns as its -o format prints them. The sessions are written.

WRITTEN.append(_case(
    "slurm-node-config-unavailable-gpus-per-node-01", "slurm-node-config-unavailable", "easy",
    "a fine-tuning script written for 8-GPU nodes (#SBATCH --gres=gpu:8) is submitted to a partition of 4-GPU "
    "nodes; sbatch is refused at once and sinfo shows gpu:a100:4 per node",
    {"launcher": "sbatch"}, ["--gres"], files={"terminal.txt": """\
[okafor@login2 llm-ft]$ head -12 ft_8gpu.sbatch
#!/bin/bash
#SBATCH --job-name=mistral-ft
#SBATCH --partition=gpu-a100
#SBATCH --nodes=1
#SBATCH --gres=gpu:8
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=64
#SBATCH --mem=480G
#SBATCH --time=24:00:00
#SBATCH --output=logs/%x-%j.out

srun torchrun --nproc_per_node=8 finetune.py --config configs/mistral7b_lora.yaml
[okafor@login2 llm-ft]$ sbatch ft_8gpu.sbatch
sbatch: error: Batch job submission failed: Requested node configuration is not available
[okafor@login2 llm-ft]$ sinfo -p gpu-a100 -N -o "%N %c %m %G"
NODELIST CPUS MEMORY GRES
a100-001 64 515000 gpu:a100:4
a100-002 64 515000 gpu:a100:4
a100-003 64 515000 gpu:a100:4
a100-004 64 515000 gpu:a100:4
[okafor@login2 llm-ft]$
"""}))

WRITTEN.append(_case(
    "slurm-node-config-unavailable-mem-srun-02", "slurm-node-config-unavailable", "medium",
    "an interactive srun for a preprocessing job asks for --mem=1T on nodes whose RealMemory is 1,000,000 MB "
    "(under 1 TiB); srun's allocation is refused before the tokenizer script runs",
    {"launcher": "srun"}, ["--mem", "RealMemory"], files={"session.txt": """\
(data) [jwu@hpc-login01 corpus]$ srun -p cpu-bigmem -N 1 -n 1 --cpus-per-task=96 --mem=1T -t 08:00:00 python tokenize_corpus.py --input /lustre/corpus/raw --output /lustre/corpus/tok --workers 96
srun: error: Unable to allocate resources: Requested node configuration is not available
(data) [jwu@hpc-login01 corpus]$ scontrol show node bigmem-07 | grep -E 'CPUTot|RealMemory'
   CPUAlloc=0 CPUEfctv=128 CPUTot=128 CPULoad=0.02
   RealMemory=1000000 AllocMem=0 FreeMem=1011245 Sockets=2 Boards=1
(data) [jwu@hpc-login01 corpus]$
"""}))

WRITTEN.append(_case(
    "slurm-node-config-unavailable-constraint-salloc-03", "slurm-node-config-unavailable", "medium",
    "a notebook-launcher script requests an interactive allocation with --constraint=h100 in partition gpu, whose "
    "nodes are A100s; the H100 nodes with that feature are in another partition (gpu-h100), so salloc is refused "
    "and the launcher stops",
    {"launcher": "salloc"}, ["--constraint", "partition"], files={"launcher.log": """\
2026-11-30 16:02:11 [jupyter-slurm] profile 'h100-single': partition=gpu gpus=1 constraint=h100 cpus=16 mem=120G time=04:00:00
2026-11-30 16:02:11 [jupyter-slurm] requesting: salloc --partition=gpu --gpus=1 --constraint=h100 --cpus-per-task=16 --mem=120G --time=04:00:00 --no-shell
salloc: error: Job submit/allocate failed: Requested node configuration is not available
2026-11-30 16:02:12 [jupyter-slurm] salloc exited with status 1; no allocation, not starting the kernel
2026-11-30 16:02:12 [jupyter-slurm] $ sinfo -o "%P %N %G %f"
PARTITION NODELIST GRES AVAIL_FEATURES
gpu* ga[001-024] gpu:a100:8 a100,nvlink
gpu-h100 gh[001-008] gpu:h100:8 h100,nvlink,ib-ndr
"""}))


# ---------------------------------------------------------------------------------------------- vllm-prompt-exceeds-max-model-len
# vLLM 0.11.2's texts and frames (entrypoints/llm.py, v1/engine/processor.py, entrypoints/openai/serving_engine.py, the
# logger's "LEVEL mm-dd HH:MM:SS [file.py:line]" format) and openai 1.55.3's client frames, read in the released wheels;
# the jobs around them are written.

_VSITE = "/opt/venvs/vllm/lib/python3.12/site-packages"
_ENGINE = "(EngineCore_DP0 pid=48211)"

WRITTEN.append(_case(
    "vllm-prompt-exceeds-max-model-len-offline-batch-01", "vllm-prompt-exceeds-max-model-len", "medium",
    "an offline vLLM 0.11.2 batch job summarizes a JSONL of support tickets with LLM.generate and "
    "max_model_len=8192; one ticket thread is 9214 tokens after the chat template, so adding the requests fails "
    "and nothing of the batch is generated",
    {"launcher": "python"}, ["max_model_len"], files={"summarize.log": f"""\
+ python batch_summarize.py --model /models/Qwen2.5-7B-Instruct --input data/tickets_2026-11.jsonl --max-model-len 8192 --max-tokens 512
INFO 11-30 02:14:07 [utils.py:253] non-default args: {{'model': '/models/Qwen2.5-7B-Instruct', 'max_model_len': 8192, 'gpu_memory_utilization': 0.92, 'disable_log_stats': True}}
INFO 11-30 02:14:07 [model.py:631] Resolved architecture: Qwen2ForCausalLM
INFO 11-30 02:14:07 [model.py:1745] Using max model len 8192
INFO 11-30 02:14:09 [scheduler.py:216] Chunked prefill is enabled with max_num_batched_tokens=16384.
{_ENGINE} INFO 11-30 02:14:19 [default_loader.py:314] Loading weights took 4.87 seconds
{_ENGINE} INFO 11-30 02:14:20 [gpu_model_runner.py:3337] Model loading took 14.2488 GiB memory and 5.611843 seconds
{_ENGINE} INFO 11-30 02:14:31 [kv_cache_utils.py:1229] GPU KV cache size: 1,031,488 tokens
{_ENGINE} INFO 11-30 02:14:31 [kv_cache_utils.py:1234] Maximum concurrency for 8,192 tokens per request: 125.91x
{_ENGINE} INFO 11-30 02:14:44 [gpu_model_runner.py:4244] Graph capturing finished in 12 secs, took 0.51 GiB
{_ENGINE} INFO 11-30 02:14:44 [core.py:250] init engine (profile, create kv cache, warmup model) took 24.03 seconds
INFO 11-30 02:14:45 [llm.py:352] Supported tasks: ['generate']
loaded 4,812 tickets from data/tickets_2026-11.jsonl
Adding requests:  37%|███▋      | 1779/4812 [00:01<00:02, 1204.55it/s]
Traceback (most recent call last):
  File "/srv/jobs/summarize/batch_summarize.py", line 97, in <module>
    main(parse_args())
  File "/srv/jobs/summarize/batch_summarize.py", line 78, in main
    outputs = llm.generate(prompts, sampling)
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_VSITE}/vllm/entrypoints/llm.py", line 440, in generate
    self._validate_and_add_requests(
  File "{_VSITE}/vllm/entrypoints/llm.py", line 1613, in _validate_and_add_requests
    raise e
  File "{_VSITE}/vllm/entrypoints/llm.py", line 1601, in _validate_and_add_requests
    request_id = self._add_request(
                 ^^^^^^^^^^^^^^^^^^
  File "{_VSITE}/vllm/entrypoints/llm.py", line 1700, in _add_request
    engine_request, tokenization_kwargs = self._process_inputs(
                                          ^^^^^^^^^^^^^^^^^^^^^
  File "{_VSITE}/vllm/entrypoints/llm.py", line 1680, in _process_inputs
    engine_request = self.processor.process_inputs(
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_VSITE}/vllm/v1/engine/processor.py", line 442, in process_inputs
    self._validate_model_inputs(encoder_inputs, decoder_inputs)
  File "{_VSITE}/vllm/v1/engine/processor.py", line 517, in _validate_model_inputs
    self._validate_model_input(decoder_inputs, prompt_type="decoder")
  File "{_VSITE}/vllm/v1/engine/processor.py", line 591, in _validate_model_input
    raise ValueError(
ValueError: The decoder prompt (length 9214) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.
"""}))

_OA = "/home/mira/.venvs/evals/lib/python3.11/site-packages"
WRITTEN.append(_case(
    "vllm-prompt-exceeds-max-model-len-openai-client-eval-02", "vllm-prompt-exceeds-max-model-len", "medium",
    "a long-context QA evaluation sends chat requests with the openai client to a vLLM 0.11.2 server started with "
    "--max-model-len 16384; at sample 212 the document plus the question is 16873 tokens, the server answers 400 "
    "and the unguarded client loop dies",
    {"launcher": "python"}, ["max-model-len"], files={"eval.log": f"""\
[eval] server http://gpu-serve-02:8000/v1, model llama-3.1-8b-instruct (max_model_len reported by /v1/models: 16384)
[eval] dataset longqa-dev: 600 samples, mean 9,874 prompt tokens (tiktoken estimate)
[eval]  50/600  exact=0.620  f1=0.711  7.9 s/it
[eval] 100/600  exact=0.610  f1=0.705  8.1 s/it
[eval] 150/600  exact=0.607  f1=0.702  8.0 s/it
[eval] 200/600  exact=0.605  f1=0.699  8.2 s/it
Traceback (most recent call last):
  File "/home/mira/longqa/run_eval.py", line 133, in <module>
    main()
  File "/home/mira/longqa/run_eval.py", line 104, in main
    answer = ask(client, args.model, sample)
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mira/longqa/run_eval.py", line 58, in ask
    resp = client.chat.completions.create(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_OA}/openai/_utils/_utils.py", line 275, in wrapper
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "{_OA}/openai/resources/chat/completions.py", line 829, in create
    return self._post(
           ^^^^^^^^^^^
  File "{_OA}/openai/_base_client.py", line 1280, in post
    return cast(ResponseT, self.request(cast_to, opts, stream=stream, stream_cls=stream_cls))
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{_OA}/openai/_base_client.py", line 957, in request
    return self._request(
           ^^^^^^^^^^^^^^
  File "{_OA}/openai/_base_client.py", line 1061, in _request
    raise self._make_status_error_from_response(err.response) from None
openai.BadRequestError: Error code: 400 - {{'error': {{'message': "This model's maximum context length is 16384 tokens. However, your request has 16873 input tokens. Please reduce the length of the input messages.", 'type': 'BadRequestError', 'param': None, 'code': 400}}}}
"""}))


# ---------------------------------------------------------------------------------------------- vllm-lora-adapter-rejected
# vLLM 0.11.2's frames, read in the wheel: the engine core's utility call (v1/engine/core.py) down to
# PEFTHelper.validate_legal (lora/peft_helper.py), and the API server's start-up (cli, uvloop, api_server.py
# init_app_state, serving_models.py init_static_loras). Python 3.12 as in the vllm/vllm-openai image; the servers
# around them are written.


def _frame(site: str, path: str, line: int, fn: str, src: str, span: str | None = None) -> list[str]:
    """One traceback frame as Python 3.12 prints it: the source line, and carets under `span` when it is given
    (Python marks the failing call when it is only part of the line)."""
    out = [f'  File "{site}/{path}", line {line}, in {fn}', f"    {src}"]
    if span:
        out.append(" " * (4 + src.index(span)) + "^" * len(span))
    return out


def _lora_engine_core_tb(site: str, message: str) -> list[str]:
    f = _frame
    return ["Traceback (most recent call last):",
            *f(site, "vllm/v1/engine/core.py", 915, "_handle_client_request",
               "result = method(*self._convert_msgspec_args(method, args))",
               "method(*self._convert_msgspec_args(method, args))"),
            *f(site, "vllm/v1/engine/core.py", 498, "add_lora", "return self.model_executor.add_lora(lora_request)",
               "self.model_executor.add_lora(lora_request)"),
            *f(site, "vllm/v1/executor/abstract.py", 277, "add_lora",
               'return all(self.collective_rpc("add_lora", args=(lora_request,)))',
               'self.collective_rpc("add_lora", args=(lora_request,))'),
            *f(site, "vllm/v1/executor/uniproc_executor.py", 75, "collective_rpc",
               "result = run_method(self.driver_worker, method, args, kwargs)",
               "run_method(self.driver_worker, method, args, kwargs)"),
            *f(site, "vllm/v1/serial_utils.py", 479, "run_method", "return func(*args, **kwargs)",
               "func(*args, **kwargs)"),
            *f(site, "vllm/v1/worker/gpu_worker.py", 612, "add_lora", "return self.model_runner.add_lora(lora_request)",
               "self.model_runner.add_lora(lora_request)"),
            *f(site, "vllm/v1/worker/lora_model_runner_mixin.py", 201, "add_lora",
               "return self.lora_manager.add_adapter(lora_request)", "self.lora_manager.add_adapter(lora_request)"),
            *f(site, "vllm/lora/worker_manager.py", 263, "add_adapter", "lora = self._load_adapter(lora_request)",
               "self._load_adapter(lora_request)"),
            *f(site, "vllm/lora/worker_manager.py", 144, "_load_adapter", "raise e"),
            *f(site, "vllm/lora/worker_manager.py", 110, "_load_adapter", "peft_helper.validate_legal(self.lora_config)"),
            *f(site, "vllm/lora/peft_helper.py", 128, "validate_legal", "raise ValueError(f\"{' '.join(error_msg)}\")"),
            f"ValueError: {message}"]


def _lora_api_server_tb(site: str, message: str) -> list[str]:
    f = _frame
    return ["Traceback (most recent call last):",
            '  File "/usr/local/bin/vllm", line 10, in <module>', "    sys.exit(main())", "             ^^^^^^",
            *f(site, "vllm/entrypoints/cli/main.py", 73, "main", "args.dispatch_function(args)"),
            *f(site, "vllm/entrypoints/cli/serve.py", 60, "cmd", "uvloop.run(run_server(args))"),
            *f(site, "uvloop/__init__.py", 109, "run", "return __asyncio.run(", "__asyncio.run("),
            '  File "/usr/lib/python3.12/asyncio/runners.py", line 195, in run', "    return runner.run(main)",
            "           ^^^^^^^^^^^^^^^^",
            '  File "/usr/lib/python3.12/asyncio/runners.py", line 118, in run',
            "    return self._loop.run_until_complete(task)", "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            '  File "uvloop/loop.pyx", line 1518, in uvloop.loop.Loop.run_until_complete',
            *f(site, "uvloop/__init__.py", 61, "wrapper", "return await main", "await main"),
            *f(site, "vllm/entrypoints/openai/api_server.py", 2024, "run_server",
               "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)"),
            *f(site, "vllm/entrypoints/openai/api_server.py", 2050, "run_server_worker",
               "await init_app_state(engine_client, app.state, args)"),
            *f(site, "vllm/entrypoints/openai/api_server.py", 1760, "init_app_state",
               "await state.openai_serving_models.init_static_loras()"),
            *f(site, "vllm/entrypoints/openai/serving_models.py", 90, "init_static_loras",
               "raise ValueError(load_result.error.message)"),
            f"ValueError: Call to add_lora method failed: {message}"]


def _pre(pre: str, lines: list[str]) -> str:
    return "\n".join(f"{pre}{line}" for line in lines)


_VS312 = "/usr/local/lib/python3.12/dist-packages"
_RANK_MSG = "LoRA rank 64 is greater than max_lora_rank 16."
_API, _CORE = "(APIServer pid=1) ", "(EngineCore_DP0 pid=274) "
WRITTEN.append(_case(
    "vllm-lora-adapter-rejected-rank-docker-01", "vllm-lora-adapter-rejected", "easy",
    "docker run of the vllm/vllm-openai 0.11.2 image serving Llama 3.1 8B with --enable-lora --lora-modules for two "
    "adapters, one trained with r=64; max_lora_rank is left at its default 16, the engine core refuses it and the "
    "API server exits before it listens",
    {"launcher": "docker"}, ["--max-lora-rank"], files={"serve.log": "\n".join([
        "$ docker run --gpus all --ipc=host -p 8000:8000 -v /srv/adapters:/adapters -v /srv/models:/models "
        "vllm/vllm-openai:v0.11.2 --model /models/Meta-Llama-3.1-8B-Instruct --served-model-name llama31-8b "
        "--enable-lora --lora-modules sql=/adapters/sql-r16 support=/adapters/support-r64 --max-model-len 16384",
        "INFO 11-30 03:11:02 [__init__.py:216] Automatically detected platform cuda.",
        _API + "INFO 11-30 03:11:06 [api_server.py:1977] vLLM API server version 0.11.2",
        _API + "INFO 11-30 03:11:06 [utils.py:253] non-default args: {'model_tag': None, 'lora_modules': "
        "[LoRAModulePath(name='sql', path='/adapters/sql-r16', base_model_name=None), LoRAModulePath(name='support', "
        "path='/adapters/support-r64', base_model_name=None)], 'model': '/models/Meta-Llama-3.1-8B-Instruct', "
        "'max_model_len': 16384, 'served_model_name': ['llama31-8b'], 'enable_lora': True}",
        _API + "INFO 11-30 03:11:06 [model.py:631] Resolved architecture: LlamaForCausalLM",
        _API + "INFO 11-30 03:11:06 [model.py:1745] Using max model len 16384",
        _CORE + "INFO 11-30 03:11:24 [default_loader.py:314] Loading weights took 3.92 seconds",
        _CORE + "INFO 11-30 03:11:25 [gpu_model_runner.py:3337] Model loading took 15.3312 GiB memory and 4.703310 seconds",
        _CORE + "INFO 11-30 03:11:41 [kv_cache_utils.py:1229] GPU KV cache size: 397,392 tokens",
        _CORE + "INFO 11-30 03:11:41 [kv_cache_utils.py:1234] Maximum concurrency for 16,384 tokens per request: 24.25x",
        _CORE + "INFO 11-30 03:12:02 [gpu_model_runner.py:4244] Graph capturing finished in 19 secs, took 0.94 GiB",
        _CORE + "INFO 11-30 03:12:02 [core.py:250] init engine (profile, create kv cache, warmup model) took 36.87 seconds",
        _API + "INFO 11-30 03:12:04 [serving_models.py:168] Loaded new LoRA adapter: name 'sql', path '/adapters/sql-r16'",
        _CORE + "ERROR 11-30 03:12:04 [core.py:918] Invocation of add_lora method failed",
        _pre(_CORE, _lora_engine_core_tb(_VS312, _RANK_MSG)),
        _pre(_API, _lora_api_server_tb(_VS312, _RANK_MSG)),
    ])}))

_MTS_MSG = "vLLM only supports modules_to_save being None."
_API2, _CORE2 = "(APIServer pid=1) ", "(EngineCore_DP0 pid=312) "
WRITTEN.append(_case(
    "vllm-lora-adapter-rejected-modules-to-save-k8s-02", "vllm-lora-adapter-rejected", "medium",
    "kubectl logs --previous of a vLLM 0.11.2 deployment in CrashLoopBackOff: the fine-tune that produced the "
    "adapter added special tokens, so PEFT saved embed_tokens and lm_head under modules_to_save, which vLLM "
    "refuses at start-up",
    {"launcher": "kubernetes"}, ["modules_to_save"], files={"pod.log": "\n".join([
        "$ kubectl -n serving logs deploy/qwen-chat-lora --previous",
        "INFO 11-29 21:40:13 [__init__.py:216] Automatically detected platform cuda.",
        _API2 + "INFO 11-29 21:40:17 [api_server.py:1977] vLLM API server version 0.11.2",
        _API2 + "INFO 11-29 21:40:17 [utils.py:253] non-default args: {'model_tag': '/models/Qwen2.5-14B-Instruct', "
        "'host': '0.0.0.0', 'lora_modules': [LoRAModulePath(name='chat-v7', path='/adapters/chat-v7', "
        "base_model_name=None)], 'model': '/models/Qwen2.5-14B-Instruct', 'max_model_len': 8192, "
        "'served_model_name': ['qwen14b'], 'enable_lora': True, 'max_lora_rank': 32}",
        _API2 + "INFO 11-29 21:40:17 [model.py:631] Resolved architecture: Qwen2ForCausalLM",
        _API2 + "INFO 11-29 21:40:17 [model.py:1745] Using max model len 8192",
        _CORE2 + "INFO 11-29 21:40:49 [default_loader.py:314] Loading weights took 11.06 seconds",
        _CORE2 + "INFO 11-29 21:40:50 [gpu_model_runner.py:3337] Model loading took 27.7106 GiB memory and 12.198754 seconds",
        _CORE2 + "INFO 11-29 21:41:12 [kv_cache_utils.py:1229] GPU KV cache size: 187,744 tokens",
        _CORE2 + "INFO 11-29 21:41:12 [kv_cache_utils.py:1234] Maximum concurrency for 8,192 tokens per request: 22.92x",
        _CORE2 + "INFO 11-29 21:41:40 [gpu_model_runner.py:4244] Graph capturing finished in 27 secs, took 1.12 GiB",
        _CORE2 + "INFO 11-29 21:41:40 [core.py:250] init engine (profile, create kv cache, warmup model) took 50.31 seconds",
        _CORE2 + "ERROR 11-29 21:41:42 [core.py:918] Invocation of add_lora method failed",
        _pre(_CORE2, _lora_engine_core_tb(_VS312, _MTS_MSG)),
        _pre(_API2, _lora_api_server_tb(_VS312, _MTS_MSG)),
    ])}))


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", help="write only the cases whose id contains this")
    ap.add_argument("--capture", action="store_true", help="also rerun the real CPU programs and store what they print")
    ap.add_argument("--site", type=Path, help="a folder with the extra packages the captured programs import")
    args = ap.parse_args()
    for case in WRITTEN:
        if not args.only or args.only in case.case_id:
            write_case(args.out, case)
            print("wrote", case.case_id)
    if not args.capture:
        return
    if args.site:
        os.environ["PYTHONPATH"] = str(args.site.resolve())
    for prog in REAL:
        if not args.only or args.only in prog.case.case_id:
            saved = dict(os.environ)
            os.environ.update(EXTRA_ENV.get(prog.case.case_id, {}))
            try:
                case = capture(prog)
            finally:
                os.environ.clear()
                os.environ.update(saved)
            if args.site:
                case.files = {name: text.replace(str(args.site.resolve()), prog.site) for name, text in case.files.items()}
            # the interpreter's standard library as the jobs' venvs see it (their base Python), not this machine's
            case.files = {name: text.replace(f"{sys.base_prefix}/lib/python3.11/", "/usr/lib/python3.11/")
                          for name, text in case.files.items()}
            write_case(args.out, case)
            print("captured", prog.case.case_id)


if __name__ == "__main__":
    main()
