#!/usr/bin/env python3
"""Write the eval cases of the Hugging Face stack entries (tokenizers, chat templates, the Trainer, PEFT, TRL,
safetensors, datasets, and the serving/tracking libraries around them).

Two kinds of case, as in the other generators:

* captured cases (``--capture --hf-site DIR``): small CPU programs in ``REAL_PROGRAMS`` run for real with the
  repository's venv torch and the Hugging Face packages installed in DIR (``pip install --target DIR --no-deps
  transformers==5.24.0 peft==0.21.2 trl==1.16.0 datasets==4.0.0 accelerate==1.15.0 ...``; they are not
  crashdoc dependencies). Their output is the log; only machine paths are rewritten to a user's.
* synthetic cases: the failure as the named release prints it (texts read from the released wheels), set in the
  noise real runs print (launchers, rank prefixes, Trainer banners and progress bars, warnings).

Usage:  python evals/generators/hf.py [--capture --hf-site DIR] [--only SUBSTRING]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, Case, RankExit, parser, torchrun_child_failed_summary, write_selected  # noqa: E402  (case writer, launcher summary)
from model import (  # noqa: E402  (the noise helpers)
    VENV_PY,
    Clock,
    hf_train_banner,
    loss_dicts,
    nvidia_smi,
    pip_list,
    progress_line,
    torchrun_header,
    traceback,
)

VENV_TORCHRUN = REPO / ".venv" / "bin" / "torchrun"


def C(case_id: str, label: str, difficulty: str, description: str, files: dict[str, str], facts: dict[str, str],
      must_mention: list[str], initiating_rank: int | list[int] | None = None) -> Case:
    """A case in the order this file writes them: files before facts."""
    return Case(case_id, label, difficulty, description, initiating_rank=initiating_rank, facts=facts,
                must_mention=must_mention, files=files)

# --------------------------------------------------------------------------------------------------
# captured programs

# The tiny local models and tokenizers the programs use (nothing is downloaded): a word-level tokenizer that,
# like GPT-2/Llama/Mistral tokenizers, has bos/eos/unk and no pad token.
TINY = '''
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, LlamaConfig, LlamaForCausalLM, GPT2Config, GPT2LMHeadModel

WORDS = ("the a of to and in is it that for on with as was be at by this an which or from not are has have you can "
         "will one all there their more use new would what about how when make like time just").split()


def tokenizer():
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   model_max_length=512)


def llama():
    return LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128))


def gpt2():
    return GPT2LMHeadModel(GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4, n_positions=128))
'''


@dataclass
class RealProgram:
    case: Case
    command: str                  # "python" or "torchrun:N"
    script_name: str
    source: str
    log_name: str
    home: str                     # the directory the run pretends to live in
    site: str                     # the site-packages path shown in tracebacks
    header: list[str] = field(default_factory=list)   # lines the job script printed before the command


REAL_PROGRAMS: list[RealProgram] = []


def real(case: Case, command: str, script_name: str, source: str, log_name: str, home: str, site: str,
         header: list[str] | None = None) -> None:
    REAL_PROGRAMS.append(RealProgram(case, command, script_name, textwrap.dedent(source).lstrip(), log_name, home,
                                     site, header or []))


def capture(prog: RealProgram, hf_site: Path) -> Case:
    work = Path("/tmp/crashdoc_real_hf") / prog.case.case_id
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    (work / "tiny.py").write_text(TINY)
    (work / prog.script_name).write_text(prog.source)
    env = dict(os.environ, PYTHONUNBUFFERED="1", TERM="dumb", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PYTHONPATH=f"{hf_site}:{work}", HF_HOME=str(work / ".hf"), OMP_NUM_THREADS="1")
    if prog.command == "python":
        cmd = [str(VENV_PY), prog.script_name]
        shown = f"python {prog.script_name}"
    else:
        n = prog.command.split(":")[1]
        cmd = [str(VENV_TORCHRUN), f"--nproc_per_node={n}", prog.script_name]
        shown = f"torchrun --nproc_per_node={n} {prog.script_name}"
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode != 0, f"{prog.case.case_id}: the program did not fail"
    site_root = prog.site.split("/lib/")[0]
    base_lib = sys.base_prefix + "/lib/python3.11"
    for old, new in [(str(hf_site), prog.site), (f"{REPO}/.venv/lib/python3.11/site-packages", prog.site),
                     (f"{REPO}/.venv/bin/", f"{site_root}/bin/"), (base_lib, "/usr/lib/python3.11"), (str(work), prog.home)]:
        out = out.replace(old, new)
    left = [ln for ln in out.splitlines() if "/work/" in ln or "crashdoc_real" in ln]
    assert not left, (prog.case.case_id, left[:3])
    case = prog.case
    case.files = {prog.log_name: "\n".join([*prog.header, f"+ cd {prog.home}", f"+ {shown}"]) + "\n" + out}
    if prog.command.startswith("torchrun"):
        raised = sorted({int(m.group(1)) for m in re.finditer(r"^\[rank(\d+)\]: (?:\w+\.)*\w+Error: ", out, re.M)})
        assert raised, case.case_id
        case.initiating_rank = raised[0] if len(raised) == 1 else raised
    return case


SITE_U = "/home/{user}/.venv/lib/python3.11/site-packages"
PY_FACTS: dict[str, str] = {}  # the captured logs print no versions

real(C("tokenizer-missing-pad-token-trainer-collator-cpu-01", "tokenizer-missing-pad-token", "easy",
          "Trainer fine-tune of a Llama-style model whose tokenizer ships without a pad token; DataCollatorWithPadding "
          "asks it to pad at the first batch (captured, transformers 5.24.0 on CPU)", {},
          {**PY_FACTS, "launcher": "python"}, ["pad_token"]),
     "python", "sft_lm.py", '''
     from datasets import Dataset
     from transformers import Trainer, TrainingArguments, DataCollatorWithPadding
     import tiny
     tok = tiny.tokenizer()
     model = tiny.llama()
     texts = ["the time is new", "what about the use of it", "you can make one", "there is more to this than that"] * 8
     ds = Dataset.from_dict({"text": texts})
     ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
     ds = ds.map(lambda b: {"labels": b["input_ids"]}, batched=True)
     args = TrainingArguments(output_dir="out/llama-sft", per_device_train_batch_size=4, num_train_epochs=1,
                              logging_steps=2, report_to=[], use_cpu=True)
     trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok))
     trainer.train()
     ''', "train.log", "/home/ana/projects/support-bot", SITE_U.format(user="ana"))

real(C("tokenizer-missing-pad-token-torchrun-gloo-cpu-03", "tokenizer-missing-pad-token", "medium",
          "two-process torchrun (gloo) of a Trainer script with the causal-LM collator; both ranks' collators refuse "
          "to pad list samples with a tokenizer that has no pad token (captured)", {},
          {**PY_FACTS, "launcher": "torchrun", "world_size": "2"}, ["pad"]),
     "torchrun:2", "train_clm.py", '''
     import torch
     from transformers import Trainer, TrainingArguments, DataCollatorForLanguageModeling
     import tiny
     tok = tiny.tokenizer()
     rows = [tok(t) for t in ["the time is new", "what about the use of it and one", "you can"] * 8]
     samples = [torch.tensor(r["input_ids"]) for r in rows]
     args = TrainingArguments(output_dir="out/clm", per_device_train_batch_size=4, max_steps=4, report_to=[],
                              use_cpu=True, ddp_backend="gloo")
     Trainer(model=tiny.llama(), args=args, train_dataset=samples,
             data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
     ''', "torchrun.log", "/srv/jobs/clm", SITE_U.format(user="svc"))

real(C("chat-template-not-set-datasets-map-cpu-01", "chat-template-not-set", "easy",
          "SFT preprocessing maps a messages column through apply_chat_template with a base-model tokenizer that has "
          "no chat template (captured, transformers 5.24.0)", {}, {**PY_FACTS, "launcher": "python"},
          ["chat_template"]),
     "python", "prep_sft.py", '''
     from datasets import Dataset
     import tiny
     tok = tiny.tokenizer()
     rows = [{"messages": [{"role": "user", "content": "what is the time"},
                           {"role": "assistant", "content": "the time is new"}]}] * 20
     ds = Dataset.from_list(rows)
     ds = ds.map(lambda ex: {"text": tok.apply_chat_template(ex["messages"], tokenize=False)})
     ds.save_to_disk("data/sft_text")
     ''', "prep.log", "/home/li/sft", SITE_U.format(user="li"))

real(C("trust-remote-code-required-local-dir-cpu-01", "trust-remote-code-required", "easy",
          "loading a local checkpoint folder whose config.json maps AutoModel to a modeling file in the folder, "
          "without trust_remote_code (captured, transformers 5.24.0; the job has no terminal)", {},
          {**PY_FACTS, "launcher": "python"}, ["trust_remote_code"]),
     "python", "eval_internlm.py", '''
     import json, os
     d = "models/internlm-chat-7b-local"
     os.makedirs(d, exist_ok=True)
     json.dump({"architectures": ["InternLMForCausalLM"], "model_type": "internlm", "hidden_size": 4096,
                "auto_map": {"AutoConfig": "configuration_internlm.InternLMConfig",
                             "AutoModelForCausalLM": "modeling_internlm.InternLMForCausalLM"}},
               open(f"{d}/config.json", "w"))
     open(f"{d}/configuration_internlm.py", "w").write(
         "from transformers import PretrainedConfig\\nclass InternLMConfig(PretrainedConfig):\\n    model_type = 'internlm'\\n")
     print("loading", d, flush=True)
     from transformers import AutoModelForCausalLM
     model = AutoModelForCausalLM.from_pretrained(d, torch_dtype="auto")
     ''', "eval.log", "/data/eval", "/opt/conda/lib/python3.11/site-packages")

real(C("trainer-model-returned-no-loss-backbone-cpu-01", "trainer-model-returned-no-loss", "easy",
          "Trainer on a bare LlamaModel backbone (no LM head): the output has last_hidden_state and no loss (captured)",
          {}, {**PY_FACTS, "launcher": "python"}, ["loss"]),
     "python", "pretrain.py", '''
     from datasets import Dataset
     from transformers import Trainer, TrainingArguments, LlamaModel
     import tiny
     tok = tiny.tokenizer(); tok.pad_token = tok.unk_token
     model = LlamaModel(tiny.llama().config)
     ds = Dataset.from_dict({"text": ["the time is new and one"] * 16}).map(
         lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
     args = TrainingArguments(output_dir="out/ckpt", per_device_train_batch_size=4, max_steps=4, report_to=[], use_cpu=True)
     Trainer(model=model, args=args, train_dataset=ds).train()
     ''', "pretrain.log", "/home/omar/lm", SITE_U.format(user="omar"))

real(C("trainer-no-matching-columns-raw-prompt-cpu-01", "trainer-no-matching-columns", "easy",
          "a prompt/completion dataset that was never tokenized is handed to the plain Trainer (captured)", {},
          {**PY_FACTS, "launcher": "python"}, ["tokeniz"]),
     "python", "finetune.py", '''
     from datasets import Dataset
     from transformers import Trainer, TrainingArguments
     import tiny
     ds = Dataset.from_dict({"prompt": ["the time is"] * 16, "completion": ["new"] * 16})
     args = TrainingArguments(output_dir="out/ckpt", per_device_train_batch_size=4, max_steps=4, report_to=[], use_cpu=True)
     Trainer(model=tiny.llama(), args=args, train_dataset=ds).train()
     ''', "finetune.log", "/home/sam/ft", SITE_U.format(user="sam"))

real(C("hf-trainer-unexpected-keyword-evaluation-strategy-cpu-01", "hf-trainer-unexpected-keyword", "easy",
          "a tutorial's TrainingArguments(evaluation_strategy=...) on transformers 5.24.0 (captured)", {},
          {**PY_FACTS, "launcher": "python"}, ["eval_strategy"]),
     "python", "train_cls.py", '''
     from transformers import TrainingArguments
     print("building arguments", flush=True)
     args = TrainingArguments(output_dir="out/cls", evaluation_strategy="epoch", save_strategy="epoch",
                              learning_rate=2e-5, per_device_train_batch_size=16, num_train_epochs=3,
                              weight_decay=0.01, load_best_model_at_end=True, report_to=[])
     ''', "train.log", "/home/kim/cls", SITE_U.format(user="kim"))

real(C("hf-trainer-unexpected-keyword-sfttrainer-tokenizer-cpu-02", "hf-trainer-unexpected-keyword", "easy",
          "an SFT script written for TRL 0.x passes tokenizer= to SFTTrainer; TRL 1.16.0 only has processing_class "
          "(captured)", {}, {**PY_FACTS, "launcher": "python"}, ["processing_class"]),
     "python", "sft.py", '''
     from datasets import Dataset
     from trl import SFTTrainer, SFTConfig
     import tiny
     tok = tiny.tokenizer(); tok.pad_token = tok.unk_token
     ds = Dataset.from_dict({"text": ["the time is new and one"] * 16})
     cfg = SFTConfig(output_dir="out/sft", max_steps=2, report_to=[], use_cpu=True, bf16=False)
     trainer = SFTTrainer(model=tiny.llama(), tokenizer=tok, train_dataset=ds, args=cfg)
     trainer.train()
     ''', "sft.log", "/home/kim/sft", SITE_U.format(user="kim"))

real(C("trainer-best-model-strategy-mismatch-epoch-steps-cpu-01", "trainer-best-model-strategy-mismatch",
          "easy", "load_best_model_at_end with eval per epoch and checkpoints every 500 steps (captured)", {},
          {**PY_FACTS, "launcher": "python"}, ["save_strategy"]),
     "python", "train_ner.py", '''
     from transformers import TrainingArguments
     args = TrainingArguments(output_dir="out/ner", eval_strategy="epoch", save_strategy="steps", save_steps=500,
                              load_best_model_at_end=True, metric_for_best_model="f1", report_to=[])
     ''', "ner.log", "/home/eva/ner", SITE_U.format(user="eva"))

real(C("peft-target-modules-not-found-gpt2-llama-names-cpu-01", "peft-target-modules-not-found", "easy",
          "LoRA with the Llama projection names on a GPT-2 model (c_attn/c_proj): nothing matches (captured, peft 0.21.2)",
          {}, {**PY_FACTS, "launcher": "python"}, ["target_modules"]),
     "python", "lora_gpt2.py", '''
     from peft import LoraConfig, get_peft_model
     import tiny
     model = tiny.gpt2()
     cfg = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                      task_type="CAUSAL_LM")
     model = get_peft_model(model, cfg)
     model.print_trainable_parameters()
     ''', "lora.log", "/home/raj/lora", SITE_U.format(user="raj"))

real(C("safetensors-shared-tensors-save-file-tied-cpu-01", "safetensors-shared-tensors", "easy",
          "safetensors.torch.save_file on the state dict of a GPT-2 style model whose lm_head is tied to the "
          "embeddings (captured, safetensors 0.8.0)", {}, {**PY_FACTS, "launcher": "python"},
          ["save_model"]),
     "python", "export.py", '''
     import os
     from safetensors.torch import save_file
     import tiny
     model = tiny.gpt2()
     os.makedirs("export", exist_ok=True)
     print("exporting", sum(p.numel() for p in model.parameters()), "parameters", flush=True)
     save_file(model.state_dict(), "export/model.safetensors")
     ''', "export.log", "/home/ana/export", SITE_U.format(user="ana"))


# --------------------------------------------------------------------------------------------------
# synthetic cases

SYNTHETIC = []


def synthetic(fn):
    SYNTHETIC.append(fn)
    return fn


def ranked(rank: int, lines: list[str]) -> list[str]:
    return [f"[rank{rank}]: {ln}" for ln in lines]


def warn_lines(site: str) -> list[str]:
    return [f"{site}/transformers/utils/hub.py:111: FutureWarning: Using `TRANSFORMERS_CACHE` is deprecated and will "
            "be removed in v5 of Transformers. Use `HF_HOME` instead.", "  warnings.warn("]


@synthetic
def pad_torchrun_a100_lm_collator() -> Case:
    """4 ranks on A100s, transformers 4.46.3: the LM collator pads list samples; all ranks raise, torchrun reports."""
    rng = random.Random(1901)
    site = "/opt/conda/lib/python3.10/site-packages"
    clock = Clock(datetime(2025, 2, 11, 14, 2, 7), rng)
    out = ["+ torchrun --nproc_per_node=4 train_clm.py --model mistralai/Mistral-7B-v0.1 --data /data/wiki_ko "
           "--block_size 1024 --bf16"]
    out += torchrun_header(clock, 88210, "2.4")
    out += warn_lines(site)
    for r in range(4):
        out.append(f"[rank{r}]:[W211 14:02:19.{rng.randint(100000, 999999)} ProcessGroupNCCL.cpp:4115] [PG 0 Rank {r}]  "
                   "using GPU {r} to perform barrier as devices used by this process are currently unknown. This can "
                   "potentially cause a hang if this rank to GPU mapping is incorrect.".replace("{r}", str(r)))
    out += ["Loading checkpoint shards: 100%|██████████| 2/2 [00:06<00:00,  3.12s/it]"] * 4
    out += ["Map (num_proc=8): 100%|██████████| 184320/184320 [00:41<00:00, 4493.18 examples/s]"]
    out += hf_train_banner(184320, 1, 4, 16, 1, 11520, 7241732096)
    out.append("  0%|          | 0/11520 [00:00<?, ?it/s]")
    frames = [
        ("/workspace/train_clm.py", 141, "<module>", "trainer.train()"),
        (f"{site}/transformers/trainer.py", 2123, "train", "return inner_training_loop("),
        (f"{site}/transformers/trainer.py", 2427, "_inner_training_loop", "batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)"),
        (f"{site}/transformers/trainer.py", 5045, "get_batch_samples", "batch_samples += [next(epoch_iterator)]"),
        (f"{site}/accelerate/data_loader.py", 550, "__iter__", "current_batch = next(dataloader_iter)"),
        (f"{site}/torch/utils/data/dataloader.py", 701, "__next__", "data = self._next_data()"),
        (f"{site}/torch/utils/data/dataloader.py", 757, "_next_data", "data = self._dataset_fetcher.fetch(index)  # may raise StopIteration"),
        (f"{site}/torch/utils/data/_utils/fetch.py", 55, "fetch", "return self.collate_fn(data)"),
        (f"{site}/transformers/data/data_collator.py", 45, "__call__", "return self.torch_call(features)"),
        (f"{site}/transformers/data/data_collator.py", 806, "torch_call", '"input_ids": _torch_collate_batch(examples, self.tokenizer, pad_to_multiple_of=self.pad_to_multiple_of)'),
        (f"{site}/transformers/data/data_collator.py", 448, "_torch_collate_batch", "raise ValueError("),
    ]
    exc = "ValueError: You are attempting to pad samples but the tokenizer you are using (LlamaTokenizerFast) does not have a pad token."
    for r in (2, 0, 3, 1):
        out += ranked(r, traceback(frames, exc))
    clock.advance(3.2)
    out.append(f"W0211 14:03:02.{rng.randint(100000, 999999)} 88210 torch/distributed/elastic/multiprocessing/api.py:897] "
               "Sending process 88231 closing signal SIGTERM")
    out.append(f"E0211 14:03:02.{rng.randint(100000, 999999)} 88210 torch/distributed/elastic/multiprocessing/api.py:869] "
               "failed (exitcode: 1) local_rank: 0 (pid: 88229) of binary: /opt/conda/bin/python")
    root = RankExit(0, 0, 88229, 1, "2025-02-11_14:03:02", "gpu-a100-07")
    others = [RankExit(2, 2, 88232, 1, "2025-02-11_14:03:02", "gpu-a100-07"),
              RankExit(3, 3, 88233, 1, "2025-02-11_14:03:02", "gpu-a100-07")]
    out += traceback([("/opt/conda/bin/torchrun", 8, "<module>", "sys.exit(main())"),
                      (f"{site}/torch/distributed/run.py", 919, "main", "run(args)"),
                      (f"{site}/torch/distributed/launcher/api.py", 269, "launch_agent", "raise ChildFailedError(")],
                     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
    out += torchrun_child_failed_summary("train_clm.py", root, others)
    return C("tokenizer-missing-pad-token-mistral-torchrun-a100-02", "tokenizer-missing-pad-token", "medium",
                "4-rank torchrun causal-LM fine-tune of Mistral-7B on transformers 4.46.3: DataCollatorForLanguageModeling "
                "cannot pad the list samples because the Mistral tokenizer has no pad token; every rank raises at step 0",
                {"torchrun.log": "\n".join(out)},
                {"launcher": "torchrun", "world_size": "4"}, ["pad_token"],
                initiating_rank=[0, 1, 2, 3])


@synthetic
def chat_template_trl_accelerate_base_llama() -> Case:
    rng = random.Random(1902)
    site = "/usr/local/lib/python3.11/dist-packages"
    out = ["$ accelerate launch --num_processes 8 --mixed_precision bf16 sft.py --config recipes/llama31_8b_base_sft.yaml",
           "The following values were not passed to `accelerate launch` and had defaults used instead:",
           "\t`--num_machines` was set to a value of `1`", "\t`--dynamo_backend` was set to a value of `'no'`",
           "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`."]
    out += pip_list([("accelerate", "1.10.1"), ("datasets", "4.0.0"), ("torch", "2.8.0"), ("transformers", "4.57.6"),
                     ("trl", "0.23.1")])
    out += ["[2025-10-03 08:14:51,211] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)"]
    for r in range(8):
        out.append(f"[rank{r}]: model: meta-llama/Llama-3.1-8B  dataset: /lake/sft/helpdesk_conversations_v3 (41,882 rows)")
    out += ["Loading checkpoint shards: 100%|██████████| 4/4 [00:04<00:00,  1.01s/it]"] * 3
    out.append("Applying chat template to train dataset:   0%|          | 0/41882 [00:00<?, ? examples/s]")
    frames = [
        ("/app/sft.py", 77, "<module>", "trainer = SFTTrainer("),
        (f"{site}/trl/trainer/sft_trainer.py", 803, "__init__", "train_dataset = self._prepare_dataset("),
        (f"{site}/trl/trainer/sft_trainer.py", 1004, "_prepare_dataset", "dataset = dataset.map("),
        (f"{site}/datasets/arrow_dataset.py", 560, "wrapper", "out: Union[\"Dataset\", \"DatasetDict\"] = func(self, *args, **kwargs)"),
        (f"{site}/datasets/arrow_dataset.py", 3318, "map", "for rank, done, content in Dataset._map_single(**unprocessed_kwargs):"),
        (f"{site}/datasets/arrow_dataset.py", 3650, "_map_single", "for i, example in iter_outputs(shard_iterable):"),
        (f"{site}/datasets/arrow_dataset.py", 3624, "iter_outputs", "yield i, apply_function(example, i, offset=offset)"),
        (f"{site}/datasets/arrow_dataset.py", 3547, "apply_function", "processed_inputs = function(*fn_args, *additional_args, **fn_kwargs)"),
        (f"{site}/trl/trainer/sft_trainer.py", 977, "tokenize", "prompt_ids = processing_class.apply_chat_template("),
        (f"{site}/transformers/tokenization_utils_base.py", 1640, "apply_chat_template", "chat_template = self.get_chat_template(chat_template, tools)"),
        (f"{site}/transformers/tokenization_utils_base.py", 1826, "get_chat_template", "raise ValueError("),
    ]
    exc = ("ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no template "
           "argument was passed! For information about writing templates and setting the tokenizer.chat_template "
           "attribute, please see the documentation at https://huggingface.co/docs/transformers/main/en/chat_templating")
    out += ranked(0, traceback(frames, exc))
    out += ranked(5, traceback(frames, exc))
    out += [f"W1003 08:15:40.{rng.randint(100000, 999999)} 5120 torch/distributed/elastic/multiprocessing/api.py:900] "
            f"Sending process {p} closing signal SIGTERM" for p in (5139, 5140, 5141, 5143, 5144, 5145)]
    out.append(f"E1003 08:15:41.{rng.randint(100000, 999999)} 5120 torch/distributed/elastic/multiprocessing/api.py:874] "
               "failed (exitcode: 1) local_rank: 0 (pid: 5138) of binary: /usr/bin/python")
    out += ["subprocess.CalledProcessError: Command '['/usr/bin/python', '-m', 'torch.distributed.run', '--nproc_per_node', "
            "'8', 'sft.py', '--config', 'recipes/llama31_8b_base_sft.yaml']' returned non-zero exit status 1."]
    return C("chat-template-not-set-trl-sft-base-llama-accelerate-02", "chat-template-not-set", "medium",
                "8-GPU accelerate launch of TRL SFTTrainer on a conversational dataset with the base Llama-3.1-8B tokenizer, "
                "which has no chat template; the dataset preparation raises on ranks 0 and 5",
                {"sft.log": "\n".join(out)}, {"launcher": "accelerate", "world_size": "8", "transformers_version": "4.57.6"},
                ["chat_template", "Instruct"], initiating_rank=[0, 5])


@synthetic
def arch_gemma3_old_transformers() -> Case:
    site = "/home/jo/miniconda3/envs/rag/lib/python3.10/site-packages"
    out = ["(rag) jo@ws-4090:~/rag$ python build_index.py --generator google/gemma-3-4b-it --retriever BAAI/bge-m3",
           "2025-04-02 19:41:10 | INFO | build_index | torch 2.5.1+cu124, transformers 4.46.3, 1 x NVIDIA GeForce RTX 4090",
           "2025-04-02 19:41:10 | INFO | build_index | loading generator google/gemma-3-4b-it",
           "config.json: 100%|██████████| 855/855 [00:00<00:00, 5.13MB/s]"]
    frames = [
        ("/home/jo/rag/build_index.py", 58, "<module>", "gen = AutoModelForCausalLM.from_pretrained(args.generator, torch_dtype=torch.bfloat16, device_map=\"cuda\")"),
        (f"{site}/transformers/models/auto/auto_factory.py", 526, "from_pretrained", "config, kwargs = AutoConfig.from_pretrained("),
        (f"{site}/transformers/models/auto/configuration_auto.py", 1036, "from_pretrained", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: The checkpoint you are trying to load has model type `gemma3` but Transformers does "
                     "not recognize this architecture. This could be because of an issue with the checkpoint, or because "
                     "your version of Transformers is out of date.")
    return C("transformers-unrecognized-architecture-gemma3-4-46-rtx4090-01", "transformers-unrecognized-architecture",
                "easy", "a RAG script loads google/gemma-3-4b-it with transformers 4.46.3, which predates gemma3",
                {"build_index.log": "\n".join(out)},
                {"transformers_version": "4.46.3", "torch_version": "2.5.1", "gpu_model": "NVIDIA GeForce RTX 4090",
                 "launcher": "python"}, ["upgrade", "transformers"])


@synthetic
def arch_qwen2_keyerror_slurm() -> Case:
    rng = random.Random(1904)
    site = "/apps/envs/llm-2023.12/lib/python3.10/site-packages"
    out = ["+ srun --ntasks=1 --gres=gpu:1 python eval_harness.py --model Qwen/Qwen2-7B-Instruct --tasks mmlu,gsm8k --batch 16",
           "=== job 4471820 on node a100-node-112 started Thu Jun 13 02:11:04 CEST 2024 ==="]
    out += nvidia_smi([("NVIDIA A100-SXM4-80GB", "00000000:07:00.0", 0)], "535.104.05", "12.2", rng,
                      when="Thu Jun 13 02:11:05 2024")
    out += ["Package versions: torch==2.1.2 transformers==4.36.2 accelerate==0.25.0 lm_eval==0.4.0",
            "INFO 02:11:19 evaluator: Setting random seed to 0 | Setting numpy seed to 1234 | Setting torch manual seed to 1234",
            "INFO 02:11:19 huggingface: Using device 'cuda'"]
    frames = [
        ("/home/u1187/eval/eval_harness.py", 211, "<module>", "main()"),
        ("/home/u1187/eval/eval_harness.py", 174, "main", "model = build_model(args)"),
        ("/home/u1187/eval/eval_harness.py", 96, "build_model", "cfg = AutoConfig.from_pretrained(name, revision=args.revision)"),
        (f"{site}/transformers/models/auto/configuration_auto.py", 1064, "from_pretrained", "config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]"),
        (f"{site}/transformers/models/auto/configuration_auto.py", 761, "__getitem__", "raise KeyError(key)"),
    ]
    out += traceback(frames, "KeyError: 'qwen2'")
    out += ["srun: error: a100-node-112: task 0: Exited with exit code 1",
            "=== job 4471820 finished Thu Jun 13 02:11:31 CEST 2024 (exit 1) ==="]
    return C("transformers-unrecognized-architecture-qwen2-keyerror-slurm-02", "transformers-unrecognized-architecture",
                "hard", "an evaluation job on a cluster module environment from 2023 (transformers 4.36.2) loads Qwen2-7B; "
                "the config registry has no qwen2 and the log ends in a bare KeyError",
                {"slurm-4471820.out": "\n".join(out)},
                {"transformers_version": "4.36.2", "torch_version": "2.1.2", "gpu_model": "NVIDIA A100-SXM4-80GB",
                 "launcher": "srun"}, ["qwen2", "transformers"])


@synthetic
def remote_code_tokenizer_slurm() -> Case:
    site = "/scratch/venvs/ft/lib/python3.10/site-packages"
    out = ["#!/bin/bash", "#SBATCH --job-name=internlm-ft", "# ----- job 90311 node gpu017 -----",
           "[2025-01-20 11:02:13] args: model=internlm/internlm2-chat-7b trust_remote_code=True lr=1e-5 epochs=2",
           "[2025-01-20 11:02:13] loading tokenizer internlm/internlm2-chat-7b",
           "tokenizer_config.json: 100%|██████████| 2.51k/2.51k [00:00<00:00, 17.1MB/s]"]
    frames = [
        ("/home/hz/ft/train.py", 64, "<module>", "tokenizer = AutoTokenizer.from_pretrained(args.model, use_fast=False)"),
        (f"{site}/transformers/models/auto/tokenization_auto.py", 886, "from_pretrained", "trust_remote_code = resolve_trust_remote_code("),
        (f"{site}/transformers/dynamic_module_utils.py", 660, "resolve_trust_remote_code", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: The repository for internlm/internlm2-chat-7b contains custom code which must be "
                     "executed to correctly load the model. You can inspect the repository content at "
                     "https://hf.co/internlm/internlm2-chat-7b.\nPlease pass the argument `trust_remote_code=True` to allow "
                     "custom code to be run.")
    out.append("srun: error: gpu017: task 0: Exited with exit code 1")
    return C("trust-remote-code-required-tokenizer-only-slurm-02", "trust-remote-code-required", "medium",
                "the job passes trust_remote_code=True to the model loader but not to AutoTokenizer; InternLM2's "
                "tokenizer is custom code (transformers 4.46-era text), so the batch job fails at the tokenizer",
                {"slurm-90311.out": "\n".join(out)}, {"launcher": "srun"}, ["trust_remote_code", "AutoTokenizer"])


@synthetic
def no_loss_accelerate_padding_collator() -> Case:
    rng = random.Random(1906)
    site = "/opt/venv/lib/python3.12/site-packages"
    out = ["accelerate launch --config_file fsdp.yaml train.py --model Qwen/Qwen2.5-1.5B --data ./data/faq.jsonl"]
    out += ["Map: 100%|██████████| 12000/12000 [00:03<00:00, 3702.25 examples/s]",
            "Map: 100%|██████████| 600/600 [00:00<00:00, 3641.80 examples/s]"]
    out += hf_train_banner(12000, 3, 8, 16, 2, 2250, 1543714304)
    out += [progress_line([0], 2250, 1.6)]
    frames = [
        ("/srv/faq/train.py", 118, "<module>", "trainer.train()"),
        (f"{site}/transformers/trainer.py", 2325, "train", "return inner_training_loop("),
        (f"{site}/transformers/trainer.py", 2674, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs, num_items_in_batch)"),
        (f"{site}/transformers/trainer.py", 4020, "training_step", "loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"),
        (f"{site}/transformers/trainer.py", 4142, "compute_loss", "raise ValueError("),
    ]
    exc = ("ValueError: The model did not return a loss from the inputs, only the following keys: logits. For reference, "
           "the inputs it received are input_ids,attention_mask.")
    out += ranked(1, traceback(frames, exc)) + ranked(0, traceback(frames, exc))
    out.append("W1112 09:32:07.118000 7711 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 7730 closing signal SIGTERM")
    out.append("E1112 09:32:07.520000 7711 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 1 (pid: 7731) of binary: /opt/venv/bin/python")
    _ = rng
    return C("trainer-model-returned-no-loss-qwen-padding-collator-accelerate-02", "trainer-model-returned-no-loss",
                "medium", "2-GPU accelerate FSDP run of a causal-LM fine-tune that uses DataCollatorWithPadding: the batches "
                "have no labels, so Qwen2.5 returns only logits (transformers 4.57.6)", {"train.log": "\n".join(out)},
                {"launcher": "accelerate", "world_size": "2"},
                ["labels", "DataCollatorForLanguageModeling"], initiating_rank=[0, 1])


@synthetic
def no_columns_old_empty_batch_torchrun() -> Case:
    site = "/usr/local/lib/python3.10/dist-packages"
    clock = Clock(datetime(2024, 1, 17, 16, 20, 3), random.Random(1907))
    out = ["torchrun --nproc_per_node 2 finetune_summarizer.py --model_name_or_path t5-base --train_file data/train.csv"]
    out += torchrun_header(clock, 301, "2.1")
    out += ["01/17/2024 16:20:09 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits training: False",
            "01/17/2024 16:20:09 - WARNING - __main__ - Process rank: 1, device: cuda:1, n_gpu: 1, distributed training: True, 16-bits training: False",
            "01/17/2024 16:20:15 - INFO - __main__ - columns: ['document', 'summary']"]
    out += hf_train_banner(28700, 3, 8, 16, 1, 5382, 222903552)
    out += ["  0%|          | 0/5382 [00:00<?, ?it/s]"]
    frames = [
        ("/root/summarize/finetune_summarizer.py", 201, "<module>", "main()"),
        ("/root/summarize/finetune_summarizer.py", 195, "main", "trainer.train()"),
        (f"{site}/transformers/trainer.py", 1537, "train", "return inner_training_loop("),
        (f"{site}/transformers/trainer.py", 1854, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
        (f"{site}/transformers/trainer.py", 2728, "training_step", "inputs = self._prepare_inputs(inputs)"),
        (f"{site}/transformers/trainer.py", 2682, "_prepare_inputs", "raise ValueError("),
    ]
    exc = ("ValueError: The batch received was empty, your model won't be able to train on it. Double-check that your "
           "training dataset contains keys expected by the model: input_ids,attention_mask,decoder_input_ids,"
           "decoder_attention_mask,head_mask,decoder_head_mask,cross_attn_head_mask,encoder_outputs,past_key_values,"
           "inputs_embeds,decoder_inputs_embeds,labels,use_cache,output_attentions,output_hidden_states,return_dict,"
           "label_ids,label.")
    out += traceback(frames, exc) + traceback(frames, exc)
    out.append("[2024-01-17 16:20:21,004] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 322) of binary: /usr/bin/python")
    out += torchrun_child_failed_summary("finetune_summarizer.py", RankExit(0, 0, 322, 1, "2024-01-17_16:20:21", "c7f2a1d0"),
                              [RankExit(1, 1, 323, 1, "2024-01-17_16:20:21", "c7f2a1d0")])
    return C("trainer-no-matching-columns-t5-empty-batch-torchrun-02", "trainer-no-matching-columns", "medium",
                "transformers 4.36.2 summariser: the CSV columns document/summary are passed untokenized; the Trainer drops "
                "them all and the first batch is empty on both ranks", {"train.log": "\n".join(out)},
                {"launcher": "torchrun", "world_size": "2"}, ["tokeniz"],
                initiating_rank=[0, 1])


@synthetic
def unexpected_kw_py39_unqualified() -> Case:
    site = "/home/ci/.local/lib/python3.9/site-packages"
    out = ["$ python3.9 run_classifier.py --config configs/sst2.json",
           "Python 3.9.18 | transformers 4.51.3 | datasets 3.5.0",
           "Downloading and preparing SST-2 ... done (cached)"]
    frames = [
        ("/home/ci/nlp/run_classifier.py", 140, "<module>", "main(cfg)"),
        ("/home/ci/nlp/run_classifier.py", 101, "main", "args = TrainingArguments(**cfg[\"training\"])"),
    ]
    out += traceback(frames, "TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'")
    return C("hf-trainer-unexpected-keyword-py39-unqualified-03", "hf-trainer-unexpected-keyword", "medium",
                "a JSON config still says evaluation_strategy; on Python 3.9 the TypeError does not name the class "
                "(transformers 4.51.3)", {"ci.log": "\n".join(out)},
                {"python_version": "3.9.18", "transformers_version": "4.51.3", "launcher": "python"}, ["eval_strategy"])


@synthetic
def best_model_round_multiple_cli() -> Case:
    site = "/opt/conda/lib/python3.11/site-packages"
    out = ["python run_glue.py --model_name_or_path microsoft/deberta-v3-base --task_name mnli --do_train --do_eval "
           "--per_device_train_batch_size 32 --learning_rate 2e-5 --num_train_epochs 3 --output_dir out/mnli "
           "--eval_strategy steps --eval_steps 200 --save_strategy steps --save_steps 500 --load_best_model_at_end "
           "--metric_for_best_model accuracy --report_to wandb"]
    frames = [
        ("/work/glue/run_glue.py", 626, "<module>", "main()"),
        ("/work/glue/run_glue.py", 231, "main", "model_args, data_args, training_args = parser.parse_args_into_dataclasses()"),
        (f"{site}/transformers/hf_argparser.py", 358, "parse_args_into_dataclasses", "obj = dtype(**inputs)"),
        ("<string>", 135, "__init__", ""),
        (f"{site}/transformers/training_args.py", 1711, "__post_init__", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: --load_best_model_at_end requires the saving steps to be a round multiple of the "
                     "evaluation steps, but found 500, which is not a round multiple of 200.")
    return C("trainer-best-model-strategy-mismatch-round-multiple-glue-02", "trainer-best-model-strategy-mismatch",
                "easy", "run_glue.py with eval every 200 steps and checkpoints every 500 (transformers 4.57.6)",
                {"glue.log": "\n".join(out)}, {"launcher": "python"},
                ["save_steps", "eval_steps"])


@synthetic
def peft_falcon_qlora_llama_names() -> Case:
    rng = random.Random(1910)
    site = "/usr/local/lib/python3.10/dist-packages"
    out = ["!python qlora.py --model tiiuae/falcon-7b --dataset timdettmers/openassistant-guanaco --bits 4 --lora_r 64"]
    out += nvidia_smi([("Tesla T4", "00000000:00:04.0", 0)], "535.104.05", "12.2", rng, when="Mon Oct  7 13:02:44 2024")
    out += ["2024-10-07 13:03:01.442 | INFO | loading base model tiiuae/falcon-7b in 4bit (nf4, double quant)",
            f"{site}/transformers/quantizers/auto.py:174: UserWarning: You passed `quantization_config` or equivalent "
            "parameters to `from_pretrained` but the model you're loading already has a `quantization_config` attribute.",
            "Loading checkpoint shards: 100%|██████████| 2/2 [01:12<00:00, 36.02s/it]",
            "2024-10-07 13:04:19.018 | INFO | LoRA: r=64 alpha=16 dropout=0.1 targets=['q_proj', 'k_proj', 'v_proj', 'o_proj']"]
    frames = [
        ("/content/qlora.py", 203, "<module>", "model = get_peft_model(model, lora_config)"),
        (f"{site}/peft/mapping.py", 193, "get_peft_model", "return MODEL_TYPE_TO_PEFT_MODEL_MAPPING[peft_config.task_type]("),
        (f"{site}/peft/peft_model.py", 1609, "__init__", "super().__init__(model, peft_config, adapter_name, **kwargs)"),
        (f"{site}/peft/peft_model.py", 171, "__init__", "self.base_model = cls(model, {adapter_name: peft_config}, adapter_name)"),
        (f"{site}/peft/tuners/lora/model.py", 141, "__init__", "super().__init__(model, config, adapter_name, low_cpu_mem_usage=low_cpu_mem_usage)"),
        (f"{site}/peft/tuners/tuners_utils.py", 184, "__init__", "self.inject_adapter(self.model, adapter_name, low_cpu_mem_usage=low_cpu_mem_usage)"),
        (f"{site}/peft/tuners/tuners_utils.py", 510, "inject_adapter", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: Target modules {'o_proj', 'q_proj', 'v_proj', 'k_proj'} not found in the base model. "
                     "Please check the target modules and try again.")
    return C("peft-target-modules-not-found-falcon-qlora-colab-t4-02", "peft-target-modules-not-found", "easy",
                "QLoRA notebook on a T4 with Llama projection names on Falcon-7B, whose attention is query_key_value "
                "(peft 0.13.2)", {"colab.log": "\n".join(out)},
                {"gpu_model": "Tesla T4", "launcher": "python"}, ["query_key_value", "target_modules"])


@synthetic
def shared_tensors_trainer_wrapper_midrun() -> Case:
    rng = random.Random(1911)
    site = "/opt/conda/lib/python3.11/site-packages"
    out = ["torchrun --nproc_per_node 8 train_retriever.py --base intfloat/e5-base-v2 --out ckpt/e5-tied --save_steps 500"]
    out += ["[rank0]: model: DualEncoder(query=BertModel, doc=<shared with query>, proj tied to word embeddings)"]
    out += hf_train_banner(2400000, 1, 64, 512, 1, 4688, 109482240)
    steps = list(range(10, 501, 10))
    out += loss_dicts(rng, [50, 100, 150, 200, 250, 300, 350, 400, 450, 500], 4688, 1.0, 2.9, 2e-5)
    out.append(progress_line(steps, 4688, 0.83))
    out.append("[rank0]: Saving model checkpoint to ckpt/e5-tied/checkpoint-500")
    out.append("[rank0]: Trainer.model is not a `PreTrainedModel`, only saving its state dict.")
    frames = [
        ("/home/ir/train_retriever.py", 212, "<module>", "trainer.train()"),
        (f"{site}/transformers/trainer.py", 2325, "train", "return inner_training_loop("),
        (f"{site}/transformers/trainer.py", 2790, "_inner_training_loop", "self._maybe_log_save_evaluate("),
        (f"{site}/transformers/trainer.py", 3228, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial)"),
        (f"{site}/transformers/trainer.py", 3325, "_save_checkpoint", "self.save_model(output_dir, _internal_call=True)"),
        (f"{site}/transformers/trainer.py", 4265, "save_model", "self._save(output_dir)"),
        (f"{site}/transformers/trainer.py", 4367, "_save", "safetensors.torch.save_file("),
        (f"{site}/safetensors/torch.py", 286, "save_file", "serialize_file(_flatten(tensors), filename, metadata=metadata)"),
        (f"{site}/safetensors/torch.py", 488, "_flatten", "raise RuntimeError("),
    ]
    exc = ("RuntimeError: \n            Some tensors share memory, this will lead to duplicate memory on disk and potential "
           "differences when loading them again: [{'doc_encoder.embeddings.word_embeddings.weight', "
           "'query_encoder.embeddings.word_embeddings.weight', 'proj.weight'}].\n            A potential way to correctly "
           "save your model is to use `save_model`.\n            More information at "
           "https://huggingface.co/docs/safetensors/torch_shared_tensors\n            ")
    out += ranked(0, traceback(frames, exc))
    out += [f"[rank{r}]:[E1204 03:51:{10 + r}.000000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=9413, OpType=ALLREDUCE, NumelIn=109482240, NumelOut=109482240, "
            "Timeout(ms)=1800000) ran for 1800088 milliseconds before timing out." for r in (3, 6)]
    return C("safetensors-shared-tensors-dual-encoder-checkpoint-torchrun-02", "safetensors-shared-tensors", "hard",
                "8-rank retriever training; at the first checkpoint (step 500) rank 0 saves a custom dual encoder whose "
                "towers share the embedding matrix with safetensors.save_file and fails; the other ranks time out later",
                {"train.log": "\n".join(out)}, {"launcher": "torchrun", "world_size": "8"},
                ["save_model", "share"], initiating_rank=0)


real(C("datasets-scripts-unsupported-local-builder-cpu-01", "datasets-scripts-unsupported", "easy",
          "load_dataset on a project folder that holds a GeneratorBasedBuilder script, with datasets 4.0.0 "
          "(captured)", {}, {**PY_FACTS, "launcher": "python"}, ["script", "Parquet"]),
     "python", "load_squad.py", """
     import os
     os.makedirs("squad_custom", exist_ok=True)
     open("squad_custom/squad_custom.py", "w").write(
         "import datasets\\nclass SquadCustom(datasets.GeneratorBasedBuilder):\\n    pass\\n")
     from datasets import load_dataset
     ds = load_dataset("squad_custom", trust_remote_code=True)
     print(ds)
     """, "load.log", "/home/mia/qa", SITE_U.format(user="mia"))


@synthetic
def datasets_scripts_eval_harness() -> Case:
    site = "/opt/venv/lib/python3.11/site-packages"
    out = ["$ python -m evalkit.run --model ./ckpt/qwen2.5-7b-sft --tasks arc_easy,piqa,xstory --batch-size 16",
           "2025-08-19:10:41:02 INFO     [evalkit.run:88] datasets 4.0.0 | transformers 4.55.2 | torch 2.7.1+cu126",
           "2025-08-19:10:41:05 INFO     [evalkit.tasks:211] task arc_easy: 2376 docs",
           "2025-08-19:10:41:07 INFO     [evalkit.tasks:211] task piqa: 1838 docs",
           "2025-08-19:10:41:07 ERROR    [datasets.load:1367] `trust_remote_code` is not supported anymore.",
           "Please check that the Hugging Face dataset 'juletxara/xstory_cloze' isn't based on a loading script and remove `trust_remote_code`.",
           "If the dataset is based on a loading script, please ask the dataset author to remove it and convert it to a standard format like Parquet.",
           "xstory_cloze.py: 100%|██████████| 4.52k/4.52k [00:00<00:00, 21.9MB/s]"]
    frames = [
        ("/opt/venv/lib/python3.11/site-packages/evalkit/tasks/base.py", 143, "download", "self.dataset = datasets.load_dataset("),
        (f"{site}/datasets/load.py", 1392, "load_dataset", "builder_instance = load_dataset_builder("),
        (f"{site}/datasets/load.py", 1132, "load_dataset_builder", "dataset_module = dataset_module_factory("),
        (f"{site}/datasets/load.py", 1031, "dataset_module_factory", "raise e1 from None"),
        (f"{site}/datasets/load.py", 989, "dataset_module_factory", 'raise RuntimeError(f"Dataset scripts are no longer supported, but found {filename}")'),
    ]
    out += traceback(frames, "RuntimeError: Dataset scripts are no longer supported, but found xstory_cloze.py")
    return C("datasets-scripts-unsupported-eval-harness-hub-02", "datasets-scripts-unsupported", "easy",
                "an evaluation harness loads a Hub benchmark that is a loading script, with datasets 4.0.0; two tasks "
                "loaded, the script task fails", {"eval.log": "\n".join(out)}, {"launcher": "python"},
                ["script", "datasets"])


@synthetic
def datasets_fsspec_localfs_colab() -> Case:
    site = "/usr/local/lib/python3.10/dist-packages"
    out = ["!pip install -q s3fs", "!pip list | grep -E 'datasets|fsspec|s3fs'",
           "datasets                         2.14.4", "fsspec                           2023.10.0",
           "s3fs                             2023.10.0", "", ">>> ds = load_dataset('imdb')",
           "Downloading readme: 100%|██████████| 7.81k/7.81k [00:00<00:00, 21.1MB/s]",
           "Downloading data: 100%|██████████| 21.0M/21.0M [00:00<00:00, 51.2MB/s]",
           "Generating train split: 100%|██████████| 25000/25000 [00:00<00:00, 83321.41 examples/s]",
           "Generating test split: 100%|██████████| 25000/25000 [00:00<00:00, 91203.77 examples/s]",
           "Generating unsupervised split: 100%|██████████| 50000/50000 [00:00<00:00, 96411.05 examples/s]"]
    frames = [
        ("<ipython-input-7-1f3a9c2b>", 1, "<cell line: 1>", "ds = load_dataset('imdb')"),
        (f"{site}/datasets/load.py", 2152, "load_dataset", "ds = builder_instance.as_dataset(split=split, verification_mode=verification_mode, in_memory=keep_in_memory)"),
        (f"{site}/datasets/builder.py", 1173, "as_dataset", 'raise NotImplementedError(f"Loading a dataset cached in a {type(self._fs).__name__} is not supported.")'),
    ]
    out += traceback(frames, "NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.")
    return C("datasets-fsspec-incompatible-localfs-colab-01", "datasets-fsspec-incompatible", "medium",
                "a notebook installs s3fs, which upgrades fsspec to 2023.10.0 under datasets 2.14.4; the download works "
                "and reading the local cache is refused", {"notebook.log": "\n".join(out)}, {"launcher": "python"},
                ["fsspec", "datasets"])


@synthetic
def datasets_fsspec_glob_training_job() -> Case:
    rng = random.Random(1915)
    site = "/home/deploy/env/lib/python3.10/site-packages"
    clock = Clock(datetime(2024, 2, 6, 7, 55, 1), rng)
    out = ["+ source /home/deploy/env/bin/activate", "+ pip install -q -r requirements-extra.txt",
           "+ torchrun --nproc_per_node 4 train_asr.py --data_dir /mnt/corpus/cv16_ja --epochs 20"]
    out += torchrun_header(clock, 6120, "2.1")
    out += ["[2024-02-06 07:55:14] rank 0: datasets 2.13.2, fsspec 2023.12.2, torch 2.1.2+cu121"]
    frames = [
        ("/home/deploy/asr/train_asr.py", 71, "<module>", 'raw = load_dataset("audiofolder", data_dir=args.data_dir)'),
        (f"{site}/datasets/load.py", 2128, "load_dataset", "builder_instance = load_dataset_builder("),
        (f"{site}/datasets/load.py", 1814, "load_dataset_builder", "dataset_module = dataset_module_factory("),
        (f"{site}/datasets/load.py", 1460, "dataset_module_factory", ").get_module()"),
        (f"{site}/datasets/load.py", 967, "get_module", "patterns = get_data_patterns(base_path)"),
        (f"{site}/datasets/data_files.py", 473, "get_data_patterns", "return _get_data_files_patterns(resolver)"),
        (f"{site}/datasets/data_files.py", 284, "_get_data_files_patterns", "data_files = pattern_resolver(pattern)"),
        (f"{site}/datasets/data_files.py", 360, "resolve_pattern", "for filepath, info in fs.glob(pattern, detail=True).items()"),
        (f"{site}/fsspec/implementations/local.py", 64, "glob", "return super().glob(path, **kwargs)"),
        (f"{site}/fsspec/spec.py", 606, "glob", 'pattern = glob_translate(path + ("/" if ends_with_sep else ""))'),
        (f"{site}/fsspec/utils.py", 734, "glob_translate", "raise ValueError("),
    ]
    exc = "ValueError: Invalid pattern: '**' can only be an entire path component"
    for r in (1, 0, 3, 2):
        out += ranked(r, traceback(frames, exc))
    out.append("[2024-02-06 07:55:21,117] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 0 (pid: 6141) of binary: /home/deploy/env/bin/python")
    out += torchrun_child_failed_summary("train_asr.py", RankExit(0, 0, 6141, 1, "2024-02-06_07:55:21", "asr-train-2"),
                              [RankExit(r, r, 6141 + r, 1, "2024-02-06_07:55:21", "asr-train-2") for r in (1, 2, 3)])
    return C("datasets-fsspec-incompatible-glob-audiofolder-torchrun-02", "datasets-fsspec-incompatible", "medium",
                "a requirements step upgraded fsspec to 2023.12.2 under datasets 2.13.2; resolving audiofolder split "
                "patterns fails on all 4 ranks", {"job.log": "\n".join(out)},
                {"launcher": "torchrun", "world_size": "4", "torch_version": "2.1.2"}, ["fsspec", "datasets"],
                initiating_rank=[0, 1, 2, 3])


@synthetic
def bnb_offload_4bit_shared_gpu() -> Case:
    rng = random.Random(1916)
    site = "/home/tk/.venv/lib/python3.11/site-packages"
    out = ["$ python chat_cli.py --model mistralai/Mistral-Nemo-Instruct-2407 --4bit"]
    out += nvidia_smi([("NVIDIA GeForce RTX 3060", "00000000:01:00.0", 0)], "550.90.07", "12.4", rng,
                      used_mib=6912, when="Sat Sep 14 21:12:40 2024")
    out += ["loading mistralai/Mistral-Nemo-Instruct-2407 (4-bit nf4, compute bf16) with device_map='auto' ..."]
    frames = [
        ("/home/tk/chat/chat_cli.py", 39, "<module>", "model = AutoModelForCausalLM.from_pretrained(args.model, quantization_config=bnb, device_map=\"auto\")"),
        (f"{site}/transformers/models/auto/auto_factory.py", 564, "from_pretrained", "return model_class.from_pretrained("),
        (f"{site}/transformers/modeling_utils.py", 4015, "from_pretrained", "hf_quantizer.validate_environment(device_map=device_map)"),
        (f"{site}/transformers/quantizers/quantizer_bnb_4bit.py", 102, "validate_environment", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU "
                     "RAM to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping "
                     "these modules in 32-bit, you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom "
                     "`device_map` to `from_pretrained`. Check https://huggingface.co/docs/transformers/main/en/main_classes/"
                     "quantization#offload-between-cpu-and-gpu for more details. ")
    return C("bnb-quantized-cpu-offload-nemo-4bit-rtx3060-01", "bnb-quantized-cpu-offload", "medium",
                "a 12B model in 4-bit on a 12 GB RTX 3060 whose desktop and a second process already hold ~7 GB; the auto "
                "device map spills modules to the CPU (transformers 4.46-era text)", {"chat.log": "\n".join(out)},
                {"gpu_model": "NVIDIA GeForce RTX 3060", "launcher": "python", "driver_version": "550.90.07"},
                ["GPU", "memory"])


@synthetic
def bnb_offload_8bit_old_text() -> Case:
    site = "/opt/conda/lib/python3.10/site-packages"
    out = ["[2023-12-28 16:04:55] INFO serve.py: starting inference worker on cuda:0 (Tesla T4, 15109 MiB)",
           "[2023-12-28 16:04:55] INFO serve.py: model=meta-llama/Llama-2-13b-chat-hf load_in_8bit=True device_map=auto",
           "Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]"]
    frames = [
        ("/srv/app/serve.py", 58, "load", "return AutoModelForCausalLM.from_pretrained(name, load_in_8bit=True, device_map=\"auto\")"),
        (f"{site}/transformers/models/auto/auto_factory.py", 566, "from_pretrained", "return model_class.from_pretrained("),
        (f"{site}/transformers/modeling_utils.py", 3648, "from_pretrained", "raise ValueError("),
    ]
    exc = "\n".join(["ValueError: ",
                     "                        Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit",
                     "                        the quantized model. If you want to dispatch the model on the CPU or the disk while keeping",
                     "                        these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom",
                     "                        `device_map` to `from_pretrained`. Check",
                     "                        https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and-gpu",
                     "                        for more details.", "                        "])
    out += traceback(frames, exc)
    out += ["[2023-12-28 16:05:02] ERROR serve.py: worker failed to start, exiting with code 3"]
    return C("bnb-quantized-cpu-offload-llama13b-8bit-t4-02", "bnb-quantized-cpu-offload", "easy",
                "Llama-2-13B in 8-bit (about 13 GB of weights) on a 15 GB T4 with device_map=auto; transformers 4.36's "
                "multi-line refusal", {"worker.log": "\n".join(out)}, {"gpu_model": "Tesla T4", "launcher": "python"},
                ["8-bit", "GPU"])


@synthetic
def quantized_base_passed_to_trainer() -> Case:
    rng = random.Random(1918)
    site = "/workspace/.venv/lib/python3.11/site-packages"
    out = ["python qlora_train.py --base meta-llama/Llama-3.1-8B-Instruct --data data/tickets.jsonl --r 16",
           "2025-06-30 12:00:41 | torch 2.6.0+cu124 | transformers 4.52.4 | peft 0.15.2 | bitsandbytes 0.46.0",
           "Loading checkpoint shards: 100%|██████████| 4/4 [00:09<00:00,  2.33s/it]",
           "trainable params: 41,943,040 || all params: 8,072,204,288 || trainable%: 0.5196",
           "Map: 100%|██████████| 8400/8400 [00:02<00:00, 3317.92 examples/s]"]
    frames = [
        ("/workspace/qlora_train.py", 96, "<module>", "trainer = Trainer("),
        (f"{site}/transformers/utils/deprecation.py", 172, "wrapped_func", "return func(*args, **kwargs)"),
        (f"{site}/transformers/trainer.py", 568, "__init__", "raise ValueError("),
    ]
    out += traceback(frames, "ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable "
                     "adapters on top of the quantized model to correctly perform fine-tuning. Please see: "
                     "https://huggingface.co/docs/transformers/peft for more details")
    _ = rng
    return C("quantized-model-finetune-without-adapters-base-variable-01", "quantized-model-finetune-without-adapters",
                "medium", "QLoRA script creates the LoRA model (trainable params printed) but passes the original 4-bit base "
                "variable to the Trainer (transformers 4.52.4)", {"train.log": "\n".join(out)},
                {"launcher": "python", "transformers_version": "4.52.4", "torch_version": "2.6.0", "peft_version": "0.15.2",
                 "bitsandbytes_version": "0.46.0"}, ["adapter", "get_peft_model"])


@synthetic
def quantized_sft_no_peft_config_accelerate() -> Case:
    site = "/usr/local/lib/python3.12/dist-packages"
    out = ["accelerate launch --num_processes 2 sft_4bit.py --model Qwen/Qwen2.5-14B-Instruct --load_in_4bit",
           "[rank0]: using BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', bnb_4bit_compute_dtype=torch.bfloat16)",
           "Loading checkpoint shards: 100%|██████████| 8/8 [00:21<00:00,  2.70s/it]",
           "Loading checkpoint shards: 100%|██████████| 8/8 [00:22<00:00,  2.81s/it]"]
    frames = [
        ("/app/sft_4bit.py", 61, "<module>", "trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok)"),
        (f"{site}/trl/trainer/sft_trainer.py", 731, "__init__", "super().__init__("),
        (f"{site}/transformers/trainer.py", 418, "__init__", "validate_quantization_for_training(model)"),
        (f"{site}/transformers/trainer_utils.py", 132, "validate_quantization_for_training", "raise ValueError("),
    ]
    exc = ("ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on top "
           "of the quantized model to correctly perform fine-tuning. Please see: https://huggingface.co/docs/transformers/peft "
           "for more details")
    out += ranked(1, traceback(frames, exc)) + ranked(0, traceback(frames, exc))
    out += ["E0115 09:20:44.301000 412 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 431) of binary: /usr/bin/python"]
    return C("quantized-model-finetune-without-adapters-sft-no-peft-config-02", "quantized-model-finetune-without-adapters",
                "easy", "TRL SFTTrainer on a 4-bit Qwen2.5-14B without peft_config, on 2 processes (transformers 5.24-era "
                "trainer_utils check)", {"sft.log": "\n".join(out)}, {"launcher": "accelerate", "world_size": "2"},
                ["peft_config", "LoRA"], initiating_rank=[0, 1])


# --------------------------------------------------------------------------------------------------


def main() -> None:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--capture", action="store_true", help="re-run the real CPU programs")
    ap.add_argument("--hf-site", default="", help="directory holding the Hugging Face packages (pip install --target)")
    ap.add_argument("--only", default="", help="only cases whose id contains this")
    args = ap.parse_args()
    n = write_selected(args.out, (fn() for fn in SYNTHETIC), args.only)
    if args.capture:
        assert args.hf_site, "--capture needs --hf-site"
        n += write_selected(args.out, (capture(p, Path(args.hf_site)) for p in REAL_PROGRAMS if args.only in p.case.case_id))
    print(f"wrote {n} cases under {args.out}")


if __name__ == "__main__":
    main()
