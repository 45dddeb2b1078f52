"""Characters that ``str.isdigit()`` calls digits but ``int()`` refuses (superscripts such as
``²``, circled numbers): every place that reads a typed or given number checks
``str.isdecimal()``, which is exactly what ``int()`` reads, so such a character is an ordinary
wrong entry (a name, a bad option, a default size) and never a traceback. Decimal digits of other
scripts (``١``, Arabic-Indic one) stay numbers, as ``int()`` reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from clikit import quinze

from quinze_cli.play.lobby import _pick
from quinze_protocol.game import get_game
from quinze_protocol.game_errors import OptionError

ROOT = Path(__file__).resolve().parent.parent
ODD = ["²", "³", "①", "5²"]


@pytest.mark.parametrize("odd", ODD)
def test_replay_seat_of_an_odd_digit_is_a_name_not_found(odd: str, tmp_path: Path) -> None:
    done = quinze("replay", str(ROOT / "examples/positions/quinze-match.jsonl"), "--game", "1", "--seat", odd, cwd=tmp_path)
    assert done.returncode != 0 and "--seat" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_replay_seat_in_another_scripts_decimal_digits_is_still_a_number(tmp_path: Path) -> None:
    done = quinze("replay", str(ROOT / "examples/positions/quinze-match.jsonl"), "--game", "1", "--seat", "\u0661", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "seat 1" in done.stdout


@pytest.mark.parametrize("odd", ODD)
def test_a_terminal_size_of_odd_digits_falls_back_to_a_real_size(odd: str, tmp_path: Path) -> None:
    done = quinze("rules", "quinze", cwd=tmp_path, env={"COLUMNS": odd, "LINES": odd})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("odd", ODD)
def test_classique_caves_of_odd_digits_are_a_bad_option(odd: str) -> None:
    with pytest.raises(OptionError) as got:
        get_game("quinze-classique").check_options({"players": 2, "cave": 100, "caves": f"{odd},100"})
    assert got.value.field == "caves"


@pytest.mark.parametrize("odd", ODD)
def test_a_lobby_pick_of_odd_digits_names_no_table(odd: str) -> None:
    tables = [{"table": "k7fq-t1"}, {"table": "k7fq-t2"}]
    assert _pick(tables, odd) is None
    assert _pick(tables, odd, cut=True) == odd  # an id for the server to find or refuse
    assert _pick(tables, "2") == "k7fq-t2"
