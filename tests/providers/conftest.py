"""Fixtures shared by the provider tests: the fake vendor libraries of tests/fakes/, compiled once a session."""

import shutil
import subprocess
from pathlib import Path

import pytest

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """Return a function compiling tests/fakes/<src> into a shared library named <out>."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc/gcc/clang) on PATH: cannot build the fake vendor libraries")
    outdir = tmp_path_factory.mktemp("fakelibs")

    def _build(src: str, out: str, *defines: str) -> str:
        target = outdir / out
        if not target.exists():
            cmd = [cc, "-shared", "-fPIC", "-O1", "-std=c99", *[f"-D{d}" for d in defines],
                   "-o", str(target), str(FAKES / src)]
            res = subprocess.run(cmd, capture_output=True, text=True)
            assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr}"
        return str(target)

    return _build
