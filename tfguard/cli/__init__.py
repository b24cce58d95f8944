"""The ``tfguard`` command line: ``check``, ``rules``/``rule``, ``run``, ``report``, ``demo``, ``server`` and the
hidden ``pre-commit-config``.

One module per command, and :mod:`tfguard.cli.main` builds the parser and dispatches to them (the console
script, ``tfguard.__main__``, calls its ``main``); :mod:`tfguard.cli.errors` holds what they share, so no
command imports another. This package face imports nothing: a command module that imports a sibling
(``from tfguard.cli import fixing``) never runs ``main`` and the other commands again.
"""
