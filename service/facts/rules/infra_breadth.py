"""Cloud credentials, Slurm's memory-option and node-configuration checks, vLLM's prompt-length and LoRA-adapter
checks, torch paired with another Triton (kb-infra's second domain).

Every pattern quotes the line it was written for; the texts were read from the released artifacts named in each
entry's ``affected.software`` (botocore 1.31.85 and 1.44.5, google-auth 1.35.0, 2.40.3 and 2.62.2, Slurm 20.11.9-25.11.7's
src/common/slurm_opt.c, vllm 0.11.2 and 0.33.0, openai 1.55.3, torch 2.5.1 and 2.13.0 with triton 2.1.0 and 3.0.0).
"""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    # --- object-store credentials ---
    Rule(
        "aws-no-credentials",
        "cloud-credentials-missing",
        (
            # botocore exceptions.py NoCredentialsError, raised by auth.py add_auth:
            #  "botocore.exceptions.NoCredentialsError: Unable to locate credentials"
            r"NoCredentialsError: Unable to locate credentials",
            # the environment provider with half a key pair:
            #  "botocore.exceptions.PartialCredentialsError: Partial credentials found in env, missing: AWS_SECRET_ACCESS_KEY"
            r"PartialCredentialsError: Partial credentials found in \S+, missing: \S+",
        ),
        0.93,
    ),
    Rule(
        "gcp-no-default-credentials",
        "cloud-credentials-missing",
        (
            # google-auth 2.x _default.py: "google.auth.exceptions.DefaultCredentialsError: Your default credentials were
            #  not found. To set up Application Default Credentials, see https://cloud.google.com/docs/authentication/..."
            r"DefaultCredentialsError: Your default credentials were not found",
            # google-auth 1.x: "google.auth.exceptions.DefaultCredentialsError: Could not automatically determine
            #  credentials. Please set GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials and re-run ..."
            r"DefaultCredentialsError: Could not automatically determine credentials",
            # GOOGLE_APPLICATION_CREDENTIALS naming a key file that is not there:
            #  "google.auth.exceptions.DefaultCredentialsError: File /var/secrets/google/key.json was not found."
            r"DefaultCredentialsError: File \S+ was not found\.",
        ),
        0.93,
    ),
    # --- Slurm's memory options ---
    Rule(
        "slurm-memory-options-conflict",
        "slurm-memory-options-conflict",
        (
            # slurm_opt.c _validate_memory_options, two variables inherited by a step:
            #  "srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive."
            r"SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive",
            # two options on the command line or in #SBATCH lines:
            #  "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."
            r"--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive",
        ),
        0.95,
    ),
    # --- vLLM's prompt-length check ---
    Rule(
        "vllm-prompt-exceeds-max-model-len",
        "vllm-prompt-exceeds-max-model-len",
        (
            # offline (v1/engine/processor.py, 0.33 input_processor.py): "ValueError: The decoder prompt (length 9214) is
            #  longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than ..."
            r"The (?:decoder|encoder) prompt \(length \d+\) is longer than the maximum model length of \d+",
            # a prompt of exactly max_model_len tokens: "The decoder prompt (length 8192) plus the number of requested
            #  output tokens (at least 1) is longer than the maximum model length of 8192."
            r"The decoder prompt \(length \d+\) plus the number of requested output tokens \(at least 1\) is longer than",
            # the OpenAI server (0.11 serving_engine.py; 0.33 renderers/params.py), often inside a client's 400:
            #  "This model's maximum context length is 8192 tokens. However, your request has 9214 input tokens."
            #  / "... However, your prompt contains 9214 input tokens, which exceeds this limit ..."
            r"This model's maximum context length is \d+ tokens\. However, (?:your request has|your prompt contains|you requested) ",
            # "'max_tokens' or 'max_completion_tokens' is too large: 2048. This model's maximum context length is 8192 tokens"
            r"'max_tokens' or 'max_completion_tokens' is too large: \d+\. This model's maximum context length is \d+",
        ),
        0.93,
    ),
    # --- torch with a Triton of another release ---
    Rule(
        "torch-triton-version-mismatch",
        "torch-triton-version-mismatch",
        (
            # torch 2.13.0 torch/_inductor/runtime/hints.py line 57 `import triton.backends.compiler` with Triton 2.x:
            #  "ModuleNotFoundError: No module named 'triton.backends'"
            r"ModuleNotFoundError: No module named 'triton\.backends'",
            # torch 2.5.1 codecache.py / 2.13.0 triton_compat.py with a Triton without triton_key:
            #  "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' (/.../triton/compiler/compiler.py)"
            r"ImportError: cannot import name 'triton_key' from 'triton\.compiler\.compiler'",
        ),
        0.9,
    ),
    # --- vLLM's LoRA adapter check ---
    Rule(
        "vllm-lora-adapter-rejected",
        "vllm-lora-adapter-rejected",
        (
            # lora/peft_helper.py validate_legal (0.11.2, 0.33.0): "ValueError: LoRA rank 64 is greater than max_lora_rank 16."
            #  and, from the API server: "ValueError: Call to add_lora method failed: LoRA rank 64 is greater than ..."
            r"LoRA rank \d+ is greater than max_lora_rank \d+",
            # the same check: "vLLM only supports modules_to_save being None." (0.33: "... being either None or
            #  ["classifier", "score"] for classification models. Unsupported modules_to_save: [...]") / "vLLM does not yet support DoRA."
            r"vLLM only supports modules_to_save being (?:None|either None or)|vLLM does not yet support DoRA",
            # "Adapter bias is not supported." as the engine core reports it for add_lora
            r"Call to add_lora method failed: .*Adapter bias is not supported",
        ),
        0.93,
    ),
    # --- Slurm: a request no node of the partition could hold ---
    Rule(
        "slurm-node-config-unavailable",
        "slurm-node-config-unavailable",
        (
            # slurm_errno.c ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE through the clients' %m:
            #  "sbatch: error: Batch job submission failed: Requested node configuration is not available"
            #  "srun: error: Unable to allocate resources: Requested node configuration is not available"
            #  "salloc: error: Job submit/allocate failed: Requested node configuration is not available"
            #  "srun: error: Unable to create step for job 4410: Requested node configuration is not available"
            r"(?:Batch job submission failed|Unable to allocate resources|Job submit/allocate failed|Unable to create step for job \d+): Requested node configuration is not available",
        ),
        0.92,
    ),
)
