"""``python -m tfguard`` and the ``tfguard`` console script (:func:`console`, named in pyproject.toml).

The console script that pip writes imports its entry point before any code of tfguard can catch Ctrl-C; so
the entry point lives here, in a module that imports nothing but ``os`` and ``sys`` (already loaded by
Python), and imports the command line itself inside the guard: Ctrl-C at any moment of start-up is one
``tfguard: interrupted`` line and status 130, not a traceback of ``from tfguard.cli.main import main``.

``python -m`` puts the working folder first on ``sys.path``; the checker then
would import a project's ``json.py`` or ``concurrent.py`` in place of the
standard module.  So, as pylint does, that entry is dropped before anything
else is imported (``tfguard run`` keeps it: it runs the project anyway, and
sets ``sys.path`` as ``python`` would).
"""

import os
import sys


def _drop_working_folder() -> None:
    """Remove the entry ``python -m`` put first on ``sys.path`` when it is the working folder."""
    if sys.argv[1:2] == ["run"] or not sys.path:
        return
    try:
        here = os.getcwd()
    except OSError:  # the working folder was deleted
        here = None
    if sys.path[0] in ("", ".") or (here is not None and os.path.abspath(sys.path[0]) == here):
        del sys.path[0]


def console() -> int:
    """Run the ``tfguard`` command (``sys.argv``) and return its exit status; Ctrl-C while it starts up ends it
    with one line and status 130."""
    swallowed = []
    # Python 3.7 has no sys.unraisablehook (3.8+): there a lost Ctrl-C stays printed by Python, as before.
    previous_hook = getattr(sys, "unraisablehook", None)

    def note_lost_interrupt(unraisable) -> None:  # Ctrl-C in an import lock's callback: Python would print it
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            swallowed.append(True)
            return
        if previous_hook is not None:
            previous_hook(unraisable)

    if previous_hook is not None:
        sys.unraisablehook = note_lost_interrupt
    try:
        _drop_working_folder()
        import signal

        from tfguard.cli.main import main
    except KeyboardInterrupt:  # Ctrl-C while starting up
        swallowed.append(True)
    except RuntimeError as exc:  # Python 3.11 wraps one that lands in a class body ("Error calling __set_name__")
        if not _caused_by_interrupt(exc):
            raise
        swallowed.append(True)
    finally:
        if previous_hook is not None:
            sys.unraisablehook = previous_hook
    if swallowed:
        sys.stderr.write("tfguard: interrupted\n")
        _exit_now(130)
    try:
        status = main()
    finally:
        # From here on a Ctrl-C ends the process at once, without a traceback from interpreter shutdown.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    if status == 130:  # interrupted: workers are stopped and the cache written; end with 130, not by SIGINT
        _exit_now(status)
    return status


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while handling a KeyboardInterrupt.

    The same test as ``tfguard.static.engine.caused_by_interrupt``, which cannot be imported here: the
    interrupted import may be that module's own.
    """
    seen = set()
    current = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _exit_now(status: int) -> None:
    """Flush the output and end the process with ``status``, skipping interpreter shutdown.

    After a KeyboardInterrupt that cut an import short, CPython ends the process
    by SIGINT (status -2) whatever status it was given.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    sys.exit(console())
