"""``python -m spill ARGS``: replaces this process with the binary (no Python left running)."""

import os
import sys

from spill import bin_path

if __name__ == "__main__":
    path = bin_path()
    os.execv(path, [path, *sys.argv[1:]])
