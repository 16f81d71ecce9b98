"""The ``fieldhouse`` command's entry point: Ctrl-C ends it quietly at any moment.

The CLI imports the store, the actors and the model (about a second), and a Ctrl-C during
those imports would otherwise print a KeyboardInterrupt traceback; here it ends the command
with status 130, as a shell reports an interrupted command. (Once running, ``fieldhouse.cli``
handles Ctrl-C itself: a server stops gracefully.)
"""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from fieldhouse.cli import main as run

        return run(sys.argv[1:])
    except KeyboardInterrupt:
        print(file=sys.stderr)  # the terminal's ^C, then the prompt on a line of its own
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
