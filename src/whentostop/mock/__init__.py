"""The offline mock model: personas that read the conversation and answer like a model would,
behind the same OpenAI-compatible `/v1/chat/completions` protocol as a real endpoint."""

from .endpoint import MockServer, handle, mock_transport
from .personas import PERSONAS, count_tokens, reply

__all__ = ["PERSONAS", "MockServer", "count_tokens", "handle", "mock_transport", "reply"]
