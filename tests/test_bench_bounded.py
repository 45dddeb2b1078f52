"""``quinze bench`` is self-contained and always ends: the example bots it runs are shipped in the
package (not read from a checkout that an installed copy does not have), and a section that does
not finish within its limit is reported and skipped. (``.ci/run`` also runs ``quinze bench
--quick`` from a wheel installed in a fresh virtual environment, outside the checkout.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from quinze_cli.bench.match import EXAMPLES
import forkkit

ROOT = Path(__file__).resolve().parent.parent
QUINZE = str(Path(sys.executable).with_name("quinze"))


def test_the_bench_bots_are_in_the_package_and_are_the_examples() -> None:
    assert EXAMPLES.is_dir() and ROOT / "examples" not in EXAMPLES.parents
    for name in ("random_bot.py", "greedy_bot.py"):
        shipped = EXAMPLES / name
        assert shipped.is_file(), shipped  # a real file (or a link that resolves), not a dangling path
        assert shipped.read_bytes() == (ROOT / "examples" / "bots" / name).read_bytes()


def test_a_section_past_its_limit_is_reported_and_the_bench_ends(tmp_path: Path) -> None:
    env = dict(os.environ, QUINZE_BENCH_SECTION_LIMIT="0.01")
    proc = forkkit.run([QUINZE, "bench", "--quick", "--only", "match"], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 1
    assert "bench: the match section did not finish within 0.01 s" in proc.stderr
    assert "match: no figures (did not finish within 0.01 s: stopped)" in proc.stdout
    assert "Traceback" not in proc.stderr
