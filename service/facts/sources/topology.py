"""How the run was launched: the launcher, world size, nodes, ranks per node, and the parallelism in use."""

from __future__ import annotations

import re

from service.facts.sources.base import FactRule, const, rule

RULES: tuple[FactRule, ...] = (
    # --- launcher: the one that started the ranks wins (torchrun under srun is torchrun) ---
    # "accelerate launch --multi_gpu ...", "accelerate/commands/launch.py"
    rule("cmd.accelerate", "launcher", r"\baccelerate launch\b|accelerate/commands/launch\.py", const("accelerate"), keep="best"),
    # "mpirun -np 16 ...", "mpiexec", Open MPI's "[1,3]<stderr>:" tags, "PRTE"
    rule("cmd.mpirun", "launcher", r"^(?:\$ |\+ )?(?:\w+=\S* )*(?:mpirun|mpiexec)\b|^\[\d+,\d+\]<std(?:out|err)>:|\bPRTE\b", const("mpirun"), keep="best"),
    # "deepspeed --num_gpus 8 train.py", "[INFO] [runner.py:568:main] cmd = ... deepspeed.launcher.launch", "[launch.py:151:main]"
    rule("cmd.deepspeed", "launcher", r"^(?:\$ |\+ )?(?:\w+=\S* )*deepspeed\s|deepspeed\.launcher\.launch|\[launch\.py:\d+:main\]|\[runner\.py:\d+:main\]",
         const("deepspeed"), keep="best"),
    # Ray Train: "RayTrainWorker", "ray.train", "(TorchTrainer pid=..."
    rule("cmd.ray", "launcher", r"\bray\.train\b|RayTrainWorker|\(TorchTrainer pid=|ray\.exceptions", const("ray"), keep="best"),
    # "torchrun --nproc_per_node=8 ...", "python -m torch.distributed.run", the agent's "torch.distributed.elastic" logs,
    # torchrun's "[default3]:" prefixes, the ChildFailedError summary
    rule("cmd.torchrun", "launcher", r"\btorchrun\b|torch\.distributed\.(?:run|launch)\b|torch/distributed/(?:elastic|run\.py)|^\[default\d+\]:",
         const("torchrun"), keep="best"),
    # "srun python train.py" (Slurm started the ranks itself); "slurmstepd: error: *** STEP ..."; "srun: error: ..."
    rule("cmd.srun", "launcher", r"^(?:\$ |\+ )?(?:\w+=\S* )*srun\b|\bslurmstepd\b|^srun: ", const("srun"), keep="best"),
    # a plain script: "$ python train.py", "+ python3 -u finetune.py", "==> python -m infer.run", "C:\\proj>python train.py",
    # "exec python3 -m vllm.entrypoints.openai.api_server", "pid=1 python /app/train.py" (not collect_env, pip or -c one-liners)
    rule("cmd.python", "launcher",
         r"(?:^|[\s>$#=])(?:exec )?(?:\S*/)?python[\d.]*(?: -u)? (?!-m (?:torch\.utils\.collect_env|pip)\b|-c )(?:-m [\w.]+|\S+\.py)\b",
         const("python"), keep="best"),
    # vLLM's CLI: "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 2"
    rule("cmd.vllm", "launcher", r"(?:^|[\s>$#])vllm serve\b", const("python"), keep="best"),
    # --- world size ---
    # DeepSpeed launcher "dist_world_size=16"; env "WORLD_SIZE=16"; torchrun's rendezvous "global_world_sizes=[8, 8, ...]"
    rule("ds.dist_world_size", "world_size", r"\bdist_world_size=(\d+)", keep="best"),
    rule("env.world_size", "world_size", r"\bWORLD_SIZE[=:]\s*(\d+)", keep="best"),
    rule("torchrun.global_world", "world_size", r"global_world_sizes=\[(\d+)", keep="best"),
    # accelerate: "Num processes: 4" (PartialState), "- num_processes: 4" (accelerate env), "--num_processes 4" / "--num_processes=4"
    rule("accelerate.num_processes", "world_size", r"(?:Num processes: |- num_processes: |--num_processes[= ])(\d+)", keep="best"),
    # DeepSpeed config print: "  world_size ................... 16"; logs "world_size=8", "world size: 8", "'world_size': 8"
    rule("ds_print.world_size", "world_size", r"\bworld_size \.+ (\d+)", keep="best"),
    rule("kv.world_size", "world_size", r"\bworld[_ ]size[\"']?\s*[=:]?\s*(\d+)\b", keep="best", flags=re.I),
    # Lightning "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4"; custom "distributed init (rank 0, world 4, local 0)";
    # fairseq "'distributed_world_size': 2"; accelerate YAML "num_processes: 4"
    rule("lightning.member", "world_size", r"MEMBER: \d+/(\d+)", keep="best"),
    rule("init.world", "world_size", r"\(rank \d+, world (\d+)\b|'distributed_world_size': (\d+)|^\s*num_processes: (\d+)\s*$", keep="best"),
    # mpirun "-np 16" / "-n 16"
    rule("mpirun.np", "world_size", r"\bmpirun\b.*?\s-(?:np|n) (\d+)", keep="best"),
    # NCCL "NCCL INFO comm 0x... rank 3 nranks 16 cudaDev 3 ..." (the first communicator is the world)
    rule("nccl.nranks", "world_size", r"NCCL INFO .*\bnranks (\d+)", keep="best"),
    # Slurm's task count: "SLURM_NTASKS=16", "srun --ntasks=8", "ntasks=16"; the world size when srun starts the ranks itself
    rule("slurm.ntasks", "slurm_ntasks", r"\bSLURM_NTASKS=(\d+)|--ntasks[= ](\d+)|\bntasks=(\d+)", keep="best"),
    rule("slurm.per_node", "slurm_ntasks_per_node", r"--ntasks-per-node[= ](\d+)|\bSLURM_NTASKS_PER_NODE=(\d+)", keep="best"),
    # --- nodes ---
    # torchrun "--nnodes=2" / "--nnodes 2:2"; agent "min_nodes        : 2"; rendezvous "group_world_size=2"; DeepSpeed "nnodes=2";
    # Slurm "SLURM_NNODES=2", "SLURM_JOB_NUM_NODES=2", "#SBATCH --nodes=2", "srun -N 2"; accelerate "--num_machines 2", "- num_machines: 2"
    rule("torchrun.nnodes", "num_nodes", r"--nnodes[= ](\d+)", keep="best"),
    rule("kv.nnodes", "num_nodes", r"\b(?:nnodes|SLURM_NNODES|SLURM_JOB_NUM_NODES|num_nodes|min_nodes|group_world_size)\s*[=:]\s*['\"]?(\d+)", keep="best", flags=re.I),
    rule("slurm.nodes", "num_nodes", r"(?:#SBATCH\s+)?(?:--nodes[= ]|\bsrun\b.*?\s-N\s?)(\d+)", keep="best"),
    rule("accelerate.machines", "num_nodes", r"(?:--num_machines[= ]|- num_machines: )(\d+)", keep="best"),
    # --- ranks per node ---
    # torchrun "--nproc_per_node=8" / "nproc_per_node   : 8"; DeepSpeed "num_local_procs=8", "--num_gpus 8"; "local_world_size=8"
    rule("torchrun.nproc", "nproc_per_node", r"--nproc[_-]per[_-]node[= ](\d+)|\bnproc_per_node\s*[:=]\s*(\d+)", keep="best"),
    rule("ds.local_procs", "nproc_per_node", r"\bnum_local_procs=(\d+)|--num_gpus[= ](\d+)|\blocal_world_size[=:]\s*(\d+)", keep="best"),
    # --- parallelism ---
    # Megatron / vLLM / NeMo: "tensor_model_parallel_size ....... 4", "tensor_parallel_size=4", "--tensor-parallel-size 4", "tp=4"
    rule("tp.size", "tensor_parallel_size", r"tensor[_-](?:model[_-])?parallel[_-]size[\"']?(?:\s*[=:]\s*|\s+\.+\s+|\s+)(\d+)", keep="best", flags=re.I),
    rule("pp.size", "pipeline_parallel_size", r"pipeline[_-](?:model[_-])?parallel[_-]size[\"']?(?:\s*[=:]\s*|\s+\.+\s+|\s+)(\d+)", keep="best", flags=re.I),
    # FSDP: accelerate "distributed_type: FSDP" / "Distributed environment: FSDP"; "FullyShardedDataParallel("; HF "fsdp=['full_shard']";
    # "sharding_strategy=ShardingStrategy.FULL_SHARD"
    rule("fsdp.strategy", "fsdp", r"ShardingStrategy\.(\w+)|fsdp_sharding_strategy:\s*(\w+)", keep="best"),
    rule("fsdp.enabled", "fsdp", r"distributed_type: FSDP|Distributed environment: FSDP|FullyShardedDataParallel\(|\bfsdp=\['?(?:full_shard|shard_grad_op|hybrid_shard)",
         const("yes"), keep="best"),
)
