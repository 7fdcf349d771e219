"""`python -m opmfu ARGS` runs the installed binary with ARGS (replacing this process)."""

import os
import sys

from opmfu import find_opmfu_bin


def main() -> None:
    binary = find_opmfu_bin()
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
