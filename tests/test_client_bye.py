"""A server's ``bye`` as the client's Connection takes it in (PROTOCOL.md "Flow" 8: a shutting-down
server sends the aborted ``game-over``, then ``bye`` ``"shutdown"``), over real TCP on loopback
with a scripted server: the messages that came before the ``bye`` in the same read are handed to
the session in the state they were sent in, the session closes when the end reaches the caller,
and a question put after it is :class:`ConnectionClosed`, never the session's
:class:`LocalProtocolError` (which once escaped ``quinze match`` as a traceback)."""

from __future__ import annotations

import functools

import trio

from quinze_cli.client import ConnectionClosed, connect
from quinze_protocol.framing import encode_frame
from quinze_protocol.messages import PROTOCOL_VERSION

import pytest


async def test_messages_before_a_bye_in_one_read_are_taken_in_then_the_connection_is_closed() -> None:
    go, sent = trio.Event(), trio.Event()

    async def scripted(stream: trio.SocketStream) -> None:
        assert await stream.receive_some(65536)  # the hello
        await stream.send_all(encode_frame({"type": "welcome", "version": PROTOCOL_VERSION, "server": "script",
                                            "heartbeat": 30.0}))
        await go.wait()
        # one write: the client reads both frames at once
        await stream.send_all(encode_frame({"type": "event", "table": "t1", "event": {"kind": "x"}})
                              + encode_frame({"type": "bye", "reason": "shutdown"}))
        sent.set()
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, scripted, 0, host="127.0.0.1"))
        port = listeners[0].socket.getsockname()[1]
        conn = await connect("127.0.0.1", port, "ana")
        go.set()
        await sent.wait()
        batch = await conn.receive_maps()
        assert [m["type"] for m in batch] == ["event"]
        assert not conn.session.closed  # the bye has not reached the caller yet
        conn.session.receive_data(batch[0])  # raised unexpected-message "in state closed" before
        with pytest.raises(ConnectionClosed) as end:
            await conn.receive_maps()
        assert end.value.reason == "shutdown" and conn.session.closed
        assert conn.ended is end.value
        with pytest.raises(ConnectionClosed):
            await conn.create_table("quinze")  # not LocalProtocolError from the closed session
        with pytest.raises(ConnectionClosed):
            await conn.join("t1", 0)
        await conn.aclose()
        nursery.cancel_scope.cancel()
