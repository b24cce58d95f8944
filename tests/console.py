"""Start tfguard as a user does: the ``tfguard`` console script of the environment, in a child process.

The console script differs from ``python -m tfguard``: its ``sys.path[0]`` is the script's own folder
(``bin/``), not the working folder. When the environment has no installed script (tests run from a plain
checkout), a script written the way pip writes console scripts stands in for it, in a folder of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Tuple

REPO_ROOT = Path(__file__).resolve().parents[1]


def entry_point() -> Tuple[str, str]:
    """Return (module, function) of the ``tfguard`` console script as pyproject.toml declares it."""
    import re

    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^tfguard = "([\w.]+):(\w+)"$', text, re.MULTILINE)
    assert match, "pyproject.toml declares no tfguard console script"
    return match.group(1), match.group(2)


def pip_script() -> str:
    """Return the text pip writes as the ``tfguard`` console script (its template), for the declared entry point."""
    module, function = entry_point()
    return ("# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom %s import %s\nif __name__ == '__main__':\n"
            "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n    sys.exit(%s())\n"
            % (module, function, function))


def written_console_script(scratch: Path) -> Path:
    """Write the console script pip would write for this checkout in ``scratch`` and return it."""
    folder = scratch / "console-bin"
    folder.mkdir(exist_ok=True)
    script = folder / "tfguard"
    script.write_text("#!%s\n%s" % (sys.executable, pip_script()), encoding="utf-8")
    script.chmod(0o755)
    return script


def console_script(scratch: Path) -> Path:
    """Return the ``tfguard`` console script next to the running Python, or one written like it in ``scratch``."""
    installed = Path(sys.executable).parent / ("tfguard.exe" if os.name == "nt" else "tfguard")
    if installed.is_file():
        return installed
    return written_console_script(scratch)


def tfguard_script(*args: str, cwd: Path, scratch: Optional[Path] = None, stdin: Optional[str] = None,
                   env: Optional[Dict[str, str]] = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run the ``tfguard`` console script with ``args`` in ``cwd``; text output captured."""
    script = console_script(scratch or cwd)
    environment = dict(os.environ, **(env or {}))
    if not (Path(sys.executable).parent / "tfguard").is_file():  # a checkout without installation
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), environment.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(script), *args] if script.suffix != ".exe" else [str(script), *args],
                          cwd=cwd, env=environment, input=stdin, capture_output=True, text=True, timeout=timeout)


def python_m_tfguard(*args: object, cwd: Optional[Path] = None, env: Optional[Dict[str, Optional[str]]] = None,
                     stdin: Optional[str] = None, timeout: int = 300, text: bool = True) -> subprocess.CompletedProcess:
    """Run ``python -m tfguard ARGS`` in a child process with this checkout on ``PYTHONPATH``; output captured.

    For tests whose subject needs a process of its own (start-up, exit status as a shell sees it, signals, a
    TensorFlow program under ``tfguard run``); a test of what a command prints calls it in-process (the ``run``
    fixture). ``env`` changes the inherited environment (a value of None removes the variable); TensorFlow's
    C++ log is quiet unless ``env`` says otherwise. ``text=False`` keeps stdout and stderr as bytes.
    """
    environment = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    return subprocess.run([sys.executable, "-m", "tfguard", *map(str, args)], cwd=cwd, env=environment,
                          input=stdin, capture_output=True, text=text, timeout=timeout)


#: Folders of the checkout that a package build does not read (copied for nothing).
_NOT_PACKAGED = ("tests/", "bench/", "fixtures/", "docs/", "tools/", ".ci/")


def copy_of_the_package(target: Path) -> Path:
    """Copy what building the package reads (git's files, tracked or new, not ignored) to ``target``.

    ``pip install .`` builds in the source folder (``build/``, ``*.egg-info``); a copy keeps the checkout
    clean and parallel tests apart.
    """
    listed = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], check=True, capture_output=True, text=True).stdout
    for relpath in filter(None, listed.split("\0")):
        source = REPO_ROOT / relpath
        if relpath.startswith(_NOT_PACKAGED) or not source.is_file():
            continue
        (target / relpath).parent.mkdir(parents=True, exist_ok=True)
        (target / relpath).write_bytes(source.read_bytes())
    return target


def fresh_venv_console_script(folder: Path, editable: bool = True) -> Path:
    """Install this checkout into a new virtual environment in ``folder``, as a user does, and return its
    ``tfguard`` console script.

    The environment is made with ``python -m venv``; the dependencies come from the running environment
    through a ``.pth`` file (no network, a few seconds), and tfguard itself with
    ``pip install --no-deps --no-build-isolation -e .`` (without ``-e`` when not ``editable``: a copy, as
    ``pip install .`` makes), which writes the console script.
    """
    import site
    import sysconfig

    venv = folder / "fresh-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # every site folder this interpreter sees, including those a .pth file of its own chains in
    parents = [path for path in site.getsitepackages() + [sysconfig.get_paths()["purelib"]]
               + [entry for entry in sys.path if os.path.basename(entry) in ("site-packages", "dist-packages")]
               if os.path.isdir(path)]
    Path(purelib, "parent-environment.pth").write_text("\n".join(dict.fromkeys(parents)) + "\n", encoding="utf-8")
    source = ["-e", str(REPO_ROOT)] if editable else [str(copy_of_the_package(folder / "tfguard-copy"))]
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-build-isolation", *source], capture_output=True, text=True, timeout=600,
                          cwd=str(folder))
    assert done.returncode == 0, done.stderr
    script = venv / ("Scripts/tfguard.exe" if os.name == "nt" else "bin/tfguard")
    assert script.is_file(), "pip wrote no tfguard console script"
    return script


def without_site_noise(stderr: str) -> str:
    """Drop what Python's ``site`` prints when Ctrl-C lands while it processes a ``.pth`` file (an editable
    install's path hook): "Error processing line N of ….pth", a traceback, "Remainder of file ignored".

    ``site`` reports it and goes on starting Python: not tfguard's code, and the run continues as usual.
    """
    marker = "Remainder of file ignored\n"
    while stderr.startswith("Error processing line ") and marker in stderr:
        stderr = stderr.split(marker, 1)[1]
    return stderr
