"""The worst frame for ``quinze bench``: how long the server's decoder takes to read and refuse
the costliest frames a client can send within the size limit (PROTOCOL.md "Framing", values per
frame). Measured, never asserted.

Each hostile frame is just under the server's 1 MiB limit and made of tiny values (a million
empty lists, nested lists, maps, empty strings, a map with an integer key, deep nesting). It is
decoded as the server does (``FrameDecoder(max_frame, max_elements=ServerConfig.max_elements)``)
and, for reference in the same run, by msgpack without the bound on values (what the server did
before). Figures: the best of a few runs per frame (load on the machine only adds), in µs.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import Any

import msgpack

from quinze_protocol.errors import ProtocolError
from quinze_protocol.framing import FrameDecoder
from quinze_protocol.framing import DEFAULT_MAX_FRAME
from quinze_server.config import MAX_ELEMENTS

__all__ = ["frame_figures", "hostile_frames", "table_rows"]


def _array32(n: int) -> bytes:
    return b"\xdd" + n.to_bytes(4, "big")


def _filled(prefix: bytes, item: bytes, limit: int = DEFAULT_MAX_FRAME) -> bytes:
    """``prefix`` then an array of as many copies of the encoded ``item`` as fit in ``limit``
    bytes (written by hand: building the values to encode them would take seconds)."""
    n = (limit - len(prefix) - 5) // len(item)
    return prefix + _array32(n) + item * n


def hostile_frames() -> dict[str, bytes]:
    """Frame bodies (no length prefix) by name, each within the 1 MiB limit."""
    ping = msgpack.packb({"type": "ping", "nonce": 1, "x": None})[:-1]  # up to the value of "x"
    action = msgpack.packb({"type": "action", "table": "t1", "request": 1, "action": None})[:-1] + b"\x81\x01"
    inner_lists = b"\xdc" + (4000).to_bytes(2, "big") + b"\x90" * 4000
    inner_strings = b"\xdc" + (4000).to_bytes(2, "big") + b"\xa0" * 4000
    entries = (DEFAULT_MAX_FRAME - len(ping) - 5) // 8
    big_map = ping + b"\xdf" + entries.to_bytes(4, "big") + b"".join(msgpack.packb(f"{i:06d}") + b"\xc0" for i in range(entries))
    frames = {
        "empty lists": _filled(ping, b"\x90"),
        "nested lists": _filled(ping, inner_lists),
        "empty maps": _filled(ping, b"\x80"),
        "empty strings": _filled(ping, inner_strings),
        "one big map": big_map,
        "integer key": _filled(action, b"\x90"),
        "deep nesting": ping + b"\x91" * 1_000_000 + b"\xc0",
    }
    assert all(len(b) <= DEFAULT_MAX_FRAME for b in frames.values())
    return frames


def _best(fn: Callable[[], Any], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _server_read(body: bytes) -> Callable[[], Any]:
    frame = struct.pack(">I", len(body)) + body

    def run() -> str:
        dec = FrameDecoder(DEFAULT_MAX_FRAME, max_elements=MAX_ELEMENTS)
        dec.feed(frame)
        try:
            dec.next_data()
        except ProtocolError as e:
            return e.code
        return "read"

    return run


def _unbounded(body: bytes) -> Callable[[], Any]:
    def run() -> None:
        try:
            msgpack.unpackb(body, raw=False, strict_map_key=False, max_array_len=DEFAULT_MAX_FRAME, max_map_len=DEFAULT_MAX_FRAME,
                            max_str_len=DEFAULT_MAX_FRAME)
        except Exception:  # noqa: BLE001 - some are refused by msgpack itself; the time is what counts
            pass
    return run


def frame_figures(*, quick: bool = False, reference: bool = True) -> dict[str, Any]:
    """``{"frames": {name: {"bytes", "server_us", "unbounded_us", "outcome"}}, "worst_frame",
    "worst_frame_us", "worst_unbounded_us", "max_elements"}`` (``reference`` False: the
    unbounded reading, up to a second per frame, is skipped and its figures are None)."""
    runs = 3 if quick else 7
    frames: dict[str, Any] = {}
    for name, body in hostile_frames().items():
        read = _server_read(body)
        frames[name] = {
            "bytes": len(body),
            "server_us": round(_best(read, runs) * 1e6, 1),
            "unbounded_us": round(_best(_unbounded(body), 1) * 1e6, 1) if reference else None,
            "outcome": read(),
        }
    worst = max(frames, key=lambda n: frames[n]["server_us"])
    return {
        "frames": frames,
        "worst_frame": worst,
        "worst_frame_us": frames[worst]["server_us"],
        "worst_unbounded_us": max(f["unbounded_us"] for f in frames.values()) if reference else None,
        "max_elements": MAX_ELEMENTS,
    }


def table_rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(figure, value, target, met)`` rows for the bench table."""
    f = figures
    rows = [(f"server: worst 1 MiB client frame read and refused ({f['worst_frame']}), µs", f"{f['worst_frame_us']}", "", "")]
    if f.get("worst_unbounded_us") is not None:  # not measured with --quick (it takes seconds)
        rows.append(("the same frames read without the bound on values (worst), µs", f"{f['worst_unbounded_us']}", "", ""))
    return rows
