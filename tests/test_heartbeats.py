"""The server's one heartbeat task (quinze_server.clock.Heartbeats; PROTOCOL.md "Flow"): hello
deadline, a ping every interval from the hello on, the drop after three silent intervals unless
the connection thinks on an action request, ended connections forgotten. On trio's MockClock."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import trio

from quinze_server.clock import MISSED_PONGS, Heartbeat, Heartbeats


class Peer:
    """What Heartbeats needs of a connection, recording what it is told (times on the trio clock)."""

    def __init__(self, thinking: bool = False) -> None:
        self.heartbeat = Heartbeat()
        self.closing = False
        self.thinking = thinking
        self.pings: list[tuple[float, int]] = []
        self.closed: tuple[float, str] | None = None

    def send(self, msg: dict[str, Any]) -> None:
        assert msg["type"] == "ping"
        self.pings.append((trio.current_time(), msg["nonce"]))

    def close(self, reason: str) -> None:
        self.closed = (trio.current_time(), reason)
        self.closing = True

    def awaiting_move(self) -> bool:
        return self.thinking


async def test_pings_every_interval_from_the_hello_and_drops_the_silent(autojump_clock: Any) -> None:
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        quiet, chatty = Peer(), Peer()
        start = trio.current_time()
        beats.add(quiet)
        beats.add(chatty)
        await trio.sleep(4)
        beats.greeted(quiet)
        beats.greeted(chatty)
        await trio.sleep(0.5)
        for _ in range(6):  # chatty answers every ping half a second after it
            await trio.sleep(10)
            chatty.heartbeat.pong()
        assert [round(t - start) for t, _ in chatty.pings] == [14, 24, 34, 44, 54, 64]
        assert [n for _, n in chatty.pings] == [1, 2, 3, 4, 5, 6]
        assert chatty.closed is None
        # quiet sent nothing after its hello: pinged at 14 and 24, dropped at the third due time
        assert [round(t - start) for t, _ in quiet.pings] == [14, 24]
        assert quiet.closed is not None
        assert round(quiet.closed[0] - start) == 4 + MISSED_PONGS * 10
        assert quiet.closed[1] == "no pong for 30.0 s"
        nursery.cancel_scope.cancel()


async def test_no_hello_within_three_intervals_closes(autojump_clock: Any) -> None:
    beats = Heartbeats(2.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        mute = Peer()
        start = trio.current_time()
        beats.add(mute)
        await trio.sleep(20)
        assert mute.closed is not None
        assert round(mute.closed[0] - start) == 6
        assert mute.closed[1] == "no hello within 6 s"
        assert mute.pings == []
        assert len(beats) == 0  # forgotten
        nursery.cancel_scope.cancel()


async def test_a_thinking_seat_is_not_dropped_and_ended_connections_are_forgotten(autojump_clock: Any) -> None:
    beats = Heartbeats(1.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        thinker, gone = Peer(thinking=True), Peer()
        for peer in (thinker, gone):
            beats.add(peer)
            beats.greeted(peer)
        await trio.sleep(1.5)
        gone.closing = True  # the connection ended on its own
        await trio.sleep(10)
        assert thinker.closed is None and len(thinker.pings) == 11
        assert len(gone.pings) == 1 and gone.closed is None
        assert len(beats) == 1
        nursery.cancel_scope.cancel()


async def test_thousands_due_at_once_are_all_pinged_and_let_others_run(autojump_clock: Any) -> None:
    beats = Heartbeats(5.0)
    peers = [Peer() for _ in range(2000)]
    seen: list[int] = []  # pinged peers each time another task got to run during the burst

    async def other_task(due: float) -> None:
        await trio.sleep_until(due)  # ready in the same instant as the heartbeat, then never idle
        while len(seen) < 100_000:
            seen.append(sum(1 for p in peers if p.pings))
            if seen[-1] == len(peers):
                return
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        for peer in peers:
            beats.add(peer)
            beats.greeted(peer)
        nursery.start_soon(other_task, trio.current_time() + 5.0)
        await trio.sleep(5.5)
        assert all(len(p.pings) == 1 for p in peers)
        assert seen[-1] == len(peers)
        assert any(0 < n < len(peers) for n in seen)  # it ran between two slices of the burst
        nursery.cancel_scope.cancel()


async def test_a_removed_connection_is_not_kept_alive_by_the_schedule(autojump_clock: Any) -> None:
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        ended, live = Peer(), Peer(thinking=True)  # live is never dropped for silence
        for peer in (ended, live):
            beats.add(peer)
            beats.greeted(peer)
        ref = weakref.ref(ended)
        beats.remove(ended)
        del ended, peer
        assert ref() is None  # freed at once (by its reference count), though still due in 10 s
        await trio.sleep(35)  # past the hello deadlines (30 s) of both
        assert len(live.pings) == 3
        assert len(beats) == 1  # the void entries were dropped at their due times
        beats.remove(live)
        beats.greeted(live)  # a late hello of a removed connection schedules nothing
        await trio.sleep(25)
        assert len(live.pings) == 3 and len(beats) == 0
        nursery.cancel_scope.cancel()


def _greeted_peers(beats: Heartbeats, n: int, thinking: bool = False) -> list[Peer]:
    """``n`` peers added to ``beats`` and greeted: two entries each (the hello deadline, the first ping)."""
    peers = [Peer(thinking=thinking) for _ in range(n)]
    for peer in peers:
        beats.add(peer)
        beats.greeted(peer)
    return peers


async def test_many_removed_at_once_leave_the_schedule_at_once(autojump_clock: Any) -> None:
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        peers = _greeted_peers(beats, 300, thinking=True)
        assert len(beats) == 600  # each: its hello deadline and its first ping
        for peer in peers[:250]:
            beats.remove(peer)
        assert len(beats) < 250  # compacted: the ended ones' entries are gone before they are due
        await trio.sleep(35)
        assert [len(p.pings) for p in peers[250:]] == [3] * 50
        assert all(not p.pings for p in peers[:250])
        assert len(beats) == 50
        nursery.cancel_scope.cancel()


async def test_half_of_the_connections_ending_leave_the_schedule_at_once(autojump_clock: Any) -> None:
    """Two entries per connection (its hello deadline, its first ping), and half of them end (the
    players of a load's tables, the idle connections staying): their entries go at once, not in
    30 s (those entries held their Heartbeat, allocated among the tables' objects)."""
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        peers = _greeted_peers(beats, 400)
        assert len(beats) == 800
        for peer in peers[200:]:
            beats.remove(peer)
        assert len(beats) < 600  # before: 800 until they were due (removing half never reached a quarter of the entries)
        nursery.cancel_scope.cancel()


async def test_a_compacted_schedule_lets_go_of_the_ended_heartbeats_while_the_task_sleeps(autojump_clock: Any) -> None:
    """Counted: once many connections ended, their Heartbeat objects are freed at the compaction,
    not at the task's next due time (it held the old queues in its locals while it slept: the
    players' 500 heartbeats outlived 250 tables that closed, each pinning a pool of the allocator)."""
    beats = Heartbeats(10.0)

    def alive() -> int:
        return sum(1 for o in gc.get_objects() if type(o) is Heartbeat)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        peers = _greeted_peers(beats, 300, thinking=True)
        await trio.sleep(10.5)  # the first pings went out: the task looked at the queues, now it sleeps
        assert all(len(p.pings) == 1 for p in peers)
        before = alive()
        for peer in peers[:250]:
            beats.remove(peer)
        del peers[:250], peer
        assert len(beats) < 250  # compacted as they ended (the last few ended stay until due)
        beats.compact()  # as the server does once no table is open
        assert len(beats) == 50
        assert alive() == before - 250  # and the ended ones' heartbeats freed, with the task asleep (before: 300 alive)
        await trio.sleep(10)
        assert all(len(p.pings) == 2 for p in peers)
        nursery.cancel_scope.cancel()


async def test_a_client_that_stops_answering_is_dropped_three_intervals_after_its_last_pong(autojump_clock: Any) -> None:
    """PROTOCOL.md "Flow" 7: silent for 3 heartbeats, dropped then. It answered its pings half a
    second after each, then stopped: dropped 30 s after its last pong, not at the fourth ping
    after it (40 s: the silence was 29.5 s at the third, so the old check at pings waited for the
    next one)."""
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        peer, talker = Peer(), Peer()
        start = trio.current_time()
        for p in (peer, talker):
            beats.add(p)
            beats.greeted(p)
        for _ in range(2):  # pings at 10 and 20, answered at 10.5 and 20.5
            await trio.sleep(10.5 if not peer.pings else 10)
            peer.heartbeat.pong()
            talker.heartbeat.pong()
        last = trio.current_time()
        await trio.sleep(25)  # talker says something 25 s after its last pong (at 45.5): it stays
        talker.heartbeat.pong()
        await trio.sleep(60)
        assert peer.closed is not None
        assert peer.closed[0] - last == MISSED_PONGS * 10  # at 50.5, not at the ping of 60
        assert peer.closed[1] == "no pong for 30.0 s"
        assert [round(t - start) for t, _ in peer.pings] == [10, 20, 30, 40, 50]
        assert talker.closed is not None and talker.closed[0] - (last + 25) == MISSED_PONGS * 10
        assert len(beats) == 0
        nursery.cancel_scope.cancel()


async def test_a_silent_thinker_off_the_beat_stays_until_its_move_clock_decides(autojump_clock: Any) -> None:
    beats = Heartbeats(10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(beats.run)
        thinker = Peer(thinking=True)
        beats.add(thinker)
        beats.greeted(thinker)
        await trio.sleep(10.5)
        thinker.heartbeat.pong()  # then silent: its limit falls between two pings (40.5)
        await trio.sleep(35)
        assert thinker.closed is None  # thinking on an open request: not dropped at 40.5
        thinker.thinking = False  # its request closed (answered by its clock): dropped at the next ping
        await trio.sleep(10)
        assert thinker.closed is not None and thinker.closed[1] == "no pong for 39.5 s"
        nursery.cancel_scope.cancel()
