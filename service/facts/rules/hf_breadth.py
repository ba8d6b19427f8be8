"""The Hugging Face stack, more breadth (kb-hf's third module): loading a checkpoint with the wrong Auto class or
from a folder without weights, the Trainer resuming from no checkpoint or an interrupted one, tokenizers that need
sentencepiece, and datasets' schema and batched-map errors.

Every pattern quotes the line it was written for; the texts were read in the released wheels named in each entry's
``affected.software`` (transformers 4.46.3 and 5.24.0, datasets 2.21.0 and 4.4.1) and captured by running the
failing program on CPU with them (pyarrow 26.0.1 underneath).
"""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

# The datasets frames a pyarrow error must come through to be one of datasets' loading or map errors.
_DATASETS_BUILD = r"datasets/(?:builder|table|arrow_writer|load)\.py|DatasetGeneration(?:Cast)?Error|Generating \w+ split"
_DATASETS_MAP = r"datasets/(?:arrow_dataset|arrow_writer)\.py|\bMap(?: \(num_proc=\d+\))?:"

RULES: tuple[Rule, ...] = (
    # --- transformers: the Auto class and the checkpoint's config ---
    Rule(
        "automodel-config-class-mismatch",
        "automodel-config-class-mismatch",
        (
            # auto_factory.py (4.46.3, 5.24.0): "ValueError: Unrecognized configuration class <class
            #  'transformers.models.t5.configuration_t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM."
            r"Unrecognized configuration class <class '[\w.]+'> for this kind of AutoModel: \w+",
            # tokenization_auto.py: "ValueError: Unrecognized configuration class <class '...'> to build an AutoTokenizer."
            r"Unrecognized configuration class <class '[\w.]+'> to build an AutoTokenizer",
        ),
        0.95,
    ),
    # --- transformers: a folder or repo without a weight file ---
    Rule(
        "hf-weights-file-missing",
        "hf-model-weights-file-missing",
        (
            # 5.24.0 modeling_utils.py: "OSError: Error no file named model.safetensors, or pytorch_model.bin, found in
            #  directory out/checkpoint-500."; 4.46.3: "OSError: Error no file named pytorch_model.bin, model.safetensors,
            #  tf_model.h5, model.ckpt.index or flax_model.msgpack found in directory out/checkpoint-500."; with
            #  use_safetensors=True: "Error no file named model.safetensors found in directory gpt2-bin."
            r"Error no file named [\w.-]+(?:, (?:or )?[\w.-]+)*,? (?:or [\w.-]+ )?found in directory",
            # hub repos: "OSError: org/model does not appear to have a file named pytorch_model.bin or model.safetensors."
            #  (5.x); "... pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt or flax_model.msgpack." (4.x)
            r"does not appear to have a file named (?:pytorch_model|model)[\w.-]*\.(?:bin|safetensors)(?:,| or)",
            # "... does not appear to have a file named model.safetensors or model.safetensors.index.json and thus cannot
            #  be loaded with `safetensors`."
            r"and thus cannot be loaded with `safetensors`",
            # hub.py get_checkpoint_shard_files: "... does not appear to have a file named model-00002-of-00004.safetensors
            #  which is required according to the checkpoint index."
            r"does not appear to have a file named \S+ which is required according to the checkpoint index",
        ),
        0.93,
        boosts=(Boost(0.03, "the run saved a ZeRO-3 checkpoint without gathering the weights",
                      line=r"stage3_gather_16bit_weights_on_model_save=false\. Saving the full checkpoint instead"),),
    ),
    # --- the HF Trainer resuming ---
    Rule(
        "trainer-resume-checkpoint-invalid",
        "trainer-resume-checkpoint-invalid",
        (
            # trainer.py _load_from_checkpoint (4.46.3, 5.24.0) and integrations/deepspeed.py deepspeed_load_checkpoint:
            #  "ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60"
            r"ValueError: Can't find a valid checkpoint at \S+",
            # trainer.py train() with resume_from_checkpoint=True: "ValueError: No valid checkpoint found in output
            #  directory (runs/sft-7731042)"
            r"No valid checkpoint found in output directory \(",
        ),
        0.93,
    ),
    # --- tokenizers that need sentencepiece (or tiktoken/protobuf) ---
    Rule(
        "sentencepiece-missing",
        "sentencepiece-missing",
        (
            # import_utils.py SENTENCEPIECE_IMPORT_ERROR (4.46.3 "Checkout", 5.24.0 "Check out"): "T5Tokenizer requires the
            #  SentencePiece library but it was not found in your environment. Checkout the instructions on the"; 5.24.0
            #  logs it inside "[transformers] Could not extract SentencePiece model from ... due to" before falling back
            r"\w+ requires the SentencePiece library but it was not found in your environment",
            # 4.46.3 tokenization_utils_fast.py: "ValueError: Cannot instantiate this tokenizer from a slow version. If
            #  it's based on sentencepiece, make sure you have sentencepiece installed."
            r"If it's based on sentencepiece, make sure you have sentencepiece installed",
            # 4.46.3 tokenization_auto.py: "ValueError: This tokenizer cannot be instantiated. Please make sure you have
            #  `sentencepiece` installed in order to use this tokenizer."
            r"Please make sure you have `sentencepiece` installed in order to use this tokenizer",
            # 4.46.3 and 5.24.0: "You need to have sentencepiece or tiktoken installed to convert a slow tokenizer to a fast one."
            r"You need to have sentencepiece or tiktoken installed to convert a slow tokenizer",
        ),
        0.95,
    ),
    Rule(
        "sentencepiece-missing-tiktoken-fallback",
        "sentencepiece-missing",
        (
            # 4.46.3 convert_slow_tokenizer.py (the fast class with no slow class to convert): "ValueError: Converting
            #  from Tiktoken failed, if a converter for SentencePiece is available, provide a model path with a
            #  SentencePiece tokenizer.model file.Currently available slow->fast convertors: [...]"
            r"Converting from Tiktoken failed, if a converter for SentencePiece is available",
            # 5.24.0: "ValueError: No slow->fast converter found for X and converting from Tiktoken failed. If a
            #  SentencePiece converter is available, provide a model path with a SentencePiece tokenizer.model file."
            r"converting from Tiktoken failed\. If a SentencePiece converter is available",
        ),
        0.85,
        boosts=(Boost(0.1, "the log also says the SentencePiece library is missing",
                      line=r"requires the SentencePiece library but it was not found"),),
    ),
    Rule(
        "sentencepiece-missing-tiktoken-required",
        "sentencepiece-missing",
        # 5.24.0 convert_slow_tokenizer.py load_tiktoken_bpe, reached after the SentencePiece extraction failed:
        #  "ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`."
        (r"`tiktoken` is required to read a `tiktoken` file",),
        0.8,
        boosts=(Boost(0.12, "the SentencePiece extraction failed first for want of the library",
                      line=r"Could not extract SentencePiece model from .* using sentencepiece library"),),
    ),
    Rule(
        "sentencepiece-conversion-needs-protobuf",
        "sentencepiece-missing",
        # import_utils.py PROTOBUF_IMPORT_ERROR, raised by convert_slow_tokenizer.import_protobuf: "ImportError:
        #  ... requires the protobuf library but it was not found in your environment. Checkout the instructions on the"
        (r"requires the protobuf library but it was not found in your environment",),
        0.85,
        needs=(r"convert_slow_tokenizer|[Tt]okeniz",),
    ),
    # --- datasets: data files that disagree ---
    Rule(
        "datasets-data-files-columns-differ",
        "datasets-data-files-schema-mismatch",
        (
            # builder.py (2.21.0, 4.4.1): "datasets.exceptions.DatasetGenerationCastError: An error occurred while
            #  generating the dataset" + "All the data files must have the same columns, but at some point there are 1
            #  new columns ({'source'})"
            r"All the data files must have the same columns, but at some point there (?:are|is)",
            # table.py cast_table_to_schema: "datasets.table.CastError: Couldn't cast" ... "because column names don't match"
            r"^because column names don't match\s*$",
            r"Please either edit the data files to have matching columns, or separate them into different configurations",
        ),
        0.93,
    ),
    Rule(
        "datasets-data-files-type-conflict",
        "datasets-data-files-schema-mismatch",
        (
            # pyarrow's JSON reader under datasets' json builder: "pyarrow.lib.ArrowInvalid: JSON parse error:
            #  Column(/score) changed from number to string in row 76" (also in "Failed to load JSON from file '...'
            #  with error <class 'pyarrow.lib.ArrowInvalid'>: JSON parse error: Column(/score) changed ...")
            r"JSON parse error: Column\([^)]*\) changed from \w+ to \w+ in row \d+",
            # pyarrow's cast through datasets' table_cast: "pyarrow.lib.ArrowInvalid: Failed to parse string: 'positive'
            #  as a scalar of type int64"
            r"ArrowInvalid: Failed to parse string: '.*' as a scalar of type \w+",
            # table.py array_cast / cast_array_to_feature: "TypeError: Couldn't cast array of type string to int64" (or
            #  with the types on their own lines: "Couldn't cast array of type")
            r"TypeError: Couldn't cast array of type\b",
        ),
        0.85,
        needs=(_DATASETS_BUILD,),
    ),
    # --- datasets: a batched map that changes the row count ---
    Rule(
        "datasets-map-batched-length-mismatch",
        "datasets-map-batched-length-mismatch",
        # pyarrow Table.validate via datasets' ArrowWriter.write_batch: "pyarrow.lib.ArrowInvalid: Column 2 named
        #  input_ids expected length 1000 but got length 4000"
        (r"ArrowInvalid: Column \d+ named \S+ expected length \d+ but got length \d+",),
        0.9,
        needs=(_DATASETS_MAP,),
    ),
)
