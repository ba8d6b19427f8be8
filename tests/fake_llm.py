"""A real local HTTP server that speaks the OpenAI chat-completions protocol, with scripted replies.

litellm is pointed at it with ``CRASHDOC_LLM_MODEL=openai/<name>`` and ``CRASHDOC_LLM_API_BASE``.
Every request body is recorded, so tests can assert on exactly what left crashdoc.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Script:
    """One scripted reply: ``content`` (the assistant text), or an HTTP ``status`` error, after ``delay`` s."""

    content: str = ""
    status: int = 200
    delay: float = 0.0


@dataclass
class FakeLLM:
    replies: deque[Script] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    default: Script | None = None
    release: threading.Event = field(default_factory=threading.Event)  # set: every delay ends now

    def queue(self, *scripts: Script) -> None:
        self.replies.extend(scripts)

    def sent_text(self) -> str:
        return json.dumps(self.requests)


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
    }


def make_handler(state: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(body)
            script = state.replies.popleft() if state.replies else (state.default or Script(status=500))
            if script.delay:
                state.release.wait(script.delay)
            if script.status != 200:
                payload = json.dumps({"error": {"message": "scripted failure", "type": "server_error", "code": script.status}}).encode()
                self.send_response(script.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                if script.status == 429:
                    self.send_header("retry-after", "0")
                self.end_headers()
                self.wfile.write(payload)
                return
            model = body.get("model", "fake")
            if body.get("stream"):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                words = script.content.split(" ")
                for i, word in enumerate(words):
                    delta = word if i == 0 else " " + word
                    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": model,
                             "choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                end = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": model,
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                return
            payload = json.dumps(_completion(script.content, model)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


class FakeLLMServer:
    def __init__(self) -> None:
        self.state = FakeLLM()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.state))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
