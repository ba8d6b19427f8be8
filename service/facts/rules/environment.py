"""Environment: compiled extensions against another torch, CUDA toolkits, bitsandbytes, NumPy 2, libstdc++,
torch.compile toolchains, the Hugging Face Hub."""

from __future__ import annotations

from service.facts.rules.base import Boost, Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "undefined-torch-symbol",
        "extension-undefined-symbol",
        (
            # "ImportError: .../flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
            # the mangled name is in c10::, at::, torch:: or caffe2:: (_ZN3c10, _ZNK3c10, _ZN2at, _ZN5torch, _ZN6caffe2)
            r"undefined symbol: _ZN?K?(?:3c10|2at|5torch|6caffe2)",
            # an ABI flip (C++11 std::string in the symbol): "undefined symbol: _ZN...NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
            r"undefined symbol: \w*NSt7__cxx11",
            # "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for: PyTorch 2.1.0+cu121 with CUDA 1201
            #  (you have 2.2.0+cu121)"
            r"xFormers can't load C\+\+/CUDA extensions\. xFormers was built for",
            # torchvision / torchaudio against another torch: "RuntimeError: operator torchvision::nms does not exist";
            # "OSError: .../libtorchaudio.so: undefined symbol: ..."
            r"operator torchvision::\w+ does not exist|libtorch(?:audio|vision)\w*\.so: undefined symbol",
        ),
        0.9,
        boosts=(Boost(-0.4, "the library is bitsandbytes (see its entry)", line=r"libbitsandbytes_\w+\.so"),),
    ),
    Rule(
        "undefined-symbol",
        "extension-undefined-symbol",
        # any other C++ symbol missing from a compiled module: "ImportError: ...so: undefined symbol: _Z..."
        (r"\.so(?:\.\d+)*: undefined symbol: _Z\w+",),
        0.6,
        boosts=(
            Boost(-0.4, "the library is bitsandbytes (see its entry)", line=r"libbitsandbytes_\w+\.so"),
            Boost(-0.3, "a versioned libstdc++ symbol is missing (see glibcxx-missing)", line=r"version `(?:GLIBCXX|CXXABI)_[\d.]+' not found"),
        ),
    ),
    Rule(
        "xformers-no-operator",
        "extension-undefined-symbol",
        # xformers with its C++ ops unloaded: "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:"
        (r"No operator found for `memory_efficient_attention_\w+`",),
        0.5,
        boosts=(Boost(0.35, "xFormers could not load its C++/CUDA extensions", line=r"xFormers can't load C\+\+/CUDA extensions"),),
    ),
    Rule(
        "cuda-version-mismatch-build",
        "cuda-version-mismatch-build",
        (
            # torch.utils.cpp_extension: "RuntimeError: The detected CUDA version (12.4) mismatches the version that was used to
            #  compile PyTorch (11.8). Please make sure to use the same CUDA versions."
            r"The detected CUDA version \([\d.]+\) mismatches the version that was used to compile",
            # apex setup.py: "Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries."
            r"Cuda extensions are being compiled with a version of Cuda that does not match",
            # DeepSpeed op builder: "DeepSpeed Op Builder: Installed CUDA version 12.4 does not match the version torch was compiled
            #  with 12.1, unable to compile cuda/cpp extensions without a matching cuda version."
            r"Installed CUDA version [\d.]+ does not match the version torch was compiled with",
            r"unable to compile cuda/cpp extensions without a matching cuda version|CUDAMismatchException",
        ),
        0.92,
    ),
    Rule(
        "toolkit-too-old-for-build",
        "cuda-version-mismatch-build",
        (
            # flash-attn setup.py with an old nvcc first on PATH: "RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.
            #  Note: make sure nvcc has a supported version by running nvcc -V."
            r"FlashAttention is only supported on CUDA \d+\.\d+ and above",
            # nvcc older than the arch list: "nvcc fatal   : Unsupported gpu architecture 'compute_90'" with torch's CUDA newer
            r"nvcc fatal\s*: Unsupported gpu architecture 'compute_\d+a?'",
        ),
        0.5,
        boosts=(Boost(0.35, "the nvcc that builds differs from the CUDA torch was built with", fact="toolkit_differs", value="yes"),),
    ),
    Rule(
        "bitsandbytes",
        "bitsandbytes-setup",
        (
            # bitsandbytes 0.4x: "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more information"
            r"CUDA Setup failed despite (?:GPU|CUDA) being available",
            # "UserWarning: The installed version of bitsandbytes was compiled without GPU support."
            r"The installed version of bitsandbytes was compiled without GPU support",
            # "AttributeError: .../libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats"
            r"libbitsandbytes_cpu\.so: undefined symbol",
            # "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so."; "CUDA SETUP: CUDA detection failed!";
            # "CUDA SETUP: Setup Failed!"
            r"CUDA SETUP: (?:Required library version not found|CUDA detection failed|Setup Failed)",
            # bitsandbytes >= 0.43: "Could not find the bitsandbytes CUDA binary at PosixPath('.../libbitsandbytes_cuda124.so')"
            r"Could not find the bitsandbytes CUDA binary at",
            # the optimizer without its library: "NameError: name 'str2optimizer8bit_blockwise' is not defined";
            # "AttributeError: 'NoneType' object has no attribute 'cadam32bit_grad_fp32'"
            r"name 'str2optimizer8bit_blockwise' is not defined|'NoneType' object has no attribute 'c(?:adam|quantize|dequantize)\w*'",
            # "WARNING: BNB_CUDA_VERSION=118 environment variable detected; loading libbitsandbytes_cuda118.so."
            r"BNB_CUDA_VERSION=\d+ environment variable detected",
        ),
        0.9,
    ),
    Rule(
        "bitsandbytes-libcudart",
        "bitsandbytes-setup",
        # bitsandbytes 0.3x: "CUDA SETUP: ... libcudart.so not found in any environmental path. Searching in backup paths..."
        (r"libcudart\.so not found in any environmental path",),
        0.75,
    ),
    Rule(
        "numpy-abi",
        "numpy-abi-mismatch",
        (
            # "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.1 as it may crash."
            r"A module that was compiled using NumPy 1\.x cannot be run in",
            # "ImportError: numpy.core.multiarray failed to import"; "AttributeError: _ARRAY_API not found"
            r"_ARRAY_API not found|numpy\.core\.multiarray failed to import",
            # "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"
            r"numpy\.(?:dtype|ndarray) size changed, may indicate binary incompatibility",
        ),
        0.92,
    ),
    Rule(
        "numpy-unavailable",
        "numpy-abi-mismatch",
        (
            # torch built against NumPy 1.x under NumPy 2: "RuntimeError: Numpy is not available"
            r"RuntimeError: Numpy is not available",
            # "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead."
            r"was removed in the NumPy 2\.0 release",
        ),
        0.7,
    ),
    Rule(
        "glibcxx",
        "glibcxx-missing",
        (
            # "ImportError: /opt/conda/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by .../_C.so)"
            r"version `GLIBCXX_[\d.]+' not found",
            # "version `CXXABI_1.3.13' not found"
            r"version `CXXABI_[\d.]+' not found",
        ),
        0.95,
    ),
    Rule(
        "glibc",
        "glibcxx-missing",
        # the C library itself (an older OS than the build): "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found"
        (r"version `GLIBC_[\d.]+' not found",),
        0.45,
    ),
    Rule(
        "torch-compile",
        "torch-compile-failure",
        (
            # "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: ..."
            r"BackendCompilerFailed",
            # "torch._inductor.exc.InductorError: ..."; "torch._inductor.exc.CppCompileError: C++ compile error"
            r"torch\._inductor\.exc\.\w+|InductorError|CppCompileError",
            # "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')"
            r"No working C\+\+ compiler found",
            # Triton: "RuntimeError: Failed to find C compiler. Please specify via CC environment variable."; "libcuda.so cannot found!"
            r"Failed to find C compiler\. Please specify via CC environment variable|libcuda\.so cannot found",
            # "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too old."
            r"Cannot find a working triton installation",
            # "Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU compiler, which is used as the backend."
            r"which is too old to be supported by the triton GPU compiler",
            # "triton.compiler.errors.CompilationError"; "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536"
            r"triton\.compiler\.errors\.CompilationError|out of resource: shared memory, Required: \d+",
            # torch._dynamo errors: "torch._dynamo.exc.Unsupported", "torch._dynamo.exc.TorchRuntimeError"
            r"torch\._dynamo\.exc\.\w+",
        ),
        0.85,
        boosts=(
            Boost(-0.25, "the compiled code ran out of GPU memory (see cuda-oom)", line=r"CUDA out of memory\. Tried to allocate"),
            Boost(-0.3, "the disk filled up (see disk-full)", line=r"No space left on device"),
            Boost(-0.3, "compile workers were killed (see host-oom-killed)", line=r"BrokenProcessPool|Out of memory: Killed process"),
        ),
    ),
    Rule(
        "python-h-missing",
        "torch-compile-failure",
        # Triton building its launcher: "/tmp/tmpq2_3b8xz/main.c:5:10: fatal error: Python.h: No such file or directory"
        (r"fatal error: Python\.h: No such file or directory",),
        0.45,
        boosts=(
            Boost(0.35, "Triton / Inductor is compiling", line=r"triton|torch/_inductor|torch\._dynamo|cuda_utils"),
            Boost(-0.2, "a C++ extension build (DeepSpeed ops, setup.py) is running", line=r"Error building extension|setup\.py|op_builder"),
        ),
    ),
    Rule(
        "hf-hub",
        "hf-hub-unreachable",
        (
            # "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files"
            r"We couldn't connect to 'https://huggingface\.co'",
            # "OSError: foo/bar is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'"
            r"is not a local folder and is not a valid model identifier",
            # gated: "OSError: You are trying to access a gated repo."; "Cannot access gated repo for url https://huggingface.co/...";
            # "Access to model meta-llama/Llama-2-7b-hf is restricted and you are not in the authorized list."
            r"You are trying to access a gated repo|Cannot access gated repo for url|is restricted and you are not in the authorized list",
            # "huggingface_hub.utils._errors.RepositoryNotFoundError: 401 Client Error. Repository Not Found for url: https://huggingface.co/..."
            r"Repository Not Found for url: https://huggingface\.co|RepositoryNotFoundError|GatedRepoError",
            # offline: "Connection error, and we cannot find the requested files in the disk cache."; "LocalEntryNotFoundError";
            # "OfflineModeIsEnabled"; "outgoing traffic has been disabled. To enable hf.co look-ups and downloads online, set 'local_files_only' to False."
            r"cannot find the requested files in the disk cache|LocalEntryNotFoundError|OfflineModeIsEnabled|outgoing traffic has been disabled",
            # "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded"
            r"HTTPSConnectionPool\(host='(?:huggingface\.co|cdn-lfs[\w.-]*\.huggingface\.co|hf-mirror\.com)'",
            # huggingface_hub validators: "HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/data/models/x'"
            r"Repo id must be in the form 'repo_name' or 'namespace/repo_name'|Incorrect path_or_model_id:",
        ),
        0.88,
    ),
    Rule(
        "hf-tokenizer-load",
        "hf-hub-unreachable",
        # "OSError: Can't load tokenizer for 'meta-llama/Llama-2-7b-hf'. If you were trying to load it from 'https://huggingface.co/models', ..."
        (r"Can't load (?:tokenizer|the configuration|config) for '",),
        0.6,
    ),
    Rule(
        "protobuf-old-generated-code",
        "protobuf-generated-code-outdated",
        (
            # protobuf >= 4.21's upb runtime: "TypeError: Descriptors cannot be created directly." (4.21.x: "cannot not be")
            r"Descriptors cannot (?:not )?be created directly",
            # the next line: "If this call came from a _pb2.py file, your generated code is out of date and must be regenerated
            #  with protoc >= 3.19.0."
            r"your generated code is out of date and must be regenerated with protoc",
        ),
        0.93,
    ),
)
