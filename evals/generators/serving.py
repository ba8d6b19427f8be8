#!/usr/bin/env python3
"""Write the eval cases of kb-serve's entries: serving engines (vLLM), DeepSpeed, experiment tracking.

Synthetic cases: each failure as the named release prints it (texts read from the released wheels and sdists
named in the entries), set in the noise real runs print (container and pod logs, `(APIServer pid=N)` prefixes,
argument dumps, pydantic's wrapping, launcher prefixes, Trainer banners, teardown lines). Every case was
written before crashdoc ran on it.

Usage:  python evals/generators/serving.py [--out DIR]
Output: evals/cases/<case-id>/{case.yaml, *.log}
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Case, RankExit, block, lightning_fit_frames, parser, prefix, torchrun_child_failed_summary, vllm_engine_client_frames, vllm_model_config_frames, write_all  # noqa: E402  (case writer, text, the launcher summary)

CASES: list[Case] = []


def case(fn):
    CASES.append(fn())
    return fn


def api(pid: int, text: str) -> str:
    """vLLM >= 0.10 prefixes every line of the API server process with its name and pid."""
    return prefix(block(text), f"(APIServer pid={pid}) ")


# --------------------------------------------------------------------------------------------------
# vllm-unsupported-architecture


@case
def vllm_unsupported_arch_llava_original_k8s() -> Case:
    site = "/usr/local/lib/python3.12/dist-packages"
    log = block("""
        + kubectl logs -n inference deploy/llava-v15-7b --previous
        INFO 10-21 07:12:40 [__init__.py:216] Automatically detected platform cuda.
        """) + api(1, block(f"""
        INFO 10-21 07:12:44 [api_server.py:1839] vLLM API server version 0.11.0
        INFO 10-21 07:12:44 [utils.py:233] non-default args: {{'model_tag': '/models/llava-v1.5-7b', 'host': '0.0.0.0', 'model': '/models/llava-v1.5-7b', 'trust_remote_code': True, 'max_model_len': 4096, 'served_model_name': ['llava-7b'], 'gpu_memory_utilization': 0.92}}
        WARNING 10-21 07:12:44 [__init__.py:2981] The global random seed is set to 0. Since VLLM_ENABLE_V1_MULTIPROCESSING is set to False, this may affect the random state of the Python process that launched vLLM.
        You are using a model of type llava to instantiate a model of type llava_llama. This is not supported for all configurations of models and can yield errors.
        Traceback (most recent call last):
          File "/usr/local/bin/vllm", line 10, in <module>
            sys.exit(main())
                     ^^^^^^
          File "{site}/vllm/entrypoints/cli/main.py", line 54, in main
            args.dispatch_function(args)
          File "{site}/vllm/entrypoints/cli/serve.py", line 57, in cmd
            uvloop.run(run_server(args))
        """) + vllm_engine_client_frames(site) + vllm_model_config_frames(site) + block(f"""
        pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig
          Value error, Model architectures ['LlavaLlamaForCausalLM'] are not supported for now. Supported architectures: dict_keys(['ApertusForCausalLM', 'AquilaModel', 'AquilaForCausalLM', 'ArceeForCausalLM', 'ArcticForCausalLM', 'MiniMaxForCausalLM', 'MiniMaxText01ForCausalLM', 'MiniMaxM1ForCausalLM', 'BaiChuanForCausalLM', 'BaichuanForCausalLM', 'BailingMoeForCausalLM', 'BailingMoeV2ForCausalLM', 'BambaForCausalLM', 'BloomForCausalLM', 'ChatGLMModel', 'ChatGLMForConditionalGeneration', 'CohereForCausalLM', 'Cohere2ForCausalLM', 'CwmForCausalLM', 'DbrxForCausalLM', 'DeciLMForCausalLM', 'DeepseekForCausalLM', 'DeepseekV2ForCausalLM', 'DeepseekV3ForCausalLM', 'Ernie4_5ForCausalLM', 'Ernie4_5_MoeForCausalLM', 'ExaoneForCausalLM', 'FalconForCausalLM', 'Fairseq2LlamaForCausalLM', 'GemmaForCausalLM', 'Gemma2ForCausalLM', 'Gemma3ForCausalLM', 'GlmForCausalLM', 'Glm4ForCausalLM', 'GPT2LMHeadModel', 'GPTBigCodeForCausalLM', 'GPTJForCausalLM', 'GPTNeoXForCausalLM', 'GraniteForCausalLM', 'GraniteMoeForCausalLM', 'InternLMForCausalLM', 'InternLM2ForCausalLM', 'JambaForCausalLM', 'LlamaForCausalLM', 'LLaMAForCausalLM', 'MistralForCausalLM', 'MixtralForCausalLM', 'MptForCausalLM', 'NemotronForCausalLM', 'OlmoForCausalLM', 'OPTForCausalLM', 'OrionForCausalLM', 'PhiForCausalLM', 'Phi3ForCausalLM', 'Qwen2ForCausalLM', 'Qwen2MoeForCausalLM', 'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM', 'StableLmForCausalLM', 'Starcoder2ForCausalLM', 'LlavaForConditionalGeneration', 'LlavaNextForConditionalGeneration', 'LlavaNextVideoForConditionalGeneration', 'LlavaOnevisionForConditionalGeneration', 'Qwen2VLForConditionalGeneration', 'Qwen2_5_VLForConditionalGeneration', 'TransformersForCausalLM', 'TransformersForMultimodalLM']) [type=value_error, input_value=ArgsKwargs((), {{'model': ...rocessor_plugin': None}}), input_type=ArgsKwargs]
            For further information visit https://errors.pydantic.dev/2.11/v/value_error
        """))
    return Case(
        "vllm-unsupported-architecture-llava-original-k8s-01", "vllm-unsupported-architecture", "medium",
        "vLLM 0.11.0 in a Kubernetes pod serving an original-LLaVA checkpoint (liuhaotian layout): config.json names "
        "LlavaLlamaForCausalLM, which neither vLLM's registry nor transformers has; the error arrives wrapped in "
        "pydantic's ModelConfig ValidationError with the registry's whole dict_keys list, after a transformers warning",
        facts={"launcher": "kubernetes"},
        must_mention=["LlavaLlamaForCausalLM"],
        files={"pod.log": log},
    )


@case
def vllm_unsupported_arch_custom_code_slurm() -> Case:
    site = "/scratch/pkumar/envs/vllm085/lib/python3.11/site-packages"
    body = block(f"""
        INFO 05-19 22:41:07 [__init__.py:239] Automatically detected platform cuda.
        loading prompts from /scratch/pkumar/eval/prompts_v4.jsonl (12000 prompts)
        INFO 05-19 22:41:15 [config.py:209] Replacing legacy 'type' key with 'rope_type'
        Traceback (most recent call last):
          File "/home/pkumar/nebula/scripts/batch_generate.py", line 61, in <module>
            main()
          File "/home/pkumar/nebula/scripts/batch_generate.py", line 38, in main
            llm = LLM(model=args.model, trust_remote_code=True, tensor_parallel_size=2, max_model_len=8192)
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/utils.py", line 1161, in inner
            return fn(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/entrypoints/llm.py", line 247, in __init__
            self.llm_engine = LLMEngine.from_engine_args(
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/engine/llm_engine.py", line 503, in from_engine_args
            vllm_config = engine_args.create_engine_config(usage_context)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/engine/arg_utils.py", line 1099, in create_engine_config
            model_config = self.create_model_config()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/engine/arg_utils.py", line 987, in create_model_config
            return ModelConfig(
                   ^^^^^^^^^^^^
          File "{site}/vllm/config.py", line 519, in __init__
            self.multimodal_config = self._init_multimodal_config(
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/config.py", line 588, in _init_multimodal_config
            if self.registry.is_multimodal_model(self.architectures):
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/model_executor/models/registry.py", line 490, in is_multimodal_model
            model_cls, _ = self.inspect_model_cls(architectures)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/model_executor/models/registry.py", line 450, in inspect_model_cls
            return self._raise_for_unsupported(architectures)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/model_executor/models/registry.py", line 400, in _raise_for_unsupported
            raise ValueError(
        ValueError: Model architectures ['NebulaForCausalLM'] are not supported for now. Supported architectures: dict_keys(['AquilaModel', 'AquilaForCausalLM', 'ArcticForCausalLM', 'MiniMaxText01ForCausalLM', 'BaiChuanForCausalLM', 'BaichuanForCausalLM', 'BambaForCausalLM', 'BloomForCausalLM', 'ChatGLMModel', 'ChatGLMForConditionalGeneration', 'CohereForCausalLM', 'Cohere2ForCausalLM', 'DbrxForCausalLM', 'DeciLMForCausalLM', 'DeepseekForCausalLM', 'DeepseekV2ForCausalLM', 'DeepseekV3ForCausalLM', 'ExaoneForCausalLM', 'FalconForCausalLM', 'GemmaForCausalLM', 'Gemma2ForCausalLM', 'Gemma3ForCausalLM', 'GlmForCausalLM', 'GPT2LMHeadModel', 'GPTBigCodeForCausalLM', 'GPTJForCausalLM', 'GPTNeoXForCausalLM', 'GraniteForCausalLM', 'InternLMForCausalLM', 'InternLM2ForCausalLM', 'JambaForCausalLM', 'LlamaForCausalLM', 'LLaMAForCausalLM', 'MambaForCausalLM', 'MistralForCausalLM', 'MixtralForCausalLM', 'MptForCausalLM', 'NemotronForCausalLM', 'OlmoForCausalLM', 'OPTForCausalLM', 'PhiForCausalLM', 'Phi3ForCausalLM', 'Qwen2ForCausalLM', 'Qwen2MoeForCausalLM', 'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM', 'StableLmForCausalLM', 'Starcoder2ForCausalLM', 'TransformersForCausalLM'])
        """)
    log = block("""
        === job 8841207 (nebula-eval) on gpu-a100-113, 2 GPUs, started Mon May 19 22:40:58 UTC 2025
        MODEL=/scratch/pkumar/ckpt/nebula-7b-chat-sft-v2
        grep architectures $MODEL/config.json
          "architectures": ["NebulaForCausalLM"],
            "AutoConfig": "configuration_nebula.NebulaConfig",
            "AutoModelForCausalLM": "modeling_nebula.NebulaForCausalLM"
        + srun -l python scripts/batch_generate.py --model /scratch/pkumar/ckpt/nebula-7b-chat-sft-v2 --out /scratch/pkumar/eval/out_v4.jsonl
        """) + prefix(body, "0: ") + block("""
        srun: error: gpu-a100-113: task 0: Exited with exit code 1
        """)
    return Case(
        "vllm-unsupported-architecture-custom-code-slurm-02", "vllm-unsupported-architecture", "medium",
        "An in-house custom-code model (auto_map with AutoConfig and AutoModelForCausalLM, architectures "
        "NebulaForCausalLM) run through vLLM 0.8.5's offline LLM() under srun -l: vLLM has no class for it and the "
        "Transformers fallback cannot take a custom class that is not backend compatible; plain ValueError",
        facts={"launcher": "slurm"},
        must_mention=["NebulaForCausalLM"],
        files={"slurm-8841207.out": log},
    )


# --------------------------------------------------------------------------------------------------
# vllm-tp-heads-not-divisible


@case
def vllm_tp_heads_qwen7b_tp8_docker() -> Case:
    site = "/usr/local/lib/python3.12/dist-packages"
    log = block("""
        $ docker run --rm --gpus all --ipc=host -p 8000:8000 -v /data/hf:/root/.cache/huggingface vllm/vllm-openai:v0.11.0 --model Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 8 --max-model-len 32768 --enable-prefix-caching
        INFO 10-27 11:02:13 [__init__.py:216] Automatically detected platform cuda.
        """) + api(1, block(f"""
        INFO 10-27 11:02:17 [api_server.py:1839] vLLM API server version 0.11.0
        INFO 10-27 11:02:17 [utils.py:233] non-default args: {{'model_tag': 'Qwen/Qwen2.5-7B-Instruct', 'model': 'Qwen/Qwen2.5-7B-Instruct', 'max_model_len': 32768, 'tensor_parallel_size': 8, 'enable_prefix_caching': True}}
        INFO 10-27 11:02:27 [model.py:547] Resolved architecture: Qwen2ForCausalLM
        `torch_dtype` is deprecated! Use `dtype` instead!
        INFO 10-27 11:02:27 [model.py:1510] Using max model len 32768
        INFO 10-27 11:02:28 [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=2048.
        Traceback (most recent call last):
          File "<frozen runpy>", line 198, in _run_module_as_main
          File "<frozen runpy>", line 88, in _run_code
          File "{site}/vllm/entrypoints/openai/api_server.py", line 1953, in <module>
            uvloop.run(run_server(args))
        """) + vllm_engine_client_frames(site) + block(f"""
          File "{site}/vllm/engine/arg_utils.py", line 1473, in create_engine_config
            config = VllmConfig(
                     ^^^^^^^^^^^
          File "{site}/pydantic/_internal/_dataclasses.py", line 121, in __init__
            s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)
        pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig
          Value error, Total number of attention heads (28) must be divisible by tensor parallel size (8). [type=value_error, input_value=ArgsKwargs((), {{'model_co...additional_config': {{}}}}), input_type=ArgsKwargs]
            For further information visit https://errors.pydantic.dev/2.11/v/value_error
        """))
    return Case(
        "vllm-tp-heads-not-divisible-qwen7b-tp8-docker-01", "vllm-tp-heads-not-divisible", "easy",
        "vllm/vllm-openai v0.11.0 container serving Qwen2.5-7B-Instruct with --tensor-parallel-size 8 on an 8-GPU "
        "node: 28 heads do not split into 8; the check fails in VllmConfig's pydantic validation before any worker",
        facts={"gpu_count": "8"},
        must_mention=["tensor-parallel-size", "28"],
        files={"docker.log": log},
    )


@case
def vllm_tp_heads_r1_distill_tp6_ray() -> Case:
    site = "/opt/conda/envs/serve/lib/python3.10/site-packages"
    log = block(f"""
        2025-03-04 16:20:41,118\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: 10.40.2.17:6379...
        2025-03-04 16:20:41,131\tINFO worker.py:1832 -- Connected to Ray cluster. View the dashboard at http://10.40.2.17:8265 
        (ServeController pid=88120) INFO 2025-03-04 16:20:44,502 controller 88120 -- Deploying new version of Deployment(name='R1Distill32B', app='reasoning') (initial target replicas: 1).
        (ServeReplica:reasoning:R1Distill32B pid=88457) INFO 03-04 16:20:52 __init__.py:207] Automatically detected platform cuda.
        (ServeReplica:reasoning:R1Distill32B pid=88457) INFO 03-04 16:20:58 config.py:549] This model supports multiple tasks: {{'score', 'reward', 'embed', 'classify', 'generate'}}. Defaulting to 'generate'.
        (ServeReplica:reasoning:R1Distill32B pid=88457) INFO 03-04 16:20:58 config.py:1382] Defaulting to use ray for distributed inference
        (ServeReplica:reasoning:R1Distill32B pid=88457) ERROR 2025-03-04 16:20:58,904 reasoning_R1Distill32B 3n1k8w2q replica.py:1003 -- Exception during graceful shutdown of replica: Replica failed to initialize.
        (ServeReplica:reasoning:R1Distill32B pid=88457) Traceback (most recent call last):
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "{site}/ray/serve/_private/replica.py", line 965, in initialize_and_get_metadata
        (ServeReplica:reasoning:R1Distill32B pid=88457)     await self._replica_impl.initialize(deployment_config)
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "/tmp/ray/session_2025-03-04_09-12-03_447201_1/runtime_resources/working_dir_files/_ray_pkg_5c0e2f1a9b7d3e44/serve_r1.py", line 29, in __init__
        (ServeReplica:reasoning:R1Distill32B pid=88457)     self.engine = AsyncLLMEngine.from_engine_args(args)
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "{site}/vllm/engine/async_llm_engine.py", line 641, in from_engine_args
        (ServeReplica:reasoning:R1Distill32B pid=88457)     engine_config = engine_args.create_engine_config(usage_context)
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "{site}/vllm/engine/arg_utils.py", line 1367, in create_engine_config
        (ServeReplica:reasoning:R1Distill32B pid=88457)     config = VllmConfig(
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "<string>", line 19, in __init__
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "{site}/vllm/config.py", line 3284, in __post_init__
        (ServeReplica:reasoning:R1Distill32B pid=88457)     self.model_config.verify_with_parallel_config(self.parallel_config)
        (ServeReplica:reasoning:R1Distill32B pid=88457)   File "{site}/vllm/config.py", line 757, in verify_with_parallel_config
        (ServeReplica:reasoning:R1Distill32B pid=88457)     raise ValueError(
        (ServeReplica:reasoning:R1Distill32B pid=88457) ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (6).
        (ServeController pid=88120) ERROR 2025-03-04 16:20:59,377 controller 88120 -- Exception in Replica(id='3n1k8w2q', deployment='R1Distill32B', app='reasoning'), the replica will be stopped.
        (ServeController pid=88120) Traceback (most recent call last):
        (ServeController pid=88120)   File "{site}/ray/serve/_private/deployment_state.py", line 694, in check_ready
        (ServeController pid=88120)     _, self._version, self._initialization_latency_s = ray.get(
        (ServeController pid=88120)   File "{site}/ray/_private/worker.py", line 2772, in get
        (ServeController pid=88120)     values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)
        (ServeController pid=88120) ray.exceptions.RayTaskError(RuntimeError): ray::ServeReplica:reasoning:R1Distill32B.initialize_and_get_metadata() (pid=88457, ip=10.40.2.21, actor_id=9f1e0c7b2a5d4e3f6a8b0c1d01000000, repr=<ray.serve._private.replica.ServeReplica:reasoning:R1Distill32B object at 0x7f2c4a1e8d90>)
        (ServeController pid=88120) RuntimeError: Exception during initialization of replica: Total number of attention heads (40) must be divisible by tensor parallel size (6).
        (ServeController pid=88120) WARNING 2025-03-04 16:20:59,381 controller 88120 -- Deployment 'R1Distill32B' in application 'reasoning' has 1 replicas that have taken more than 30s to initialize.
        2025-03-04 16:21:02,006\tERROR serve.py:594 -- Deploying application 'reasoning' failed: the deployment 'R1Distill32B' failed to start 3 replicas in a row.
        """)
    return Case(
        "vllm-tp-heads-not-divisible-r1-distill-tp6-ray-serve-02", "vllm-tp-heads-not-divisible", "medium",
        "Ray Serve deployment of DeepSeek-R1-Distill-Qwen-32B with vLLM 0.7.3 AsyncLLMEngine, tensor_parallel_size=6 "
        "to use the six free GPUs of a node: 40 heads do not split into 6; the plain ValueError in the replica is "
        "repeated by the Serve controller's RayTaskError and the deployment gives up",
        facts={"launcher": "ray"},
        must_mention=["tensor_parallel_size", "40"],
        files={"serve.log": log},
    )


# --------------------------------------------------------------------------------------------------
# vllm-max-model-len-exceeds-config


@case
def vllm_max_len_llama3_8b_32k_compose() -> Case:
    site = "/usr/local/lib/python3.12/dist-packages"
    inner = api(1, f"""
        INFO 11-03 09:41:52 [api_server.py:1839] vLLM API server version 0.11.0
        INFO 11-03 09:41:52 [utils.py:233] non-default args: {{'model_tag': 'meta-llama/Meta-Llama-3-8B-Instruct', 'host': '0.0.0.0', 'port': 8080, 'api_key': ['<redacted>'], 'model': 'meta-llama/Meta-Llama-3-8B-Instruct', 'max_model_len': 32768, 'served_model_name': ['chat-default'], 'gpu_memory_utilization': 0.9, 'max_num_seqs': 128}}
        INFO 11-03 09:41:59 [model.py:547] Resolved architecture: LlamaForCausalLM
        `torch_dtype` is deprecated! Use `dtype` instead!
        Traceback (most recent call last):
          File "/usr/local/bin/vllm", line 10, in <module>
            sys.exit(main())
                     ^^^^^^
          File "{site}/vllm/entrypoints/cli/main.py", line 54, in main
            args.dispatch_function(args)
          File "{site}/vllm/entrypoints/cli/serve.py", line 57, in cmd
            uvloop.run(run_server(args))
          File "{site}/uvloop/__init__.py", line 109, in run
            return __asyncio.run(
                   ^^^^^^^^^^^^^^
          File "{site}/vllm/entrypoints/openai/api_server.py", line 206, in build_async_engine_client_from_engine_args
            vllm_config = engine_args.create_engine_config(usage_context=usage_context)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/engine/arg_utils.py", line 1142, in create_engine_config
            model_config = self.create_model_config()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/engine/arg_utils.py", line 994, in create_model_config
            return ModelConfig(
                   ^^^^^^^^^^^^
          File "{site}/pydantic/_internal/_dataclasses.py", line 121, in __init__
            s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)
        pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig
          Value error, User-specified max_model_len (32768) is greater than the derived max_model_len (max_position_embeddings=8192 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error. [type=value_error, input_value=ArgsKwargs((), {{'model': ...rocessor_plugin': None}}), input_type=ArgsKwargs]
            For further information visit https://errors.pydantic.dev/2.11/v/value_error
        """)
    log = block("""
        $ docker compose up llm
        [+] Running 1/1
         ✔ Container stack-llm-1  Recreated                                                                   0.4s
        Attaching to llm-1
        llm-1  | INFO 11-03 09:41:48 [__init__.py:216] Automatically detected platform cuda.
        """) + prefix(inner, "llm-1  | ") + block("""
        llm-1 exited with code 1
        """)
    return Case(
        "vllm-max-model-len-exceeds-config-llama3-8b-compose-01", "vllm-max-model-len-exceeds-config", "easy",
        "docker compose stack whose shared template sets --max-model-len 32768 for Meta-Llama-3-8B-Instruct (8192 "
        "positions); vLLM 0.11.0 refuses in ModelConfig's pydantic validation, every line behind compose's prefix",
        facts={"launcher": "docker"},
        must_mention=["max-model-len", "8192"],
        files={"compose.log": log},
    )


@case
def vllm_max_len_llama2_long_eval_slurm() -> Case:
    site = "/fsx/envs/eval311/lib/python3.11/site-packages"
    log = block(f"""
        [2025-11-14 02:10:03] array task 17/40: model=meta-llama/Llama-2-13b-chat-hf task=longbench_qasper max_len=16384
        INFO 11-14 02:10:09 [__init__.py:216] Automatically detected platform cuda.
        INFO 11-14 02:10:14 [utils.py:233] non-default args: {{'seed': 1234, 'max_model_len': 16384, 'tensor_parallel_size': 2, 'disable_log_stats': True, 'model': 'meta-llama/Llama-2-13b-chat-hf'}}
        INFO 11-14 02:10:20 [model.py:547] Resolved architecture: LlamaForCausalLM
        2025-11-14:02:10:20 ERROR    [evaluator.py:212] failed to build model for task longbench_qasper
        Traceback (most recent call last):
          File "/fsx/evalkit/run_long.py", line 144, in <module>
            results = evaluate(task, build_llm(cfg))
                                     ^^^^^^^^^^^^^^
          File "/fsx/evalkit/run_long.py", line 77, in build_llm
            return LLM(model=cfg.model, tensor_parallel_size=cfg.tp, max_model_len=cfg.max_len, seed=1234)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/entrypoints/llm.py", line 297, in __init__
            self.llm_engine = LLMEngine.from_engine_args(
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/vllm/v1/engine/llm_engine.py", line 173, in from_engine_args
            vllm_config = engine_args.create_engine_config(usage_context)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        """) + vllm_model_config_frames(site) + block(f"""
        pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig
          Value error, User-specified max_model_len (16384) is greater than the derived max_model_len (max_position_embeddings=4096 or model_max_length=None in model's config.json). To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error. [type=value_error, input_value=ArgsKwargs((), {{'model': ...rocessor_plugin': None}}), input_type=ArgsKwargs]
            For further information visit https://errors.pydantic.dev/2.11/v/value_error
        [2025-11-14 02:10:21] task 17 failed (exit 1); 16 done, 23 pending
        """)
    return Case(
        "vllm-max-model-len-exceeds-config-llama2-longbench-array-02", "vllm-max-model-len-exceeds-config", "medium",
        "A Slurm array of long-context evals runs every model with max_model_len=16384 through vLLM 0.11's offline "
        "LLM(); Llama-2-13b-chat has 4096 positions, so its task fails in ModelConfig validation behind the eval "
        "harness's own error line",
        facts={"launcher": "slurm"},
        must_mention=["max_model_len", "4096"],
        files={"array-17.log": log},
    )


# --------------------------------------------------------------------------------------------------
# deepspeed-offload-client-optimizer


def _ds_offload_trace(site: str, rank: int) -> list[str]:
    return [
        f"[rank{rank}]: Traceback (most recent call last):",
        f'[rank{rank}]:   File "/workspace/sft/train.py", line 212, in <module>',
        f"[rank{rank}]:     main()",
        f'[rank{rank}]:   File "/workspace/sft/train.py", line 205, in main',
        f"[rank{rank}]:     trainer.train(resume_from_checkpoint=args.resume)",
        f'[rank{rank}]:   File "{site}/transformers/trainer.py", line 2240, in train',
        f"[rank{rank}]:     return inner_training_loop(",
        f"[rank{rank}]:            ^^^^^^^^^^^^^^^^^^^^",
        f'[rank{rank}]:   File "{site}/transformers/trainer.py", line 2369, in _inner_training_loop',
        f"[rank{rank}]:     model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)",
        f"[rank{rank}]:                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank{rank}]:   File "{site}/accelerate/accelerator.py", line 1424, in prepare',
        f"[rank{rank}]:     result = self._prepare_deepspeed(*args)",
        f"[rank{rank}]:              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank{rank}]:   File "{site}/accelerate/accelerator.py", line 2008, in _prepare_deepspeed',
        f"[rank{rank}]:     engine, optimizer, _, lr_scheduler = ds_initialize(**kwargs)",
        f"[rank{rank}]:                                          ^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank{rank}]:   File "{site}/deepspeed/__init__.py", line 193, in initialize',
        f"[rank{rank}]:     engine = DeepSpeedEngine(args=args,",
        f"[rank{rank}]:              ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        f'[rank{rank}]:   File "{site}/deepspeed/runtime/engine.py", line 313, in __init__',
        f"[rank{rank}]:     self._configure_optimizer(optimizer, model_parameters)",
        f'[rank{rank}]:   File "{site}/deepspeed/runtime/engine.py", line 1372, in _configure_optimizer',
        f"[rank{rank}]:     raise ZeRORuntimeException(msg)",
        f"[rank{rank}]: deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided "
        "optimizer (<class 'torch.optim.adamw.AdamW'>) which in most cases will yield poor performance. Please either use "
        "deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config "
        "(https://www.deepspeed.ai/docs/config-json/#optimizer-parameters). If you really want to use a custom optimizer w. "
        "ZeRO-Offload and understand the performance impacts you can also set <\"zero_force_ds_cpu_optimizer\": false> in "
        "your configuration file.",
    ]


@case
def deepspeed_offload_hf_trainer_torchrun() -> Case:
    site = "/opt/conda/lib/python3.11/site-packages"
    head = block("""
        + cat configs/ds_z3_offload.json
        {
          "bf16": {"enabled": "auto"},
          "zero_optimization": {
            "stage": 3,
            "offload_optimizer": {"device": "cpu", "pin_memory": true},
            "offload_param": {"device": "none"},
            "overlap_comm": true,
            "contiguous_gradients": true,
            "stage3_gather_16bit_weights_on_model_save": true
          },
          "gradient_accumulation_steps": "auto",
          "gradient_clipping": "auto",
          "train_batch_size": "auto",
          "train_micro_batch_size_per_gpu": "auto"
        }
        + torchrun --nproc_per_node 4 train.py --model_name_or_path Qwen/Qwen2.5-14B --deepspeed configs/ds_z3_offload.json --bf16 --per_device_train_batch_size 2 --gradient_accumulation_steps 16 --learning_rate 1e-5 --output_dir /workspace/out/q14b-sft
        W1008 13:22:05.114000 5120 torch/distributed/run.py:793] 
        W1008 13:22:05.114000 5120 torch/distributed/run.py:793] *****************************************
        W1008 13:22:05.114000 5120 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
        W1008 13:22:05.114000 5120 torch/distributed/run.py:793] *****************************************
        [2025-10-08 13:22:10,402] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2025-10-08 13:22:10,433] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2025-10-08 13:22:10,439] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2025-10-08 13:22:10,447] [INFO] [real_accelerator.py:254:get_accelerator] Setting ds_accelerator to cuda (auto detect)
        [2025-10-08 13:22:13,877] [INFO] [comm.py:669:init_distributed] cdb=None
        [2025-10-08 13:22:13,877] [INFO] [comm.py:700:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl
        [2025-10-08 13:22:13,901] [INFO] [comm.py:669:init_distributed] cdb=None
        [2025-10-08 13:22:13,905] [INFO] [comm.py:669:init_distributed] cdb=None
        [2025-10-08 13:22:13,912] [INFO] [comm.py:669:init_distributed] cdb=None
        [2025-10-08 13:22:31,640] [INFO] [partition_parameters.py:348:__exit__] finished initializing model - num_params = 579, num_elems = 14.77B
        Loading checkpoint shards: 100%|██████████| 8/8 [00:41<00:00,  5.19s/it]
        Loading checkpoint shards: 100%|██████████| 8/8 [00:41<00:00,  5.20s/it]
        Loading checkpoint shards: 100%|██████████| 8/8 [00:42<00:00,  5.27s/it]
        Loading checkpoint shards: 100%|██████████| 8/8 [00:42<00:00,  5.29s/it]
        Map (num_proc=16): 100%|██████████| 48211/48211 [00:06<00:00, 7511.92 examples/s]
        [2025-10-08 13:23:31,052] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=0.16.4, git-hash=unknown, git-branch=unknown
        [2025-10-08 13:23:31,053] [INFO] [config.py:734:__init__] Config mesh_device None world_size = 4
        [2025-10-08 13:23:31,061] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed Flops Profiler Enabled: False
        [2025-10-08 13:23:31,062] [INFO] [logging.py:128:log_dist] [Rank 0] Using client Optimizer as basic optimizer
        """)
    traces = []
    for r in (2, 0, 3, 1):
        traces += _ds_offload_trace(site, r)
    tail = block("""
        W1008 13:23:33.305000 5120 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 5187 closing signal SIGTERM
        W1008 13:23:33.306000 5120 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 5189 closing signal SIGTERM
        E1008 13:23:33.871000 5120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 5186) of binary: /opt/conda/bin/python3.11
        Traceback (most recent call last):
          File "/opt/conda/bin/torchrun", line 8, in <module>
            sys.exit(main())
                     ^^^^^^
          File "/opt/conda/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper
            return f(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^
          File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main
            run(args)
          File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 910, in run
            elastic_launch(
          File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 138, in __call__
            return launch_agent(self._config, self._entrypoint, list(args))
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "/opt/conda/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
            raise ChildFailedError(
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
        """)
    summary = torchrun_child_failed_summary("train.py", RankExit(0, 0, 5186, 1, "2025-10-08_13:23:33", "gpu-node-03"),
                                 [RankExit(2, 2, 5188, 1, "2025-10-08_13:23:33", "gpu-node-03")])
    log = head + "\n".join(traces) + "\n" + tail + "\n".join(summary) + "\n"
    return Case(
        "deepspeed-offload-client-optimizer-hf-z3-torchrun-01", "deepspeed-offload-client-optimizer", "medium",
        "HF Trainer + ZeRO-3 with offload_optimizer cpu and no optimizer section on 4 GPUs under torchrun: the Trainer "
        "builds torch AdamW, accelerate hands it to deepspeed.initialize, and DeepSpeed 0.16.4 refuses it on every "
        "rank ([rankN]: tracebacks interleaved by rank), then torchrun's ChildFailedError",
        initiating_rank=[0, 1, 2, 3],
        facts={"launcher": "torchrun", "world_size": "4", "zero_stage": "3"},
        must_mention=["DeepSpeedCPUAdam", "optimizer"],
        files={"train.log": log},
    )


@case
def deepspeed_offload_lightning_bnb_deepspeed_launcher() -> Case:
    site = "/home/ylin/.venvs/pl/lib/python3.10/site-packages"
    lines = block("""
        [2025-08-21 19:03:44,910] [INFO] [runner.py:607:main] cmd = /home/ylin/.venvs/pl/bin/python -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None pretrain.py --strategy deepspeed_stage_2_offload --optim paged_adamw_8bit
        [2025-08-21 19:03:47,122] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1]}
        [2025-08-21 19:03:47,122] [INFO] [launch.py:152:main] nnodes=1, num_local_procs=2, node_rank=0
        [2025-08-21 19:03:47,123] [INFO] [launch.py:163:main] dist_world_size=2
        [2025-08-21 19:03:47,123] [INFO] [launch.py:165:main] Setting CUDA_VISIBLE_DEVICES=0,1
        Using bfloat16 Automatic Mixed Precision (AMP)
        GPU available: True (cuda), used: True
        TPU available: False, using: 0 TPU cores
        HPU available: False, using: 0 HPUs
        initializing deepspeed distributed: GLOBAL_RANK: 0, MEMBER: 1/2
        initializing deepspeed distributed: GLOBAL_RANK: 1, MEMBER: 2/2
        Enabling DeepSpeed BF16. Model parameters and inputs will be cast to `bfloat16`.
        LOCAL_RANK: 1 - CUDA_VISIBLE_DEVICES: [0,1]
        LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1]
        Traceback (most recent call last):
          File "/home/ylin/proj/pretrain.py", line 118, in <module>
            trainer.fit(model, datamodule=dm)
        """) + "\n".join(lightning_fit_frames(site, 561, 47, 105, 599)) + "\n" + block(f"""
          File "{site}/lightning/pytorch/trainer/trainer.py", line 988, in _run
            self.strategy.setup(self)
          File "{site}/lightning/pytorch/strategies/deepspeed.py", line 356, in setup
            self.init_deepspeed()
          File "{site}/lightning/pytorch/strategies/deepspeed.py", line 460, in init_deepspeed
            self._initialize_deepspeed_train(self.model)
          File "{site}/lightning/pytorch/strategies/deepspeed.py", line 496, in _initialize_deepspeed_train
            model, deepspeed_optimizer = self._setup_model_and_optimizer(model, optimizer, scheduler)
          File "{site}/lightning/pytorch/strategies/deepspeed.py", line 417, in _setup_model_and_optimizer
            deepspeed_engine, deepspeed_optimizer, _, _ = deepspeed.initialize(
          File "{site}/deepspeed/__init__.py", line 193, in initialize
            engine = DeepSpeedEngine(args=args,
          File "{site}/deepspeed/runtime/engine.py", line 313, in __init__
            self._configure_optimizer(optimizer, model_parameters)
          File "{site}/deepspeed/runtime/engine.py", line 1372, in _configure_optimizer
            raise ZeRORuntimeException(msg)
        deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer (<class 'bitsandbytes.optim.adamw.PagedAdamW8bit'>) which in most cases will yield poor performance. Please either use deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config (https://www.deepspeed.ai/docs/config-json/#optimizer-parameters). If you really want to use a custom optimizer w. ZeRO-Offload and understand the performance impacts you can also set <"zero_force_ds_cpu_optimizer": false> in your configuration file.
        [2025-08-21 19:04:29,731] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 911204
        [2025-08-21 19:04:29,955] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 911205
        [2025-08-21 19:04:29,956] [ERROR] [launch.py:325:sigkill_handler] ['/home/ylin/.venvs/pl/bin/python', '-u', 'pretrain.py', '--local_rank=1', '--strategy', 'deepspeed_stage_2_offload', '--optim', 'paged_adamw_8bit'] exits with return code = 1
        """).replace("{site}", site)
    return Case(
        "deepspeed-offload-client-optimizer-lightning-paged8bit-02", "deepspeed-offload-client-optimizer", "medium",
        "Lightning with strategy deepspeed_stage_2_offload and a bitsandbytes PagedAdamW8bit from configure_optimizers, "
        "launched with the deepspeed launcher on 2 GPUs: DeepSpeed 0.16.4 refuses the client optimizer under "
        "ZeRO-Offload; the launcher's sigkill_handler lines close the log",
        initiating_rank=None,
        facts={"launcher": "deepspeed"},
        must_mention=["DeepSpeedCPUAdam", "offload"],
        files={"pretrain.log": lines},
    )


# --------------------------------------------------------------------------------------------------
# wandb-api-key-missing


@case
def wandb_no_key_hf_trainer_torchrun_slurm() -> Case:
    site = "/home/akim/miniforge3/envs/ft/lib/python3.11/site-packages"
    rank0 = block(f"""
        Traceback (most recent call last):
          File "/home/akim/proj/finetune.py", line 131, in <module>
            trainer.train()
          File "{site}/transformers/trainer.py", line 2123, in train
            return inner_training_loop(
                   ^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer.py", line 2382, in _inner_training_loop
            self.control = self.callback_handler.on_train_begin(args, self.state, self.control)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer_callback.py", line 468, in on_train_begin
            return self.call_event("on_train_begin", args, state, control)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/trainer_callback.py", line 518, in call_event
            result = getattr(callback, event)(
                     ^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/transformers/integrations/integration_utils.py", line 911, in on_train_begin
            self.setup(args, state, model, **kwargs)
          File "{site}/transformers/integrations/integration_utils.py", line 838, in setup
            self._wandb.init(
          File "{site}/wandb/sdk/wandb_init.py", line 1243, in init
            wandb._sentry.reraise(e)
          File "{site}/wandb/analytics/sentry.py", line 155, in reraise
            raise exc.with_traceback(sys.exc_info()[2])
          File "{site}/wandb/sdk/wandb_init.py", line 1228, in init
            wi.setup(kwargs)
          File "{site}/wandb/sdk/wandb_init.py", line 295, in setup
            wandb_login._login(
          File "{site}/wandb/sdk/wandb_login.py", line 346, in _login
            wlogin.prompt_api_key()
          File "{site}/wandb/sdk/wandb_login.py", line 280, in prompt_api_key
            raise UsageError("api_key not configured (no-tty). call " + directive)
        wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])
        """)
    log = block("""
        #!/bin/bash
        #SBATCH --job-name=llama32-3b-sft --nodes=1 --gpus-per-node=2 --time=08:00:00
        job 3310094 on node gpu-l40s-04 (2x L40S), started 2025-09-02T21:04:11
        + torchrun --standalone --nproc_per_node 2 finetune.py --model meta-llama/Llama-3.2-3B-Instruct --data data/support_chats.jsonl --out runs/l32-3b-sft
        W0902 21:04:19.332000 77120 torch/distributed/run.py:793] 
        W0902 21:04:19.332000 77120 torch/distributed/run.py:793] *****************************************
        W0902 21:04:19.332000 77120 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
        W0902 21:04:19.332000 77120 torch/distributed/run.py:793] *****************************************
        [rank1]:[W902 21:04:31.118342510 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 1]  using GPU 1 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id.
        [rank0]:[W902 21:04:31.120981007 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id.
        Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.62s/it]
        Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.66s/it]
        Map: 100%|██████████| 18412/18412 [00:05<00:00, 3390.51 examples/s]
        Map: 100%|██████████| 18412/18412 [00:05<00:00, 3371.09 examples/s]
        Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.
        """) + prefix(rank0, "[rank0]: ") + block("""
        W0902 21:05:02.771000 77120 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 77135 closing signal SIGTERM
        E0902 21:05:03.022000 77120 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 77134) of binary: /home/akim/miniforge3/envs/ft/bin/python3.11
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
        """) + "\n".join(torchrun_child_failed_summary("finetune.py", RankExit(0, 0, 77134, 1, "2025-09-02_21:05:02", "gpu-l40s-04"), [])) + "\n"
    return Case(
        "wandb-api-key-missing-hf-trainer-slurm-torchrun-01", "wandb-api-key-missing", "medium",
        "A Slurm batch job fine-tunes with the HF Trainer (transformers 4.46, report_to left at its 'all' default) under "
        "torchrun on 2 GPUs; wandb 0.17.9 is installed in the env but the job has no WANDB_API_KEY and no TTY: rank 0 "
        "raises UsageError at on_train_begin, torchrun tears rank 1 down",
        initiating_rank=0,
        facts={"launcher": "torchrun", "world_size": "2"},
        must_mention=["WANDB_API_KEY", "report_to"],
        files={"slurm-3310094.out": log},
    )


@case
def wandb_no_key_accelerate_k8s_job() -> Case:
    site = "/opt/venv/lib/python3.12/site-packages"
    log = block(f"""
        2025-11-20T08:31:02.114Z  pod/pretrain-vit-l-0-7xk2q  Pulling image "registry.internal/ml/vit-pretrain:2025.11.3"
        2025-11-20T08:33:40.902Z  pod/pretrain-vit-l-0-7xk2q  Started container trainer
        [accelerate] num_processes=1 mixed_precision=bf16 dynamo_backend=no
        Loaded 1,281,167 training images from /datasets/imagenet/train (shards 0-1023)
        Model: vit_large_patch16_224, 304.33M params
        Traceback (most recent call last):
          File "/app/pretrain.py", line 204, in <module>
            main()
          File "/app/pretrain.py", line 88, in main
            accelerator.init_trackers("vit-l-pretrain", config=vars(args))
          File "{site}/accelerate/accelerator.py", line 3359, in init_trackers
            tracker.start()
          File "{site}/accelerate/tracking.py", line 91, in execute_on_main_process
            return PartialState().on_main_process(function)(self, *args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/accelerate/tracking.py", line 319, in start
            self.run = wandb.init(project=self.run_name, **self.init_kwargs)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/wandb/sdk/wandb_init.py", line 1558, in init
            telemetry_recorder.reraise(e)
          File "{site}/wandb/analytics/opentelemetry/opentelemetry_proxy.py", line 538, in reraise
            raise exc
          File "{site}/wandb/sdk/wandb_init.py", line 1464, in init
            wi.maybe_login(init_settings)
          File "{site}/wandb/sdk/wandb_init.py", line 211, in maybe_login
            wandb_login._login(
          File "{site}/wandb/sdk/wandb_login.py", line 209, in _login
            auth = _find_or_prompt_for_key(
                   ^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/wandb/sdk/wandb_login.py", line 291, in _find_or_prompt_for_key
            auth = wbauth.authenticate_session(
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/wandb/sdk/lib/wbauth/authenticate.py", line 141, in authenticate_session
            raise UsageError(
        wandb.errors.errors.UsageError: No API key configured. Use `wandb login` to log in.
        2025-11-20T08:34:19.557Z  pod/pretrain-vit-l-0-7xk2q  Container trainer terminated: Error (exit code 1)
        2025-11-20T08:34:19.561Z  job/pretrain-vit-l  Job has reached the specified backoff limit
        """)
    return Case(
        "wandb-api-key-missing-accelerate-k8s-job-02", "wandb-api-key-missing", "easy",
        "A Kubernetes Job runs an accelerate training script with log_with='wandb' (wandb 0.31.0) in an image whose "
        "HOME has no .netrc and whose pod spec lacks the WANDB_API_KEY secret; init_trackers raises UsageError before "
        "the first step and the Job hits its backoff limit",
        facts={"launcher": "kubernetes"},
        must_mention=["WANDB_API_KEY"],
        files={"job.log": log},
    )


# --------------------------------------------------------------------------------------------------
# wandb-init-timeout


@case
def wandb_init_timeout_hpc_no_internet_lightning() -> Case:
    site = "/gpfs/u/sw/conda/envs/pl23/lib/python3.10/site-packages"
    body = block(f"""
        Using 16bit Automatic Mixed Precision (AMP)
        GPU available: True (cuda), used: True
        TPU available: False, using: 0 TPU cores
        HPU available: False, using: 0 HPUs
        Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4
        ----------------------------------------------------------------------------------------------------
        distributed_backend=nccl
        All distributed processes registered. Starting with 4 processes
        ----------------------------------------------------------------------------------------------------

        wandb: Network error (ConnectionError), entering retry loop.
        wandb: Network error (ConnectionError), entering retry loop.
        Traceback (most recent call last):
          File "/gpfs/u/home/rjones/unet3d/train.py", line 91, in <module>
            main()
          File "/gpfs/u/home/rjones/unet3d/train.py", line 84, in main
            trainer.fit(model, datamodule=dm)
        """) + "\n".join(lightning_fit_frames(site, 538, 46, 105, 574)) + "\n" + block(f"""
          File "{site}/lightning/pytorch/trainer/trainer.py", line 957, in _run
            _log_hyperparams(self)
          File "{site}/lightning/pytorch/loggers/utilities.py", line 93, in _log_hyperparams
            logger.log_hyperparams(hparams_initial)
          File "{site}/lightning_utilities/core/rank_zero.py", line 42, in wrapped_fn
            return fn(*args, **kwargs)
          File "{site}/lightning/pytorch/loggers/wandb.py", line 420, in log_hyperparams
            self.experiment.config.update(params, allow_val_change=True)
          File "{site}/lightning/fabric/loggers/logger.py", line 118, in experiment
            return fn(self)
          File "{site}/lightning/pytorch/loggers/wandb.py", line 406, in experiment
            self._experiment = wandb.init(**self._wandb_init)
          File "{site}/wandb/sdk/wandb_init.py", line 1243, in init
            wandb._sentry.reraise(e)
          File "{site}/wandb/analytics/sentry.py", line 155, in reraise
            raise exc.with_traceback(sys.exc_info()[2])
          File "{site}/wandb/sdk/wandb_init.py", line 1229, in init
            return wi.init()
          File "{site}/wandb/sdk/wandb_init.py", line 833, in init
            raise error
        wandb.errors.CommError: Run initialization has timed out after 90.0 sec. 
        Please refer to the documentation for additional information: https://docs.wandb.ai/guides/track/tracking-faq#initstarterror-error-communicating-with-wandb-process-
        """)
    log = block("""
        ==> job 1902231 on dcs142 (4x V100), no outbound network from compute nodes
        srun -l python train.py --config configs/unet3d_brats.yaml --logger wandb
        """) + prefix(body, "0: ") + block("""
        1: [rank1]:[E1108 10:32:47.505330172 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800081 milliseconds before timing out.
        srun: error: dcs142: task 0: Exited with exit code 1
        srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
        slurmstepd: error: *** STEP 1902231.0 ON dcs142 CANCELLED AT 2025-11-08T10:33:19 ***
        """)
    return Case(
        "wandb-init-timeout-hpc-no-internet-lightning-01", "wandb-init-timeout", "hard",
        "Lightning WandbLogger on an HPC cluster whose compute nodes have no outbound network, under srun -l with 4 "
        "ranks: wandb 0.17.9 retries, then CommError after 90 s on rank 0; rank 1 later reports an NCCL watchdog "
        "timeout on the first broadcast and Slurm cancels the step, both consequences",
        initiating_rank=0,
        facts={"launcher": "slurm", "world_size": "4"},
        must_mention=["WANDB_MODE", "offline"],
        files={"slurm-1902231.out": log},
    )


@case
def wandb_init_timeout_hf_trainer_nfs_dir() -> Case:
    site = "/usr/local/lib/python3.10/dist-packages"
    log = block(f"""
        {{'output_dir': '/mnt/nfs/exp/deberta-v3-large-nli', 'per_device_train_batch_size': 16, 'learning_rate': 1e-05, 'report_to': ['wandb']}}
        11/27/2025 16:40:02 - INFO - __main__ - WANDB_DIR=/mnt/nfs/exp/wandb  WANDB_PROJECT=nli-sweeps
        [INFO|trainer.py:2314] 2025-11-27 16:40:09,551 >> ***** Running training *****
        [INFO|trainer.py:2315] 2025-11-27 16:40:09,551 >>   Num examples = 392,702
        [INFO|trainer.py:2316] 2025-11-27 16:40:09,551 >>   Num Epochs = 3
        [INFO|trainer.py:2317] 2025-11-27 16:40:09,551 >>   Instantaneous batch size per device = 16
        [INFO|trainer.py:2320] 2025-11-27 16:40:09,551 >>   Total train batch size (w. parallel, distributed & accumulation) = 16
        [INFO|trainer.py:2321] 2025-11-27 16:40:09,551 >>   Gradient Accumulation steps = 1
        [INFO|trainer.py:2322] 2025-11-27 16:40:09,551 >>   Total optimization steps = 73,632
        [INFO|trainer.py:2323] 2025-11-27 16:40:09,553 >>   Number of trainable parameters = 435,063,811
        [INFO|integration_utils.py:812] 2025-11-27 16:40:09,556 >> Automatic Weights & Biases logging enabled, to disable set os.environ["WANDB_DISABLED"] = "true"
        wandb: Currently logged in as: ml-platform-bot (nlp-team). Use `wandb login --relogin` to force relogin
        Traceback (most recent call last):
          File "/workspace/run_glue.py", line 647, in <module>
            main()
          File "/workspace/run_glue.py", line 555, in main
            train_result = trainer.train(resume_from_checkpoint=checkpoint)
          File "{site}/transformers/trainer.py", line 2123, in train
            return inner_training_loop(
          File "{site}/transformers/trainer.py", line 2382, in _inner_training_loop
            self.control = self.callback_handler.on_train_begin(args, self.state, self.control)
          File "{site}/transformers/trainer_callback.py", line 468, in on_train_begin
            return self.call_event("on_train_begin", args, state, control)
          File "{site}/transformers/trainer_callback.py", line 518, in call_event
            result = getattr(callback, event)(
          File "{site}/transformers/integrations/integration_utils.py", line 911, in on_train_begin
            self.setup(args, state, model, **kwargs)
          File "{site}/transformers/integrations/integration_utils.py", line 838, in setup
            self._wandb.init(
          File "{site}/wandb/sdk/wandb_init.py", line 1243, in init
            wandb._sentry.reraise(e)
          File "{site}/wandb/analytics/sentry.py", line 155, in reraise
            raise exc.with_traceback(sys.exc_info()[2])
          File "{site}/wandb/sdk/wandb_init.py", line 1229, in init
            return wi.init()
          File "{site}/wandb/sdk/wandb_init.py", line 833, in init
            raise error
        wandb.errors.CommError: Run initialization has timed out after 90.0 sec. 
        Please refer to the documentation for additional information: https://docs.wandb.ai/guides/track/tracking-faq#initstarterror-error-communicating-with-wandb-process-
        """)
    return Case(
        "wandb-init-timeout-hf-trainer-nfs-wandb-dir-02", "wandb-init-timeout", "medium",
        "A single-GPU HF Trainer run (transformers 4.46, wandb 0.17.9) logged in as a bot account, with WANDB_DIR on a "
        "saturated NFS mount during a sweep of 40 jobs: the service process cannot set up the run in 90 s and "
        "wandb.init raises CommError at on_train_begin",
        facts={},
        must_mention=["init_timeout", "WANDB_DIR"],
        files={"train.log": log},
    )


# --------------------------------------------------------------------------------------------------
# mlflow-param-value-changed


@case
def mlflow_param_changed_lightning_resume_file_store() -> Case:
    site = "/home/dnguyen/.venv/lib/python3.11/site-packages"
    log = block(f"""
        $ python train_tabular.py --resume-run 5b0f3c9e2d8a4c1b9e7f6a5d4c3b2a10 --lr 3e-4 --ckpt checkpoints/last.ckpt
        Seed set to 17
        GPU available: True (cuda), used: True
        TPU available: False, using: 0 TPU cores
        HPU available: False, using: 0 HPUs
        LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]
        Restoring states from the checkpoint path at checkpoints/last.ckpt
        Traceback (most recent call last):
          File "/home/dnguyen/churn/train_tabular.py", line 142, in <module>
            trainer.fit(model, datamodule=dm, ckpt_path=args.ckpt)
          File "{site}/lightning/pytorch/trainer/trainer.py", line 561, in fit
            call._call_and_handle_interrupt(
          File "{site}/lightning/pytorch/trainer/call.py", line 48, in _call_and_handle_interrupt
            return trainer_fn(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/lightning/pytorch/trainer/trainer.py", line 599, in _fit_impl
            self._run(model, ckpt_path=ckpt_path)
          File "{site}/lightning/pytorch/trainer/trainer.py", line 1002, in _run
            _log_hyperparams(self)
          File "{site}/lightning/pytorch/loggers/utilities.py", line 93, in _log_hyperparams
            logger.log_hyperparams(hparams_initial)
          File "{site}/lightning_utilities/core/rank_zero.py", line 42, in wrapped_fn
            return fn(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^
          File "{site}/lightning/pytorch/loggers/mlflow.py", line 245, in log_hyperparams
            self.experiment.log_batch(run_id=self.run_id, params=params_list[idx : idx + 100], **self._log_batch_kwargs)
          File "{site}/mlflow/tracking/client.py", line 1997, in log_batch
            return self._tracking_client.log_batch(
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/mlflow/tracking/_tracking_service/client.py", line 562, in log_batch
            self.store.log_batch(run_id=run_id, metrics=metrics_batch, params=[], tags=[])
          File "{site}/mlflow/store/tracking/file_store.py", line 1149, in log_batch
            self._log_run_param(run_info, param)
          File "{site}/mlflow/store/tracking/file_store.py", line 1003, in _log_run_param
            self._validate_new_param_value(
          File "{site}/mlflow/store/tracking/file_store.py", line 1025, in _validate_new_param_value
            raise MlflowException(
        mlflow.exceptions.MlflowException: Changing param values is not allowed. Param with key='lr' was already logged with value='0.001' for run ID='5b0f3c9e2d8a4c1b9e7f6a5d4c3b2a10'. Attempted logging new value '0.0003'.
        """)
    return Case(
        "mlflow-param-value-changed-lightning-resume-file-store-01", "mlflow-param-value-changed", "easy",
        "Resuming a Lightning run into the same MLflow run (MLFlowLogger(run_id=...), local ./mlruns file store, "
        "mlflow 2.17) with a lowered learning rate: log_hyperparams re-logs lr with another value and the file store "
        "refuses it before the first step",
        facts={},
        must_mention=["run", "lr"],
        files={"resume.log": log},
    )


@case
def mlflow_param_changed_hf_trainer_tracking_server() -> Case:
    site = "/opt/conda/lib/python3.10/site-packages"
    body = block(f"""
        [INFO|trainer.py:1760] 2025-06-11 03:12:44,908 >> ***** Running training *****
        [INFO|trainer.py:1761] 2025-06-11 03:12:44,908 >>   Num examples = 1,204,118
        [INFO|trainer.py:1762] 2025-06-11 03:12:44,908 >>   Num Epochs = 2
        [INFO|trainer.py:1763] 2025-06-11 03:12:44,908 >>   Instantaneous batch size per device = 8
        [INFO|trainer.py:1766] 2025-06-11 03:12:44,908 >>   Total train batch size (w. parallel, distributed & accumulation) = 256
        [INFO|trainer.py:1767] 2025-06-11 03:12:44,908 >>   Gradient Accumulation steps = 4
        [INFO|trainer.py:1768] 2025-06-11 03:12:44,908 >>   Total optimization steps = 9,407
        [INFO|trainer.py:1769] 2025-06-11 03:12:44,911 >>   Number of trainable parameters = 6,738,415,616
        [INFO|trainer.py:1790] 2025-06-11 03:12:44,912 >>   Continuing training from checkpoint, will skip to saved global_step
        [INFO|trainer.py:1791] 2025-06-11 03:12:44,912 >>   Continuing training from epoch 0
        [INFO|trainer.py:1792] 2025-06-11 03:12:44,912 >>   Continuing training from global step 3000
        Traceback (most recent call last):
          File "/workspace/train/sft.py", line 188, in <module>
            trainer.train(resume_from_checkpoint=True)
          File "{site}/transformers/trainer.py", line 1537, in train
            return inner_training_loop(
          File "{site}/transformers/trainer.py", line 1831, in _inner_training_loop
            self.control = self.callback_handler.on_train_begin(args, self.state, self.control)
          File "{site}/transformers/trainer_callback.py", line 370, in on_train_begin
            return self.call_event("on_train_begin", args, state, control)
          File "{site}/transformers/trainer_callback.py", line 414, in call_event
            result = getattr(callback, event)(
          File "{site}/transformers/integrations/integration_utils.py", line 1040, in on_train_begin
            self.setup(args, state, model)
          File "{site}/transformers/integrations/integration_utils.py", line 1015, in setup
            self._ml_flow.log_params(dict(combined_dict_items[i : i + self._MAX_PARAMS_TAGS_PER_BATCH]))
          File "{site}/mlflow/tracking/fluent.py", line 1052, in log_params
            return MlflowClient().log_batch(
          File "{site}/mlflow/tracking/client.py", line 1997, in log_batch
            return self._tracking_client.log_batch(
          File "{site}/mlflow/tracking/_tracking_service/client.py", line 568, in log_batch
            self.store.log_batch(run_id=run_id, metrics=[], params=params_batch, tags=tags_batch)
          File "{site}/mlflow/store/tracking/rest_store.py", line 633, in log_batch
            self._call_endpoint(LogBatch, req_body)
          File "{site}/mlflow/store/tracking/rest_store.py", line 82, in _call_endpoint
            return call_endpoint(self.get_host_creds(), endpoint, method, json_body, response_proto)
          File "{site}/mlflow/utils/rest_utils.py", line 370, in call_endpoint
            response = verify_rest_response(response, endpoint)
          File "{site}/mlflow/utils/rest_utils.py", line 240, in verify_rest_response
            raise RestException(json.loads(response.text))
        mlflow.exceptions.RestException: INVALID_PARAMETER_VALUE: Changing param values is not allowed. Params were already logged='[{{'key': 'logging_dir', 'old_value': '/workspace/out/llama2-7b-sft/runs/Jun10_21-02-17_train-7b-0', 'new_value': '/workspace/out/llama2-7b-sft/runs/Jun11_03-11-58_train-7b-0'}}]' for run ID='c41d9e07a2b84f5e8d16b0a3f2e7c958'.
        """)
    log = block("""
        ## pod train-7b-0 restarted after a spot preemption; resuming
        MLFLOW_TRACKING_URI=http://mlflow.ml-platform.svc:5000
        MLFLOW_EXPERIMENT_NAME=llama2-7b-sft
        MLFLOW_RUN_ID=c41d9e07a2b84f5e8d16b0a3f2e7c958
        + torchrun --nproc_per_node 8 sft.py --output_dir /workspace/out/llama2-7b-sft --report_to mlflow --bf16 --per_device_train_batch_size 8 --gradient_accumulation_steps 4
        """) + prefix(body, "[rank0]: ") + block("""
        W0611 03:13:21.300000 140233 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 140301 closing signal SIGTERM
        W0611 03:13:21.301000 140233 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 140302 closing signal SIGTERM
        W0611 03:13:21.301000 140233 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 140303 closing signal SIGTERM
        E0611 03:13:22.118000 140233 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 0 (pid: 140300) of binary: /opt/conda/bin/python
        """)
    return Case(
        "mlflow-param-value-changed-hf-resume-tracking-server-02", "mlflow-param-value-changed", "hard",
        "A preempted HF Trainer job (transformers 4.36, mlflow 2.17 client, remote tracking server) resumes with "
        "MLFLOW_RUN_ID set; the callback re-logs every TrainingArguments value and logging_dir, which transformers 4.x "
        "stamps with the launch time, differs: the server's log_batch refuses and rank 0 dies before step 3001",
        initiating_rank=0,
        facts={"launcher": "torchrun", "world_size": "8"},
        must_mention=["MLFLOW_RUN_ID", "logging_dir"],
        files={"resume.log": log},
    )


# --------------------------------------------------------------------------------------------------
# megatron-parallel-sizes-invalid


@case
def megatron_nemo2_world_size_one_node() -> Case:
    site = "/usr/local/lib/python3.12/dist-packages"
    trace = block(f"""
        Traceback (most recent call last):
          File "/workspace/recipes/pretrain_llama3_70b.py", line 58, in <module>
            run.run(recipe, executor=run.LocalExecutor(ntasks_per_node=8, launcher="torchrun"), direct=True)
          File "{site}/nemo_run/run/api.py", line 81, in run
            direct_run_fn(fn_or_script, dryrun=dryrun)
          File "{site}/nemo_run/run/api.py", line 47, in direct_run_fn
            built_fn()
          File "{site}/nemo/collections/llm/api.py", line 150, in pretrain
            return train(
          File "{site}/nemo/collections/llm/api.py", line 107, in train
            trainer.fit(model, data)
        """) + "\n".join(lightning_fit_frames(site, 561, 47, 105, 599)) + "\n" + block(f"""
          File "{site}/lightning/pytorch/trainer/trainer.py", line 969, in _run
            self.strategy.setup_environment()
          File "{site}/lightning/pytorch/strategies/ddp.py", line 154, in setup_environment
            self.setup_distributed()
          File "{site}/nemo/lightning/pytorch/strategies/megatron_strategy.py", line 616, in setup_distributed
            setup_parallel_ranks(self)
          File "{site}/nemo/lightning/pytorch/strategies/utils.py", line 96, in setup_parallel_ranks
            _strategy_lib.init_parallel_ranks(env.world_size(), env.global_rank(), env.local_rank(), parallelism)
          File "{site}/nemo/lightning/_strategy_lib.py", line 83, in init_parallel_ranks
            initialize_model_parallel_for_nemo(
          File "{site}/nemo/lightning/megatron_init.py", line 147, in initialize_model_parallel_for_nemo
            ) = fake_initialize_model_parallel(
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "{site}/nemo/lightning/megatron_init.py", line 337, in fake_initialize_model_parallel
            assert world_size % total_model_size == 0, (
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        AssertionError: world_size: 8 must be divisible by total world_size: (decoder_)tensor_model_parallel_size 4 * (decoder_)pipeline_model_parallel_size 4 * (decoder_)context_parallel_size 1 + encoder_tensor_model_parallel_size 0 * encoder_pipeline_model_parallel_size 0 * context_parallel_size 1
        """)
    head = block("""
        [NeMo I 2025-10-14 12:01:33 nemo_logging:393] Experiments will be logged at /workspace/results/llama3_70b_pretrain/2025-10-14_12-01-33
        [NeMo W 2025-10-14 12:01:33 nemo_logging:405] "update_logger_directory" is True. Overwriting tensorboard logger "save_dir" to /workspace/results/llama3_70b_pretrain/tb_logs
        GPU available: True (cuda), used: True
        TPU available: False, using: 0 TPU cores
        HPU available: False, using: 0 HPUs
        [NeMo I 2025-10-14 12:01:34 nemo_logging:393] Rank 0 has data parallel group : [0]
        Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/8
        Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/8
        Initializing distributed: GLOBAL_RANK: 6, MEMBER: 7/8
        Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8
        """)
    ranks = "".join(prefix(trace, f"[default{r}]:") for r in (0, 5))
    log = block("""
        $ python recipes/pretrain_llama3_70b.py --nodes 1 --devices 8
        # recipe: llm.llama3_70b.pretrain_recipe(num_nodes=1, num_gpus_per_node=8); defaults TP=4 PP=4 CP=2, overridden CP=1
        """) + head + ranks + block("""
        E1014 12:01:41.730000 4102 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4117) of binary: /usr/bin/python
        """)
    return Case(
        "megatron-parallel-sizes-invalid-nemo2-llama70b-one-node-01", "megatron-parallel-sizes-invalid", "medium",
        "A NeMo 2 Llama-3-70B pretraining recipe (TP 4 x PP 4, CP lowered to 1) launched with NeMo-Run on one 8-GPU "
        "node: a replica needs 16 GPUs, so NeMo's fake_initialize_model_parallel asserts on every rank; torchrun's "
        "[defaultN]: prefixes, two ranks' tracebacks shown",
        initiating_rank=[0, 5],
        facts={"launcher": "torchrun", "world_size": "8"},
        must_mention=["pipeline_model_parallel_size", "16"],
        files={"pretrain.log": log},
    )


@case
def megatron_core_heads_tp8_custom_trainer() -> Case:
    site = "/opt/venv/lib/python3.11/site-packages"
    def trace(r: int) -> str:
        return prefix(block(f"""
            Traceback (most recent call last):
              File "/src/mtrain/cli/pretrain.py", line 77, in <module>
                main()
              File "/src/mtrain/cli/pretrain.py", line 61, in main
                model = build_gpt(cfg)
                        ^^^^^^^^^^^^^^
              File "/src/mtrain/model/builder.py", line 34, in build_gpt
                tcfg = TransformerConfig(
                       ^^^^^^^^^^^^^^^^^^
              File "<string>", line 112, in __init__
              File "{site}/megatron/core/transformer/transformer_config.py", line 925, in __post_init__
                raise ValueError(
            ValueError: num_attention_heads (28) must be a multiple of tensor_model_parallel_size (8).
            """), f"[rank{r}]: ")
    log = block("""
        mtrain 0.9.2 | megatron-core 0.16.1 | torch 2.9.0+cu128 | 8x H100 80GB HBM3
        config: qwen2.5-7b-like, num_layers=28 hidden_size=3584 num_attention_heads=28 num_query_groups=4
        parallel: tensor_model_parallel_size=8 pipeline_model_parallel_size=1 context_parallel_size=1 sequence_parallel=True
        > initializing torch distributed ...
        > initialized model parallel groups: world_size=8 dp=1
        """) + trace(0) + trace(3) + trace(6) + block("""
        E0923 17:20:05.512000 9921 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 9934) of binary: /opt/venv/bin/python
        """)
    return Case(
        "megatron-parallel-sizes-invalid-core-heads-tp8-02", "megatron-parallel-sizes-invalid", "medium",
        "An in-house trainer on megatron-core 0.16.1 builds a 28-head, 4-query-group model with "
        "tensor_model_parallel_size=8 on 8 H100s to fit memory: TransformerConfig refuses the head split on every rank "
        "after the parallel groups were created",
        initiating_rank=[0, 3, 6],
        facts={"launcher": "torchrun", "world_size": "8"},
        must_mention=["tensor_model_parallel_size", "28"],
        files={"pretrain.log": log},
    )


# --------------------------------------------------------------------------------------------------
# tensorboard-not-installed: both captured from real runs on this CPU machine (torch 2.13.0 with gloo; transformers
# 5.24.0), machine paths rewritten to a user's. The programs: a 2-rank torchrun script that creates a SummaryWriter on
# rank 0, and a tiny GPT-2 Trainer with report_to="tensorboard"; neither environment has tensorboard installed.

TB_TORCHRUN_CAPTURED = """\
[rank 0] model ready, 68 params
[rank 1] model ready, 68 params
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/lwei/seg/train_tb.py", line 12, in <module>
[rank0]:     from torch.utils.tensorboard import SummaryWriter
[rank0]:   File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/utils/tensorboard/__init__.py", line 1, in <module>
[rank0]:     import tensorboard
[rank0]: ModuleNotFoundError: No module named 'tensorboard'
E1030 14:22:09.193000 32700 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0 (pid: 32725) of binary: /home/lwei/seg/.venv/bin/python
Traceback (most recent call last):
  File "/home/lwei/seg/.venv/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/home/lwei/seg/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train_tb.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-10-30_14:22:09
  host      : ws-lwei-01
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 32725) 
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""

TB_TRAINER_CAPTURED = """\
[transformers] Model config: bos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
[transformers] Model config: eos_token_id must be `None` or an integer within the vocabulary (between 0 and 63), got 50256. This may result in unexpected behavior.
Traceback (most recent call last):
  File "/content/sft_tb.py", line 8, in <module>
    trainer = Trainer(model=model, args=args, train_dataset=data)
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.12/dist-packages/transformers/trainer.py", line 596, in __init__
    self.callback_handler = CallbackHandler(
                            ^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.12/dist-packages/transformers/trainer_callback.py", line 435, in __init__
    self.add_callback(cb)
  File "/usr/local/lib/python3.12/dist-packages/transformers/trainer_callback.py", line 452, in add_callback
    cb = callback() if isinstance(callback, type) else callback
         ^^^^^^^^^^
  File "/usr/local/lib/python3.12/dist-packages/transformers/integrations/integration_utils.py", line 591, in __init__
    raise RuntimeError(
RuntimeError: TensorBoardCallback requires tensorboard to be installed. Either update your PyTorch version or install tensorboardX.
"""


@case
def tensorboard_missing_torchrun_rank0() -> Case:
    log = block("""
        (seg) lwei@ws-lwei-01:~/seg$ pip list 2>/dev/null | grep -iE "^(torch|numpy|tensorboard) "
        numpy                     2.4.6
        torch                     2.13.0
        (seg) lwei@ws-lwei-01:~/seg$ OMP_NUM_THREADS=1 torchrun --nproc_per_node 2 train_tb.py
        """) + TB_TORCHRUN_CAPTURED
    return Case(
        "tensorboard-not-installed-torchrun-rank0-captured-01", "tensorboard-not-installed", "easy",
        "Captured: a 2-rank torchrun (gloo, torch 2.13.0) script imports SummaryWriter on rank 0 in a venv with torch "
        "but no tensorboard; rank 0 dies in torch/utils/tensorboard/__init__.py line 1 and torchrun reports it",
        initiating_rank=0,
        facts={"launcher": "torchrun", "world_size": "2"},
        must_mention=["pip install tensorboard"],
        files={"train.log": log},
    )


@case
def tensorboard_missing_hf_trainer_notebook() -> Case:
    log = block("""
        !pip -q install -U "transformers==5.24.0" accelerate
        !python sft_tb.py
        """) + TB_TRAINER_CAPTURED
    return Case(
        "tensorboard-not-installed-hf-trainer-captured-02", "tensorboard-not-installed", "easy",
        "Captured: a tiny GPT-2 Trainer (transformers 5.24.0, CPU) with report_to='tensorboard' in an environment "
        "without tensorboard or tensorboardX: Trainer() raises TensorBoardCallback's RuntimeError before training",
        facts={},
        must_mention=["tensorboard", "report_to"],
        files={"colab.log": log},
    )


def main() -> None:
    args = parser(__doc__).parse_args()
    write_all(args.out, CASES)


if __name__ == "__main__":
    main()
