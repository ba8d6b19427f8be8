"""Rule table rows for kb-infra's second domain (service/facts/rules/infra_breadth.py): real log lines that must fire
each rule, and near misses that must not. Joined to tests/test_rules.py's tables.

The lines are the texts the releases print: botocore 1.44.5 (and s3transfer's upload_file through it), google-auth 1.35.0
and 2.62.2; Slurm's fatal() lines as srun and sbatch print them (src/common/slurm_opt.c, 20.11.9-25.11.7); vLLM 0.11.2's and 0.33.0's
prompt-length refusals (offline and from the OpenAI server, as openai 1.55.3's BadRequestError shows them); torch 2.13.0's
import of Triton 2.1.0 (captured) and Python's ImportError for the triton_key import of torch 2.5.1; vLLM 0.11.2's LoRA
adapter refusals (lora/peft_helper.py, and the engine core's "Call to add_lora method failed"); Slurm's
ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE as sbatch, srun and salloc print it."""

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
    ("vllm-prompt-exceeds-max-model-len", "ValueError: The decoder prompt (length 9214) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens."),
    ("vllm-prompt-exceeds-max-model-len", "vllm.exceptions.VLLMValidationError: The decoder prompt (length 40960) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens."),
    ("vllm-prompt-exceeds-max-model-len", "ValueError: The decoder prompt (length 4096) plus the number of requested output tokens (at least 1) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens (prompt + requested output tokens)."),
    ("vllm-prompt-exceeds-max-model-len", "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, your request has 9214 input tokens. Please reduce the length of the input messages.\", 'type': 'BadRequestError', 'param': None, 'code': 400}}"),
    ("vllm-prompt-exceeds-max-model-len", "vllm.exceptions.VLLMValidationError: This model's maximum context length is 32768 tokens. However, your prompt contains 40960 input tokens, which exceeds this limit even without any output tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=40960)"),
    ("vllm-prompt-exceeds-max-model-len", "ValueError: 'max_tokens' or 'max_completion_tokens' is too large: 2048. This model's maximum context length is 8192 tokens and your request has 7000 input tokens (2048 > 8192 - 7000)."),
    ("torch-triton-version-mismatch", "ModuleNotFoundError: No module named 'triton.backends'"),
    ("torch-triton-version-mismatch", "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' (/opt/conda/lib/python3.11/site-packages/triton/compiler/compiler.py)"),
    ("vllm-lora-adapter-rejected", "ValueError: LoRA rank 64 is greater than max_lora_rank 16."),
    ("vllm-lora-adapter-rejected", "(APIServer pid=1) ValueError: Call to add_lora method failed: LoRA rank 128 is greater than max_lora_rank 64."),
    ("vllm-lora-adapter-rejected", "ValueError: Call to add_lora method failed: vLLM only supports modules_to_save being None."),
    ("vllm-lora-adapter-rejected", "ValueError: vLLM does not yet support DoRA. LoRA rank 32 is greater than max_lora_rank 16."),
    ("vllm-lora-adapter-rejected", "ValueError: Call to add_lora method failed: Adapter bias is not supported."),
    ("slurm-node-config-unavailable", "sbatch: error: Batch job submission failed: Requested node configuration is not available"),
    ("slurm-node-config-unavailable", "srun: error: Unable to allocate resources: Requested node configuration is not available"),
    ("slurm-node-config-unavailable", "salloc: error: Job submit/allocate failed: Requested node configuration is not available"),
    ("slurm-node-config-unavailable", "srun: error: Unable to create step for job 4410: Requested node configuration is not available"),
    ("vllm-lora-adapter-rejected", "ValueError: Call to add_lora method failed: vLLM only supports modules_to_save being either None or [\"classifier\", \"score\"] for classification models. Unsupported modules_to_save: ['embed_tokens', 'lm_head']"),
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
    # the engine refusing --max-model-len at start-up is vllm-max-model-len-exceeds-config, not a prompt
    ("vllm-prompt-exceeds-max-model-len", "ValueError: User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json)."),
    # the tokenizer's warning about a long input fails nothing
    ("vllm-prompt-exceeds-max-model-len", "Token indices sequence length is longer than the specified maximum sequence length for this model (9214 > 8192). Running this sequence through the model will result in indexing errors"),
    # the KV cache too small for max_model_len at start-up
    ("vllm-prompt-exceeds-max-model-len", "ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.62 GiB). Based on the available memory, the estimated maximum model length is 21456. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
    # no triton at all is another failure (torch-compile-failure's), and so is another missing triton module
    ("torch-triton-version-mismatch", "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too old. More information on installing Triton can be found at https://github.com/openai/triton"),
    ("torch-triton-version-mismatch", "ModuleNotFoundError: No module named 'triton'"),
    # a name missing from another package than Triton's compiler
    ("torch-triton-version-mismatch", "ImportError: cannot import name 'soft_unicode' from 'markupsafe' (/usr/local/lib/python3.10/dist-packages/markupsafe/__init__.py)"),
    # another utility call of the engine core failing, and a LoRA that is simply not found
    ("vllm-lora-adapter-rejected", "ValueError: Call to add_lora method failed: Loading lora support failed: No adapter found for /adapters/support-r64"),
    # PEFT's own refusal of an adapter's modules, not vLLM's check
    ("vllm-lora-adapter-rejected", "ValueError: Target modules {'q_proj', 'v_proj'} not found in the base model. Please check the target modules and try again."),
    # other submission refusals: a partition's limits, an unknown GRES, a busy queue
    ("slurm-node-config-unavailable", "sbatch: error: Batch job submission failed: Requested partition configuration not available now"),
    ("slurm-node-config-unavailable", "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification"),
    ("slurm-node-config-unavailable", "srun: job 5512093 queued and waiting for resources"),
]
