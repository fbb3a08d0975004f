"""What the studies' tests check after a study stopped its rig: the processes still running whose
command line names a path in the rig's folder (a study's test imports it from beside itself)."""

import os


def processes_naming(folder):
    """"pid: command line" of each live process whose command line holds FOLDER + "/"."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if (folder + "/").encode() in cmdline:
            words = cmdline.replace(b"\0", b" ").decode(errors="replace")
            left.append(f"{pid}: {words}")
    return left
