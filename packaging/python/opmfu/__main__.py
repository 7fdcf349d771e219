"""`python -m opmfu ARGS` runs the installed binary with ARGS (replacing this process)."""

import os
import sys

from opmfu import find_opmfu_bin


def main() -> None:
    binary = find_opmfu_bin()
    # The interpreter this runs in is the environment opmfu was installed into: `registry list`
    # asks it for torch_npu (after --python and $OPMFU_PYTHON), not whatever python3 PATH finds.
    environment = dict(os.environ)
    environment.setdefault("OPMFU_LAUNCHER_PYTHON", sys.executable)
    os.execve(binary, [binary] + sys.argv[1:], environment)


if __name__ == "__main__":
    main()
