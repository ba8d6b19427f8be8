"""Hardware: a GPU lost from the bus, ECC errors, peer-to-peer access that the platform does not allow."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "gpu-fell-off-bus",
        "gpu-fell-off-bus",
        (
            # dmesg: "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, name=python, GPU has fallen off the bus."
            r"GPU has fallen off the bus|fallen off the bus",
            # the Xid alone: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..."
            r"NVRM: Xid \([^)]*\): 79\b",
            # nvidia-smi afterwards: "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error"; "GPU is lost"
            r"Unable to determine the device handle for GPU|\bGPU is lost\b",
        ),
        0.95,
    ),
    Rule(
        "gpu-ecc",
        "gpu-ecc-error",
        (
            # "RuntimeError: CUDA error: uncorrectable ECC error encountered"; "cudaErrorECCUncorrectable"
            r"uncorrectable ECC error encountered|cudaErrorECCUncorrectable|CUDA_ERROR_ECC_UNCORRECTABLE",
            # dmesg: "NVRM: Xid (PCI:0000:07:00): 48, pid=..., An uncorrectable double bit error (DBE) has been detected"
            # Xid 63/64 row remapping, 94 contained / 95 uncontained ECC errors
            r"NVRM: Xid \([^)]*\): (?:48|63|64|92|94|95)\b",
            # nvidia-smi -q: "Remapping Failure Occurred : Yes"; "Row Remapping Failure"; "double bit error (DBE)"
            r"Remapping Failure Occurred\s*:\s*Yes|Row Remapping Failure|double bit error \(DBE\)|Uncontained ECC error",
        ),
        0.9,
    ),
    Rule(
        "p2p-unsupported",
        "gpu-p2p-unsupported",
        (
            # "RuntimeError: CUDA error: peer access is not supported between these two devices";
            # NCCL "NCCL WARN Cuda failure 'peer access is not supported between these two devices'"
            r"peer access is not supported between these two devices|cudaErrorPeerAccessUnsupported",
            # "cudaErrorPeerAccessNotEnabled"; "peer mapping resources exhausted" (more than 8 peers)
            r"cudaErrorPeerAccessNotEnabled|peer mapping resources exhausted|cudaErrorTooManyPeers",
            # accelerate: "ValueError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB.
            #  Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch`"
            r"RTX 4000 series doesn't support faster communication broadband via P2P",
        ),
        0.9,
    ),
    Rule(
        "p2p-hang",
        "gpu-p2p-unsupported",
        (
            # a collective that never completes, on a box where NCCL chose P2P between GPUs:
            # "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, ...)"
            r"Watchdog caught collective operation timeout",
            # ... or that someone stopped by hand: "KeyboardInterrupt"; torchrun "Received 2 death signal, shutting down workers"
            r"^(?:\S+: )?KeyboardInterrupt\s*$|Received (?:2|Signals\.SIGINT) death signal",
        ),
        0.2,
        # "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC" / "via P2P/CUMEM" / "via P2P/direct pointer"
        needs=(r"via P2P/(?:IPC|CUMEM|direct pointer)",),
        boosts=(
            Boost(0.25, "consumer GPUs, which do not support P2P over PCIe", fact="gpu_model", value=r"GeForce|RTX \d{4}\b", not_with=r"RTX \d{4} Ada"),
            # nvidia-smi topo -m: "GPU0	 X 	PHB	0-47" (through the host bridge: VMs and ACS break P2P there)
            Boost(0.25, "the GPUs talk through the PCIe host bridge or the CPU interconnect (nvidia-smi topo: PHB/SYS)",
                  line=r"(?m)^GPU\d+\s+(?:X\s+)?(?:\S+\s+)*(?:PHB|SYS)\b"),
            Boost(0.2, "the timeout is at the very first collectives", line=r"WorkNCCL\(SeqNum=[0-3],"),
            Boost(0.15, "the platform reports ACS or IOMMU in the way", line=r"\bACS\b|IOMMU|iommu=on"),
        ),
    ),
)
