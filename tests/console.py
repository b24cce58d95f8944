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
from typing import Dict, Optional

REPO_ROOT = Path(__file__).resolve().parents[1]
_PIP_SCRIPT = "import sys\nfrom tfguard.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n"


def console_script(scratch: Path) -> Path:
    """Return the ``tfguard`` console script next to the running Python, or one written like it in ``scratch``."""
    installed = Path(sys.executable).parent / ("tfguard.exe" if os.name == "nt" else "tfguard")
    if installed.is_file():
        return installed
    folder = scratch / "console-bin"
    folder.mkdir(exist_ok=True)
    script = folder / "tfguard"
    script.write_text("#!%s\n%s" % (sys.executable, _PIP_SCRIPT), encoding="utf-8")
    script.chmod(0o755)
    return script


def tfguard_script(*args: str, cwd: Path, scratch: Optional[Path] = None, stdin: Optional[str] = None,
                   env: Optional[Dict[str, str]] = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run the ``tfguard`` console script with ``args`` in ``cwd``; text output captured."""
    script = console_script(scratch or cwd)
    environment = dict(os.environ, **(env or {}))
    if not (Path(sys.executable).parent / "tfguard").is_file():  # a checkout without installation
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), environment.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(script), *args] if script.suffix != ".exe" else [str(script), *args],
                          cwd=cwd, env=environment, input=stdin, capture_output=True, text=True, timeout=timeout)


def fresh_venv_console_script(folder: Path) -> Path:
    """Install this checkout into a new virtual environment in ``folder``, as a user does, and return its
    ``tfguard`` console script.

    The environment is made with ``python -m venv``; the dependencies come from the running environment
    through a ``.pth`` file (no network, a few seconds), and tfguard itself with
    ``pip install --no-deps --no-build-isolation -e .``, which writes the console script.
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
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-build-isolation", "-e", str(REPO_ROOT)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    script = venv / ("Scripts/tfguard.exe" if os.name == "nt" else "bin/tfguard")
    assert script.is_file(), "pip wrote no tfguard console script"
    return script
