"""The packaged ripgrep is found without looking at PATH."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from pi_lsp.tools.ripgrep import find_ripgrep


def test_found_from_the_installed_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    found = find_ripgrep()
    assert found is not None
    path = Path(found)
    assert path.is_absolute() and os.access(path, os.X_OK)
    install_dirs = {Path(sys.prefix).resolve(), Path(sysconfig.get_path("scripts")).resolve()}
    assert any(path.is_relative_to(directory) for directory in install_dirs)
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("ripgrep ")
