"""A scripted chat server on 127.0.0.1 speaking the OpenAI chat-completions and Anthropic messages wire
formats (JSON and server-sent events), so the real SDKs can be tested with no network."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def pieces(text: str) -> list[str]:
    """Stream a reply in small pieces that split handles across chunks (`[S` then `1]`)."""
    return [text[i:i + 3] for i in range(0, len(text), 3)]


class FakeLLM:
    """`with FakeLLM(["first answer", "second"]) as server:` -> server.url; replies are used in order, the
    last one repeats; every request body is kept in `server.requests`."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests.append({"path": self.path, **body})
                    reply = server.replies.pop(0) if len(server.replies) > 1 else server.replies[0]
                if re.search(r"/chat/completions$", self.path):
                    self._openai(body, reply)
                elif re.search(r"/messages$", self.path):
                    self._anthropic(body, reply)
                else:
                    self.send_error(404)

            def _json(self, data):
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _sse(self, events):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for name, data in events:
                    prefix = f"event: {name}\n" if name else ""
                    payload = data if isinstance(data, str) else json.dumps(data)
                    self.wfile.write(f"{prefix}data: {payload}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

            def _openai(self, body, reply):
                base = {"id": "c1", "created": 0, "model": body["model"]}
                if not body.get("stream"):
                    self._json({**base, "object": "chat.completion", "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
                    return
                chunk = {**base, "object": "chat.completion.chunk"}
                events = [(None, {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                        "finish_reason": None}]})]
                events += [(None, {**chunk, "choices": [{"index": 0, "delta": {"content": p},
                                                         "finish_reason": None}]}) for p in pieces(reply)]
                events += [(None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                           (None, "[DONE]")]
                self._sse(events)

            def _anthropic(self, body, reply):
                message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                           "stop_reason": "end_turn", "stop_sequence": None,
                           "usage": {"input_tokens": 1, "output_tokens": 1}}
                if not body.get("stream"):
                    self._json({**message, "content": [{"type": "text", "text": reply}]})
                    return
                events = [("message_start", {"type": "message_start", "message": {
                    **message, "content": [], "stop_reason": None}}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}})]
                events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                    "delta": {"type": "text_delta", "text": p}})
                           for p in pieces(reply)]
                events += [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                           ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                                 "stop_sequence": None},
                                              "usage": {"output_tokens": 1}}),
                           ("message_stop", {"type": "message_stop"})]
                self._sse(events)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeLLM:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
