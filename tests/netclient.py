"""A raw test client for the server: a plain Trio TCP stream plus the protocol's framing.

For tests only. It speaks msgpack frames directly (no client library of ours in between) and
can send arbitrary bytes. ``recv`` answers the server's pings by itself unless ``auto_pong`` is off,
and checks that every message received is valid and allowed where the conversation is: each goes
through a :class:`quinze_protocol.session.ClientSession` (``client.session``), which also
follows the tables (what the client sends is recorded there when the session allows it: tests
send wrong things on purpose, and the server must answer those itself).

``NetClient.connect(where)``: ``where`` is a TCP port on 127.0.0.1 (:func:`serverkit.serving`),
or an in-memory server (:func:`serverkit.memory_serving`: the same server, its connections on
in-memory stream pairs), so a conversation test runs the same on either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import trio

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder, encode_frame
from quinze_protocol.messages import MESSAGE_TYPES
from quinze_protocol.session import ClientSession, LocalProtocolError

TIMEOUT = 5.0


OPEN: list["NetClient"] = []
"""Every client made, so a test's server context can close those the test left open."""


class NetClient:
    def __init__(self, stream: trio.abc.Stream) -> None:
        OPEN.append(self)
        self.stream = stream
        self.dec = FrameDecoder()
        self.auto_pong = True
        self.seen: list[dict[str, Any]] = []  # every map received, in order
        self.session = ClientSession()

    @classmethod
    async def connect(cls, port: Any, name: str | None = "ana", role: str = "player") -> "NetClient":
        """Connect to 127.0.0.1:``port`` (or to an in-memory server: an object with ``async
        stream()``); with ``name``, say hello and check the welcome."""
        if isinstance(port, int):
            client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        else:
            client = cls(await port.stream())
        if name is not None:
            await client.send({"type": "hello", "version": 1, "name": name, "role": role})
            welcome = await client.recv()
            assert welcome["type"] == "welcome", welcome
        return client

    async def send(self, msg: Mapping[str, Any]) -> None:
        frame = encode_frame(msg)
        if isinstance(msg, Mapping) and msg.get("type") in MESSAGE_TYPES:
            try:
                self.session.sent(msg)
            except LocalProtocolError:
                pass  # sent on purpose where the conversation does not allow it
        await self.stream.send_all(frame)

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next map from the server (pings answered and skipped). Fails on timeout or EOF."""
        with trio.fail_after(timeout):
            while True:
                data = self.dec.next_data()
                if data is None:
                    chunk = await self.stream.receive_some(65536)
                    if not chunk:
                        raise EOFError("the server closed the connection")
                    self.dec.feed(chunk)
                    continue
                self.seen.append(data)
                try:  # every message the server sends must be a valid one, allowed where it comes (PROTOCOL.md)
                    self.session.receive(data)
                except ProtocolError as e:
                    raise AssertionError(f"the server sent an invalid message: {e}: {data!r}") from None
                if data.get("type") == "ping" and self.auto_pong:
                    await self.send({"type": "pong", "nonce": data["nonce"]})
                    continue
                return data

    async def expect(self, type_: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """Skip messages until one of ``type_`` (with ``fields`` equal, if given) arrives."""
        with trio.fail_after(timeout):
            while True:
                msg = await self.recv(math.inf)
                if msg["type"] == type_ and all(msg.get(k) == v for k, v in fields.items()):
                    return msg

    async def request(self, msg: Mapping[str, Any], type_: str) -> dict[str, Any]:
        await self.send(msg)
        return await self.expect(type_)

    async def until_closed(self, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """Every message until the server closes the connection."""
        out = []
        with trio.fail_after(timeout):
            while True:
                try:
                    out.append(await self.recv(math.inf))
                except (EOFError, trio.BrokenResourceError):
                    return out

    async def aclose(self) -> None:
        await self.stream.aclose()
