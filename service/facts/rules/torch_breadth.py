"""PyTorch breadth entries (kb-torch): torch.distributed's default group used before or initialised after it
exists, DistributedSampler's rank check, DeviceMesh and torchtitan parallel degrees larger than the job, a DCP
folder without .metadata, Dynamo's recompile limit.

Every pattern quotes the line it was written for; the texts were read from the released wheels named in each
entry's ``affected.software`` (torch 2.5.1 and 2.13.0, torchtitan 0.1.0 and 0.3.0).
"""

from __future__ import annotations

from service.facts.rules.base import Rule

RULES: tuple[Rule, ...] = (
    # --- torch.distributed set-up ---
    Rule(
        "dist-default-pg-not-initialized",
        "dist-default-pg-not-initialized",
        (
            # distributed_c10d.py _get_default_group / _get_default_store: "ValueError: Default process group has not
            #  been initialized, please make sure to call init_process_group."
            r"Default process group has not been initialized",
        ),
        0.95,
    ),
    Rule(
        "dist-init-twice",
        "dist-init-twice",
        (
            # distributed_c10d.py init_process_group: "ValueError: trying to initialize the default process group twice!"
            r"trying to initialize the default process group twice",
        ),
        0.96,
    ),
    Rule(
        "distributed-sampler-invalid-rank",
        "distributed-sampler-invalid-rank",
        (
            # torch/utils/data/distributed.py DistributedSampler.__init__: "ValueError: Invalid rank 8, rank should be
            #  in the interval [0, 7]"
            r"Invalid rank \d+, rank should be in the interval \[0, \d+\]",
        ),
        0.95,
    ),
    # --- DeviceMesh and parallel degrees ---
    Rule(
        "device-mesh-exceeds-world-size",
        "device-mesh-exceeds-world-size",
        (
            # device_mesh.py (2.5.1 _get_or_create_default_group, 2.13.0 _setup_world_group_and_device):
            #  "RuntimeError: Mesh should not be bigger than default world size 2, but found 4 ranks!"
            r"Mesh should not be bigger than default world size \d+",
            # torchtitan parallel_dims.py _validate: "AssertionError: Invalid parallel dims: dp_replicate(1) *
            #  dp_shard(4) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(8)"
            r"Invalid parallel dims: dp_replicate\(\d+\) \* dp_shard\(-?\d+\) .*!= WORLD_SIZE\(\d+\)",
        ),
        0.95,
    ),
    # --- Distributed Checkpoint ---
    Rule(
        "dcp-metadata-missing",
        "dcp-metadata-missing",
        (
            # 2.13.0 state_dict_loader.py local_step: "AssertionError: metadata is None; global metadata read failed:
            #  [Errno 2] No such file or directory: 'ckpt/step-3000/.metadata'; rank local metadata read failed: ..."
            r"metadata is None; global metadata read failed: .*\.metadata",
            # 2.13.0, the warning before it: "Global metadata is not found. Falling back to rank local metadata."
            r"Global metadata is not found\. Falling back to rank local metadata",
            # 2.5.1 FileSystemReader.read_metadata: "FileNotFoundError: [Errno 2] No such file or directory:
            #  'outputs/run7/.metadata'" (inside "CheckpointException ranks:dict_keys([0, 1])")
            r"FileNotFoundError: \[Errno 2\] No such file or directory: '[^']*/\.metadata'",
        ),
        0.94,
    ),
    # --- torch.compile / Dynamo ---
    Rule(
        "dynamo-recompile-limit",
        "dynamo-recompile-limit",
        (
            # the warning before the stop, 2.13.0 and 2.5.1: "W1202 13:46:59.796000 11598
            #  torch/_dynamo/convert_frame.py:1994] [0/8] torch._dynamo hit config.recompile_limit (8)"
            #  (2.5.1: "torch._dynamo hit config.cache_size_limit (8)", also accumulated_*)
            r"torch\._dynamo hit config\.(?:accumulated_)?(?:recompile_limit|cache_size_limit) \(\d+\)",
            # 2.13.0: "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True"
            #  (or "... due to fail_on_recompile_limit_hit")
            r"FailOnRecompileLimitHit: Hard failure due to",
            # 2.13.0, the cause chained under it: "torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded"
            r"Unsupported: Dynamo recompile limit exceeded",
            # 2.5.1 under fullgraph: "torch._dynamo.exc.CacheLimitExceeded: cache_size_limit reached"
            r"CacheLimitExceeded: (?:accumulated_)?cache_size_limit reached",
        ),
        0.95,
    ),
)
