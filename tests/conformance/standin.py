"""A stand-in for the Messages API on loopback, for running the real Claude Code offline.

It answers `POST /v1/messages` with Server-Sent Events in the API's streaming shape (message_start,
one start/delta/stop per content block, message_delta with the stop reason, message_stop), and
`count_tokens` with a fixed count. What it replies is scripted per test: `reply(request)` returns
the content blocks of the answer. Every request is recorded, so a test can assert what the client
sent (the history `--resume` replayed, the tools on offer).

Only 127.0.0.1 and a free port the kernel picks; started and stopped by the test.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text(t):
    return {"type": "text", "text": t}


def thinking(t):
    return {"type": "thinking", "thinking": t, "signature": "c3RhbmQtaW4="}


def tool_use(tool_id, name, input_):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": input_}


class Held:
    """A reply streamed up to its first delta, then held until `release` is set (at most
    `limit` seconds): the client is mid-stream meanwhile, as with a slow model."""

    def __init__(self, blocks, release, limit=60):
        self.blocks = blocks
        self.release = release
        self.limit = limit


def last_user_text(request):
    """The text of the newest user message (prompt or tool result), for scripts to branch on."""
    for m in reversed(request.get("messages", [])):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            return content
        parts = []
        for b in content or []:
            if b.get("type") == "text":
                parts.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                c = b.get("content")
                parts.append(c if isinstance(c, str) else json.dumps(c))
        return "\n".join(parts)
    return ""


def has_tool_result(request):
    last = (request.get("messages") or [{}])[-1]
    content = last.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def _events(number, model, blocks, usage, split=None):
    start_usage = {
        "input_tokens": usage[0],
        "output_tokens": 1,
        "cache_read_input_tokens": usage[2],
        "cache_creation_input_tokens": usage[3],
    }
    if split is not None:
        start_usage["cache_creation"] = {"ephemeral_5m_input_tokens": split[0], "ephemeral_1h_input_tokens": split[1]}
    yield "message_start", {
        "type": "message_start",
        "message": {
            "id": "msg_standin_%04d" % number,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": start_usage,
        },
    }
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}}
        elif b["type"] == "thinking":
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": b["thinking"]}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": b["signature"]}}
        elif b["type"] == "tool_use":
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": usage[1]}}
    yield "message_stop", {"type": "message_stop"}


class StandIn:
    """The stand-in server. `reply(request) -> [blocks]` scripts the answers; `usage` is the
    (input, output, cache read, cache write) tokens each answer reports, and `split` the cache
    write's (five-minute, one-hour) parts when given."""

    def __init__(self, reply, usage=(120, 30, 1000, 200), split=None):
        self.reply = reply
        self.usage = usage
        self.split = split
        self.requests = []
        self._lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, status, ctype, body):
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n)
                try:
                    request = json.loads(raw or b"{}")
                except ValueError:
                    return self._send(400, "application/json", b'{"type":"error"}')
                if "count_tokens" in self.path:
                    return self._send(200, "application/json", b'{"input_tokens": 100}')
                with stand_in._lock:
                    stand_in.requests.append(request)
                    number = len(stand_in.requests)
                answer = stand_in.reply(request)
                held = answer if isinstance(answer, Held) else None
                blocks = held.blocks if held else answer
                model = request.get("model", "claude-standin")
                # Streamed as chunks, flushed per event, so a held reply is seen mid-stream.
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for e, d in _events(number, model, blocks, stand_in.usage, stand_in.split):
                    chunk = ("event: %s\ndata: %s\n\n" % (e, json.dumps(d))).encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    if held and e == "content_block_delta":
                        held.release.wait(held.limit)
                        held = None
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def do_GET(self):
                self._send(404, "application/json", b"{}")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self._server.server_address[1]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
