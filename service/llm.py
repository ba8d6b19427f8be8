"""The one module that talks to an LLM, through litellm. Nothing else imports litellm.

litellm is imported on first use only (never when no model is configured), with its cost map read
from the package (``LITELLM_LOCAL_MODEL_COST_MAP``) so that importing it reaches no network.
Errors are translated here into ``LLMError``; 429 and 5xx are retried with backoff within a budget.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from service.errors import LLMBusy, LLMError
from service.settings import Settings

_RETRYABLE = ("RateLimitError", "InternalServerError", "ServiceUnavailableError", "BadGatewayError", "APIConnectionError", "Timeout")


@dataclass
class Reply:
    text: str
    model: str
    latency_ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def prepare() -> None:
    """Import litellm now (seconds, once per process), so that no call's time budget pays for it."""
    _litellm()


def _kwargs(settings: Settings, messages: list[dict[str, str]], timeout: float) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "model": settings.llm_model,
        "messages": messages,
        "timeout": timeout,
        "max_tokens": settings.llm_max_tokens,
        "temperature": settings.llm_temperature,
        "num_retries": 0,  # retries are ours, within the budget
    }
    if settings.llm_api_base:
        kw["api_base"] = settings.llm_api_base
    if settings.llm_api_key:
        kw["api_key"] = settings.llm_api_key.get_secret_value()
    elif settings.llm_api_base and str(settings.llm_model).startswith("openai/"):
        # Local OpenAI-compatible servers (vLLM, llama.cpp, LM Studio) need no key, but the client wants one.
        kw["api_key"] = "no-key-needed"
    return kw


def _retryable(exc: Exception) -> bool:
    name = exc.__class__.__name__
    status = getattr(exc, "status_code", None)
    return name in _RETRYABLE or (isinstance(status, int) and (status == 429 or status >= 500))


class _Slots:
    """The LLM's own bounded pool: at most ``llm_concurrency`` calls at once, on threads that serve no request.

    A call that finds every slot taken fails at once (the caller answers deterministically); a caller waits
    for its call only until its deadline, and the slot stays taken until the call itself ends.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.free = threading.BoundedSemaphore(size)
        self.pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="crashdoc-llm")

    def take(self) -> None:
        if not self.free.acquire(blocking=False):
            raise LLMBusy(f"The LLM is busy: all {self.size} calls in flight are still waiting for it.",
                           hint="Raise CRASHDOC_LLM_CONCURRENCY, or use a faster model.")


_SLOTS: dict[int, _Slots] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(settings: Settings) -> _Slots:
    with _SLOTS_LOCK:
        return _SLOTS.setdefault(settings.llm_concurrency, _Slots(settings.llm_concurrency))


def complete(settings: Settings, messages: list[dict[str, str]], *, deadline: float) -> Reply:
    """One chat completion in the LLM pool, retried on 429/5xx with backoff until ``deadline`` (monotonic).
    Raises ``LLMError`` at once when the pool is full, and at the deadline when the model has not answered."""
    if not settings.llm_model:
        raise LLMError("No LLM is configured.", hint="Set CRASHDOC_LLM_MODEL.")
    slots = _slots(settings)
    slots.take()
    try:
        future = slots.pool.submit(_complete, settings, messages, deadline)
    except RuntimeError:
        slots.free.release()
        raise
    future.add_done_callback(lambda _: slots.free.release())
    try:
        return future.result(timeout=max(0.0, deadline - time.monotonic()))
    except FutureTimeout as exc:
        raise LLMError("The LLM did not answer within the time budget.", hint="Raise CRASHDOC_LLM_BUDGET_S or use a faster model.") from exc


def _complete(settings: Settings, messages: list[dict[str, str]], deadline: float) -> Reply:
    litellm = _litellm()
    attempt = 0
    while True:
        attempt += 1
        remaining = deadline - time.monotonic()
        if remaining <= 0.05:
            raise LLMError("The LLM time budget was spent.", hint="Raise CRASHDOC_LLM_BUDGET_S or use a faster model.")
        t0 = time.perf_counter()
        try:
            resp = litellm.completion(**_kwargs(settings, messages, min(settings.llm_timeout_s, remaining)))
        except Exception as exc:  # translated at this one boundary
            if _retryable(exc) and attempt <= settings.llm_max_retries:
                backoff = min(8.0, 0.25 * 2 ** (attempt - 1)) * (0.8 + 0.4 * random.random())
                if time.monotonic() + backoff < deadline:
                    time.sleep(backoff)
                    continue
            status = getattr(exc, "status_code", None)
            raise LLMError(f"The LLM call failed: {exc.__class__.__name__}" + (f" (HTTP {status})" if status else "")) from exc
        latency = (time.perf_counter() - t0) * 1000
        try:
            text = resp.choices[0].message.content or ""
        except (AttributeError, IndexError) as exc:
            raise LLMError("The LLM answered with no message.") from exc
        usage = getattr(resp, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=resp))
        except Exception:  # unknown models have no price: not an error
            cost = None
        return Reply(
            text=text, model=str(settings.llm_model), latency_ms=round(latency, 1),
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost, attempts=attempt,
        )


def _close(chunks: Any) -> None:
    """Close a stream now: left to the garbage collector, it closes inside another request's connection-pool lock."""
    for obj in (chunks, getattr(chunks, "completion_stream", None)):
        close = getattr(obj, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):  # best effort: the response is abandoned anyway
                close()


def stream(settings: Settings, messages: list[dict[str, str]], *, deadline: float) -> Iterator[str]:
    """Text deltas of a streamed completion (for the chat page's SSE). Closing the generator closes the stream."""
    if not settings.llm_model:
        raise LLMError("No LLM is configured.", hint="Set CRASHDOC_LLM_MODEL.")
    litellm = _litellm()
    slots = _slots(settings)
    slots.take()  # a stream holds a slot too (it is read on the caller's thread, bounded by the timeout)
    chunks: Any = None
    try:
        chunks = litellm.completion(**_kwargs(settings, messages, max(0.1, min(settings.llm_timeout_s, deadline - time.monotonic()))), stream=True)
        for chunk in chunks:
            delta = chunk.choices[0].delta.content if chunk.choices else None
            if delta:
                yield delta
            if time.monotonic() > deadline:
                raise LLMError("The LLM time budget was spent while streaming.")
    except LLMError:
        raise
    except Exception as exc:
        raise LLMError(f"The LLM stream failed: {exc.__class__.__name__}") from exc
    finally:
        if chunks is not None:
            _close(chunks)
        slots.free.release()
