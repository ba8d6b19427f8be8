"""Rule table rows for service/facts/rules/torch_breadth.py (kb-torch: torch.distributed set-up, DeviceMesh and
torchtitan parallel degrees, Dynamo's recompile limit), joined into tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it). NEAR_MISSES: (rule id, lines it must not fire
on: a look-alike of another entry, or the same words in a harmless line).
"""

FIRES = [
    ("dist-default-pg-not-initialized", "ValueError: Default process group has not been initialized, please make sure to call init_process_group."),
    ("dist-default-pg-not-initialized", "[rank3]: ValueError: Default process group has not been initialized, please make sure to call init_process_group."),
    ("dist-init-twice", "[rank1]: ValueError: trying to initialize the default process group twice!"),
    ("dist-init-twice", "ValueError: trying to initialize the default process group twice!"),
    ("device-mesh-exceeds-world-size", "[rank0]: RuntimeError: Mesh should not be bigger than default world size 2, but found 4 ranks!"),
    ("device-mesh-exceeds-world-size", "[rank0]:AssertionError: Invalid parallel dims: dp_replicate(1) * dp_shard(4) * cp(1) * tp(4) * pp(1) != WORLD_SIZE(8)"),
    ("device-mesh-exceeds-world-size", "  AssertionError: Invalid parallel dims: dp_replicate(2) * dp_shard(8) * cp(1) * tp(8) * pp(1) != WORLD_SIZE(64)"),
    ("distributed-sampler-invalid-rank", "[rank2]: ValueError: Invalid rank 2, rank should be in the interval [0, 1]"),
    ("distributed-sampler-invalid-rank", "9: ValueError: Invalid rank 9, rank should be in the interval [0, 7]"),
    ("dcp-metadata-missing", "[rank0]: AssertionError: metadata is None; global metadata read failed: [Errno 2] No such file or directory: 'ckpt/step-3000/.metadata'; rank local metadata read failed: [Errno 2] No such file or directory: 'ckpt/step-3000/__0.metadata'"),
    ("dcp-metadata-missing", "Global metadata is not found. Falling back to rank local metadata."),
    ("dcp-metadata-missing", "[rank1]: FileNotFoundError: [Errno 2] No such file or directory: 'outputs/run7/.metadata'"),
    ("dynamo-recompile-limit", "W1202 13:46:59.796000 11598 torch/_dynamo/convert_frame.py:1994] [0/8] torch._dynamo hit config.recompile_limit (8)"),
    ("dynamo-recompile-limit", "W1015 10:22:33.412000 140211 torch/_dynamo/convert_frame.py:844] [2/8] torch._dynamo hit config.cache_size_limit (8)"),
    ("dynamo-recompile-limit", "W1202 09:00:01.000000 77 torch/_dynamo/convert_frame.py:1994] [0/256] torch._dynamo hit config.accumulated_recompile_limit (256)"),
    ("dynamo-recompile-limit", "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fullgraph=True"),
    ("dynamo-recompile-limit", "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fail_on_recompile_limit_hit"),
    ("dynamo-recompile-limit", "torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded"),
    ("dynamo-recompile-limit", "[rank2]: torch._dynamo.exc.CacheLimitExceeded: cache_size_limit reached"),
]

NEAR_MISSES = [
    # a launcher without RANK set is init_process_group running without its environment, not a missing init
    ("dist-default-pg-not-initialized", "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set"),
    # a sub-group used on a rank outside it is another mistake
    ("dist-default-pg-not-initialized", "RuntimeError: The given group does not exist"),
    # a leftover process holding MASTER_PORT is dist-address-in-use's
    ("dist-init-twice", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIPv6: false, code: -98, name: EADDRINUSE, message: address already in use"),
    # DeviceMesh's homogeneous-hardware check counts GPUs per host, not the mesh against the world
    ("device-mesh-exceeds-world-size", "RuntimeError: DeviceMesh only support homogeneous hardware, but found 12 ranks and 8 cuda devices!"),
    # Megatron-Core's parallel sizes have their own entry
    ("device-mesh-exceeds-world-size", "RuntimeError: world_size (4) is not divisible by tensor_model_parallel_size (8) x pipeline_model_parallel_size (1) x context_parallel_size (1)"),
    # a generic collective mismatch says "but found" too
    ("device-mesh-exceeds-world-size", "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(OpType=ALLREDUCE), but Rank 1 is running collective: CollectiveFingerPrint(OpType=BROADCAST)."),
    # an empty dataset is another sampler failure (evals/unknown: user-empty-dataset-sampler)
    ("distributed-sampler-invalid-rank", "ValueError: num_samples should be a positive integer value, but got num_samples=0"),
    # a missing data file is not a DCP checkpoint folder (evals/unknown: user-data-path-not-found)
    ("dcp-metadata-missing", "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.jsonl'"),
    # a package's metadata directory is not DCP's .metadata
    ("dcp-metadata-missing", "FileNotFoundError: [Errno 2] No such file or directory: '/opt/venv/lib/python3.11/site-packages/foo-1.0.dist-info/METADATA'"),
    # a graph break under fullgraph is dynamo-fullgraph-graph-break's
    ("dynamo-recompile-limit", "torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped"),
    # the recompile log of TORCH_LOGS=recompiles alone is not the limit
    ("dynamo-recompile-limit", "V1202 13:46:40.001000 11598 torch/_dynamo/guards.py:5389] [0/3] [__recompiles] Recompiling function forward in /home/wen/textcls/train_seq.py:17"),
]
