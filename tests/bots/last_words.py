"""Misbehaving bot: at its first action-request it exits with code 1 while its last stderr line
is not yet in the file: a helper process sharing its stderr writes that line a moment later
(as when the copy of the pipe lags behind a busy machine). The relay must report that last line:
the stderr tail is read only once the copy has drained the pipe.

Usage: ``python3 last_words.py``.
"""

import subprocess
import sys

from botlib import messages

LAST = "import sys, time; time.sleep(0.2); sys.stderr.write('last_words: the very last line\\n')"

for msg in messages():
    if msg.get("type") == "action-request":
        sys.stderr.write("last_words: exiting\n")
        sys.stderr.flush()
        subprocess.Popen([sys.executable, "-c", LAST], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        sys.exit(1)
