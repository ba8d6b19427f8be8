"""Rule table rows for kb-infra's second domain (service/facts/rules/infra_breadth.py): real log lines that must fire
each rule, and near misses that must not. Joined to tests/test_rules.py's tables.

The lines are the texts the releases print: botocore 1.44.5 (and s3transfer's upload_file through it), google-auth 1.35.0
and 2.62.2; Slurm's fatal() lines as srun and sbatch print them (src/common/slurm_opt.c, 20.11.9-25.11.7)."""

from __future__ import annotations

FIRES: list[tuple[str, str | tuple[str, ...]]] = [
    ("aws-no-credentials", "botocore.exceptions.NoCredentialsError: Unable to locate credentials"),
    ("aws-no-credentials", "[rank0]: botocore.exceptions.NoCredentialsError: Unable to locate credentials"),
    ("aws-no-credentials", "botocore.exceptions.PartialCredentialsError: Partial credentials found in env, missing: AWS_SECRET_ACCESS_KEY"),
    ("gcp-no-default-credentials", "google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found. To set up Application Default Credentials, see https://cloud.google.com/docs/authentication/external/set-up-adc for more information."),
    ("gcp-no-default-credentials", "google.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials. Please set GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials and re-run the application. For more information, please see https://cloud.google.com/docs/authentication/getting-started"),
    ("gcp-no-default-credentials", "google.auth.exceptions.DefaultCredentialsError: File /var/secrets/google/key.json was not found."),
    ("slurm-memory-options-conflict", "srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive."),
    ("slurm-memory-options-conflict", "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."),
    ("slurm-memory-options-conflict", "salloc: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."),
]

NEAR_MISSES: list[tuple[str, str | tuple[str, ...]]] = [
    # credentials were found and sent; the server refused them (another failure: a permission or an expiry)
    ("aws-no-credentials", "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied"),
    ("aws-no-credentials", "botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the ListObjectsV2 operation: The AWS Access Key Id you provided does not exist in our records."),
    # the W&B or Hub token is another service's credential
    ("aws-no-credentials", "wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])"),
    # a refresh of credentials that exist (an expired or revoked user login), not missing ones
    ("gcp-no-default-credentials", "google.auth.exceptions.RefreshError: ('invalid_grant: Bad Request', {'error': 'invalid_grant', 'error_description': 'Bad Request'})"),
    # another file missing, not the key file named by GOOGLE_APPLICATION_CREDENTIALS
    ("gcp-no-default-credentials", "FileNotFoundError: [Errno 2] No such file or directory: '/data/train.jsonl'"),
    # another pair of Slurm options refused, not the memory ones
    ("slurm-memory-options-conflict", "srun: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU"),
    # a job's memory request refused by the controller (too much memory), not two options
    ("slurm-memory-options-conflict", "sbatch: error: Memory specification can not be satisfied"),
    # the memory variables printed by a job script's env dump
    ("slurm-memory-options-conflict", "SLURM_MEM_PER_GPU=81920"),
]
