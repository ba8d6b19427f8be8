"""Rule table rows for service/facts/rules/hf_breadth.py (Auto classes, weight files, sentencepiece, datasets' schema
and batched maps), joined into tests/test_rules.py.

FIRES: (rule id, a line or lines of a real log that must fire it), the lines as transformers 4.46.3 / 5.24.0 and
datasets 2.21.0 / 4.4.1 printed them in CPU runs. NEAR_MISSES: (rule id, lines it must not fire on: a look-alike of
another entry, or the same words in a harmless line). DECIDED_BY_CONTEXT: (lines, the entry that must come first).
"""

_DS_MAP_FRAMES = (
    '  File "/opt/venv/lib/python3.11/site-packages/datasets/arrow_writer.py", line 700, in write_batch',
    "    pa_table = pa.Table.from_arrays(arrays, schema=schema)",
    '  File "pyarrow/table.pxi", line 4242, in pyarrow.lib.Table.validate',
)
_DS_BUILD_FRAMES = (
    '  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 1861, in _prepare_split_single',
    '    raise DatasetGenerationError("An error occurred while generating the dataset") from e',
)

FIRES = [
    ("automodel-config-class-mismatch", "ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM."),
    ("automodel-config-class-mismatch", "[rank1]: ValueError: Unrecognized configuration class <class 'transformers.models.llava.configuration_llava.LlavaConfig'> for this kind of AutoModel: AutoModelForCausalLM."),
    ("automodel-config-class-mismatch", "ValueError: Unrecognized configuration class <class 'transformers.models.vit.configuration_vit.ViTConfig'> to build an AutoTokenizer."),
    ("hf-weights-file-missing", "OSError: Error no file named model.safetensors, or pytorch_model.bin, found in directory out/checkpoint-500."),
    ("hf-weights-file-missing", "OSError: Error no file named pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt.index or flax_model.msgpack found in directory out/checkpoint-500."),
    ("hf-weights-file-missing", "OSError: Error no file named model.safetensors found in directory gpt2-bin."),
    ("hf-weights-file-missing", "OSError: acme/llama-7b-sft does not appear to have a file named pytorch_model.bin or model.safetensors."),
    ("hf-weights-file-missing", "OSError: acme/llama-7b-sft does not appear to have a file named pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt or flax_model.msgpack."),
    ("hf-weights-file-missing", "OSError: acme/llama-7b-sft does not appear to have a file named model.safetensors or model.safetensors.index.json and thus cannot be loaded with `safetensors`. Please do not set `use_safetensors=True`."),
    ("hf-weights-file-missing", "OSError: /models/llama-70b does not appear to have a file named model-00027-of-00030.safetensors which is required according to the checkpoint index."),
    ("trainer-resume-checkpoint-invalid", "[rank1]: ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60"),
    ("trainer-resume-checkpoint-invalid", "ValueError: No valid checkpoint found in output directory (runs/sft-7731042)"),
    ("sentencepiece-missing", "T5Tokenizer requires the SentencePiece library but it was not found in your environment. Checkout the instructions on the"),
    ("sentencepiece-missing", "SentencePieceExtractor requires the SentencePiece library but it was not found in your environment. Check out the instructions on the"),
    ("sentencepiece-missing", "ValueError: Cannot instantiate this tokenizer from a slow version. If it's based on sentencepiece, make sure you have sentencepiece installed."),
    ("sentencepiece-missing", "ValueError: This tokenizer cannot be instantiated. Please make sure you have `sentencepiece` installed in order to use this tokenizer."),
    ("sentencepiece-missing", "You need to have sentencepiece or tiktoken installed to convert a slow tokenizer to a fast one."),
    ("sentencepiece-missing-tiktoken-fallback", "ValueError: Converting from Tiktoken failed, if a converter for SentencePiece is available, provide a model path with a SentencePiece tokenizer.model file.Currently available slow->fast convertors: ['AlbertTokenizer', 'BartTokenizer']"),
    ("sentencepiece-missing-tiktoken-fallback", "ValueError: No slow->fast converter found for T5Tokenizer and converting from Tiktoken failed. If a SentencePiece converter is available, provide a model path with a SentencePiece tokenizer.model file. Currently available slow->fast converters: ['AlbertTokenizer']"),
    ("sentencepiece-missing-tiktoken-required", "ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`."),
    ("sentencepiece-conversion-needs-protobuf", ('  File "/opt/venv/lib/python3.10/site-packages/transformers/convert_slow_tokenizer.py", line 38, in import_protobuf',
                                                 "LlamaConverter requires the protobuf library but it was not found in your environment. Checkout the instructions on the")),
    ("datasets-data-files-columns-differ", "All the data files must have the same columns, but at some point there are 1 new columns ({'source'})"),
    ("datasets-data-files-columns-differ", "because column names don't match"),
    ("datasets-data-files-columns-differ", "Please either edit the data files to have matching columns, or separate them into different configurations (see docs at https://hf.co/docs/hub/datasets-manual-configuration#multiple-configurations)"),
    ("datasets-data-files-type-conflict", (*_DS_BUILD_FRAMES, "pyarrow.lib.ArrowInvalid: JSON parse error: Column(/score) changed from number to string in row 76")),
    ("datasets-data-files-type-conflict", ("Generating train split: 0 examples [00:00, ? examples/s]Failed to load JSON from file '/data/train.jsonl' with error <class 'pyarrow.lib.ArrowInvalid'>: JSON parse error: Column(/meta/lang) changed from string to array in row 12",)),
    ("datasets-data-files-type-conflict", (*_DS_BUILD_FRAMES, "pyarrow.lib.ArrowInvalid: Failed to parse string: 'positive' as a scalar of type int64")),
    ("datasets-data-files-type-conflict", (*_DS_BUILD_FRAMES, "TypeError: Couldn't cast array of type string to int64")),
    ("datasets-map-batched-length-mismatch", (*_DS_MAP_FRAMES, "pyarrow.lib.ArrowInvalid: Column 2 named input_ids expected length 1000 but got length 4000")),
    ("datasets-map-batched-length-mismatch", ("Map (num_proc=4):   0%|          | 0/2000 [00:01<?, ? examples/s]",
                                              "pyarrow.lib.ArrowInvalid: Column 2 named input_ids expected length 500 but got length 1070")),
]

NEAR_MISSES = [
    # an unknown model type is the installed release's gap, another entry
    ("automodel-config-class-mismatch", "ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture."),
    ("automodel-config-class-mismatch", "ValueError: Unrecognized model in lora-out. Should have a `model_type` key in its config.json, or contain one of the following strings in its name: albert, align"),
    # a config.json missing from a local folder names no weight file
    ("hf-weights-file-missing", "OSError: ./ckpt does not appear to have a file named config.json. Checkout 'https://huggingface.co/./ckpt/tree/None' for available files."),
    # a tokenizer file missing from a repo is not a weight file
    ("hf-weights-file-missing", "OSError: acme/tok does not appear to have a file named tokenizer.model. Checkout 'https://huggingface.co/acme/tok/tree/main' for available files."),
    # DeepSpeed's own failed load of a checkpoint it found is another matter
    ("trainer-resume-checkpoint-invalid", "ValueError: [deepspeed] failed to resume from checkpoint out/checkpoint-500"),
    ("trainer-resume-checkpoint-invalid", "Loading model from out/checkpoint-500."),
    # sentencepiece present and the file itself broken
    ("sentencepiece-missing", "RuntimeError: Internal: src/sentencepiece_processor.cc(1101) [model_proto->ParseFromArray(serialized.data(), serialized.size())]"),
    # protobuf's own descriptor error is an environment kind of its own, and without a tokenizer around it not this entry
    ("sentencepiece-conversion-needs-protobuf", "TypeError: Descriptors cannot be created directly."),
    ("sentencepiece-conversion-needs-protobuf", "ImportError: MyExporter requires the protobuf library but it was not found in your environment."),
    # a malformed JSON line is not a type conflict
    ("datasets-data-files-type-conflict", (*_DS_BUILD_FRAMES, "pyarrow.lib.ArrowInvalid: JSON parse error: Invalid value. in row 0")),
    # the same pyarrow cast error in a user's own pandas/pyarrow code, no datasets around it
    ("datasets-data-files-type-conflict", "pyarrow.lib.ArrowInvalid: Failed to parse string: 'n/a' as a scalar of type double"),
    # pyarrow's length check in the user's own table building, not a datasets map
    ("datasets-map-batched-length-mismatch", "pyarrow.lib.ArrowInvalid: Column 1 named score expected length 10 but got length 9"),
    # torch's collate of unequal samples is another entry
    ("datasets-map-batched-length-mismatch", (*_DS_MAP_FRAMES[:1], "RuntimeError: stack expects each tensor to be equal size, but got [512] at entry 0 and [384] at entry 1")),
]

DECIDED_BY_CONTEXT = [
    # 5.x: the tiktoken error is the last line; the warning above it says sentencepiece is what is missing
    (("[transformers] Could not extract SentencePiece model from /models/t5-base/spiece.model using sentencepiece library due to ",
      "SentencePieceExtractor requires the SentencePiece library but it was not found in your environment. Check out the instructions on the",
      ". Falling back to TikToken extractor.",
      "ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`."), "sentencepiece-missing"),
    # a ZeRO-3 run saved without gathering, then the load of its output folder
    (("stage3_gather_16bit_weights_on_model_save=false. Saving the full checkpoint instead, use zero_to_fp32.py to recover weights",
      "OSError: Error no file named model.safetensors, or pytorch_model.bin, found in directory out/final."), "hf-model-weights-file-missing"),
    # a Slurm requeue appending to one output file: the same launch command runs again, and the first attempt's
    # preemption is not what ended this log; the second attempt's resume failure is
    (("+ srun --kill-on-bad-exit=1 torchrun --nproc_per_node 2 train.py --resume_from_checkpoint True",
      "slurmstepd: error: *** JOB 7731042 ON gpu-st-3 CANCELLED AT 2026-11-30T03:58:44 DUE TO PREEMPTION ***",
      "+ srun --kill-on-bad-exit=1 torchrun --nproc_per_node 2 train.py --resume_from_checkpoint True",
      "[rank0]: ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60"), "trainer-resume-checkpoint-invalid"),
    # a different command after the cancel is no relaunch: the scheduler's cancel stays the first failure
    (("+ python train.py --resume_from_checkpoint True",
      "slurmstepd: error: *** JOB 7731042 ON gpu-st-3 CANCELLED AT 2026-11-30T03:58:44 DUE TO PREEMPTION ***",
      "+ python eval.py",
      "ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60"), "slurm-time-limit"),
]
