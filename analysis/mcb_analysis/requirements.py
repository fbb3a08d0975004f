"""What the analysis needs of its interpreter. Imports nothing beyond the standard library, so
that an interpreter without matplotlib or pandas gets one line saying which to use instead of a
traceback."""

import importlib.util
import sys

NEEDED = ("pandas", "matplotlib")
INTERPRETER = "/usr/bin/python3"


def missing():
    """The modules of NEEDED this interpreter cannot import."""
    return [m for m in NEEDED if importlib.util.find_spec(m) is None]


def message(prog):
    lacking = missing()
    if not lacking:
        return None
    return (f"{prog}: {sys.executable} lacks {' and '.join(lacking)}; run it with "
            f"{INTERPRETER} (Debian's python3-matplotlib and python3-pandas, "
            "see analysis/README.md)")


def require(prog):
    """Exits with code 2 and one line on stderr when a needed module is missing."""
    text = message(prog)
    if text:
        print(text, file=sys.stderr)
        sys.exit(2)
