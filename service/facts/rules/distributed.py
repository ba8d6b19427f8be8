"""Distributed: collectives that time out or disagree, NCCL errors, rendezvous, DDP and FSDP, the launcher's summary."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "nccl-watchdog",
        "nccl-watchdog-timeout",
        (
            # "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, NumelIn=1,
            #  NumelOut=1, Timeout(ms)=1800000) ran for 1800126 milliseconds before timing out."
            r"Watchdog caught collective operation timeout",
            r"ran for \d+ milliseconds before timing out",
            # "[Rank 3] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, ..."
            r"Some NCCL operations have failed or timed out",
            # torch >= 2.2: "[Rank 3] Timeout at NCCL work: 1021, last enqueued NCCL work: 1021, last completed NCCL work: 1020."
            r"Timeout at NCCL work: \d+",
            # torch >= 2.3: "[Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info."
            r"Heartbeat monitor timed out!",
            # gloo: "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms
            #  for recv operation to complete"
            r"Timed out waiting \d+ms for (?:recv|send) operation to complete",
            # monitored_barrier: "RuntimeError: Rank 1 failed to pass monitoredBarrier in 1800000 ms"
            r"failed to pass monitoredBarrier in \d+ ms",
        ),
        0.6,
        consequence=True,
        boosts=(
            # the default timeouts (10 or 30 minutes) that nobody tuned: "Timeout(ms)=600000" / "Timeout(ms)=1800000"
            Boost(0.05, "the collective ran into the default timeout", line=r"Timeout\(ms\)=(?:600000|1800000)\b"),
            Boost(-0.3, "ranks reported a collective mismatch", line=r"Detected mismatch between collectives"),
            Boost(-0.2, "an InfiniBand or socket transport error came first", line=r"NET/IB ?: Got completion|ncclRemoteError"),
        ),
    ),
    Rule(
        "collective-mismatch",
        "collective-mismatch",
        (
            # TORCH_DISTRIBUTED_DEBUG=DETAIL: "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running
            #  collective: CollectiveFingerPrint(SequenceNumber=23, OpType=ALLREDUCE, TensorShape=[1024], ...), but Rank 1 is
            #  running collective: CollectiveFingerPrint(SequenceNumber=23, OpType=BROADCAST, ...).
            #  Collectives differ in the following aspects: 	Op type: ALLREDUCEvs BROADCAST"
            r"Detected mismatch between collectives on ranks",
            r"Collectives differ in the following aspects",
            # gloo: "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= op.nbytes. 8192 vs 4096"
            r"op\.preamble\.length <= op\.nbytes",
            # "Received data size doesn't match expected size. Is there a distributed collective mismatch in your code?"
            r"Is there a distributed collective mismatch in your code",
        ),
        0.92,
    ),
    Rule(
        "collective-mismatch-flight-recorder",
        "collective-mismatch",
        # a Flight Recorder dump's collective, as ingest renders it: "[flight recorder] pg=0 (default_pg) seq=5
        #  op=gloo:barrier in=[] out=[] dtypes=[] state=scheduled frames=/workspace/job/job.py:71 main"; strong only when the
        #  dumps, lined up by sequence number, show ranks in another collective, or the same one with other sizes or dtypes
        (r"^\[flight recorder\] pg=\S+ .*\bseq=\d+ op=",),
        0.1,
        boosts=(Boost(0.7, "the Flight Recorder dumps show the ranks in different collectives (or sizes, dtypes) at one "
                           "sequence number", fact="fr_mismatch", value=r"."),),
    ),
    Rule(
        "collective-mismatch-barrier",
        "collective-mismatch",
        # monitored_barrier: "Rank 0 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 1."
        (r"successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank",),
        0.6,
    ),
    Rule(
        "collective-mismatch-lone-rank",
        "collective-mismatch",
        # a rank whose peers went away although none of them failed: it was left alone in a collective the others never
        # called. gloo "RuntimeError: [.../pair.cc:553] Connection closed by peer [127.0.0.1]:11696"; NCCL watchdog timeouts
        (r"Connection (?:closed|reset) by (?:remote )?peer", r"Watchdog caught collective operation timeout", r"Timed out waiting \d+ms for (?:recv|send)"),
        0.8,
        # torchrun's summary lists no other failed rank: the rest had exited cleanly ("Failures:\n  <NO_OTHER_FAILURES>");
        # as a consequence rule it steps aside when any rank shows an error of its own
        needs=(r"<NO_OTHER_FAILURES>",),
        unless=(r"exitcode\s*:\s*-(?:9|6|11|7)\b",),
        consequence=True,
    ),
    Rule(
        "collective-mismatch-watchdog",
        "collective-mismatch",
        # the ranks time out in different collectives: the watchdog lines name different OpType or SeqNum
        (r"Watchdog caught collective operation timeout",),
        0.2,
        boosts=(Boost(0.35, "the timed-out collectives differ between ranks (OpType or SeqNum)", fact="collectives_differ", value="yes"),),
    ),
    Rule(
        "nccl-system-error",
        "nccl-system-error",
        (
            # "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled
            #  system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1"; "ncclSystemError: System call (e.g.
            #  socket, malloc) or external library call failed or device error."
            r"unhandled system error|ncclSystemError",
            # NCCL_DEBUG=WARN: "NCCL WARN Error while creating shared memory segment /dev/shm/nccl-a1b2c3 (size 9637888)"
            r"Error while creating shared memory segment",
            # "NCCL WARN Call to posix_fallocate failed : No space left on device"; "failed to extend /dev/shm/nccl-..."
            r"posix_fallocate failed|failed to extend /dev/shm/nccl-",
            # InfiniBand in a container without memlock: "NCCL WARN Call to ibv_reg_mr failed"; "ibv_create_cq failed"
            r"NCCL WARN Call to ibv_\w+ failed",
        ),
        0.8,
        boosts=(
            Boost(-0.3, "the NCCL warning names a CUDA failure (see nccl-cuda-error)", line=r"NCCL WARN Cuda failure|unhandled cuda error"),
            Boost(-0.2, "a network transport error came first", line=r"NET/IB ?: Got completion|ncclRemoteError"),
            Boost(0.05, "the container's /dev/shm is small", line=r"shm-size|/dev/shm\s+\d+M\b|--ipc"),
        ),
    ),
    Rule(
        "nccl-cuda-error",
        "nccl-cuda-error",
        (
            # "torch.distributed.DistBackendError: NCCL error in: ..., unhandled cuda error (run with NCCL_DEBUG=INFO for
            #  details), NCCL version 2.19.3"; "ncclUnhandledCudaError: Call to CUDA function failed."
            r"unhandled cuda error|ncclUnhandledCudaError",
            # "NCCL WARN Cuda failure 'out of memory'"; "NCCL WARN Failed to CUDA calloc 2097152 bytes"
            r"NCCL WARN Cuda failure|Failed to CUDA calloc",
        ),
        0.8,
        boosts=(
            Boost(-0.35, "an illegal memory access or a device-side assert came first", line=r"device-side assert triggered|illegal memory access was encountered'?\s*$|CUDA error: an illegal memory access"),
        ),
    ),
    Rule(
        "nccl-invalid-usage",
        "nccl-invalid-usage",
        (
            # "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"
            r"Duplicate GPU detected",
            r"both on CUDA device",
            # "NCCL error in: ..., invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.1";
            # "ncclInvalidUsage: This usually reflects invalid usage of NCCL library."
            r"invalid usage \(run with NCCL_DEBUG|ncclInvalidUsage|invalid usage, NCCL version",
        ),
        0.9,
    ),
    Rule(
        "nccl-network",
        "nccl-network-error",
        (
            # "NCCL WARN NET/IB : Got completion from peer 10.0.0.12<46734> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
            r"NET/IB ?: Got completion (?:from peer|with error)",
            r"with error 12, opcode|vendor err 129",
            # "torch.distributed.DistBackendError: ... remote process exited or there was a network error, NCCL version 2.18.1";
            # "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
            r"remote process exited or there was a network error|ncclRemoteError",
            # socket transport: "NCCL WARN Net : Connection closed by remote peer 10.0.0.12<51310>";
            # "NCCL WARN socketProgress: Connection closed by remote peer"; "NET/Socket : socketProgressOpt: Connection reset by peer"
            r"NCCL WARN (?:Net|NET/Socket) ?: .*Connection (?:closed|reset)|socketProgress\w*: Connection (?:closed by remote peer|reset by peer)",
            # NCCL >= 2.19: "NCCL WARN NET/IB : mlx5_0:1 async fatal event: IBV_EVENT_PORT_ERR"
            r"IBV_EVENT_(?:PORT_ERR|DEVICE_FATAL|QP_FATAL)",
        ),
        0.75,
    ),
    Rule(
        "peer-connection-reset",
        "nccl-network-error",
        # gloo / c10d store when the other side went away: "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534]
        # Connection closed by peer [10.0.0.2]:41234"; "Connection reset by peer"
        (r"Connection (?:closed|reset) by (?:remote )?peer",),
        0.3,
        consequence=True,
    ),
    Rule(
        "rendezvous-timeout",
        "dist-rendezvous-timeout",
        (
            # "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"; "RendezvousConnectionError: The connection to
            #  the C10d store has failed."; "RendezvousClosedError"
            r"RendezvousTimeoutError|RendezvousConnectionError|The connection to the C10d store has failed",
            # "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined."
            r"seconds waiting for clients\. \d+/\d+ clients joined",
            # "The client socket has timed out after 900000ms while trying to connect to (10.0.0.1, 29500)."
            r"The client socket has timed out after \d+m?s while trying to connect to",
            # "The client socket has failed to connect to any network address of (node-0, 29500)."
            r"The client socket has failed to connect to any network address of",
            # torch < 2.0: "RuntimeError: connect() timed out. Original timeout was 1800000 ms."
            r"connect\(\) timed out\. Original timeout was",
            # "[W socket.cpp:601] [c10d] The client socket ... TCP client failed to connect/validate to host 10.0.0.1:29500"
            r"TCP client failed to connect/validate to host",
            # init_process_group's store-based barrier: torch 1.13 "RuntimeError: Timed out initializing process group in
            #  store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=16, worker_count=8, timeout=0:30:00)";
            #  torch 2.x "DistStoreError: ... on rank 3, for key: ... (world_size=16, num_workers_joined=8, timeout=... error=...)"
            r"Timed out initializing process group in store based barrier on rank:? \d+",
        ),
        0.88,
    ),
    Rule(
        "store-socket-timeout",
        "dist-rendezvous-timeout",
        # c10d store: "RuntimeError: Socket Timeout"; "DistStoreError: Timed out after 300 seconds waiting for ..."
        (r"\bSocket Timeout\b|DistStoreError: Timed out after \d+ seconds",),
        0.5,
        consequence=True,
    ),
    Rule(
        "address-in-use",
        "dist-address-in-use",
        (
            # "RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed
            #  to bind to [::]:29500 (errno: 98 - Address already in use)."
            r"The server socket has failed to (?:listen on any local network address|bind to)",
            # "errno: 98 - Address already in use"; "OSError: [Errno 98] Address already in use"; "EADDRINUSE"
            r"errno: 98 - Address already in use|\[Errno 98\] Address already in use|\bEADDRINUSE\b",
            # torch >= 2.4: "torch.distributed.DistNetworkError: ... port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE,
            #  message: address already in use"
            r"address already in use",
        ),
        0.9,
    ),
    Rule(
        "ddp-unused-params",
        "ddp-unused-parameters",
        (
            # "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error
            #  indicates that your module has parameters that were not used in producing loss."
            r"Expected to have finished reduction in the prior iteration before starting a new one",
            r"This error indicates that your module has parameters that were not used in producing loss",
            # TORCH_DISTRIBUTED_DEBUG: "Parameter indices which did not receive grad for rank 3: 197 198"; "Parameters which did
            #  not receive grad for rank 3: bert.pooler.dense.bias, bert.pooler.dense.weight"
            r"(?:Parameter indices|Parameters) which did not receive grad for rank \d+",
        ),
        0.95,
    ),
    Rule(
        "ddp-ready-twice",
        "ddp-marked-ready-twice",
        (
            # "RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons:
            #  1) Use of a module parameter outside the `forward` function. ... 2) Reused parameters in multiple reentrant
            #  backward passes."
            r"Expected to mark a variable ready only once",
            # TORCH_DISTRIBUTED_DEBUG: "Parameter at index 195 with name bert.encoder.layer.11.output.dense.weight has been marked
            #  as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter"
            r"has been marked as ready twice",
            r"hooks have fired for this particular parameter during this iteration",
        ),
        0.95,
    ),
    Rule(
        "fsdp-flatten",
        "fsdp-error",
        (
            # "ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"
            r"Must flatten tensors with uniform `requires_grad`",
            # "ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32"
            r"Must flatten tensors with uniform dtype but got",
            # "AssertionError: FSDP does not support changing the parameters between forward and backward for FULL_SHARD"
            r"FSDP does not support changing the parameters between forward and backward",
            # "RuntimeError: Cannot writeback when the parameter shape changes"
            r"Cannot writeback when the parameter shape changes",
            # "RuntimeError: Error(s) in loading state_dict for FullyShardedDataParallel:"
            r"Error\(s\) in loading state_dict for FullyShardedDataParallel",
            # "An FSDP-managed module unexpectedly has parameters on cpu. Make sure to move the module to cuda:0 before training."
            r"An FSDP-managed module unexpectedly has parameters",
        ),
        0.9,
    ),
    Rule(
        "fsdp-sharded-weight",
        "fsdp-error",
        (
            # a module used outside the FSDP forward sees its 1-D local shard: "RuntimeError: 'weight' must be 2-D"
            # (embedding, generate() on the unwrapped model); "setStorage: ... out of bounds for storage of size 0"
            r"'weight' must be 2-D|are out of bounds for storage of size 0",
        ),
        0.75,
        # FSDP is in use: "FullyShardedDataParallel(", accelerate "distributed_type: FSDP", "fsdp_config", "FSDP"
        needs=(r"FullyShardedDataParallel|\bFSDP\b|fsdp_",),
        boosts=(Boost(-0.4, "DeepSpeed ZeRO-3, not FSDP, partitions the model", fact="zero_stage", value="^3$"),),
    ),
    Rule(
        "fsdp-flat-param",
        "fsdp-error",
        # tracebacks and keys through the wrapper: "_fsdp_wrapped_module", "FlatParameter", "_flat_param"
        (r"_fsdp_wrapped_module|\bFlatParameter\b|\b_flat_param\b",),
        0.4,
        needs=(r"FullyShardedDataParallel|\bFSDP\b|fsdp_",),
        boosts=(
            Boost(0.3, "the error line itself names the FSDP flat parameter", line=r"(?:Error|error)[^\n]*(?:FlatParameter|_flat_param|_fsdp_wrapped_module)"),
            Boost(-0.3, "DeepSpeed ZeRO-3, not FSDP, partitions the model", fact="zero_stage", value="^3$"),
        ),
    ),
    Rule(
        "child-failed",
        "torchrun-child-failed",
        (
            # "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
            r"ChildFailedError",
            # the summary block: "Root Cause (first observed failure):"; "error_file: <N/A>";
            # "traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            r"Root Cause \(first observed failure\)",
            r"To enable traceback see: https://pytorch\.org/docs/stable/elastic/errors\.html",
            # "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 1234) of binary: ..."
            r"failed \(exitcode: -?\d+\) local_rank: \d+",
            # "FAILED with no error file. Decorate your entrypoint fn with @record for traceback info."; "Worker group FAILED."
            r"FAILED with no error file|Worker group FAILED",
        ),
        0.45,
        consequence=True,
        summary=True,
        boosts=(
            Boost(0.1, "the summary shows a plain exit code 1 and no error file", line=r"exitcode\s*:\s*1 \(pid"),
            Boost(-0.3, "a rank was killed by a signal (see the SIGKILL / SIGHUP entries)", line=r"exitcode\s*:\s*-(?:9|1)\b|Signal (?:9|1) \(SIG"),
        ),
    ),
)
