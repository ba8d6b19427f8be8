#!/usr/bin/env python3
"""Write the eval cases of kb-infra's second round: cloud credentials missing on the node, Slurm's memory options
in the job environment, torch paired with a Triton it cannot import from.

Captured cases (``REAL``) are small programs run for real on this CPU machine (``python`` or ``torchrun`` with gloo)
with the repository's venv, their output kept as the log with only machine paths rewritten (evals/generators/
torch_kb.py's capture). The cloud programs import boto3 1.44.5 (botocore 1.44.8) and google-auth 2.62.2, and the
Triton program triton 2.1.0, which the repository does not depend on: capture them with ``--site DIR``, a
``pip install --target DIR`` folder holding those packages (DIR goes on PYTHONPATH and is rewritten to the case's
site-packages in the log). The machine has no AWS or Google credentials and no metadata service, as the compute
nodes in the cases. Written cases (``WRITTEN``) are logs that need a cluster (Slurm), written as the tools print
them, their messages read in the released sources named by each entry. All were written before crashdoc ran on them.

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
            write_case(args.out, case)
            print("captured", prog.case.case_id)


if __name__ == "__main__":
    main()
