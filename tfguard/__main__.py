"""``python -m tfguard``: the same as the ``tfguard`` command."""

from tfguard.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
