"""opmfu: operator-level MFU for PyTorch on Ascend. This package only locates the native binary
that the wheel installs as the `opmfu` command; all the work is done there."""

import os
import sys
import sysconfig

__version__ = "@OPMFU_VERSION@"


def find_opmfu_bin() -> str:
    """The path of the installed opmfu binary (in the environment's scripts directory)."""
    candidates = [sysconfig.get_path("scripts")]
    # get_preferred_scheme is Python 3.10's; before it, pip's --user scheme is named after os.name.
    if hasattr(sysconfig, "get_preferred_scheme"):
        user_scheme = sysconfig.get_preferred_scheme("user")
    else:
        user_scheme = os.name + "_user"
    if user_scheme in sysconfig.get_scheme_names():
        candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    candidates.append(os.path.dirname(sys.executable))
    for directory in candidates:
        path = os.path.join(directory, "opmfu")
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("the opmfu binary is not installed next to this Python (looked in: " + ", ".join(candidates) + ")")
