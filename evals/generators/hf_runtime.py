#!/usr/bin/env python3
"""Write the eval cases of the Hugging Face run-time entries (flash-attn, bitsandbytes models after loading,
tokenizers files): the entries of service/facts/rules/hf_runtime.py.

Each case is the failure as the named release prints it, its message and traceback frames read from the released
artifacts (flash-attn 2.5.8/2.8.3 sources, transformers 4.36.2-5.24.0 wheels, tokenizers 0.19.1/0.20.0 wheels),
set in the noise real runs print (launchers, rank prefixes, nvidia-smi, Trainer banners, pytest). One case keeps a
captured output: tokenizers 0.19.1 loading a BPE tokenizer.json saved by tokenizers 0.20.0 (both wheels run with
Python 3.11 on CPU); only its script path was rewritten to a user's.

Usage:  python evals/generators/hf_runtime.py [--out DIR] [--only SUBSTRING]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import random
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, RankExit, parser, torchrun_child_failed_summary, write_selected  # noqa: E402  (case writer, launcher summary)
from model import (  # noqa: E402  (the noise helpers)
    Clock,
    hf_train_banner,
    module_frames,
    nvidia_smi,
    pip_list,
    torchrun_header,
    traceback,
)

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def ranked(rank: int, lines: list[str]) -> list[str]:
    return [f"[rank{rank}]: {ln}" for ln in lines]


def C(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str], facts: dict[str, str],
      must_mention: list[str], initiating_rank: int | list[int] | None = None) -> Case:
    return Case(case_id, label, difficulty, description, initiating_rank=initiating_rank, facts=facts,
                must_mention=must_mention, files=files)


def torchrun_tail(site: str, script: str, root: RankExit, others: list[RankExit], agent_pid: int, stamp: str,
                  python_bin: str) -> list[str]:
    """torch 2.5's agent lines after its workers failed, and the ChildFailedError summary."""
    out = [f"E{stamp} {agent_pid} torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
           f"local_rank: {root.local_rank} (pid: {root.pid}) of binary: {python_bin}"]
    out += traceback([(f"{python_bin.rsplit('/', 1)[0]}/torchrun", 8, "<module>", "sys.exit(main())"),
                      (f"{site}/torch/distributed/elastic/multiprocessing/errors/__init__.py", 355, "wrapper",
                       "return f(*args, **kwargs)"),
                      (f"{site}/torch/distributed/run.py", 919, "main", "run(args)"),
                      (f"{site}/torch/distributed/run.py", 910, "run", "elastic_launch("),
                      (f"{site}/torch/distributed/launcher/api.py", 138, "__call__",
                       "return launch_agent(self._config, self._entrypoint, list(args))"),
                      (f"{site}/torch/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(")],
                     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += torchrun_child_failed_summary(script, root, others)
    return out


# --------------------------------------------------------------------------------------------------
# flash-attn-not-available

@case
def fa_missing_torchrun_sft() -> Case:
    """4 ranks, transformers 4.57.6 in a fresh image without flash-attn: every rank refuses at from_pretrained."""
    rng = random.Random(2101)
    site = "/opt/venv/lib/python3.11/site-packages"
    clock = Clock(datetime(2025, 10, 14, 8, 41, 5), rng)
    out = ["+ torchrun --nproc_per_node=4 sft.py --model meta-llama/Llama-3.1-8B --data /mnt/data/support_chats.jsonl "
           "--bf16 --max_len 4096 --attn flash_attention_2"]
    out += torchrun_header(clock, 5121, "2.5")
    out += pip_list([("accelerate", "1.10.1"), ("datasets", "4.0.0"), ("torch", "2.8.0+cu128"),
                     ("transformers", "4.57.6"), ("trl", "0.23.1")])
    for r in range(4):
        out.append(f"[rank{r}]: 2025-10-14 08:41:19 | INFO | sft | loading meta-llama/Llama-3.1-8B "
                   "(dtype=bfloat16, attn_implementation=flash_attention_2)")
    frames = [
        ("/workspace/sft.py", 88, "<module>", "main()"),
        ("/workspace/sft.py", 54, "main", "model = AutoModelForCausalLM.from_pretrained("),
        (f"{site}/transformers/models/auto/auto_factory.py", 604, "from_pretrained", "return model_class.from_pretrained("),
        (f"{site}/transformers/modeling_utils.py", 277, "_wrapper", "return func(*args, **kwargs)"),
        (f"{site}/transformers/modeling_utils.py", 4971, "from_pretrained", "model = cls(config, *model_args, **model_kwargs)"),
        (f"{site}/transformers/models/llama/modeling_llama.py", 419, "__init__", "super().__init__(config)"),
        (f"{site}/transformers/modeling_utils.py", 2076, "__init__",
         "self.config._attn_implementation_internal = self._check_and_adjust_attn_implementation("),
        (f"{site}/transformers/modeling_utils.py", 2714, "_check_and_adjust_attn_implementation",
         "self._flash_attn_2_can_dispatch(is_init_check)"),
        (f"{site}/transformers/modeling_utils.py", 2422, "_flash_attn_2_can_dispatch",
         'raise ImportError(f"{preface} the package flash_attn seems to be not installed. {install_message}")'),
    ]
    exc = ("ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the "
           "package flash_attn seems to be not installed. Please refer to the documentation of "
           "https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2.")
    for r in (1, 3, 0, 2):
        out += ranked(r, traceback(frames, exc))
    out.append(f"W1014 08:41:24.{rng.randint(100000, 999999)} 5121 torch/distributed/elastic/multiprocessing/api.py:897] "
               "Sending process 5140 closing signal SIGTERM")
    root = RankExit(1, 1, 5141, 1, "2025-10-14_08:41:24", "train-node-3")
    others = [RankExit(0, 0, 5140, 1, "2025-10-14_08:41:24", "train-node-3"),
              RankExit(2, 2, 5142, 1, "2025-10-14_08:41:24", "train-node-3"),
              RankExit(3, 3, 5143, 1, "2025-10-14_08:41:24", "train-node-3")]
    out += torchrun_tail(site, "sft.py", root, others, 5121, f"1014 08:41:24.{rng.randint(100000, 999999)}",
                         "/opt/venv/bin/python")
    return C("flash-attn-not-available-llama-sft-torchrun-01", "flash-attn-not-available", "easy",
             "4-rank torchrun SFT of Llama-3.1-8B with attn_implementation=flash_attention_2 in a new image where "
             "flash-attn was never installed (transformers 4.57.6): every rank raises at from_pretrained",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "4"},
             ["flash_attn", "sdpa"], initiating_rank=[0, 1, 2, 3])


@case
def fa_cpu_ci_pytest() -> Case:
    """A CPU CI runner with flash-attn in the requirements: transformers 4.57.6 says it is not available on CPU."""
    site = "/builds/nlp/ranker/.venv/lib/python3.11/site-packages"
    out = ["$ pip install -r requirements.txt -r requirements-dev.txt",
           "Successfully installed flash-attn-2.8.3 ...",
           "$ python -m pytest tests -q -x",
           "============================= test session starts ==============================",
           "platform linux -- Python 3.11.13, pytest-8.4.2, pluggy-1.6.0",
           "rootdir: /builds/nlp/ranker",
           "configfile: pyproject.toml",
           "collected 23 items",
           "",
           "tests/test_data.py ...........                                           [ 47%]",
           "tests/test_model.py F",
           "",
           "=================================== FAILURES ===================================",
           "_____________________________ test_forward_shapes ______________________________",
           "",
           "    def test_forward_shapes():",
           ">       model = build_reranker(TINY_CONFIG)",
           "",
           "tests/test_model.py:19: ",
           "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
           "src/ranker/model.py:33: in build_reranker",
           "    return AutoModelForSequenceClassification.from_config(cfg, attn_implementation=\"flash_attention_2\")",
           f"{site}/transformers/models/auto/auto_factory.py:456: in from_config",
           "    return model_class._from_config(config, **kwargs)",
           f"{site}/transformers/modeling_utils.py:277: in _wrapper",
           "    return func(*args, **kwargs)",
           f"{site}/transformers/modeling_utils.py:2311: in _from_config",
           "    model = cls(config, **kwargs)",
           f"{site}/transformers/modeling_utils.py:2076: in __init__",
           "    self.config._attn_implementation_internal = self._check_and_adjust_attn_implementation(",
           f"{site}/transformers/modeling_utils.py:2714: in _check_and_adjust_attn_implementation",
           "    self._flash_attn_2_can_dispatch(is_init_check)",
           "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
           "",
           "E       ValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: "
           "Flash Attention 2 is not available on CPU. Please make sure torch can access a CUDA device.",
           "",
           f"{site}/transformers/modeling_utils.py:2432: ValueError",
           "=========================== short test summary info ============================",
           "FAILED tests/test_model.py::test_forward_shapes - ValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: Flash Attention 2 is not available on CPU. Please make sure torch can access a CUDA device.",
           "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!",
           "1 failed, 11 passed in 9.87s",
           "ERROR: Job failed: exit code 1"]
    return C("flash-attn-not-available-cpu-ci-pytest-02", "flash-attn-not-available", "medium",
             "GitLab CI on a CPU runner: a unit test builds the reranker with attn_implementation=flash_attention_2; "
             "flash-attn is installed but torch sees no CUDA device (transformers 4.57.6)",
             {"ci.log": "\n".join(out)}, {"launcher": "python"}, ["sdpa"])


# --------------------------------------------------------------------------------------------------
# flash-attn-unsupported-gpu

def fa_forward_frames(site: str) -> list[tuple[str, int, str, str]]:
    """transformers 4.44.2 Mistral with flash_attention_2, torch 2.5, flash-attn 2.5.8, from the Trainer's forward."""
    tf = f"{site}/transformers"
    mods = module_frames(site, "2.5")
    return [
        (f"{tf}/trainer.py", 3363, "compute_loss", "outputs = model(**inputs)"), *mods,
        (f"{site}/accelerate/utils/operations.py", 820, "forward", "return model_forward(*args, **kwargs)"),
        (f"{site}/accelerate/utils/operations.py", 808, "__call__", "return convert_to_fp32(self.model_forward(*args, **kwargs))"),
        (f"{site}/torch/amp/autocast_mode.py", 44, "decorate_autocast", "return func(*args, **kwargs)"),
        (f"{site}/peft/peft_model.py", 1644, "forward", "return self.base_model("), *mods,
        (f"{site}/peft/tuners/tuners_utils.py", 197, "forward", "return self.model.forward(*args, **kwargs)"),
        (f"{tf}/models/mistral/modeling_mistral.py", 1033, "forward", "outputs = self.model("), *mods,
        (f"{tf}/models/mistral/modeling_mistral.py", 808, "forward", "layer_outputs = decoder_layer("), *mods,
        (f"{tf}/models/mistral/modeling_mistral.py", 549, "forward",
         "hidden_states, self_attn_weights, present_key_value = self.self_attn("), *mods,
        (f"{tf}/models/mistral/modeling_mistral.py", 382, "forward", "attn_output = _flash_attention_forward("),
        (f"{tf}/modeling_flash_attention_utils.py", 296, "_flash_attention_forward", "attn_output = flash_attn_func("),
        (f"{site}/flash_attn/flash_attn_interface.py", 831, "flash_attn_func", "return FlashAttnFunc.apply("),
        (f"{site}/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
        (f"{site}/flash_attn/flash_attn_interface.py", 511, "forward",
         "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_forward("),
        (f"{site}/flash_attn/flash_attn_interface.py", 51, "_flash_attn_forward",
         "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd("),
    ]


@case
def fa_t4_kaggle_accelerate() -> Case:
    """Two T4s (Kaggle), accelerate launch, QLoRA of Mistral-7B with flash_attention_2: both ranks at step 0."""
    rng = random.Random(2103)
    site = "/opt/conda/lib/python3.10/site-packages"
    out = ["!accelerate launch --num_processes 2 --mixed_precision fp16 qlora_mistral.py --attn flash_attention_2"]
    out += nvidia_smi([("Tesla T4", "00000000:00:04.0", 15360), ("Tesla T4", "00000000:00:05.0", 15360)],
                      "560.35.03", "12.6", rng, when="Sat Mar  8 11:20:41 2025")
    out += ["The following values were not passed to `accelerate launch` and had defaults used instead:",
            "\t`--num_machines` was set to a value of `1`",
            "\t`--dynamo_backend` was set to a value of `'no'`",
            "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    for r in range(2):
        out.append(f"[rank{r}]: Loading checkpoint shards: 100%|██████████| 3/3 [01:04<00:00, 21.47s/it]")
    out += ["trainable params: 41,943,040 || all params: 7,283,675,136 || trainable%: 0.5759"]
    out += hf_train_banner(9846, 1, 2, 16, 4, 615, 41943040)
    out += ["  0%|          | 0/615 [00:00<?, ?it/s]"]
    tf = f"{site}/transformers"
    frames = [("/kaggle/working/qlora_mistral.py", 131, "<module>", "trainer.train()"),
              (f"{tf}/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{tf}/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
              (f"{tf}/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
              *fa_forward_frames(site)]
    exc = "RuntimeError: FlashAttention only supports Ampere GPUs or newer."
    out += ranked(0, traceback(frames, exc)) + ranked(1, traceback(frames, exc))
    out += ["  0%|          | 0/615 [00:04<?, ?it/s]",
            f"W0308 11:24:02.{rng.randint(100000, 999999)} 311 torch/distributed/elastic/multiprocessing/api.py:897] "
            "Sending process 344 closing signal SIGTERM",
            f"E0308 11:24:02.{rng.randint(100000, 999999)} 311 torch/distributed/elastic/multiprocessing/api.py:869] "
            "failed (exitcode: 1) local_rank: 0 (pid: 343) of binary: /opt/conda/bin/python3.10"]
    out += torchrun_child_failed_summary("qlora_mistral.py", RankExit(0, 0, 343, 1, "2025-03-08_11:24:02", "a3c01e5b7d21"),
                              [RankExit(1, 1, 344, 1, "2025-03-08_11:24:02", "a3c01e5b7d21")])
    return C("flash-attn-unsupported-gpu-t4-qlora-accelerate-01", "flash-attn-unsupported-gpu", "easy",
             "Kaggle 2x T4 QLoRA of Mistral-7B launched with accelerate and attn_implementation=flash_attention_2 "
             "(transformers 4.44.2, flash-attn 2.5.8): the model loads, then both ranks fail at the first forward",
             {"train.log": "\n".join(out)}, {"launcher": "accelerate", "world_size": "2", "gpu_model": "Tesla T4"},
             ["sdpa", "Ampere"], initiating_rank=[0, 1])


@case
def fa_rtx5090_old_pin() -> Case:
    """An RTX 5090 (12.0) with flash-attn 2.5.8 pinned by an old requirements file: the 'Ampere or newer' check."""
    rng = random.Random(2104)
    site = "/home/mika/venvs/dit/lib/python3.11/site-packages"
    out = ["(dit) mika@ws-5090:~/dit-video$ python train_dit.py --config configs/dit_xl_256.yaml"]
    out += nvidia_smi([("GeForce RTX 5090", "00000000:01:00.0", 32607)], "575.64.03", "12.9", rng,
                      when="Tue Jul 22 21:04:17 2025")
    out += ["[2025-07-22 21:04:31] torch 2.7.1+cu128 | flash_attn 2.5.8 | device NVIDIA GeForce RTX 5090 (sm_120)",
            "[2025-07-22 21:04:33] Building DiT-XL/2 (675.1M parameters), patch 2, 28 blocks, attention: flash",
            "[2025-07-22 21:04:40] Dataset: 1,281,167 latents from /data/imagenet256_latents",
            "[2025-07-22 21:04:41] Starting training for 400000 steps..."]
    mods = module_frames(site, "2.5")
    frames = [("/home/mika/dit-video/train_dit.py", 212, "<module>", "main(args)"),
              ("/home/mika/dit-video/train_dit.py", 171, "main", "loss = diffusion.training_losses(model, x, t, model_kwargs)"),
              ("/home/mika/dit-video/diffusion/gaussian.py", 88, "training_losses", "out = model(x_t, t, **model_kwargs)"),
              *mods,
              ("/home/mika/dit-video/models/dit.py", 244, "forward", "x = block(x, c)"), *mods,
              ("/home/mika/dit-video/models/dit.py", 119, "forward", "x = x + gate_msa.unsqueeze(1) * self.attn(modulate(self.norm1(x), shift_msa, scale_msa))"),
              *mods,
              ("/home/mika/dit-video/models/attention.py", 41, "forward", "x = flash_attn_func(q, k, v, dropout_p=self.drop if self.training else 0.0)"),
              (f"{site}/flash_attn/flash_attn_interface.py", 831, "flash_attn_func", "return FlashAttnFunc.apply("),
              (f"{site}/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
              (f"{site}/flash_attn/flash_attn_interface.py", 511, "forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_forward("),
              (f"{site}/flash_attn/flash_attn_interface.py", 51, "_flash_attn_forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(")]
    out += traceback(frames, "RuntimeError: FlashAttention only supports Ampere GPUs or newer.")
    return C("flash-attn-unsupported-gpu-rtx5090-old-flash-attn-02", "flash-attn-unsupported-gpu", "hard",
             "a DiT training script on a new RTX 5090 (compute capability 12.0) with flash-attn 2.5.8 from an old "
             "requirements file: that release accepts only 8.x and 9.0, so a GPU newer than Ampere is refused with the "
             "'Ampere GPUs or newer' message", {"train.log": "\n".join(out)},
             {"launcher": "python", "gpu_model": "NVIDIA GeForce RTX 5090"}, ["flash-attn", "upgrade"])


# --------------------------------------------------------------------------------------------------
# bnb-quantized-model-move

@case
def bnb_8bit_to_cuda_inference() -> Case:
    """transformers 4.57.6, an 8-bit model and the script's habitual model.to('cuda')."""
    site = "/usr/local/lib/python3.12/dist-packages"
    out = ["$ python serve_eval.py --model Qwen/Qwen2.5-14B-Instruct --load-8bit --prompts eval/prompts.jsonl",
           "2025-11-03 16:12:40,118 INFO serve_eval: transformers 4.57.6, bitsandbytes 0.47.0, torch 2.8.0+cu128",
           "Loading checkpoint shards: 100%|██████████| 8/8 [00:41<00:00,  5.19s/it]",
           "2025-11-03 16:13:24,702 INFO serve_eval: model loaded, moving to cuda"]
    frames = [("/srv/eval/serve_eval.py", 97, "<module>", "main()"),
              ("/srv/eval/serve_eval.py", 58, "main", "model = model.to(args.device)"),
              (f"{site}/transformers/modeling_utils.py", 4328, "to", "raise ValueError(")]
    out += traceback(frames, "ValueError: `.to` is not supported for `8-bit` bitsandbytes models. Please use the model "
                     "as it is, since the model has already been set to the correct devices and casted to the correct `dtype`.")
    return C("bnb-quantized-model-move-8bit-to-cuda-eval-01", "bnb-quantized-model-move", "easy",
             "an evaluation script loads Qwen2.5-14B in 8-bit and then calls model.to('cuda') as it does for full "
             "models (transformers 4.57.6, bitsandbytes 0.47.0)", {"eval.log": "\n".join(out)},
             {"launcher": "python"}, ["device_map", ".to"])


@case
def bnb_4bit_cast_torchrun() -> Case:
    """2-rank torchrun QLoRA, transformers 4.46.3: the script casts the 4-bit model to bfloat16 after loading."""
    rng = random.Random(2106)
    site = "/opt/conda/lib/python3.11/site-packages"
    clock = Clock(datetime(2025, 1, 20, 10, 2, 44), rng)
    out = ["torchrun --nproc_per_node 2 qlora.py --base google/gemma-2-9b --bits 4 --bf16 --lora_r 16"]
    out += torchrun_header(clock, 902, "2.5")
    for r in range(2):
        out.append(f"[rank{r}]: `low_cpu_mem_usage` was None, now default to True since model is quantized.")
    out += ["[rank0]: Loading checkpoint shards: 100%|██████████| 4/4 [00:37<00:00,  9.31s/it]",
            "[rank1]: Loading checkpoint shards: 100%|██████████| 4/4 [00:38<00:00,  9.52s/it]"]
    frames = [("/home/ml/qlora/qlora.py", 240, "<module>", "main()"),
              ("/home/ml/qlora/qlora.py", 118, "main", "model = model.to(torch.bfloat16)"),
              (f"{site}/transformers/modeling_utils.py", 3136, "to", "raise ValueError(")]
    exc = ("ValueError: You cannot cast a bitsandbytes model in a new `dtype`. Make sure to load the model using "
           "`from_pretrained` using the desired `dtype` by passing the correct `torch_dtype` argument.")
    out += ranked(0, traceback(frames, exc)) + ranked(1, traceback(frames, exc))
    root = RankExit(0, 0, 921, 1, "2025-01-20_10:03:31", "dgx-a100-02")
    out += torchrun_tail(site, "qlora.py", root, [RankExit(1, 1, 922, 1, "2025-01-20_10:03:31", "dgx-a100-02")], 902,
                         f"0120 10:03:31.{rng.randint(100000, 999999)}", "/opt/conda/bin/python")
    return C("bnb-quantized-model-move-4bit-cast-bf16-torchrun-02", "bnb-quantized-model-move", "medium",
             "2-rank torchrun QLoRA of Gemma-2-9B: the script casts the loaded 4-bit model with .to(torch.bfloat16), "
             "which transformers 4.46.3 refuses on every rank", {"torchrun.log": "\n".join(out)},
             {"launcher": "torchrun", "world_size": "2"}, ["torch_dtype", "bnb_4bit_compute_dtype"],
             initiating_rank=[0, 1])


@case
def bnb_cuda_colab_436() -> Case:
    """A Colab notebook on transformers 4.36.2: model.cuda() on a 4-bit model (refused for 4- and 8-bit alike then)."""
    site = "/usr/local/lib/python3.10/dist-packages"
    out = ["!pip install -q transformers==4.36.2 bitsandbytes==0.41.3 accelerate==0.25.0",
           "Loading checkpoint shards: 100%|██████████| 2/2 [00:58<00:00, 29.03s/it]",
           "---------------------------------------------------------------------------",
           "ValueError                                Traceback (most recent call last)",
           "<ipython-input-7-1c2f0e4ab9d3> in <cell line: 3>()",
           "      1 model = AutoModelForCausalLM.from_pretrained(MODEL, load_in_4bit=True, device_map=\"auto\")",
           "      2 tok = AutoTokenizer.from_pretrained(MODEL)",
           "----> 3 model = model.cuda()",
           "      4 out = model.generate(**tok(prompt, return_tensors=\"pt\").to(\"cuda\"), max_new_tokens=200)",
           "",
           f"{site}/transformers/modeling_utils.py in cuda(self, *args, **kwargs)",
           "   2425         # Checks if the model has been loaded in 8-bit",
           "   2426         if getattr(self, \"quantization_method\", None) == QuantizationMethod.BITS_AND_BYTES:",
           "-> 2427             raise ValueError(",
           "   2428                 \"Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use the model as it is, since the\"",
           "   2429                 \" model has already been set to the correct devices and casted to the correct `dtype`.\"",
           "",
           "ValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use the model "
           "as it is, since the model has already been set to the correct devices and casted to the correct `dtype`."]
    return C("bnb-quantized-model-move-colab-cuda-4bit-03", "bnb-quantized-model-move", "easy",
             "a Colab notebook (transformers 4.36.2) loads a 4-bit model with device_map='auto' and then calls "
             "model.cuda()", {"notebook.log": "\n".join(out)}, {"launcher": "python"}, ["device_map"])


# --------------------------------------------------------------------------------------------------
# tokenizers-json-too-new

# Captured: tokenizers 0.20.0 trained and saved a byte-level BPE tokenizer; tokenizers 0.19.1 (Python 3.11.7, CPU)
# then ran `Tokenizer.from_file(path)` on it. The output below is what 0.19.1 printed; the script path is a user's.
CAPTURED_TOKENIZERS_019 = """\
loading with tokenizers 0.19.1
Traceback (most recent call last):
  File "/home/dana/prep/check_tokenizer.py", line 14, in <module>
    Tokenizer.from_file(path)
Exception: data did not match any variant of untagged enum ModelWrapper at line 336 column 3"""


@case
def tok_captured_019() -> Case:
    out = ["$ pip list 2>/dev/null | grep -i -E '^(tokenizers|transformers) '",
           "tokenizers                0.19.1",
           "transformers              4.44.2",
           "$ ls -la artifacts/tokenizer/",
           "-rw-r--r-- 1 dana dana    7734 Sep 30 11:02 tokenizer.json",
           "-rw-r--r-- 1 dana dana     112 Sep 30 11:02 tokenizer_config.json",
           "$ python check_tokenizer.py load artifacts/tokenizer/tokenizer.json",
           CAPTURED_TOKENIZERS_019]
    return C("tokenizers-json-too-new-captured-0-19-01", "tokenizers-json-too-new", "medium",
             "captured: a BPE tokenizer saved by tokenizers 0.20.0 (merges as pairs) loaded with tokenizers 0.19.1, "
             "the release transformers 4.44.2 pins", {"prep.log": "\n".join(out)}, {"launcher": "python"},
             ["tokenizers"])


@case
def tok_eval_torchrun_444() -> Case:
    """8-rank torchrun evaluation on transformers 4.44.2 of a fine-tune saved by a newer stack."""
    rng = random.Random(2108)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock(datetime(2025, 4, 2, 19, 30, 11), rng)
    out = ["+ torchrun --nproc_per_node 8 eval_lm.py --ckpt /checkpoints/llama3-8b-sft-v7/final --tasks mmlu,gsm8k "
           "--batch_size 16"]
    out += torchrun_header(clock, 40112, "2.4")
    out += [f"[rank{r}]: 04/02/2025 19:30:2{r} - INFO - eval_lm - rank {r}: loading tokenizer from "
            "/checkpoints/llama3-8b-sft-v7/final" for r in range(8)]
    tf = f"{site}/transformers"
    frames = [("/opt/eval/eval_lm.py", 212, "<module>", "main()"),
              ("/opt/eval/eval_lm.py", 73, "main", "tokenizer = AutoTokenizer.from_pretrained(args.ckpt)"),
              (f"{tf}/models/auto/tokenization_auto.py", 916, "from_pretrained",
               "return tokenizer_class_fast.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)"),
              (f"{tf}/tokenization_utils_base.py", 2271, "from_pretrained", "return cls._from_pretrained("),
              (f"{tf}/tokenization_utils_base.py", 2505, "_from_pretrained", "tokenizer = cls(*init_inputs, **init_kwargs)"),
              (f"{tf}/tokenization_utils_fast.py", 115, "__init__", "fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)")]
    exc = "Exception: data did not match any variant of untagged enum ModelWrapper at line 1251003 column 3"
    for r in (4, 0, 6, 1, 2, 7, 3, 5):
        out += ranked(r, traceback(frames, exc))
    root = RankExit(4, 4, 40135, 1, "2025-04-02_19:30:41", "eval-h100-1")
    others = [RankExit(r, r, 40131 + r, 1, "2025-04-02_19:30:41", "eval-h100-1") for r in range(8) if r != 4]
    out += torchrun_tail(site, "eval_lm.py", root, others, 40112, f"0402 19:30:41.{rng.randint(100000, 999999)}",
                         "/usr/bin/python")
    return C("tokenizers-json-too-new-eval-torchrun-8gpu-02", "tokenizers-json-too-new", "medium",
             "8-rank torchrun evaluation image on transformers 4.44.2 (tokenizers < 0.20) loading the tokenizer of a "
             "Llama-3 fine-tune saved by the newer training image: every rank fails in TokenizerFast.from_file",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "8"},
             ["tokenizers", "transformers"], initiating_rank=list(range(8)))


# --------------------------------------------------------------------------------------------------
# flash-attn-fp32-inputs

@case
def fa_fp32_trainer_no_dtype() -> Case:
    """transformers 4.44.2 on an A100: the model loaded without torch_dtype (float32) and the Trainer without bf16."""
    rng = random.Random(2110)
    site = "/opt/conda/lib/python3.10/site-packages"
    tf = f"{site}/transformers"
    mods = module_frames(site, "2.5")
    out = ["python finetune.py --model mistralai/Mistral-7B-v0.3 --attn flash_attention_2 --epochs 1 --lr 1e-5"]
    out += nvidia_smi([("A100-SXM4-80GB", "00000000:07:00.0", 81920)], "550.90.07", "12.4", rng,
                      when="Wed Feb 12 15:30:02 2025")
    out += ["You are attempting to use Flash Attention 2.0 without specifying a torch dtype. This might lead to "
            "unexpected behaviour",
            "Loading checkpoint shards: 100%|██████████| 3/3 [00:09<00:00,  3.12s/it]"]
    out += hf_train_banner(52000, 1, 4, 4, 1, 13000, 7248023552)
    out += ["  0%|          | 0/13000 [00:00<?, ?it/s]"]
    frames = [("/home/ubuntu/ft/finetune.py", 96, "<module>", "trainer.train()"),
              (f"{tf}/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{tf}/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
              (f"{tf}/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
              (f"{tf}/trainer.py", 3363, "compute_loss", "outputs = model(**inputs)"), *mods,
              (f"{tf}/models/mistral/modeling_mistral.py", 1033, "forward", "outputs = self.model("), *mods,
              (f"{tf}/models/mistral/modeling_mistral.py", 808, "forward", "layer_outputs = decoder_layer("), *mods,
              (f"{tf}/models/mistral/modeling_mistral.py", 549, "forward",
               "hidden_states, self_attn_weights, present_key_value = self.self_attn("), *mods,
              (f"{tf}/models/mistral/modeling_mistral.py", 382, "forward", "attn_output = _flash_attention_forward("),
              (f"{tf}/modeling_flash_attention_utils.py", 296, "_flash_attention_forward", "attn_output = flash_attn_func("),
              (f"{site}/flash_attn/flash_attn_interface.py", 831, "flash_attn_func", "return FlashAttnFunc.apply("),
              (f"{site}/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
              (f"{site}/flash_attn/flash_attn_interface.py", 511, "forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_forward("),
              (f"{site}/flash_attn/flash_attn_interface.py", 51, "_flash_attn_forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(")]
    out += traceback(frames, "RuntimeError: FlashAttention only support fp16 and bf16 data type")
    out += ["  0%|          | 0/13000 [00:02<?, ?it/s]"]
    return C("flash-attn-fp32-inputs-mistral-trainer-no-dtype-01", "flash-attn-fp32-inputs", "easy",
             "Mistral-7B loaded with attn_implementation=flash_attention_2 but no torch_dtype (float32 in transformers "
             "4.44.2) and trained without bf16/fp16: the first forward hands float32 to flash-attn 2.5.8",
             {"train.log": "\n".join(out)}, {"launcher": "python", "gpu_model": "NVIDIA A100-SXM4-80GB"},
             ["torch_dtype", "bf16"])


@case
def fa_fp32_custom_vit_torchrun() -> Case:
    """8 ranks, a ViT codebase calling flash_attn_func itself; the eval pass runs outside autocast."""
    rng = random.Random(2111)
    site = "/usr/local/lib/python3.11/dist-packages"
    clock = Clock(datetime(2025, 6, 3, 2, 10, 40), rng)
    mods = module_frames(site, "2.5")
    out = ["torchrun --nnodes 1 --nproc_per_node 8 -m vitlab.train --cfg cfgs/vit_l16_in1k.yaml --amp bf16"]
    out += torchrun_header(clock, 77102, "2.5")
    for step in (49800, 49900, 50000):
        out.append(f"[rank0]: [2025-06-03 05:41:{step % 60:02d}] train step {step}/300000 loss 2.8{step % 7} "
                   f"lr 9.61e-04 img/s 11452")
    out.append("[rank0]: [2025-06-03 05:41:58] step 50000: running validation (50000 images)")
    frames = [("/opt/vitlab/vitlab/train.py", 402, "<module>", "main(cfg)"),
              ("/opt/vitlab/vitlab/train.py", 377, "main", "acc1 = evaluate(model, val_loader, cfg)"),
              ("/usr/local/lib/python3.11/dist-packages/torch/utils/_contextlib.py", 116, "decorate_context",
               "return func(*args, **kwargs)"),
              ("/opt/vitlab/vitlab/engine.py", 58, "evaluate", "logits = model(images)"), *mods,
              (f"{site}/torch/nn/parallel/distributed.py", 1643, "forward", "else self._run_ddp_forward(*inputs, **kwargs)"),
              (f"{site}/torch/nn/parallel/distributed.py", 1459, "_run_ddp_forward", "return self.module(*inputs, **kwargs)  # type: ignore[index]"),
              *mods,
              ("/opt/vitlab/vitlab/models/vit.py", 212, "forward", "x = blk(x)"), *mods,
              ("/opt/vitlab/vitlab/models/vit.py", 131, "forward", "x = x + self.drop_path(self.attn(self.norm1(x)))"), *mods,
              ("/opt/vitlab/vitlab/models/vit.py", 88, "forward", "x = flash_attn_func(q, k, v, dropout_p=0.0)"),
              (f"{site}/flash_attn/flash_attn_interface.py", 831, "flash_attn_func", "return FlashAttnFunc.apply("),
              (f"{site}/torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]"),
              (f"{site}/flash_attn/flash_attn_interface.py", 511, "forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = _flash_attn_forward("),
              (f"{site}/flash_attn/flash_attn_interface.py", 51, "_flash_attn_forward",
               "out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(")]
    exc = "RuntimeError: FlashAttention only support fp16 and bf16 data type"
    for r in (3, 0, 5, 1, 6, 2, 7, 4):
        out += ranked(r, traceback(frames, exc))
    root = RankExit(3, 3, 77124, 1, "2025-06-03_05:42:03", "gpu-h100-12")
    others = [RankExit(r, r, 77121 + r, 1, "2025-06-03_05:42:03", "gpu-h100-12") for r in range(8) if r != 3]
    out += torchrun_tail(site, "vitlab.train", root, others, 77102, f"0603 05:42:03.{rng.randint(100000, 999999)}",
                         "/usr/bin/python")
    return C("flash-attn-fp32-inputs-vit-eval-no-autocast-torchrun-02", "flash-attn-fp32-inputs", "medium",
             "8-rank torchrun ViT training whose attention calls flash_attn_func directly: training runs under bf16 "
             "autocast, but the validation at step 50000 runs without it and every rank hands float32 to flash-attn",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "8"},
             ["autocast", "bf16"], initiating_rank=list(range(8)))


# --------------------------------------------------------------------------------------------------
# accelerate-device-map-distributed

@case
def accel_auto_map_torchrun_qlora() -> Case:
    """2 ranks, QLoRA with device_map='auto' copied from a notebook; transformers 4.44.2, accelerate 0.34.2."""
    rng = random.Random(2112)
    site = "/opt/conda/lib/python3.11/site-packages"
    clock = Clock(datetime(2024, 11, 5, 9, 12, 30), rng)
    out = ["torchrun --nproc_per_node 2 train_qlora.py --model meta-llama/Llama-2-13b-hf --bits 4 --device_map auto"]
    out += torchrun_header(clock, 3301, "2.4")
    out += ["[rank0]: Loading checkpoint shards: 100%|██████████| 3/3 [00:21<00:00,  7.02s/it]",
            "[rank1]: Loading checkpoint shards: 100%|██████████| 3/3 [00:22<00:00,  7.40s/it]",
            "[rank0]: trainable params: 62,586,880 || all params: 13,078,451,200 || trainable%: 0.4786",
            "[rank1]: trainable params: 62,586,880 || all params: 13,078,451,200 || trainable%: 0.4786"]
    tf = f"{site}/transformers"
    acc = f"{site}/accelerate/accelerator.py"
    frames = [("/home/ml/qlora/train_qlora.py", 177, "<module>", "trainer.train()"),
              (f"{tf}/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{tf}/trainer.py", 2095, "_inner_training_loop",
               "model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)"),
              (f"{acc}", 1326, "prepare", "result = tuple("),
              (f"{acc}", 1327, "<genexpr>", "self._prepare_one(obj, first_pass=True, device_placement=d) for obj, d in zip(args, device_placement)"),
              (f"{acc}", 1200, "_prepare_one", "return self.prepare_model(obj, device_placement=device_placement)"),
              (f"{acc}", 1384, "prepare_model", "raise ValueError(")]
    exc = ("ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. "
           "Please rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`.")
    out += ranked(1, traceback(frames, exc)) + ranked(0, traceback(frames, exc))
    root = RankExit(1, 1, 3322, 1, "2024-11-05_09:13:24", "ws-2x4090")
    out += torchrun_tail(site, "train_qlora.py", root, [RankExit(0, 0, 3321, 1, "2024-11-05_09:13:24", "ws-2x4090")],
                         3301, f"1105 09:13:24.{rng.randint(100000, 999999)}", "/opt/conda/bin/python")
    return C("accelerate-device-map-distributed-qlora-auto-torchrun-01", "accelerate-device-map-distributed", "easy",
             "a QLoRA notebook recipe with device_map='auto' run under torchrun on two GPUs: each rank spreads its copy "
             "over both GPUs and accelerate 0.34.2 refuses to prepare it at trainer.train()",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "2"},
             ["device_map", "LOCAL_RANK"], initiating_rank=[0, 1])


@case
def accel_current_device_too_early() -> Case:
    """accelerate launch, 4 processes, accelerate 1.15.0: device_map from torch.cuda.current_device() before Accelerator()."""
    site = "/opt/venv/lib/python3.12/site-packages"
    acc = f"{site}/accelerate/accelerator.py"
    out = ["$ accelerate launch --multi_gpu --num_processes 4 --mixed_precision bf16 dpo_8bit.py --config dpo.yaml",
           "[2025-09-18 13:40:02,911] [INFO] [real_accelerator.py:260:get_accelerator] Setting ds_accelerator to cuda (auto detect)"]
    for r in range(4):
        out.append(f"[rank{r}]: loading policy Qwen/Qwen2.5-7B-Instruct in 8-bit on device_map={{'': 0}}")
    out += ["[rank0]: Loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.05s/it]",
            "[rank2]: Loading checkpoint shards: 100%|██████████| 4/4 [00:12<00:00,  3.11s/it]",
            "[rank1]: Loading checkpoint shards: 100%|██████████| 4/4 [00:13<00:00,  3.27s/it]",
            "[rank3]: Loading checkpoint shards: 100%|██████████| 4/4 [00:13<00:00,  3.30s/it]"]
    frames = [("/work/rlhf/dpo_8bit.py", 141, "<module>", "main()"),
              ("/work/rlhf/dpo_8bit.py", 102, "main", "model, opt, loader = accelerator.prepare(model, opt, loader)"),
              (acc, 1559, "prepare", "self._prepare_one(obj, first_pass=True, device_placement=d) for obj, d in zip(args, device_placement)"),
              (acc, 1404, "_prepare_one", "return self.prepare_model(obj, device_placement=device_placement)"),
              (acc, 1867, "prepare_model", "raise ValueError(")]
    exc = ("ValueError: You can't train a model that has been loaded in 8-bit or 4-bit precision on a different device "
           "than the one you're training on. Make sure you loaded the model on the correct device using for example "
           "`device_map={'':torch.cuda.current_device()}` or `device_map={'':torch.xpu.current_device()}`")
    for r in (2, 1, 3):
        out += ranked(r, traceback(frames, exc))
    out += ["W0918 13:40:39.512000 1907 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 1931 closing signal SIGTERM",
            "E0918 13:40:39.880000 1907 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 1 (pid: 1932) of binary: /opt/venv/bin/python"]
    out += torchrun_child_failed_summary("dpo_8bit.py", RankExit(1, 1, 1932, 1, "2025-09-18_13:40:39", "node-a8"),
                              [RankExit(0, 0, 1931, -15, "2025-09-18_13:40:39", "node-a8"),
                               RankExit(2, 2, 1933, 1, "2025-09-18_13:40:39", "node-a8"),
                               RankExit(3, 3, 1934, 1, "2025-09-18_13:40:39", "node-a8")])
    return C("accelerate-device-map-distributed-8bit-current-device-hard-02", "accelerate-device-map-distributed", "hard",
             "a DPO script builds device_map={'': torch.cuda.current_device()} before creating the Accelerator, so every "
             "process loads its 8-bit copy on GPU 0; accelerate 1.15.0 refuses on ranks 1-3 and rank 0 is terminated",
             {"launch.log": "\n".join(out)}, {"launcher": "accelerate", "world_size": "4"},
             ["device_map", "process_index"], initiating_rank=[1, 2, 3])


# --------------------------------------------------------------------------------------------------
# transformers-accelerate-missing

@case
def accel_missing_trainer_torchrun() -> Case:
    """transformers 4.57.6 installed without its [torch] extra: TrainingArguments fails on both ranks."""
    rng = random.Random(2114)
    site = "/srv/envs/cls/lib/python3.11/site-packages"
    clock = Clock(datetime(2025, 10, 29, 17, 5, 12), rng)
    out = ["+ pip freeze | grep -E '^(torch|transformers|datasets|accelerate|evaluate)=='",
           "datasets==4.2.0", "evaluate==0.4.6", "torch==2.8.0", "transformers==4.57.6",
           "+ torchrun --nproc_per_node 2 train_cls.py --model answerdotai/ModernBERT-base --train data/train.csv --bf16"]
    out += torchrun_header(clock, 24410, "2.5")
    tf = f"{site}/transformers"
    frames = [("/srv/cls/train_cls.py", 140, "<module>", "main()"),
              ("/srv/cls/train_cls.py", 88, "main", "args = TrainingArguments("),
              ("<string>", 136, "__init__", ""),
              (f"{tf}/training_args.py", 1811, "__post_init__", "self.device"),
              (f"{tf}/training_args.py", 2355, "device", "return self._setup_devices"),
              ("/usr/lib/python3.11/functools.py", 1001, "__get__", "val = self.func(instance)"),
              (f"{tf}/training_args.py", 2225, "_setup_devices", "raise ImportError(")]
    exc = ("ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.26.0`: Please run `pip install "
           "transformers[torch]` or `pip install 'accelerate>=0.26.0'`")
    out += ranked(0, traceback(frames, exc)) + ranked(1, traceback(frames, exc))
    root = RankExit(0, 0, 24431, 1, "2025-10-29_17:05:19", "cpu-gpu-04")
    out += torchrun_tail(site, "train_cls.py", root, [RankExit(1, 1, 24432, 1, "2025-10-29_17:05:19", "cpu-gpu-04")],
                         24410, f"1029 17:05:19.{rng.randint(100000, 999999)}", "/srv/envs/cls/bin/python")
    return C("transformers-accelerate-missing-trainer-torchrun-01", "transformers-accelerate-missing", "easy",
             "a classifier fine-tune in an environment built from a requirements file without accelerate "
             "(transformers 4.57.6): TrainingArguments fails on both ranks before anything loads",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "2"},
             ["pip install", "accelerate"], initiating_rank=[0, 1])


@case
def accel_missing_bnb_4bit_notebook() -> Case:
    """A Jupyter kernel on transformers 4.57.6 loading a 4-bit model; accelerate was installed into another Python."""
    site = "/home/jo/.local/lib/python3.10/site-packages"
    tf = f"{site}/transformers"
    out = ["In [3]: !pip install -q accelerate bitsandbytes",
           "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.",
           "In [4]: model = AutoModelForCausalLM.from_pretrained(\"microsoft/Phi-3.5-mini-instruct\", quantization_config=bnb, device_map={\"\": 0})",
           "---------------------------------------------------------------------------",
           "ImportError                               Traceback (most recent call last)",
           "Cell In[4], line 1",
           "----> 1 model = AutoModelForCausalLM.from_pretrained(\"microsoft/Phi-3.5-mini-instruct\", quantization_config=bnb, device_map={\"\": 0})",
           "",
           f"File {tf}/models/auto/auto_factory.py:604, in _BaseAutoModelClass.from_pretrained(cls, pretrained_model_name_or_path, *model_args, **kwargs)",
           "    602     if model_class.config_class == config.sub_configs.get(\"text_config\", None):",
           "    603         config = config.get_text_config()",
           "--> 604     return model_class.from_pretrained(",
           "    605         pretrained_model_name_or_path, *model_args, config=config, **hub_kwargs, **kwargs",
           "    606     )",
           "",
           f"File {tf}/modeling_utils.py:277, in restore_default_dtype.<locals>._wrapper(*args, **kwargs)",
           "    275 old_dtype = torch.get_default_dtype()",
           "    276 try:",
           "--> 277     return func(*args, **kwargs)",
           "    278 finally:",
           "    279     torch.set_default_dtype(old_dtype)",
           "",
           f"File {tf}/modeling_utils.py:4881, in PreTrainedModel.from_pretrained(cls, pretrained_model_name_or_path, config, cache_dir, ignore_mismatched_sizes, force_download, local_files_only, token, revision, use_safetensors, weights_only, *model_args, **kwargs)",
           "   4879         )",
           "   4880 ",
           "-> 4881 hf_quantizer, config, dtype, device_map = get_hf_quantizer(",
           "   4882     config, quantization_config, dtype, from_tf, from_flax, device_map, weights_only, user_agent",
           "   4883 )",
           "",
           f"File {tf}/quantizers/auto.py:319, in get_hf_quantizer(config, quantization_config, dtype, from_tf, from_flax, device_map, weights_only, user_agent)",
           "    318 if hf_quantizer is not None:",
           "--> 319     hf_quantizer.validate_environment(",
           "    320         dtype=dtype,",
           "    321         from_tf=from_tf,",
           "    322         from_flax=from_flax,",
           "    323         device_map=device_map,",
           "    324         weights_only=weights_only,",
           "    325     )",
           "",
           f"File {tf}/quantizers/quantizer_bnb_4bit.py:82, in Bnb4BitHfQuantizer.validate_environment(self, *args, **kwargs)",
           "     80 def validate_environment(self, *args, **kwargs):",
           "     81     if not is_accelerate_available():",
           "---> 82         raise ImportError(",
           "     83             f\"Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>={ACCELERATE_MIN_VERSION}'`\"",
           "     84         )",
           "",
           "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'`"]
    return C("transformers-accelerate-missing-bnb-4bit-jupyter-02", "transformers-accelerate-missing", "medium",
             "a Jupyter kernel (transformers 4.57.6) loads a 4-bit model right after `!pip install accelerate`, which "
             "went into another Python than the kernel's", {"notebook.log": "\n".join(out)}, {"launcher": "python"},
             ["%pip", "accelerate"])


# --------------------------------------------------------------------------------------------------
# peft-adapter-config-newer

# Captured: a LoRA adapter of a tiny Llama saved by peft 0.21.2, then `PeftModel.from_pretrained(base, dir)` with
# peft 0.13.2 (accelerate 1.15.0, transformers 5.24.0, torch 2.13.0 CPU, Python 3.11.7). The output as printed; the
# writer below rewrites the capture's paths to a user's.
CAPTURED_PEFT_013 = """\
peft 0.13.2
Traceback (most recent call last):
  File "/work/scratch/kbhf2/peftcap.py", line 15, in <module>
    PeftModel.from_pretrained(base, d)
  File "/work/scratch/kbhf2/peft-0.13.2/peft/peft_model.py", line 483, in from_pretrained
    config = PEFT_TYPE_TO_CONFIG_MAPPING[
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/scratch/kbhf2/peft-0.13.2/peft/config.py", line 152, in from_pretrained
    return cls.from_peft_type(**kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/scratch/kbhf2/peft-0.13.2/peft/config.py", line 119, in from_peft_type
    return config_cls(**kwargs)
           ^^^^^^^^^^^^^^^^^^^^
TypeError: LoraConfig.__init__() got an unexpected keyword argument 'alora_invocation_tokens'"""


@case
def peft_captured_013_merge() -> Case:
    text = (CAPTURED_PEFT_013.replace("/work/scratch/kbhf2/peftcap.py", "/home/ana/merge/merge_adapter.py")
            .replace("/work/scratch/kbhf2/peft-0.13.2/peft", "/home/ana/.venvs/merge/lib/python3.11/site-packages/peft"))
    out = ["$ python merge_adapter.py --base ./base-llama --adapter ./adapters/support-bot-v3 --out ./merged",
           "merge_adapter: base ./base-llama (LlamaForCausalLM), adapter ./adapters/support-bot-v3", text]
    return C("peft-adapter-config-newer-captured-merge-01", "peft-adapter-config-newer", "medium",
             "captured: an adapter saved by peft 0.21.2 loaded with PeftModel.from_pretrained in a peft 0.13.2 "
             "environment; LoraConfig refuses the first key it does not know", {"merge.log": "\n".join(out)},
             {"launcher": "python"}, ["peft"])


@case
def peft_load_adapter_eval_torchrun() -> Case:
    """4-rank evaluation on transformers 4.46.3 + peft 0.10.0 of an adapter trained on a newer stack."""
    rng = random.Random(2116)
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock(datetime(2025, 8, 27, 11, 3, 9), rng)
    out = ["+ torchrun --nproc_per_node 4 eval_adapter.py --base Qwen/Qwen2.5-7B-Instruct --adapter hub://acme/qwen7b-sql-lora "
           "--suite spider-dev"]
    out += torchrun_header(clock, 6610, "2.4")
    out += [f"[rank{r}]: Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.33s/it]" for r in (0, 2, 1, 3)]
    frames = [("/opt/evals/eval_adapter.py", 119, "<module>", "main()"),
              ("/opt/evals/eval_adapter.py", 64, "main", "model.load_adapter(args.adapter_dir, adapter_name=\"sql\")"),
              (f"{site}/transformers/integrations/peft.py", 207, "load_adapter", "peft_config = PeftConfig.from_pretrained("),
              (f"{site}/peft/config.py", 151, "from_pretrained", "return cls.from_peft_type(**kwargs)"),
              (f"{site}/peft/config.py", 118, "from_peft_type", "return config_cls(**kwargs)")]
    exc = "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'alora_invocation_tokens'"
    for r in (1, 0, 3, 2):
        out += ranked(r, traceback(frames, exc))
    root = RankExit(1, 1, 6632, 1, "2025-08-27_11:03:31", "eval-l40s-2")
    others = [RankExit(r, r, 6631 + r, 1, "2025-08-27_11:03:31", "eval-l40s-2") for r in (0, 2, 3)]
    out += torchrun_tail(site, "eval_adapter.py", root, others, 6610, f"0827 11:03:31.{rng.randint(100000, 999999)}",
                         "/usr/bin/python")
    return C("peft-adapter-config-newer-load-adapter-torchrun-02", "peft-adapter-config-newer", "medium",
             "4-rank evaluation image on transformers 4.46.3 and peft 0.10.0 loads, with model.load_adapter, a LoRA "
             "adapter whose adapter_config.json peft 0.21.2 wrote (its first key, alora_invocation_tokens, is unknown to 0.10.0)",
             {"torchrun.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "4"},
             ["peft", "upgrade"], initiating_rank=[0, 1, 2, 3])


# --------------------------------------------------------------------------------------------------
# safetensors-non-contiguous-tensor

# Captured: safetensors 0.8.0 save_file on a dict holding a transposed weight (torch 2.13.0 CPU, Python 3.11.7); the
# writer below rewrites the capture's paths to a user's.
CAPTURED_SAFETENSORS_080 = """\
torch 2.13.0+cpu safetensors 0.8.0
Traceback (most recent call last):
  File "/work/scratch/kbhf2/stcap.py", line 6, in <module>
    save_file(state, "/tmp/kbhf2-st.safetensors")
  File "/work/wt/kb-hf2/.venv/lib/python3.11/site-packages/safetensors/torch.py", line 324, in save_file
    _flatten_as_ptr(tensors, keep_references_alive), filename, metadata=metadata
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/work/wt/kb-hf2/.venv/lib/python3.11/site-packages/safetensors/torch.py", line 576, in _flatten_as_ptr
    raise ValueError(
ValueError: You are trying to save a non contiguous tensor: `encoder.proj.weight` which is not allowed. It either means you are trying to save tensors which are reference of each other in which case it's recommended to save only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving."""


@case
def st_captured_convert() -> Case:
    text = (CAPTURED_SAFETENSORS_080.replace("/work/scratch/kbhf2/stcap.py", "/home/lee/convert/convert_ckpt.py")
            .replace("/work/wt/kb-hf2/.venv/lib/python3.11/site-packages", "/home/lee/.venv/lib/python3.11/site-packages"))
    out = ["$ python convert_ckpt.py --src ckpt/encoder_jax.npz --dst ckpt/encoder.safetensors",
           "convert_ckpt: 2 arrays read; kernels transposed from (in, out) to torch's (out, in)", text]
    return C("safetensors-non-contiguous-tensor-captured-convert-01", "safetensors-non-contiguous-tensor", "easy",
             "captured: a checkpoint converter transposes a kernel with .t() and saves it with safetensors 0.8.0 "
             "save_file, which refuses the non-contiguous view", {"convert.log": "\n".join(out)},
             {"launcher": "python"}, ["contiguous"])


@case
def st_trainer_checkpoint_torchrun() -> Case:
    """2 ranks, transformers 4.44.2: rank 0 fails at the first checkpoint save; rank 1 is terminated."""
    rng = random.Random(2118)
    site = "/opt/conda/lib/python3.10/site-packages"
    tf = f"{site}/transformers"
    clock = Clock(datetime(2024, 9, 9, 22, 14, 2), rng)
    out = ["torchrun --nproc_per_node 2 train_mt.py --init_from ported/marian-en-de --save_steps 2000 --max_steps 60000"]
    out += torchrun_header(clock, 1204, "2.4")
    out += ["[rank0]: ported weights: 412 tensors copied from the fairseq checkpoint (out_proj kernels transposed)"]
    out += hf_train_banner(4508785, 1, 32, 64, 1, 60000, 73886720)
    out += ["{'loss': 3.9121, 'grad_norm': 1.618, 'learning_rate': 4.98e-05, 'epoch': 0.01}",
            "{'loss': 2.4407, 'grad_norm': 0.912, 'learning_rate': 4.83e-05, 'epoch': 0.03}",
            "[rank0]: Saving model checkpoint to out/checkpoint-2000"]
    frames = [("/home/mt/train_mt.py", 188, "<module>", "trainer.train()"),
              (f"{tf}/trainer.py", 1938, "train", "return inner_training_loop("),
              (f"{tf}/trainer.py", 2356, "_inner_training_loop",
               "self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, ignore_keys_for_eval)"),
              (f"{tf}/trainer.py", 2807, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)"),
              (f"{tf}/trainer.py", 2886, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)"),
              (f"{tf}/trainer.py", 3454, "save_model", "self._save(output_dir)"),
              (f"{tf}/trainer.py", 3525, "_save", "self.model.save_pretrained("),
              (f"{tf}/modeling_utils.py", 2793, "save_pretrained",
               'safe_save_file(shard, os.path.join(save_directory, shard_file), metadata={"format": "pt"})'),
              (f"{site}/safetensors/torch.py", 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)"),
              (f"{site}/safetensors/torch.py", 500, "_flatten", '"data": _tobytes(v, k),'),
              (f"{site}/safetensors/torch.py", 414, "_tobytes", "raise ValueError(")]
    exc = ("ValueError: You are trying to save a non contiguous tensor: `model.encoder.layers.0.self_attn.out_proj.weight` "
           "which is not allowed. It either means you are trying to save tensors which are reference of each other in "
           "which case it's recommended to save only the full tensors, and reslice at load time, or simply call "
           "`.contiguous()` on your tensor to pack it before saving.")
    out += ranked(0, traceback(frames, exc))
    out.append(f"W0909 22:51:40.{rng.randint(100000, 999999)} 1204 torch/distributed/elastic/multiprocessing/api.py:858] "
               "Sending process 1226 closing signal SIGTERM")
    root = RankExit(0, 0, 1225, 1, "2024-09-09_22:51:40", "mt-node-1")
    out += torchrun_tail(site, "train_mt.py", root, [], 1204, f"0909 22:51:40.{rng.randint(100000, 999999)}",
                         "/opt/conda/bin/python")
    return C("safetensors-non-contiguous-tensor-trainer-checkpoint-torchrun-02", "safetensors-non-contiguous-tensor",
             "medium", "a translation model initialised from ported weights (out_proj kernels assigned transposed) "
             "trains for 2000 steps under torchrun; transformers 4.44.2 save_pretrained hands the view to safetensors "
             "at the first checkpoint and rank 0 fails", {"torchrun.log": "\n".join(out)},
             {"launcher": "torchrun", "world_size": "2"}, ["contiguous"], initiating_rank=0)


def main() -> None:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="only cases whose id contains this")
    args = ap.parse_args()
    n = write_selected(args.out, (fn() for fn in CASES), args.only)
    print(f"wrote {n} cases under {args.out}")


if __name__ == "__main__":
    main()
