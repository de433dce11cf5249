"""The compiled-kernel cache is keyed on the package's source (malta_sim.numba_cache), and
compiled functions load from it in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from malta_sim import numba_cache


MODULE_FILE = Path(numba_cache.__file__)


def _write_pkg(root: Path, value: int) -> Path:
    pkg = root / "kpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "callee.py").write_text(textwrap.dedent(f"""
        from numba import njit

        @njit(cache=True)
        def value():
            return {value}
        """))
    (pkg / "caller.py").write_text(textwrap.dedent("""
        from numba import njit
        from kpkg.callee import value

        @njit(cache=True)
        def twice():
            return 2 * value()
        """))
    return pkg


RUNNER = textwrap.dedent("""
    import importlib.util, sys
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("numba_cache", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if sys.argv[3] == "fingerprint":
        mod.configure(Path(sys.argv[2]))
    sys.path.insert(0, str(Path(sys.argv[2]).parent))
    from kpkg.caller import twice
    print(twice())
    """)


def _run(tmp_path: Path, pkg: Path, mode: str, env_extra: dict | None = None) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "MALTA_SIM_"))}
    env["MALTA_SIM_CACHE_DIR"] = str(tmp_path / "cache")
    # the edits below keep the file size and may fall in the same second:
    # Python's own bytecode cache would then run the old source
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(env_extra or {})
    if mode == "fixed":
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "fixed")
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    out = subprocess.run([sys.executable, str(runner), str(MODULE_FILE), str(pkg), mode],
                         env=env, capture_output=True, text=True, timeout=120, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def test_changed_callee_is_recompiled_into_its_cached_caller(tmp_path):
    """A caller kept on disk must not keep the old copy of a callee from another module."""
    pkg = _write_pkg(tmp_path, 1)
    assert _run(tmp_path, pkg, "fingerprint") == 2
    assert _run(tmp_path, pkg, "fingerprint") == 2  # now from the cache
    (pkg / "callee.py").write_text((pkg / "callee.py").read_text().replace("return 1", "return 5"))
    assert _run(tmp_path, pkg, "fingerprint") == 10
    folders = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(folders) == 2  # one per source version


def test_fingerprint_follows_contents_not_file_times(tmp_path):
    pkg = _write_pkg(tmp_path, 1)
    first = numba_cache.source_fingerprint(pkg)
    os.utime(pkg / "callee.py", (1, 1))
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "x.py").write_text("ignored")
    assert numba_cache.source_fingerprint(pkg) == first
    (pkg / "caller.py").write_text((pkg / "caller.py").read_text() + "\n# changed\n")
    assert numba_cache.source_fingerprint(pkg) != first
    assert len(first) == 16 and int(first, 16) >= 0


def test_user_numba_cache_dir_is_respected(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("MALTA_SIM_CACHE_DIR", str(tmp_path / "root"))
    assert numba_cache.configure(_write_pkg(tmp_path, 1)) is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")
    assert not (tmp_path / "root").exists()


def test_configure_sets_folder_and_prunes_old_ones(tmp_path, monkeypatch):
    import numba.core.config as numba_config

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv(numba_cache.MARKER, raising=False)
    monkeypatch.setenv("MALTA_SIM_CACHE_DIR", str(tmp_path / "root"))
    monkeypatch.setattr(numba_config, "CACHE_DIR", numba_config.CACHE_DIR)
    root = tmp_path / "root"
    root.mkdir()
    n_old = numba_cache.KEEP + 3
    for i in range(n_old):  # old0 .. old{n-1}, the later the more recently used
        old = root / f"old{i}"
        old.mkdir()
        os.utime(old, (1000 + i, 1000 + i))
    (root / "busy").mkdir()  # beyond KEEP by rank but used a moment ago: another checkout in use
    os.utime(root / "busy", (1, 1))
    os.utime(root / "busy")
    for i in range(numba_cache.KEEP):
        os.utime(root / f"old{n_old - 1 - i}")  # the KEEP-1 newest "old" ones and one more: recently used
    pkg = _write_pkg(tmp_path, 1)
    folder = numba_cache.configure(pkg)
    assert folder == str(root / numba_cache.source_fingerprint(pkg))
    assert os.environ["NUMBA_CACHE_DIR"] == folder
    assert numba_config.CACHE_DIR == folder  # numba already imported: its config follows
    left = {p.name for p in root.iterdir()}
    recent = {f"old{n_old - 1 - i}" for i in range(numba_cache.KEEP)}
    assert left == recent | {"busy", Path(folder).name}  # the idle ones beyond KEEP are gone


@pytest.mark.parametrize("value", ["", None])
def test_cache_root_defaults_to_user_cache(monkeypatch, tmp_path, value):
    monkeypatch.delenv("MALTA_SIM_CACHE_DIR", raising=False)
    if value is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(tmp_path))
        assert numba_cache.cache_root() == tmp_path / ".cache" / "malta_sim" / "numba"
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert numba_cache.cache_root() == tmp_path / "xdg" / "malta_sim" / "numba"


def test_child_process_works_its_folder_out_again(tmp_path, monkeypatch):
    """A process that inherits the folder a parent set (pool workers,
    subprocesses) does not take it as the user's: after a source change it
    moves to the new fingerprint's folder."""
    import numba.core.config as numba_config

    monkeypatch.setattr(numba_config, "CACHE_DIR", numba_config.CACHE_DIR)
    monkeypatch.setenv("MALTA_SIM_CACHE_DIR", str(tmp_path / "root"))
    parents = str(tmp_path / "root" / "0123456789abcdef")
    monkeypatch.setenv("NUMBA_CACHE_DIR", parents)
    monkeypatch.setenv(numba_cache.MARKER, parents)
    pkg = _write_pkg(tmp_path, 1)
    folder = numba_cache.configure(pkg)
    assert folder == str(tmp_path / "root" / numba_cache.source_fingerprint(pkg)) != parents
    assert os.environ["NUMBA_CACHE_DIR"] == os.environ[numba_cache.MARKER] == folder


def test_child_of_edited_source_runs_the_new_callee(tmp_path):
    """End to end: a parent configured for the old source starts a child after
    the callee changed; the child's cached caller uses the new callee."""
    pkg = _write_pkg(tmp_path, 1)
    assert _run(tmp_path, pkg, "fingerprint") == 2
    old_folder = str(tmp_path / "cache" / numba_cache.source_fingerprint(pkg))
    (pkg / "callee.py").write_text((pkg / "callee.py").read_text().replace("return 1", "return 5"))
    env_extra = {"NUMBA_CACHE_DIR": old_folder, numba_cache.MARKER: old_folder}
    assert _run(tmp_path, pkg, "fingerprint", env_extra) == 10


def test_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.delenv("MALTA_SIM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "relcache")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert numba_cache.cache_root() == tmp_path / ".cache" / "malta_sim" / "numba"
    monkeypatch.setenv("MALTA_SIM_CACHE_DIR", "rel")
    assert numba_cache.cache_root().is_absolute()


def test_ammo_routes_then_route_search_in_a_fresh_process():
    """The 12.56 route test and a supply route search (8.2) both answer in a
    process that loads the compiled functions from the cache, the route test
    first (run twice: the first run may compile and fill the cache)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import numpy as np\n"
        "from tests.conftest import static\n"
        "from malta_sim.iod.rules.ammunition_routes import ammo_route_ok\n"
        "from malta_sim.iod.rules.supply import route_distance\n"
        "t = static()\n"
        "p = t.land.copy(); tg = np.zeros(t.n_hexes, bool); tg[100] = True\n"
        "hexa = np.full(len(t.side), -1, np.int32); hexa[5] = 120\n"
        "ok = ammo_route_ok(np.array([5], np.int64), hexa, p, tg, t.neighbours, t.ocean_side, 12)\n"
        "d = route_distance(120, p, t.neighbours, t.ocean_side, 12)\n"
        "assert bool(ok[0]) == bool(0 <= d[100] <= 12)\n"
    )
    root = Path(__file__).resolve().parents[2]
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
