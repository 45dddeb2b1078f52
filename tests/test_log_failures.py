"""A game whose replay log cannot be written (docs/server.md, PROTOCOL.md ``notice``): the people
at the table (players and spectators, not bots) get ``notice`` ``log-failed`` with the game's
number and the system's words, the result stands, the table plays on and the server serves on.
Real failures on real paths, over loopback TCP: the table's log file is a link to /dev/full (every
write is ENOSPC, "No space left on device", as on a full disk), or the log folder's parent is a
file ("Not a directory")."""

from __future__ import annotations

import io
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console
from netclient import NetClient
from serverkit import TOY, create, play_pair, second_table_plays, serving

from quinze_protocol.game import get_game
from quinze_protocol.replaylog import read_log
from quinze_cli.i18n import Catalogue
from quinze_cli.play.cards_ui import CardStyle
from quinze_cli.play.table import TableLoop
from quinze_cli.play.terminal import LineReader

needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")


async def _table(port: int) -> tuple[NetClient, NetClient, NetClient, str]:
    """ana (a player) at seat 0, robo (a bot) at seat 1, eve watching; 2 games of the toy game."""
    ana = await NetClient.connect(port, "ana")
    robo = await NetClient.connect(port, "robo", role="bot")
    eve = await NetClient.connect(port, "eve", role="spectator")
    table = await create(ana, TOY, games=2)
    return ana, robo, eve, table


async def _seat(ana: NetClient, robo: NetClient, eve: NetClient, table: str) -> None:
    await eve.request({"type": "spectate", "table": table}, "spectating")
    await ana.request({"type": "join", "table": table, "seat": 0}, "joined")
    await robo.request({"type": "join", "table": table, "seat": 1}, "joined")


@needs_dev_full
async def test_a_full_disk_is_told_to_the_people_at_the_table_and_play_goes_on(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    async with serving(log_dir=logs) as port:
        ana, robo, eve, table = await _table(port)
        (logs / f"{table}.jsonl").symlink_to("/dev/full")  # game 1's log: ENOSPC
        await _seat(ana, robo, eve, table)
        over1, _ = await play_pair(ana, robo, table)
        told = {"type": "notice", "table": table, "kind": "log-failed", "seat": None, "clock": None, "seconds": None,
                "number": 1, "reason": "No space left on device"}
        assert await ana.expect("notice", kind="log-failed") == told
        assert await eve.expect("notice", kind="log-failed") == told
        (logs / f"{table}.jsonl").unlink()  # room again: game 2 is logged
        over2, _ = await play_pair(ana, robo, table)
        assert (over1["number"], over2["number"]) == (1, 2) and over2["result"]["reason"] == "said-three"
        await ana.expect("table-closed", table=table)
        await eve.expect("table-closed", table=table)
        assert not [m for m in robo.seen if m["type"] == "notice"]  # never to bots
        assert [m["number"] for c in (ana, eve) for m in c.seen if m.get("kind") == "log-failed"] == [1, 1]  # once
        read = read_log((logs / f"{table}.jsonl").read_text(encoding="utf-8"))
        assert [g.header["number"] for g in read.games] == [2] and not read.problems
        await second_table_plays(port)  # the server serves on


async def test_a_log_folder_under_a_file_is_told_for_every_game(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder\n")
    async with serving(log_dir=tmp_path / "afile" / "logs") as port:
        ana, robo, eve, table = await _table(port)
        await _seat(ana, robo, eve, table)
        for number in (1, 2):
            await play_pair(ana, robo, table)
            notice = await ana.expect("notice", kind="log-failed")
            assert (notice["number"], notice["reason"]) == (number, "Not a directory")
            assert (await eve.expect("notice", kind="log-failed"))["number"] == number
        await ana.expect("table-closed", table=table)
        await second_table_plays(port)
    assert (tmp_path / "afile").read_text() == "not a folder\n"


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "The server could not write the replay log of game 2 (No space left on device); the result stands."),
    ("fr", "Le serveur n'a pas pu écrire le journal de la partie 2 (No space left on device) ; le résultat reste acquis."),
])
async def test_quinze_play_says_the_notice(lang: str, said: str) -> None:
    """The table loop of ``quinze play`` (its own message handling) prints the notice at once."""
    lines: list[str] = []
    console = Console(file=io.StringIO(), no_color=True, width=80, force_terminal=False)
    session = SimpleNamespace(cat=Catalogue(lang), style=CardStyle(lang, False), console=console, reader=LineReader(),
                              opts=SimpleNamespace(local=False), say=lambda text, **k: lines.append(text),
                              prompt=lambda *a, **k: None)
    loop = TableLoop(session, "t1", 0)  # type: ignore[arg-type]
    game = get_game("quinze").new({"players": 2}, seed=5)
    await loop.on_message({"type": "game-start", "table": "t1", "game": "quinze", "number": 2, "seat": 0,
                           "players": ["ana", "bob"], "options": game.options, "commitment": "0" * 64})
    await loop.on_message({"type": "notice", "table": "t1", "kind": "log-failed", "seat": None, "clock": None,
                           "seconds": None, "number": 2, "reason": "No space left on device"})
    assert said in lines, lines
