"""A bounded load generator: N busy processes for T seconds, that stop by themselves.

For the audit of the test suite on a busy machine (two busy processes beside it on 2 cores) and for the timing
benchmarks. Each process spins on the CPU until its own deadline, so none outlives `--seconds` even when this
script is killed.

    python bench/load.py [N=2] [--seconds 900]          # in one terminal, or in the background with &
    python bench/load.py 2 --seconds 600 -- pytest       # run a command beside the load; stops the load after it
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from typing import List, Optional, Sequence

_SPIN = "import time\nend = time.time() + %f\nwhile time.time() < end:\n    pass\n"


def start(count: int, seconds: float) -> List[subprocess.Popen]:
    """`count` processes, each spinning on a CPU until `seconds` from now."""
    return [subprocess.Popen([sys.executable, "-c", _SPIN % seconds]) for _ in range(count)]


def stop(processes: Sequence[subprocess.Popen]) -> None:
    """End the busy processes now (they would end by themselves at their deadline)."""
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Start the load; run the command after ``--`` beside it (exit with its status) or wait for the deadline."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command: List[str] = []
    if "--" in argv:
        command = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=2, help="busy processes (default 2)")
    parser.add_argument("--seconds", type=float, default=900.0, help="each stops by itself after this (900)")
    args = parser.parse_args(argv)
    if args.count < 0 or args.seconds <= 0:
        print("load.py: the count must be 0 or more and --seconds more than 0", file=sys.stderr)
        return 2
    processes = start(args.count, args.seconds)
    status = 0
    try:
        if command:
            status = subprocess.call(command)
        else:
            deadline = time.time() + args.seconds
            while time.time() < deadline and any(p.poll() is None for p in processes):
                time.sleep(0.5)
    except KeyboardInterrupt:
        status = 130
    finally:
        stop(processes)
    return status


if __name__ == "__main__":
    sys.exit(main())
