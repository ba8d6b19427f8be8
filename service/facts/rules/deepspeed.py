"""DeepSpeed: batch config, op builds, ZeRO-3 partitioned parameters, ZeRO checkpoints, reduction, the ssh launcher."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "ds-batch-config",
        "deepspeed-batch-config-mismatch",
        (
            # "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu *
            #  gradient_acc_step * world_size 64 != 4 * 8 * 4"
            r"train_batch_size is not equal to micro_batch_per_gpu \* gradient_acc_step \* world_size",
            # "AssertionError: Gradient accumulation steps: 0 has to be greater than 0"; "Micro batch size per gpu: 0 has to be greater than 0"
            r"(?:Gradient accumulation steps|Micro batch size per gpu): -?\d+ has to be greater than 0",
            # "AssertionError: Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided"
            r"Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided",
            # transformers: "ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments
            #  values:\n- ds train_batch_size=64 vs hf train_batch_size (calculated)=32"
            r"DeepSpeed config values that mismatch TrainingArguments values",
            r"vs hf train_batch_size \(calculated\)=",
        ),
        0.95,
    ),
    Rule(
        "ds-op-build",
        "deepspeed-op-build-failure",
        (
            # "RuntimeError: Error building extension 'fused_adam'" / 'cpu_adam' / 'transformer_inference'
            r"Error building extension '\w+'",
            # "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
            r"CUDA_HOME environment variable is not set",
            # DeepSpeed op builder: "MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)"
            r"CUDA_HOME does not exist, unable to compile CUDA op",
            # "RuntimeError: Ninja is required to load C++ extensions"; ds_report: "... op due to ninja not being installed"
            r"Ninja is required to load C\+\+ extensions|op due to ninja not being installed",
            # nvcc: "#error -- unsupported GNU version! gcc versions later than 12 are not supported!"
            r"unsupported GNU version! gcc versions later than \d+ are not supported",
            # nvcc too old for the arch list: "nvcc fatal   : Unsupported gpu architecture 'compute_90'"
            r"nvcc fatal\s*: Unsupported gpu architecture 'compute_\d+a?'",
            # a failed JIT build surfacing later: "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'"
            r"'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'",
            # "ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: cannot open shared object file"
            r"(?:cpu_adam|fused_adam|fused_lamb|transformer_inference|async_io|utils)\.so: cannot open shared object file",
        ),
        0.85,
        boosts=(
            # the build failed because nvcc and torch's CUDA differ (see the CUDA version mismatch entry)
            Boost(-0.25, "the build stopped on a CUDA version mismatch", line=r"mismatches the version that was used to compile|does not match the version torch was compiled with"),
        ),
    ),
    Rule(
        "ninja-build-stopped",
        "deepspeed-op-build-failure",
        # "ninja: build stopped: subcommand failed." (any JIT extension; DeepSpeed's ops are the usual one)
        (r"ninja: build stopped: subcommand failed",),
        0.55,
        boosts=(
            Boost(0.2, "DeepSpeed is building one of its ops", line=r"deepspeed/ops/|op_builder|Building extension module (?:fused_adam|cpu_adam)|ds_report"),
            Boost(-0.3, "torch.compile / Triton was compiling", line=r"torch/_inductor|triton"),
        ),
    ),
    Rule(
        "ds-zero3-empty-param",
        "deepspeed-zero3-shape-mismatch",
        (
            # load_state_dict under ZeRO-3: "size mismatch for lm_head.weight: copying a param with shape torch.Size([32000, 4096])
            #  from checkpoint, the shape in current model is torch.Size([0])."
            r"the shape in current model is torch\.Size\(\[0\]\)|copying a param with shape torch\.Size\(\[0\]\)",
            # direct use of a partitioned weight: "RuntimeError: 'weight' must be 2-D"; "RuntimeError: size mismatch, got input (4096),
            #  mat (4096x0), vec (0)"; "mat2 must be a matrix, got 1-D tensor"; "but got weight of shape [0]"
            r"'weight' must be 2-D",
            r", vec \(0\)",
            r"mat2 must be a matrix, got 1-D tensor",
            r"but got weight of shape \[0\]",
            # "RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at non-singleton dimension 1"
            r"The size of tensor a \(0\) must match the size of tensor b",
            # "RuntimeError: shape '[32000, 4096]' is invalid for input of size 0"
            r"is invalid for input of size 0\b",
        ),
        0.45,
        boosts=(
            Boost(0.4, "ZeRO stage 3 partitions parameters to shape [0] outside forward", fact="zero_stage", value="^3$"),
            Boost(0.05, "parameters were created under zero.Init", line=r"zero\.Init|zero3_init_flag|is_deepspeed_zero3_enabled"),
            Boost(-0.3, "FSDP, not DeepSpeed, wraps the model", line=r"FullyShardedDataParallel|_fsdp_wrapped_module|FSDP"),
        ),
    ),
    Rule(
        "ds-zero-topology",
        "deepspeed-zero-checkpoint-topology-change",
        (
            # "deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 8 but the
            #  current world size is 4. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not
            #  currently supported."
            r"The checkpoint being loaded used a DP world size of",
            r"Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently supported",
            # pipeline/tensor parallel reshaping: "AssertionError: Invalid checkpoints and world size for sd merge"
            r"Invalid checkpoints and world size for sd (?:merge|split)",
            # "ZeRO-3 does not yet support elastic checkpointing, please disable for now."
            r"ZeRO-3 does not yet support elastic checkpointing",
            # more ranks than shards: "FileNotFoundError: [Errno 2] No such file or directory:
            #  'ckpt/global_step500/zero_pp_rank_9_mp_rank_00_optim_states.pt'"
            r"No such file or directory: \S*zero_pp_rank_\d+_mp_rank_\d+_optim_states\.pt",
        ),
        0.92,
    ),
    Rule(
        "ds-universal-missing",
        "deepspeed-zero-checkpoint-topology-change",
        # load_universal_checkpoint without a converted checkpoint: "... latest_universal does not exist"
        (r"latest_universal does not exist",),
        0.7,
    ),
    Rule(
        "ds-grad-reduced-twice",
        "deepspeed-zero-gradient-computed-twice",
        (
            # stage_1_and_2.py: "AssertionError: The parameter 127 has already been reduced. Gradient computed twice for this
            #  partition. Multiple gradient reduction is currently not supported"
            r"has already been reduced\. Gradient computed twice for this partition",
            r"Gradient computed twice for this partition",
            r"Multiple gradient reduction is currently not supported",
            # the assert itself when the message is cut: "assert self.params_already_reduced[param_id] == False"
            r"params_already_reduced\[param_id\] == False",
        ),
        0.95,
    ),
    Rule(
        "ds-ssh-unreachable",
        "deepspeed-launcher-ssh-unreachable",
        (
            # pdsh: "pdsh@node-0: node-1: ssh exited with exit code 255"
            r"ssh exited with exit code 255",
            # DeepSpeed runner: "RuntimeError: Host node-1 was not reachable via ssh. If you are running with a single node
            #  please remove /job/hostfile or set --num_nodes=1"
            r"was not reachable via ssh",
            # "RuntimeError: Unable to detect suitable master address via `hostname -I`, please manually specify one via --master_addr"
            r"Unable to detect suitable master address via `hostname -I`",
            # ssh itself: "Host key verification failed."; "ssh: connect to host node-1 port 22: Connection refused";
            # "ssh: Could not resolve hostname node-1: Name or service not known"
            r"Host key verification failed|ssh: connect to host \S+ port \d+|ssh: Could not resolve hostname",
            # Open MPI: "ORTE was unable to reliably start one or more daemons."
            r"ORTE was unable to reliably start one or more daemons",
        ),
        0.9,
    ),
    Rule(
        "ds-ssh-publickey",
        "deepspeed-launcher-ssh-unreachable",
        # "node-1: Permission denied (publickey,password)."
        (r"Permission denied \(publickey",),
        0.8,
    ),
)
