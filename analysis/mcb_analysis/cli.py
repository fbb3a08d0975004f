"""The suite's rules for a command-line program, in Python: bad input ends with exit code 2 and
one line naming the file or option and the bad value; nothing half-written is left behind."""

import argparse
import os
import sys
import tempfile


class BadInput(ValueError):
    """Input the user must fix: an empty file, a missing column, a bad value. A ValueError, so a
    caller catches it by the standard type."""


class MissingInput(BadInput, FileNotFoundError):
    """A file or folder that is not there: caught as FileNotFoundError too."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(message)

    def _get_value(self, action, arg_string):
        # argparse turns every ValueError of a type function into "invalid ... value"; a
        # BadInput (a ValueError too) already says what is wrong, so it goes through as it is.
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError:
            convert = self._registry_get("type", action.type, action.type)
            if callable(convert):
                convert(arg_string)
            raise


def parser(prog, description):
    return _Parser(prog=prog, description=description,
                   formatter_class=argparse.RawDescriptionHelpFormatter)


def run(prog, main, argv=None):
    """Calls main(argv); BadInput becomes one line on stderr and exit code 2."""
    try:
        code = main(sys.argv[1:] if argv is None else argv)
    except BadInput as e:
        text = " ".join(str(e).split())
        print(f"{prog}: {text}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code or 0)


def write_atomically(path, data):
    """Writes bytes or text to a temporary file beside path, then renames it into place."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    mode = "wb" if isinstance(data, (bytes, bytearray)) else "w"
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_png(fig, path, dpi=110):
    """Renders a matplotlib figure as PNG in memory, closes it, then writes it atomically."""
    import io

    import matplotlib.pyplot as plt  # the caller has matplotlib; cli itself needs none

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    write_atomically(path, buf.getvalue())


def check_output_dir(option, path):
    """The output folder must be creatable; checked before any input is read."""
    if not path:
        raise BadInput(f"{option}: empty path")
    if os.path.exists(path) and not os.path.isdir(path):
        raise BadInput(f"{option}: '{path}' exists and is not a folder")


def run_records_to_folder(prog, description, analyse):
    """The whole main of an analysis that reads run records and writes its tables into a folder:
    `--records FILE` (repeatable, in order) and `--output DIR`, then analyse(files, folder)."""
    def main(argv):
        p = parser(prog, description)
        p.add_argument("--records", action="append", required=True, metavar="FILE",
                       help="run records (JSON Lines); repeatable")
        p.add_argument("--output", required=True, metavar="DIR", help="folder of the tables")
        args = p.parse_args(argv)
        check_output_dir("--output", args.output)
        analyse(args.records, args.output)
        return 0

    run(prog, main)
