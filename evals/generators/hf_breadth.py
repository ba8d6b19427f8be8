#!/usr/bin/env python3
"""Write the eval cases of kb-hf's third set of entries: the wrong Auto class for a checkpoint, a folder without
weight files, the Trainer resuming from no checkpoint or an interrupted one, tokenizers that need sentencepiece,
and datasets' schema and batched-map errors.

Every traceback here was captured from a real failing program run on this CPU machine (transformers 4.46.3 and
5.24.0, datasets 2.21.0 and 4.4.1, pyarrow 26.0.1, torch 2.13.0 CPU with gloo under torchrun for the two 2-rank
runs), each installed with pip into a --target folder; only the paths were changed (site-packages, the project
folder, the script and model folder names) to a user's. Around a capture, the lines a user's shell or job prints
before it (the command, pip output, a training log's last lines) are written as those tools print them. Every
case was written before crashdoc ran on it.

Usage:  python evals/generators/hf_breadth.py [--out DIR]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, block, parser, write_all  # noqa: E402  (case writer, text)

CASES: list[Case] = []


def case(fn):
    CASES.append(fn())
    return fn


# --------------------------------------------------------------------------------------------------
# The captures (stdout and stderr of the failing programs, in the order printed).

A1 = """\
[rank 1] loading models/flan-t5-small
[rank 0] loading models/flan-t5-small
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/priya/t5-sft/sft.py", line 10, in <module>
[rank1]:     model = AutoModelForCausalLM.from_pretrained("models/flan-t5-small")
[rank1]:             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank1]:   File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 567, in from_pretrained
[rank1]:     raise ValueError(
[rank1]: ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM.
[rank1]: Model type should be one of BartConfig, BertConfig, BertGenerationConfig, BigBirdConfig, BigBirdPegasusConfig, BioGptConfig, BlenderbotConfig, BlenderbotSmallConfig, BloomConfig, CamembertConfig, LlamaConfig, CodeGenConfig, CohereConfig, CpmAntConfig, CTRLConfig, Data2VecTextConfig, DbrxConfig, ElectraConfig, ErnieConfig, FalconConfig, FalconMambaConfig, FuyuConfig, GemmaConfig, Gemma2Config, GitConfig, GlmConfig, GPT2Config, GPT2Config, GPTBigCodeConfig, GPTNeoConfig, GPTNeoXConfig, GPTNeoXJapaneseConfig, GPTJConfig, GraniteConfig, GraniteMoeConfig, JambaConfig, JetMoeConfig, LlamaConfig, MambaConfig, Mamba2Config, MarianConfig, MBartConfig, MegaConfig, MegatronBertConfig, MistralConfig, MixtralConfig, MllamaConfig, MoshiConfig, MptConfig, MusicgenConfig, MusicgenMelodyConfig, MvpConfig, NemotronConfig, OlmoConfig, OlmoeConfig, OpenLlamaConfig, OpenAIGPTConfig, OPTConfig, PegasusConfig, PersimmonConfig, PhiConfig, Phi3Config, PhimoeConfig, PLBartConfig, ProphetNetConfig, QDQBertConfig, Qwen2Config, Qwen2MoeConfig, RecurrentGemmaConfig, ReformerConfig, RemBertConfig, RobertaConfig, RobertaPreLayerNormConfig, RoCBertConfig, RoFormerConfig, RwkvConfig, Speech2Text2Config, StableLmConfig, Starcoder2Config, TransfoXLConfig, TrOCRConfig, WhisperConfig, XGLMConfig, XLMConfig, XLMProphetNetConfig, XLMRobertaConfig, XLMRobertaXLConfig, XLNetConfig, XmodConfig, ZambaConfig.
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/priya/t5-sft/sft.py", line 10, in <module>
[rank0]:     model = AutoModelForCausalLM.from_pretrained("models/flan-t5-small")
[rank0]:             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 567, in from_pretrained
[rank0]:     raise ValueError(
[rank0]: ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM.
[rank0]: Model type should be one of BartConfig, BertConfig, BertGenerationConfig, BigBirdConfig, BigBirdPegasusConfig, BioGptConfig, BlenderbotConfig, BlenderbotSmallConfig, BloomConfig, CamembertConfig, LlamaConfig, CodeGenConfig, CohereConfig, CpmAntConfig, CTRLConfig, Data2VecTextConfig, DbrxConfig, ElectraConfig, ErnieConfig, FalconConfig, FalconMambaConfig, FuyuConfig, GemmaConfig, Gemma2Config, GitConfig, GlmConfig, GPT2Config, GPT2Config, GPTBigCodeConfig, GPTNeoConfig, GPTNeoXConfig, GPTNeoXJapaneseConfig, GPTJConfig, GraniteConfig, GraniteMoeConfig, JambaConfig, JetMoeConfig, LlamaConfig, MambaConfig, Mamba2Config, MarianConfig, MBartConfig, MegaConfig, MegatronBertConfig, MistralConfig, MixtralConfig, MllamaConfig, MoshiConfig, MptConfig, MusicgenConfig, MusicgenMelodyConfig, MvpConfig, NemotronConfig, OlmoConfig, OlmoeConfig, OpenLlamaConfig, OpenAIGPTConfig, OPTConfig, PegasusConfig, PersimmonConfig, PhiConfig, Phi3Config, PhimoeConfig, PLBartConfig, ProphetNetConfig, QDQBertConfig, Qwen2Config, Qwen2MoeConfig, RecurrentGemmaConfig, ReformerConfig, RemBertConfig, RobertaConfig, RobertaPreLayerNormConfig, RoCBertConfig, RoFormerConfig, RwkvConfig, Speech2Text2Config, StableLmConfig, Starcoder2Config, TransfoXLConfig, TrOCRConfig, WhisperConfig, XGLMConfig, XLMConfig, XLMProphetNetConfig, XLMRobertaConfig, XLMRobertaXLConfig, XLNetConfig, XmodConfig, ZambaConfig.
W1202 13:53:31.484000 20219 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 20291 closing signal SIGTERM
E1202 13:53:31.553000 20219 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 1 (pid: 20292) of binary: /home/priya/t5-sft/.venv/bin/python
Traceback (most recent call last):
  File "/home/priya/t5-sft/.venv/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/home/priya/t5-sft/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
sft.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-02_13:53:31
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 20291)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 20291
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-02_13:53:31
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 20292) 
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

A2 = """\
Traceback (most recent call last):
  File "/workspace/vlm-sft/train_vlm.py", line 4, in <module>
    model = AutoModelForCausalLM.from_pretrained("checkpoints/llava-1.5-7b")
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 409, in from_pretrained
    raise ValueError(
ValueError: Unrecognized configuration class <class 'transformers.models.llava.configuration_llava.LlavaConfig'> for this kind of AutoModel: AutoModelForCausalLM.
Model type should be one of GPT2Config, AfmoeConfig, ApertusConfig, Apertus1p5TextConfig, ArceeConfig, AriaTextConfig, AXK1Config, AXK2Config, BailingHybridConfig, BambaConfig, BartConfig, BeamConfig, BertConfig, BertGenerationConfig, BigBirdConfig, BigBirdPegasusConfig, BioGptConfig, BitNetConfig, BlenderbotConfig, BlenderbotSmallConfig, BloomConfig, BltConfig, CamembertConfig, CodeGenConfig, CohereConfig, Cohere2Config, Cohere2MoeConfig, CohereCompassTextConfig, CpmAntConfig, CTRLConfig, CwmConfig, Data2VecTextConfig, DbrxConfig, DeepseekV2Config, DeepseekV3Config, DeepseekV32Config, DeepseekV4Config, DiffLlamaConfig, DogeConfig, DoryConfig, Dots1Config, Dots3NoteConfig, Dots3NoteTextConfig, ElectraConfig, Emu3Config, ErnieConfig, Ernie4_5Config, Ernie4_5_MoeConfig, ExaoneConfig, Exaone4Config, ExaoneMoeConfig, FalconConfig, FalconH1Config, FalconMambaConfig, FlexOlmoConfig, FlintConfig, FuyuConfig, GemmaConfig, Gemma2Config, Gemma3Config, Gemma3TextConfig, Gemma3nConfig, Gemma3nTextConfig, Gemma4Config, Gemma4AssistantConfig, Gemma4TextConfig, Gemma4UnifiedConfig, Gemma4UnifiedAssistantConfig, Gemma4UnifiedTextConfig, GitConfig, GlmConfig, Glm4Config, Glm4MoeConfig, Glm4MoeLiteConfig, GlmMoeDsaConfig, GotOcr2Config, GPT2Config, GPTBigCodeConfig, GPTNeoConfig, GPTNeoXConfig, GPTNeoXJapaneseConfig, GptOssConfig, GPTJConfig, GraniteConfig, GraniteSWAConfig, GraniteMoeConfig, GraniteMoeSWAConfig, GraniteMoeHybridConfig, GraniteMoeSharedConfig, HeliumConfig, HrmTextConfig, HunYuanDenseV1Config, HunYuanMoEV1Config, HYV3Config, HYV4Config, HyperCLOVAXConfig, Inkling2LoopTextConfig, Inkling2TextConfig, InklingTextConfig, InternLM3Config, IQuestCoderConfig, Jais2Config, JambaConfig, JetMoeConfig, KimiLinearConfig, Kolibri1Config, LagunaConfig, LaraMiniConfig, Lfm2Config, Lfm2MoeConfig, Lfm3Config, LlamaConfig, Llama4Config, Llama4TextConfig, LongcatFlashConfig, MambaConfig, Mamba2Config, MarianConfig, MBartConfig, MegatronBertConfig, MellumConfig, MiMoV2FlashConfig, MiniCPM3Config, MiniMaxConfig, MiniMaxM2Config, MiniMaxM3VLTextConfig, MinistralConfig, Ministral3Config, MistralConfig, MixtralConfig, MllamaConfig, ModernBertDecoderConfig, MoshiConfig, MossTranscribeDiarizeConfig, MptConfig, MusicgenConfig, MusicgenMelodyConfig, MvpConfig, NanoChatConfig, NemotronConfig, NemotronHConfig, OlmoConfig, Olmo2Config, Olmo3Config, OlmoHybridConfig, OlmoeConfig, OpenAIGPTConfig, OPTConfig, PegasusConfig, PersimmonConfig, PhiConfig, Phi3Config, Phi4MultimodalConfig, PhimoeConfig, PLBartConfig, ProphetNetConfig, Qwen2Config, Qwen2MoeConfig, Qwen3Config, Qwen3_5Config, Qwen3_5MoeConfig, Qwen3_5MoeTextConfig, Qwen3_5TextConfig, Qwen3MoeConfig, Qwen3NextConfig, Qwen4ExpConfig, Qwen4ExpTextConfig, RecurrentGemmaConfig, ReformerConfig, RemBertConfig, RobertaConfig, RobertaPreLayerNormConfig, RoCBertConfig, RoFormerConfig, RwkvConfig, SarvamMLAConfig, SarvamMoEConfig, SeedOssConfig, SmolLM3Config, SolarOpenConfig, StableLmConfig, Starcoder2Config, TrOCRConfig, VaultGemmaConfig, WhisperConfig, XGLMConfig, XLMConfig, XLMRobertaConfig, XLMRobertaXLConfig, XLNetConfig, xLSTMConfig, XmodConfig, YoutuConfig, ZambaConfig, Zamba2Config, ZayaConfig.
"""

W1 = """\
Traceback (most recent call last):
  File "/scratch/jdoe/llm-sft/eval_sft.py", line 5, in <module>
    model = AutoModelForCausalLM.from_pretrained("out/final")
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/envs/train/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 564, in from_pretrained
    return model_class.from_pretrained(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/envs/train/lib/python3.11/site-packages/transformers/modeling_utils.py", line 3763, in from_pretrained
    raise EnvironmentError(
OSError: Error no file named pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt.index or flax_model.msgpack found in directory out/final.
"""

W2 = """\
[transformers] Model config: bos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
[transformers] Model config: eos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
Traceback (most recent call last):
  File "/home/mk/fsdp-run/export_merged.py", line 5, in <module>
    model = AutoModelForCausalLM.from_pretrained("outputs/qwen-fsdp/checkpoint-2000")
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mk/venvs/hf5/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 406, in from_pretrained
    return model_class.from_pretrained(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mk/venvs/hf5/lib/python3.11/site-packages/transformers/modeling_utils.py", line 4331, in from_pretrained
    checkpoint_files, sharded_metadata = _get_resolved_checkpoint_files(
                                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/mk/venvs/hf5/lib/python3.11/site-packages/transformers/modeling_utils.py", line 627, in _get_resolved_checkpoint_files
    raise OSError(
OSError: Error no file named model.safetensors, or pytorch_model.bin, found in directory outputs/qwen-fsdp/checkpoint-2000.
"""

W3 = """\
Traceback (most recent call last):
  File "/app/serve.py", line 5, in <module>
    model = AutoModelForCausalLM.from_pretrained("/models/opt-1.3b-support", use_safetensors=True)
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 564, in from_pretrained
    return model_class.from_pretrained(
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/site-packages/transformers/modeling_utils.py", line 3758, in from_pretrained
    raise EnvironmentError(
OSError: Error no file named model.safetensors found in directory /models/opt-1.3b-support.
"""

S1 = """\
Traceback (most recent call last):
  File "/content/translate.py", line 7, in <module>
    tok = AutoTokenizer.from_pretrained("models/mt5-base-ft", use_fast=(sys.argv[1] == "fast"))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/dist-packages/transformers/models/auto/tokenization_auto.py", line 920, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/dist-packages/transformers/utils/import_utils.py", line 1651, in __getattribute__
    requires_backends(cls, cls._backends)
  File "/usr/local/lib/python3.11/dist-packages/transformers/utils/import_utils.py", line 1639, in requires_backends
    raise ImportError("".join(failed))
ImportError: 
T5Tokenizer requires the SentencePiece library but it was not found in your environment. Checkout the instructions on the
installation page of its repo: https://github.com/google/sentencepiece#installation and follow the ones
that match your environment. Please note that you may need to restart your runtime after installation.

"""

S2 = """\
Traceback (most recent call last):
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1636, in convert_slow_tokenizer
    ).converted()
      ^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1533, in converted
    tokenizer = self.tokenizer()
                ^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1526, in tokenizer
    vocab_scores, merges = self.extract_vocab_merges_from_model(self.vocab_file)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1502, in extract_vocab_merges_from_model
    bpe_ranks = load_tiktoken_bpe(tiktoken_url)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/tiktoken/load.py", line 161, in load_tiktoken_bpe
    contents = read_file_cached(tiktoken_bpe_file, expected_hash)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/tiktoken/load.py", line 51, in read_file_cached
    cache_key = hashlib.sha1(blobpath.encode()).hexdigest()
                             ^^^^^^^^^^^^^^^
AttributeError: 'NoneType' object has no attribute 'encode'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/ana/mt/translate.py", line 7, in <module>
    tok = AutoTokenizer.from_pretrained("ckpt/t5-small-de-en", use_fast=(sys.argv[1] == "fast"))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/models/auto/tokenization_auto.py", line 920, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_base.py", line 2213, in from_pretrained
    return cls._from_pretrained(
           ^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_base.py", line 2447, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/models/t5/tokenization_t5_fast.py", line 119, in __init__
    super().__init__(
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_fast.py", line 138, in __init__
    fast_tokenizer = convert_slow_tokenizer(self, from_tiktoken=True)
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/mt/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1638, in convert_slow_tokenizer
    raise ValueError(
ValueError: Converting from Tiktoken failed, if a converter for SentencePiece is available, provide a model path with a SentencePiece tokenizer.model file.Currently available slow->fast convertors: ['AlbertTokenizer', 'BartTokenizer', 'BarthezTokenizer', 'BertTokenizer', 'BigBirdTokenizer', 'BlenderbotTokenizer', 'CamembertTokenizer', 'CLIPTokenizer', 'CodeGenTokenizer', 'ConvBertTokenizer', 'DebertaTokenizer', 'DebertaV2Tokenizer', 'DistilBertTokenizer', 'DPRReaderTokenizer', 'DPRQuestionEncoderTokenizer', 'DPRContextEncoderTokenizer', 'ElectraTokenizer', 'FNetTokenizer', 'FunnelTokenizer', 'GPT2Tokenizer', 'HerbertTokenizer', 'LayoutLMTokenizer', 'LayoutLMv2Tokenizer', 'LayoutLMv3Tokenizer', 'LayoutXLMTokenizer', 'LongformerTokenizer', 'LEDTokenizer', 'LxmertTokenizer', 'MarkupLMTokenizer', 'MBartTokenizer', 'MBart50Tokenizer', 'MPNetTokenizer', 'MobileBertTokenizer', 'MvpTokenizer', 'NllbTokenizer', 'OpenAIGPTTokenizer', 'PegasusTokenizer', 'Qwen2Tokenizer', 'RealmTokenizer', 'ReformerTokenizer', 'RemBertTokenizer', 'RetriBertTokenizer', 'RobertaTokenizer', 'RoFormerTokenizer', 'SeamlessM4TTokenizer', 'SqueezeBertTokenizer', 'T5Tokenizer', 'UdopTokenizer', 'WhisperTokenizer', 'XLMRobertaTokenizer', 'XLNetTokenizer', 'SplinterTokenizer', 'XGLMTokenizer', 'LlamaTokenizer', 'CodeLlamaTokenizer', 'GemmaTokenizer', 'Phi3Tokenizer']
"""

S3 = """\
[transformers] PyTorch was not found. Models won't be available and only tokenizers, configuration and file/data utilities can be used.
[transformers] Could not extract SentencePiece model from /srv/models/flan-t5-large/spiece.model using sentencepiece library due to 
SentencePieceExtractor requires the SentencePiece library but it was not found in your environment. Check out the instructions on the
installation page of its repo: https://github.com/google/sentencepiece#installation and follow the ones
that match your environment. Please note that you may need to restart your runtime after installation.
. Falling back to TikToken extractor.
Traceback (most recent call last):
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1975, in load_tiktoken_bpe
    from tiktoken.load import load_tiktoken_bpe
ModuleNotFoundError: No module named 'tiktoken'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/prep/tokenize_corpus.py", line 7, in <module>
    tok = AutoTokenizer.from_pretrained("/srv/models/flan-t5-large", use_fast=(sys.argv[1] == "fast"))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/models/auto/tokenization_auto.py", line 986, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_base.py", line 1777, in from_pretrained
    return cls._from_pretrained(
           ^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_base.py", line 1968, in _from_pretrained
    init_kwargs = cls.convert_to_native_format(**init_kwargs)
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_tokenizers.py", line 227, in convert_to_native_format
    local_kwargs = cls._convert_from_tiktoken(vocab_file, local_kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_tokenizers.py", line 288, in _convert_from_tiktoken
    base_vocab_size = len(TikTokenConverter.load_tiktoken_bpe(vocab_file))
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/srv/prep/.venv/lib/python3.11/site-packages/transformers/convert_slow_tokenizer.py", line 1977, in load_tiktoken_bpe
    raise ValueError(
ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`.
"""

D1 = """\

Generating train split: 0 examples [00:00, ? examples/s]
Generating train split: 50 examples [00:00, 3306.19 examples/s]
Traceback (most recent call last):
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/builder.py", line 1834, in _prepare_split_single
    writer.write_table(table)
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/arrow_writer.py", line 714, in write_table
    pa_table = table_cast(pa_table, self._schema)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/table.py", line 2272, in table_cast
    return cast_table_to_schema(table, schema)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/table.py", line 2218, in cast_table_to_schema
    raise CastError(
datasets.table.CastError: Couldn't cast
prompt: string
response: string
source: string
to
{'prompt': Value('string'), 'response': Value('string')}
because column names don't match

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/lchen/sft/build_sft_mix.py", line 10, in <module>
    ds = load_dataset("json", data_files={"train": ["data/part-000.jsonl", "data/part-001.jsonl"]}, cache_dir="cache")
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/load.py", line 1417, in load_dataset
    builder_instance.download_and_prepare(
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/builder.py", line 897, in download_and_prepare
    self._download_and_prepare(
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/builder.py", line 973, in _download_and_prepare
    self._prepare_split(split_generator, **prepare_split_kwargs)
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/builder.py", line 1705, in _prepare_split
    for job_id, done, content in self._prepare_split_single(
  File "/home/lchen/sft/.venv/lib/python3.11/site-packages/datasets/builder.py", line 1836, in _prepare_split_single
    raise DatasetGenerationCastError.from_cast_error(
datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the dataset

All the data files must have the same columns, but at some point there are 1 new columns ({'source'})

This happened while the json dataset builder was generating data using

/home/lchen/sft/data/part-001.jsonl

Please either edit the data files to have matching columns, or separate them into different configurations (see docs at https://hf.co/docs/hub/datasets-manual-configuration#multiple-configurations)
"""

D2 = """\

Generating train split: 0 examples [00:00, ? examples/s]
Generating train split: 50 examples [00:00, 904.79 examples/s]
Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 2013, in _prepare_split_single
    writer.write_table(table)
  File "/opt/venv/lib/python3.11/site-packages/datasets/arrow_writer.py", line 585, in write_table
    pa_table = table_cast(pa_table, self._schema)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 2281, in table_cast
    return cast_table_to_schema(table, schema)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 2240, in cast_table_to_schema
    arrays = [cast_array_to_feature(table[name], feature) for name, feature in features.items()]
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 2240, in <listcomp>
    arrays = [cast_array_to_feature(table[name], feature) for name, feature in features.items()]
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 1795, in wrapper
    return pa.chunked_array([func(chunk, *args, **kwargs) for chunk in array.chunks])
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 1795, in <listcomp>
    return pa.chunked_array([func(chunk, *args, **kwargs) for chunk in array.chunks])
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 2098, in cast_array_to_feature
    return array_cast(
           ^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 1797, in wrapper
    return func(array, *args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/table.py", line 1949, in array_cast
    return array.cast(pa_type)
           ^^^^^^^^^^^^^^^^^^^
  File "pyarrow/array.pxi", line 1217, in pyarrow.lib.Array.cast
  File "/opt/venv/lib/python3.11/site-packages/pyarrow/compute.py", line 415, in cast
    return call_function("cast", [arr], options, memory_pool)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "pyarrow/_compute.pyx", line 610, in pyarrow._compute.call_function
  File "pyarrow/_compute.pyx", line 405, in pyarrow._compute.Function.call
  File "pyarrow/error.pxi", line 155, in pyarrow.lib.pyarrow_internal_check_status
  File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
pyarrow.lib.ArrowInvalid: Failed to parse string: 'positive' as a scalar of type int64

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/workspace/cls/train_cls.py", line 10, in <module>
    ds = load_dataset("json", data_files=["data/a.jsonl", "data/b.jsonl"], cache_dir="cache2")
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/datasets/load.py", line 2628, in load_dataset
    builder_instance.download_and_prepare(
  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 1029, in download_and_prepare
    self._download_and_prepare(
  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 1124, in _download_and_prepare
    self._prepare_split(split_generator, **prepare_split_kwargs)
  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 1884, in _prepare_split
    for job_id, done, content in self._prepare_split_single(
  File "/opt/venv/lib/python3.11/site-packages/datasets/builder.py", line 2040, in _prepare_split_single
    raise DatasetGenerationError("An error occurred while generating the dataset") from e
datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset
"""

D3 = """\

Generating train split: 0 examples [00:00, ? examples/s]Failed to load JSON from file '/home/r.ortiz/reward/data/train.jsonl' with error <class 'pyarrow.lib.ArrowInvalid'>: JSON parse error: Column(/score) changed from number to string in row 76

Generating train split: 0 examples [00:00, ? examples/s]
Generating train split: 0 examples [00:00, ? examples/s]
Traceback (most recent call last):
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/packaged_modules/json/json.py", line 174, in _generate_tables
    df = pandas_read_json(f)
         ^^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/packaged_modules/json/json.py", line 38, in pandas_read_json
    return pd.read_json(path_or_buf, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1017, in read_json
    return json_reader.read()
           ^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1270, in read
    obj = self._read_ujson()
          ^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1320, in _read_ujson
    obj = self._get_object_parser(self.data)
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1344, in _get_object_parser
    return FrameParser(json, **kwargs).parse()
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1501, in parse
    obj = self._parse()
          ^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/pandas/io/json/_json.py", line 1837, in _parse
    ujson_loads(json, precise_float=self.precise_float), dtype=None
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: Trailing data at position 204

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/builder.py", line 1818, in _prepare_split_single
    for _, table in generator:
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/packaged_modules/json/json.py", line 177, in _generate_tables
    raise e
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/packaged_modules/json/json.py", line 151, in _generate_tables
    pa_table = paj.read_json(
               ^^^^^^^^^^^^^^
  File "pyarrow/_json.pyx", line 364, in pyarrow._json.read_json
  File "pyarrow/error.pxi", line 155, in pyarrow.lib.pyarrow_internal_check_status
  File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
pyarrow.lib.ArrowInvalid: JSON parse error: Column(/score) changed from number to string in row 76

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/r.ortiz/reward/prep_rm.py", line 7, in <module>
    ds = load_dataset("json", data_files="data/train.jsonl", cache_dir="cache3")
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/load.py", line 1417, in load_dataset
    builder_instance.download_and_prepare(
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/builder.py", line 897, in download_and_prepare
    self._download_and_prepare(
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/builder.py", line 973, in _download_and_prepare
    self._prepare_split(split_generator, **prepare_split_kwargs)
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/builder.py", line 1705, in _prepare_split
    for job_id, done, content in self._prepare_split_single(
  File "/home/r.ortiz/.local/lib/python3.11/site-packages/datasets/builder.py", line 1861, in _prepare_split_single
    raise DatasetGenerationError("An error occurred while generating the dataset") from e
datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset
"""

M1 = """\
Dataset({
    features: ['text', 'source'],
    num_rows: 2000
})

Map (num_proc=4):   0%|          | 0/2000 [00:00<?, ? examples/s]
Map (num_proc=4):   0%|          | 0/2000 [00:00<?, ? examples/s]
Map (num_proc=4):   0%|          | 0/2000 [00:01<?, ? examples/s]
Map (num_proc=4):   0%|          | 0/2000 [00:01<?, ? examples/s]
Map (num_proc=4):   0%|          | 0/2000 [00:01<?, ? examples/s]
multiprocess.pool.RemoteTraceback: 
\"\"\"
Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/multiprocess/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
                    ^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/datasets/utils/py_utils.py", line 586, in _write_generator_to_queue
    for i, result in enumerate(func(**kwargs)):
  File "/opt/conda/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 3712, in _map_single
    writer.write_batch(batch, try_original_type=try_original_type)
  File "/opt/conda/lib/python3.11/site-packages/datasets/arrow_writer.py", line 700, in write_batch
    pa_table = pa.Table.from_arrays(arrays, schema=schema)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "pyarrow/table.pxi", line 4894, in pyarrow.lib.Table.from_arrays
  File "pyarrow/table.pxi", line 4242, in pyarrow.lib.Table.validate
  File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
pyarrow.lib.ArrowInvalid: Column 2 named input_ids expected length 500 but got length 1070
\"\"\"

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/workspace/pretok/pretokenize.py", line 14, in <module>
    tokenized = raw.map(tokenize, batched=True, num_proc=4)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 562, in wrapper
    out: Union["Dataset", "DatasetDict"] = func(self, *args, **kwargs)
                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 3332, in map
    for rank, done, content in iflatmap_unordered(
  File "/opt/conda/lib/python3.11/site-packages/datasets/utils/py_utils.py", line 626, in iflatmap_unordered
    [async_result.get(timeout=0.05) for async_result in async_results]
  File "/opt/conda/lib/python3.11/site-packages/datasets/utils/py_utils.py", line 626, in <listcomp>
    [async_result.get(timeout=0.05) for async_result in async_results]
     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/site-packages/multiprocess/pool.py", line 774, in get
    raise self._value
pyarrow.lib.ArrowInvalid: Column 2 named input_ids expected length 500 but got length 1070
"""

M2 = """\
[rank 0] packing 3000 documents into blocks of 128

Grouping texts in chunks of 128:   0%|          | 0/3000 [00:00<?, ? examples/s]
Grouping texts in chunks of 128:   0%|          | 0/3000 [00:00<?, ? examples/s]
Grouping texts in chunks of 128:   0%|          | 0/3000 [00:00<?, ? examples/s]
[rank0]: Traceback (most recent call last):
[rank0]:   File "/fsx/tkim/lm-pretrain/pretrain.py", line 16, in <module>
[rank0]:     lm = raw.map(group_texts, batched=True, desc="Grouping texts in chunks of 128")
[rank0]:          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 602, in wrapper
[rank0]:     out: Union["Dataset", "DatasetDict"] = func(self, *args, **kwargs)
[rank0]:                                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 567, in wrapper
[rank0]:     out: Union["Dataset", "DatasetDict"] = func(self, *args, **kwargs)
[rank0]:                                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 3167, in map
[rank0]:     for rank, done, content in Dataset._map_single(**dataset_kwargs):
[rank0]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 3581, in _map_single
[rank0]:     writer.write_batch(batch)
[rank0]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/datasets/arrow_writer.py", line 571, in write_batch
[rank0]:     pa_table = pa.Table.from_arrays(arrays, schema=schema)
[rank0]:                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "pyarrow/table.pxi", line 4894, in pyarrow.lib.Table.from_arrays
[rank0]:   File "pyarrow/table.pxi", line 4242, in pyarrow.lib.Table.validate
[rank0]:   File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
[rank0]: pyarrow.lib.ArrowInvalid: Column 2 named input_ids expected length 1000 but got length 3006
[rank1]: Traceback (most recent call last):
[rank1]:   File "/fsx/tkim/lm-pretrain/pretrain.py", line 14, in <module>
[rank1]:     dist.barrier()
[rank1]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper
[rank1]:     return func(*args, **kwargs)
[rank1]:            ^^^^^^^^^^^^^^^^^^^^^
[rank1]:   File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 5356, in barrier
[rank1]:     work.wait()
[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:19641. This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️
W1202 14:01:07.147000 29806 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 30069 closing signal SIGTERM
E1202 14:01:07.262000 29806 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 30068) of binary: /fsx/tkim/envs/lm/bin/python
Traceback (most recent call last):
  File "/fsx/tkim/envs/lm/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/fsx/tkim/envs/lm/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
pretrain.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-02_14:01:07
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -15 (pid: 30069)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 30069
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-02_14:01:07
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 30068) 
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

R1 = """\
max_steps is given, it will override any value given in num_train_epochs
[rank1]: Traceback (most recent call last):
[rank1]:   File "/shared/svc-train/sft/train.py", line 15, in <module>
[rank1]:     trainer.train(resume_from_checkpoint=True if len(sys.argv) > 3 else None)
[rank1]:   File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/transformers/trainer.py", line 2095, in train
[rank1]:     self._load_from_checkpoint(resume_from_checkpoint)
[rank1]:   File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/transformers/trainer.py", line 2721, in _load_from_checkpoint
[rank1]:     raise ValueError(f"Can't find a valid checkpoint at {resume_from_checkpoint}")
[rank1]: ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60
max_steps is given, it will override any value given in num_train_epochs
[rank0]: Traceback (most recent call last):
[rank0]:   File "/shared/svc-train/sft/train.py", line 15, in <module>
[rank0]:     trainer.train(resume_from_checkpoint=True if len(sys.argv) > 3 else None)
[rank0]:   File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/transformers/trainer.py", line 2095, in train
[rank0]:     self._load_from_checkpoint(resume_from_checkpoint)
[rank0]:   File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/transformers/trainer.py", line 2721, in _load_from_checkpoint
[rank0]:     raise ValueError(f"Can't find a valid checkpoint at {resume_from_checkpoint}")
[rank0]: ValueError: Can't find a valid checkpoint at runs/sft/checkpoint-60
W1202 14:12:57.529000 18452 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 18542 closing signal SIGTERM
E1202 14:12:57.702000 18452 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 1 (pid: 18543) of binary: /shared/svc-train/envs/sft/bin/python
Traceback (most recent call last):
  File "/shared/svc-train/envs/sft/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/shared/svc-train/envs/sft/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-02_14:12:57
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 18542)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 18542
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-02_14:12:57
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 18543) 
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

R2 = """\
[transformers] Model config: bos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
[transformers] Model config: eos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
Traceback (most recent call last):
  File "/home/wliu/chat-sft/train.py", line 15, in <module>
    trainer.train(resume_from_checkpoint=True if len(sys.argv) > 3 else None)
  File "/home/wliu/.venv/lib/python3.11/site-packages/transformers/trainer.py", line 1557, in train
    raise ValueError(f"No valid checkpoint found in output directory ({args.output_dir})")
ValueError: No valid checkpoint found in output directory (outputs/sft-7731042)
"""

# --------------------------------------------------------------------------------------------------
# automodel-config-class-mismatch


@case
def automodel_flan_t5_causal_lm_torchrun() -> Case:
    log = block("""
        $ pip list 2>/dev/null | grep -E "^(torch|transformers) "
        torch                     2.13.0
        transformers              4.46.3
        $ OMP_NUM_THREADS=1 torchrun --nproc_per_node 2 sft.py
        """) + A1
    return Case(
        "automodel-config-class-mismatch-flan-t5-torchrun-captured-01", "automodel-config-class-mismatch", "easy",
        "Captured: a 2-rank torchrun (gloo, torch 2.13.0, transformers 4.46.3) causal-LM SFT script loads a local "
        "FLAN-T5 checkpoint with AutoModelForCausalLM; both ranks raise 'Unrecognized configuration class ... T5Config "
        "... for this kind of AutoModel: AutoModelForCausalLM' and torchrun reports rank 1 first",
        initiating_rank=[0, 1],
        facts={"launcher": "torchrun", "world_size": "2"},
        must_mention=["AutoModelForSeq2SeqLM"],
        files={"train.log": log},
    )


@case
def automodel_llava_causal_lm_v5() -> Case:
    log = block("""
        root@a3f9c2e1b7d4:/workspace/vlm-sft# python -c "import transformers; print(transformers.__version__)"
        5.24.0
        root@a3f9c2e1b7d4:/workspace/vlm-sft# python train_vlm.py
        """) + A2
    return Case(
        "automodel-config-class-mismatch-llava-causal-lm-captured-02", "automodel-config-class-mismatch", "easy",
        "Captured: transformers 5.24.0, a LLaVA checkpoint (LlavaConfig) loaded with AutoModelForCausalLM; the "
        "ValueError prints the whole list of causal-LM config classes on one line",
        facts={"transformers_version": "5.24.0"},
        must_mention=["AutoModelForImageTextToText"],
        files={"run.log": log},
    )


# --------------------------------------------------------------------------------------------------
# hf-model-weights-file-missing


@case
def weights_missing_zero3_final_folder() -> Case:
    steps = "\n".join(
        f"{{'loss': {1.92 - 0.013 * i:.4f}, 'grad_norm': {0.61 - 0.002 * i:.4f}, 'learning_rate': {2e-5 * (1 - i / 60):.3e}, 'epoch': {0.05 * (i + 1):.2f}}}"
        for i in range(0, 60, 6))
    log = block("""
        [2026-11-28 21:02:11,904] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2026-11-28 21:02:14,331] [INFO] [config.py:1005:print]   zero_optimization_stage ...... 3
        [2026-11-28 21:02:15,087] [INFO] [logging.py:128:log_dist] [Rank 0] Creating torch.bfloat16 ZeRO stage 3 optimizer
        """) + steps + "\n" + block("""
         stage3_gather_16bit_weights_on_model_save=false. Saving the full checkpoint instead, use zero_to_fp32.py to recover weights
        [2026-11-29 02:48:31,602] [INFO] [logging.py:128:log_dist] [Rank 0] Saving model checkpoint: out/final/global_step3000/zero_pp_rank_0_mp_rank_00_model_states.pt
        {'train_runtime': 20779.31, 'train_samples_per_second': 9.24, 'train_steps_per_second': 0.144, 'train_loss': 1.5513, 'epoch': 3.0}
        + ls out/final
        added_tokens.json  config.json  generation_config.json  global_step3000  latest  special_tokens_map.json  tokenizer.json  tokenizer_config.json  training_args.bin  zero_to_fp32.py
        + python eval_sft.py
        """) + W1
    return Case(
        "hf-model-weights-file-missing-zero3-final-folder-01", "hf-model-weights-file-missing", "medium",
        "A ZeRO-3 SFT run (transformers 4.46.3) saves with stage3_gather_16bit_weights_on_model_save=false, so "
        "out/final holds config, tokenizer and global_step3000/ but no weights; the job's eval step then fails in "
        "from_pretrained (the traceback captured, the training lines written as DeepSpeed and the Trainer print them)",
        facts={"zero_stage": "3"},
        must_mention=["zero_to_fp32"],
        files={"slurm-88213.out": log},
    )


@case
def weights_missing_fsdp_sharded_v5() -> Case:
    log = block("""
        (hf5) mk@ws-mk:~/fsdp-run$ ls outputs/qwen-fsdp/checkpoint-2000
        config.json  generation_config.json  optimizer_0  pytorch_model_fsdp_0  rng_state_0.pth  rng_state_1.pth  scheduler.pt  trainer_state.json  training_args.bin
        (hf5) mk@ws-mk:~/fsdp-run$ python export_merged.py
        """) + W2
    return Case(
        "hf-model-weights-file-missing-fsdp-sharded-captured-02", "hf-model-weights-file-missing", "easy",
        "Captured: transformers 5.24.0 loads a checkpoint folder that has config.json but only an FSDP "
        "SHARDED_STATE_DICT folder (pytorch_model_fsdp_0) for weights; 'Error no file named model.safetensors, or "
        "pytorch_model.bin, found in directory' (the ls written)",
        facts={},
        must_mention=["merge-weights"],
        files={"export.log": log},
    )


@case
def weights_missing_use_safetensors_on_bin() -> Case:
    log = block("""
        2026-11-30T08:14:02.551Z serve[1]: loading /models/opt-1.3b-support (use_safetensors=True)
        """) + W3
    return Case(
        "hf-model-weights-file-missing-use-safetensors-captured-03", "hf-model-weights-file-missing", "easy",
        "Captured: transformers 4.46.3, from_pretrained(..., use_safetensors=True) on a folder saved with "
        "safe_serialization=False (pytorch_model.bin only): 'Error no file named model.safetensors found in directory'",
        facts={},
        must_mention=["use_safetensors"],
        files={"serve.log": log},
    )


# --------------------------------------------------------------------------------------------------
# sentencepiece-missing


@case
def sentencepiece_slow_tokenizer_colab() -> Case:
    log = block("""
        !pip -q install "transformers==4.46.3" datasets
        !python translate.py slow
        """) + S1
    return Case(
        "sentencepiece-missing-slow-tokenizer-captured-01", "sentencepiece-missing", "easy",
        "Captured: transformers 4.46.3 without sentencepiece, AutoTokenizer(use_fast=False) on an mT5 folder with only "
        "spiece.model: the dummy T5Tokenizer raises 'requires the SentencePiece library but it was not found'",
        facts={},
        must_mention=["pip install sentencepiece"],
        files={"colab.log": log},
    )


@case
def sentencepiece_fast_tiktoken_fallback() -> Case:
    log = block("""
        (.venv) ana@lab-04:~/mt$ python translate.py fast
        """) + S2
    return Case(
        "sentencepiece-missing-tiktoken-fallback-captured-02", "sentencepiece-missing", "medium",
        "Captured: transformers 4.46.3 without sentencepiece, the fast T5 tokenizer with no tokenizer.json has no slow "
        "class to convert and fails in the Tiktoken fallback: 'Converting from Tiktoken failed, if a converter for "
        "SentencePiece is available...', a message that does not name the missing package",
        facts={},
        must_mention=["sentencepiece"],
        files={"run.log": log},
    )


@case
def sentencepiece_v5_tiktoken_required() -> Case:
    log = block("""
        + /srv/prep/.venv/bin/python tokenize_corpus.py fast
        """) + S3
    return Case(
        "sentencepiece-missing-v5-tiktoken-required-captured-03", "sentencepiece-missing", "medium",
        "Captured: transformers 5.24.0 in a tokenization-only environment (no torch, no sentencepiece, no tiktoken): "
        "the SentencePiece extraction of spiece.model is logged as failed for want of the library, then the TikToken "
        "fallback raises '`tiktoken` is required to read a `tiktoken` file', which points at the wrong package",
        facts={},
        must_mention=["sentencepiece"],
        files={"prep.log": log},
    )


# --------------------------------------------------------------------------------------------------
# datasets-data-files-schema-mismatch


@case
def datasets_new_column_in_later_shard() -> Case:
    log = block("""
        (.venv) lchen@gpu-dev-2:~/sft$ wc -l data/*.jsonl
            50 data/part-000.jsonl
            50 data/part-001.jsonl
           100 total
        (.venv) lchen@gpu-dev-2:~/sft$ python build_sft_mix.py
        """) + D1
    return Case(
        "datasets-data-files-schema-mismatch-new-column-captured-01", "datasets-data-files-schema-mismatch", "easy",
        "Captured: datasets 4.4.1 load_dataset('json') over two shards, the second with an extra 'source' field: "
        "CastError 'because column names don't match', then DatasetGenerationCastError 'there are 1 new columns'",
        facts={},
        must_mention=["source"],
        files={"build.log": log},
    )


@case
def datasets_label_type_differs_between_files() -> Case:
    log = block("""
        + python train_cls.py --data data/a.jsonl data/b.jsonl --model_name_or_path roberta-base --output_dir out/cls
        """) + D2
    return Case(
        "datasets-data-files-schema-mismatch-label-type-captured-02", "datasets-data-files-schema-mismatch", "medium",
        "Captured: datasets 2.21.0, two JSONL files whose 'label' is an int in one and a string ('positive') in the "
        "other: pyarrow's cast fails ('Failed to parse string ... as a scalar of type int64') and the last line only "
        "says 'An error occurred while generating the dataset'",
        facts={},
        must_mention=["label"],
        files={"job.log": log},
    )


@case
def datasets_json_field_changes_type_in_file() -> Case:
    log = block("""
        r.ortiz@login2:~/reward$ python prep_rm.py 2>&1 | tee prep.log
        """) + D3
    return Case(
        "datasets-data-files-schema-mismatch-json-row-type-captured-03", "datasets-data-files-schema-mismatch", "medium",
        "Captured: datasets 4.4.1, one JSONL file whose 'score' turns from numbers into strings ('3/5') part-way: "
        "pyarrow's JSON reader raises 'Column(/score) changed from number to string in row 76', datasets' pandas "
        "fallback fails too, and the last line is DatasetGenerationError",
        facts={},
        must_mention=["score"],
        files={"prep.log": log},
    )


# --------------------------------------------------------------------------------------------------
# datasets-map-batched-length-mismatch


@case
def map_overflow_tokens_num_proc() -> Case:
    log = block("""
        root@pretok-7c9d5-0:/workspace/pretok# python pretokenize.py
        """) + M1
    return Case(
        "datasets-map-batched-length-mismatch-overflow-num-proc-captured-01", "datasets-map-batched-length-mismatch",
        "easy",
        "Captured: datasets 4.4.1 and transformers 5.24.0, map(batched=True, num_proc=4) with a fast tokenizer called "
        "with return_overflowing_tokens=True and the 'text'/'source' columns kept: each worker raises 'Column 2 named "
        "input_ids expected length 500 but got length 1070' inside multiprocess's RemoteTraceback",
        facts={},
        must_mention=["remove_columns"],
        files={"pretokenize.log": log},
    )


@case
def map_group_texts_torchrun_rank0() -> Case:
    log = block("""
        [tkim@p5-st-gpu-12 lm-pretrain]$ OMP_NUM_THREADS=1 torchrun --nproc_per_node 2 pretrain.py
        """) + M2
    return Case(
        "datasets-map-batched-length-mismatch-group-texts-torchrun-captured-02", "datasets-map-batched-length-mismatch",
        "medium",
        "Captured: a 2-rank torchrun (gloo, torch 2.13.0, datasets 2.21.0); rank 0 packs documents with a group_texts "
        "map that keeps the 'text'/'url' columns and fails with 'expected length 1000 but got length 3006'; rank 1, "
        "waiting in a barrier, gets gloo's 'Connection closed by peer'",
        initiating_rank=0,
        facts={"launcher": "torchrun", "world_size": "2"},
        must_mention=["remove_columns"],
        files={"train.log": log},
    )


# --------------------------------------------------------------------------------------------------
# trainer-resume-checkpoint-invalid


@case
def resume_interrupted_checkpoint_requeued() -> Case:
    steps = "\n".join(
        f"{{'loss': {2.41 - 0.02 * i:.4f}, 'grad_norm': {1.2 - 0.01 * i:.4f}, 'learning_rate': {5e-5 * (1 - i / 80):.3e}, 'epoch': {0.125 * (i + 1) / 10:.2f}}}"
        for i in range(40, 60, 10))
    log = block("""
        + srun --kill-on-bad-exit=1 torchrun --nproc_per_node 2 train.py runs/sft 80 resume
        """) + steps + "\n" + block("""
        11/30/2026 03:58:41 - INFO - transformers.trainer - Saving model checkpoint to runs/sft/checkpoint-60
        slurmstepd: error: *** JOB 7731042 ON gpu-st-3 CANCELLED AT 2026-11-30T03:58:44 DUE TO PREEMPTION ***
        + srun --kill-on-bad-exit=1 torchrun --nproc_per_node 2 train.py runs/sft 80 resume
        """) + R1
    return Case(
        "trainer-resume-checkpoint-invalid-preempted-save-captured-01", "trainer-resume-checkpoint-invalid", "medium",
        "A Slurm job (appending to one output file) is preempted while the Trainer writes checkpoint-60, leaving "
        "config.json, generation_config.json and one weight shard without its index; the requeued 2-rank torchrun "
        "(gloo, transformers 4.46.3) resumes with resume_from_checkpoint=True, picks checkpoint-60 and both ranks "
        "raise 'Can't find a valid checkpoint at runs/sft/checkpoint-60' (the requeued run captured, with the "
        "folder in the state the kill leaves; the first attempt's last lines written)",
        initiating_rank=[0, 1],
        facts={"launcher": "torchrun", "world_size": "2"},
        must_mention=["checkpoint-60"],
        files={"slurm-7731042.out": log},
    )


@case
def resume_no_checkpoint_new_output_dir() -> Case:
    log = block("""
        + OUT=outputs/sft-7731042
        + python train.py outputs/sft-7731042 80 resume
        """) + R2
    return Case(
        "trainer-resume-checkpoint-invalid-no-checkpoint-captured-02", "trainer-resume-checkpoint-invalid", "easy",
        "Captured: transformers 5.24.0, resume_from_checkpoint=True with an output_dir named after the job id, so "
        "the new attempt's folder has no checkpoint-N: 'No valid checkpoint found in output directory'",
        facts={},
        must_mention=["output_dir"],
        files={"job.log": log},
    )


def main() -> None:
    args = parser(__doc__).parse_args()
    write_all(args.out, CASES)


if __name__ == "__main__":
    main()
