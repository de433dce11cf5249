"""Test runner of one rule knock-out job (benchmarks/rule_knockout.py): a process that has the
third-party modules the tests use already imported, and forks a child per test run.

A test run started from a fresh interpreter spends about two CPU-seconds importing pytest,
numpy, pandas, scipy, numba and hypothesis before any test starts, more than most of the
named tests take.  This process imports them once; each child it forks (``os.fork``) starts
with them in memory, imports the package and the tests from the job's scratch copy (neither
is ever imported here: each run reads its mutant from disk), sets its environment (JIT on or
off, the job's numba cache folder) and runs ``pytest.main``.

Protocol: one JSON object per line on stdin, ``{"cwd", "args", "env", "unset", "timeout",
"log"}``; one JSON object per line on stdout, ``{"rc", "timeout", "cpu_s"}`` (``rc`` None
after a timeout: the child's process group is killed; ``cpu_s`` the run's CPU seconds).  ``--preload NAME ...`` lists the modules to
import first.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import time

#: Module names never imported here: the code under test, and pytest's own start-up, which
#: each child runs (its plugins and configuration are read from the scratch copy).
NEVER = ("malta_sim", "tests", "benchmarks", "conftest", "__main__", "__mp_main__")


def preload(names: list[str]) -> int:
    """Import ``names`` (those that import cleanly); returns how many are in memory."""
    for name in names:
        if name.split(".")[0] in NEVER:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that only imports in its package's order is skipped
            pass
    bad = [m for m in sys.modules if m.split(".")[0] in NEVER[:4]]
    if bad:
        raise SystemExit(f"knockout_worker: the code under test was imported by a preloaded module: {bad[:5]}")
    return len(sys.modules)


def child(job: dict) -> None:
    """In the forked child: run pytest as ``python -m pytest`` would in ``job['cwd']``."""
    os.setsid()
    fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.chdir(job["cwd"])
    for k in job.get("unset", ()):
        os.environ.pop(k, None)
    os.environ.update(job.get("env", {}))
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [job["cwd"]] + [p for p in sys.path if p != here]   # as python -m pytest in cwd
    sys.dont_write_bytecode = True
    sys.argv = ["pytest", *job["args"]]
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None:
        numba_config.reload_config()  # NUMBA_DISABLE_JIT and NUMBA_CACHE_DIR of this run
    import malta_sim
    import pytest

    if not malta_sim.__file__.startswith(job["cwd"]):
        print(f"knockout_worker: malta_sim imported from {malta_sim.__file__}, not from {job['cwd']}")
        os._exit(4)

    rc = pytest.main(job["args"])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(rc))


def serve() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                child(job)
            finally:
                os._exit(3)
        deadline = time.monotonic() + float(job["timeout"])
        status, timed_out, usage = None, False, None
        while status is None:
            done, st, usage = os.wait4(pid, os.WNOHANG)
            if done:
                status = st
            elif time.monotonic() > deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    os.kill(pid, signal.SIGKILL)
                usage = os.wait4(pid, 0)[2]
                timed_out = True
                break
            else:
                time.sleep(0.02)
        rc = None if timed_out else os.waitstatus_to_exitcode(status)
        cpu = round(usage.ru_utime + usage.ru_stime, 3)  # the child's own CPU time (its children not counted)
        sys.stdout.write(json.dumps(dict(rc=rc, timeout=timed_out, cpu_s=cpu)) + "\n")
        sys.stdout.flush()


def probe(cwd: str, tests: list[str]) -> list[str]:
    """Modules that collecting ``tests`` in ``cwd`` imports from outside ``cwd`` (what a
    worker preloads)."""
    sys.path.insert(0, cwd)
    os.chdir(cwd)
    import pytest

    with open(os.devnull, "w") as null:
        out, err = os.dup(1), os.dup(2)
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *tests])
        finally:
            os.dup2(out, 1)
            os.dup2(err, 2)
    names = []
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None) or ""
        if name.split(".")[0] not in NEVER and not f.startswith(cwd):
            names.append(name)
    return names


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--probe"]:
        print(json.dumps(probe(args[1], args[2:])))
        sys.exit(0)
    if args[:1] == ["--preload"]:
        n = preload(args[1:])
        sys.stderr.write(f"knockout_worker: {n} modules preloaded\n")
    serve()
