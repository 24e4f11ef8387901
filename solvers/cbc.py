"""CBC runner: run the CBC binary on an instance file.

The binary is the one PuLP bundles (``pip install pulp``; ``pulp.PULP_CBC_CMD().path``), or ``cbc`` on
the ``PATH``, or the file named by the environment variable ``BILEVEL_CBC``. CBC is driven through its
command line (``cbc FILE -sec T -ratioGap G -solve -solution SOL``, wall-clock time mode) and its
printed summary and solution file are parsed. A maximisation model (:func:`solvers.common.is_maximisation`)
gets ``-max``: CBC 2.10 ignores an MPS file's ``OBJSENSE MAX`` and would minimise it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .common import RunResult, check_instance_path, finite_or_none, is_maximisation

NAME = "cbc"


def binary() -> str | None:
    """Path of the CBC executable, or ``None`` when there is none."""
    env = os.environ.get("BILEVEL_CBC")
    if env:
        return env if Path(env).is_file() else None
    try:
        import warnings

        import pulp

        with warnings.catch_warnings():  # PuLP 3.x announces that PuLP 4 stops bundling CBC
            warnings.simplefilter("ignore", DeprecationWarning)
            path = pulp.PULP_CBC_CMD().path
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    except Exception:  # pulp missing or without a binary for this platform
        pass
    return shutil.which("cbc")


def available() -> bool:
    """True when a CBC executable is found (see :func:`binary`)."""
    return binary() is not None


def version() -> str:
    """CBC version line, e.g. ``2.10.3``."""
    exe = binary()
    if exe is None:
        return "unavailable"
    out = subprocess.run([exe, "-quit"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL).stdout
    m = re.search(r"Version:\s*(\S+)", out)
    return m.group(1) if m else "unknown"


_RESULT = [
    ("Optimal solution found", "optimal"),
    ("Stopped on time", "time_limit"),
    ("infeasible", "infeasible"),
    ("unbounded", "unbounded"),
]


def solve(path, time_limit: float | None = None, mip_gap: float | None = None) -> RunResult:
    """Run CBC on ``path`` (``.mps`` or ``.lp``): ``time_limit`` wall-clock seconds (``-timeMode elapsed
    -sec``), ``mip_gap`` relative gap (``-ratioGap``; ``None``: CBC default). The objective is CBC's full
    precision "best objective" when printed, else its 8-decimal summary; the solution file lists nonzero
    columns only (8 significant digits); objective and bound are in the file's sense (a maximisation
    model's are negated back from CBC's minimisation sense). Returns a :class:`RunResult`; status ``unavailable`` without a
    CBC binary, ``error`` when CBC fails or cannot read the file. Raises InputError for a missing file or
    another suffix."""
    path = check_instance_path(path)
    maximise = is_maximisation(path)
    exe = binary()
    if exe is None:
        return RunResult(NAME, str(path), "unavailable", message="pip install pulp (bundles CBC)")
    with tempfile.TemporaryDirectory() as tmp:
        sol_path = Path(tmp) / "cbc.sol"
        cmd = [exe, "-timeMode", "elapsed", "-import", str(path.resolve())]
        if time_limit is not None:
            cmd += ["-sec", f"{float(time_limit):g}"]
        if mip_gap is not None:
            cmd += ["-ratioGap", f"{float(mip_gap):g}"]
        if maximise:
            cmd += ["-max"]
        cmd += ["-solve", "-solution", str(sol_path)]
        t0 = time.perf_counter()
        timeout = None if time_limit is None else 3 * float(time_limit) + 60
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0,
                             message=f"CBC did not stop within {timeout:.0f} s")
        seconds = time.perf_counter() - t0
        out = proc.stdout + proc.stderr
        solution_text = sol_path.read_text() if sol_path.is_file() else ""
    return parse_output(out, solution_text, str(path), seconds, maximise)


def parse_output(out: str, solution_text: str, path: str = "", seconds: float | None = None,
                 maximise: bool = False) -> RunResult:
    """Turn CBC's printed output ``out`` and its ``-solution`` file text into a :class:`RunResult`.
    ``maximise``: the model maximises; CBC's search lines ("best objective", "best possible") are in its
    internal minimisation sense and are negated, its summary ("Objective value:") is in the model's sense."""
    sign = -1.0 if maximise else 1.0
    m = re.search(r"^Result - (.*)$", out, re.MULTILINE)
    status = "error"
    if m:
        text = m.group(1)
        status = next((s for key, s in _RESULT if key.lower() in text.lower()), "error")
    elif re.search(r"problem (is )?(primal )?infeasible", out, re.IGNORECASE):
        status = "infeasible"
    no_solution = "No feasible solution found" in out or "no integer solution" in solution_text
    result = RunResult(NAME, path, status, seconds=seconds,
                       message="" if m else (out.strip().splitlines() or ["no output"])[-1][:200])
    if not no_solution and status in ("optimal", "time_limit"):
        best = re.findall(r"best objective ([-+0-9.eE]+)", out)
        obj = re.search(r"^Objective value:\s*(\S+)", out, re.MULTILINE)
        if best:
            result.objective = _times(sign, finite_or_none(best[-1].rstrip(",")))
        elif obj:
            result.objective = finite_or_none(obj.group(1))
        for line in solution_text.splitlines()[1:]:
            tok = line.replace("**", " ").split()
            if len(tok) >= 3:
                result.solution[tok[1]] = float(tok[2])
    bound = re.search(r"^Upper bound:\s*(\S+)" if maximise else r"^Lower bound:\s*(\S+)", out, re.MULTILINE)
    possible = re.findall(r"best possible ([-+0-9.eE]+)", out)
    if status == "optimal":
        result.bound = result.objective
    elif bound:
        result.bound = finite_or_none(bound.group(1))
    elif possible:
        result.bound = _times(sign, finite_or_none(possible[-1].rstrip(",)")))
    nodes = re.search(r"^Enumerated nodes:\s*(\d+)", out, re.MULTILINE)
    result.nodes = int(nodes.group(1)) if nodes else None
    wall = re.search(r"^Time \(Wallclock seconds\):\s*(\S+)", out, re.MULTILINE)
    result.solver_seconds = finite_or_none(wall.group(1)) if wall else None
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result


def _times(sign: float, value: float | None) -> float | None:
    return None if value is None else sign * value
