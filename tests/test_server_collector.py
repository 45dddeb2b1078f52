"""quinze_server.collector.tune: the collector stays on, start-up objects are frozen, thresholds set
(in a child process: the collector's settings belong to the whole process)."""

from __future__ import annotations

import json
import subprocess
import sys

from quinze_server.collector import THRESHOLDS


def test_tune_freezes_start_up_and_keeps_collecting() -> None:
    code = (
        "import gc, json; from quinze_server.collector import tune; import quinze_server.app; tune();"
        "a = []; a.append(a); del a;"  # a cycle made after start-up is still found
        "print(json.dumps([gc.isenabled(), gc.get_freeze_count(), gc.get_threshold(), gc.collect()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    enabled, frozen, threshold, found = json.loads(out.stdout)
    assert enabled is True and frozen > 1000 and tuple(threshold) == THRESHOLDS and found >= 1
