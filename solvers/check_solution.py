"""Check a foreign solver's answer to a library instance: can it be trusted?

``python -m solvers.check_solution models/manifest.csv INSTANCE_ID SOLUTION_FILE``

The solution file (CSV ``name,value``, SCIP / Gurobi / HiGHS / CPLEX ``.sol``, CBC ``-solution`` output; see
:func:`solvers.solution_files.read_solution_file`) may use the short MPS names (``C17``, mapped through the
instance's ``.names.csv``), the LP file's Pyomo labels (``w_bar(3)``) or readable names (``w_bar[3]``).
Variables the file omits are taken as 0 (SCIP, CBC and Gurobi omit zeros).

From the manifest row the data split and the bilevel problem are rebuilt (data set, seed, sizes, mode,
epsilon, flip rule, box), and the hyperparameters ``w_bar`` with the follower's ``(w, b)`` are
re-verified with the package's inner LP (:func:`bilevel.hinge_lp`), independently of any MILP:

* the leader's box ``w_bar_lb <= w_bar <= w_bar_ub`` and the follower's box ``|w| <= w_bar``;
* optimistic: ``(w, b)`` attains the least training hinge loss ``v*(w_bar)``, neither above nor below it (the
  box test is in w-units; a loss below ``v*(w_bar)`` by more than ``tolerance`` means ``(w, b)`` uses the box
  tolerance for more than it is worth);
* pessimistic (training-optimal replica): the training loss of ``(w, b)`` is within the budget
  ``(1 + epsilon) v*(w_bar)`` and ``(w, b)`` attains the least flipped-label hinge loss on ``V_f`` under
  that budget (its training loss, too, not below ``v*(w_bar)`` by more than ``tolerance``; a flipped-label
  loss below the least is left to the objective test below, as the budget's tolerance is worth its multiplier);
* the outer objective (mean validation hinge loss) recomputed from ``(w, b)`` equals the objective the
  file claims, if it claims one;
* the outer objective is at least the least one over the *exact* follower optima at ``w_bar``. The tests
  above allow ``tolerance`` each, and the follower's least loss falls steeply with its budget (by the
  budget's multiplier), so without this a point using the allowances could be trusted with an objective
  below the proven optimum.

The answer is **trusted** when all of these hold within ``tolerance`` (mean-hinge units), **rejected**
otherwise, with the reasons. A rejected answer whose tightest box ``min(w_bar, max(w_bar_lb, |w|, |w_hat|))``
passes them all with the same objective gets a note naming that box (:func:`bilevel.verify_tightest_box`).
Also reported, without deciding the verdict unless ``strict``: the MILP feasibility of the full vector against
the instance's ``.mps`` (rows, bounds, integrality), and :func:`bilevel.verify_model` on the rebuilt model with
the values loaded (KKT residuals). Notes compare the recomputed objective with the manifest's HiGHS optimum and
bound.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bilevel import hinge, hinge_lp, verify_model
from bilevel.errors import InputError, SolverError
from bilevel.help_format import DefaultsHelpFormatter, path_text, real
from bilevel.option_checks import check_options, nonempty_path, number
from bilevel.library import (InstanceSpec, build_instance, check_unique_ids, read_instance_arrays, read_manifest,
                             read_name_map, sha256)
from bilevel.validation import as_path, check_positive, check_regular_file

from .solution_files import read_solution_file

_LABEL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$")


@dataclass
class CheckReport:
    """Outcome of :func:`check_solution`. Losses are mean hinge losses (dimensionless).

    ``trusted``; ``reasons`` (why rejected); ``notes`` (informative); ``w_bar``, ``w`` (p,), ``b``;
    ``objective_recomputed`` (mean validation hinge of ``(w, b)``), ``objective_claimed`` (or None);
    ``train_loss``, ``train_loss_min`` (``v*(w_bar)``); ``inner_gap`` (follower's value minus its LP
    optimum); pessimistic: ``budget``, ``flipped_loss``, ``flipped_loss_min``; ``milp_violation`` (max
    scaled violation of the instance's rows / bounds / integrality, None if not computed);
    ``verify_model_ok`` and ``verify_model_messages``; ``n_given``, ``n_absent`` (model variables absent
    from the file, taken as 0), ``unknown`` (names in the file that the instance does not have)."""

    instance: str
    trusted: bool
    reasons: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    w_bar: np.ndarray | None = None
    w: np.ndarray | None = None
    b: float | None = None
    objective_recomputed: float | None = None
    objective_claimed: float | None = None
    train_loss: float | None = None
    train_loss_min: float | None = None
    inner_gap: float | None = None
    budget: float | None = None
    flipped_loss: float | None = None
    flipped_loss_min: float | None = None
    milp_violation: float | None = None
    verify_model_ok: bool | None = None
    verify_model_messages: list = field(default_factory=list)
    n_given: int = 0
    n_absent: int = 0
    unknown: list = field(default_factory=list)

    def summary(self) -> str:
        """Multi-line human-readable report."""
        f = lambda v: "-" if v is None else f"{v:.6g}"  # noqa: E731
        lines = [
            f"instance     : {self.instance}",
            f"verdict      : {'TRUSTED' if self.trusted else 'REJECTED'}",
            f"w_bar        : [{', '.join(f'{x:.4f}' for x in self.w_bar)}]" if self.w_bar is not None
            else "w_bar        : -",
            f"objective    : recomputed {f(self.objective_recomputed)}   claimed {f(self.objective_claimed)}",
            f"follower     : training loss {f(self.train_loss)} (least {f(self.train_loss_min)}), "
            f"inner gap {f(self.inner_gap)}",
        ]
        if self.budget is not None:
            lines.append(f"pessimistic  : budget {f(self.budget)}, flipped loss {f(self.flipped_loss)} "
                         f"(least {f(self.flipped_loss_min)})")
        lines.append(f"MILP vector  : max scaled violation {f(self.milp_violation)}; verify_model "
                     f"{'-' if self.verify_model_ok is None else ('yes' if self.verify_model_ok else 'no')}")
        lines.append(f"variables    : {self.n_given} given, {self.n_absent} absent (taken as 0), "
                     f"{len(self.unknown)} unknown names")
        lines += [f"REASON       : {r}" for r in self.reasons]
        lines += [f"note         : {n}" for n in self.notes]
        return "\n".join(lines)


def readable_name(name: str, short_map: dict) -> str | None:
    """Map a solution's variable name to the readable Pyomo name (``w_bar[3]``): a short MPS name through
    ``short_map`` (``{short: (kind, name)}``), a Pyomo LP label ``w_bar(3)`` by its brackets, a readable
    name as is. Returns None for a row or objective name."""
    if name in short_map:
        kind, readable = short_map[name]
        return readable if kind == "col" else None
    m = _LABEL.match(name)
    if m:
        return f"{m.group(1)}[{m.group(2)}]"
    return name


def _least_objective(w_bar, validation, blocks, least) -> float:
    """The least mean validation hinge over the exact follower optima at ``w_bar``: ``(w, b)`` with the mean
    hinge of each block ``(X, y)`` at most its least value ``least`` (the last block's least value taken under
    the earlier rows). Each row gets a slack of ``1e-9 (1 + value)`` for round-off, or 1e-7 or 1e-5 where
    HiGHS calls the LP infeasible (a row at a least loss of 0 can be); a larger slack only lowers the value,
    so the check that uses it can only reject less."""
    for slack in (1e-9, 1e-7, 1e-5):
        try:
            return hinge_lp(w_bar, validation,
                            [(X, y, v + slack * (1 + abs(v))) for (X, y), v in zip(blocks, least)]).value
        except SolverError:
            continue
    raise SolverError("the least validation loss over the follower's optima at this w_bar could not be computed")


def _finite(value, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} is {value!r}: not a number") from None
    if not np.isfinite(number):
        raise InputError(f"{what} is {value!r}: not a finite number")
    return number


def _row(manifest, instance_id: str) -> dict:
    """The row of ``instance_id`` in the manifest at ``manifest``; InputError when it has none, or more than one
    (the first was taken: another row's solution was checked against it)."""
    rows = [r for r in read_manifest(manifest) if r["id"] == instance_id]
    if not rows:
        raise InputError(f"instance {instance_id!r} is not in {str(manifest)!r}")
    check_unique_ids(manifest, rows, "ids must be unique: fix or re-export the manifest")
    return rows[0]


def check_solution(
    manifest,
    instance_id: str,
    solution,
    tolerance: float = 1e-5,
    strict: bool = False,
    feasibility_tolerance: float = 1e-5,
) -> CheckReport:
    """Check a solution of library instance ``instance_id`` listed in ``manifest`` (a path).

    ``solution`` is a solution file path or a ``{name: value}`` dict (optionally with key ``"objective"``
    for the claimed objective). ``tolerance``: absolute, mean-hinge units, for the bilevel checks;
    ``feasibility_tolerance``: for the MILP vector, violations scaled by ``1 + |bound|``. A ``tolerance`` below
    about 1e-6 is under the inner LPs' own accuracy where the least training loss is near 0 (their values
    then differ by up to about 3e-7 between LP methods). ``strict``: the
    MILP vector check and :func:`bilevel.verify_model` also decide the verdict.

    Returns a :class:`CheckReport`. Raises InputError for an unknown instance or one the manifest lists twice, a
    tolerance that is not a finite number > 0, a solution that is neither a path nor a dict, an unreadable solution
    file, a value (or claimed objective) that is not a finite number, one variable given two different values
    (e.g. under its short MPS name and its readable name), a solution that names no variable of the instance, a
    name map or ``.mps`` file the manifest lists that is missing (the map) or differs from its ``*_sha256``, an
    ``mps`` cell naming another kind of file, a row that describes another model than its ``.mps`` file
    (:func:`_check_row_describes_file`), a name map none of whose columns the solution's variables meet in the
    ``.mps``, and, with ``strict``, an instance whose ``.mps`` or name map is absent (its MILP check cannot run)."""
    tolerance = check_positive(tolerance, "tolerance")
    feasibility_tolerance = check_positive(feasibility_tolerance, "feasibility_tolerance")
    manifest = as_path(manifest, "manifest")
    row = _row(manifest, instance_id)
    spec = InstanceSpec.from_row(row)
    if isinstance(solution, dict):
        values = {k: _finite(v, f"the value of {k!r}") for k, v in solution.items() if k != "objective"}
        claimed = solution.get("objective")
        claimed = None if claimed is None else _finite(claimed, "the claimed objective")
    elif isinstance(solution, (str, Path)):
        values, claimed = read_solution_file(solution)
    else:
        raise InputError(f"the solution must be a file path or a dict of values, not {type(solution).__name__}")
    names_path = manifest.parent / row["names"] if row.get("names") else None
    if names_path is not None:  # a missing or replaced map made a correct solution look wrong
        _check_listed_file(names_path, row.get("names_sha256"), instance_id, "name map")
    short_map = read_name_map(names_path) if names_path is not None else {}

    built = build_instance(spec)
    _check_row_describes_file(manifest, row, spec, built)
    model = built.model
    import pyomo.environ as pyo

    var_data = {v.name: v for v in model.component_data_objects(pyo.Var)}
    readable_values, unknown = {}, []
    for name, value in values.items():
        readable = readable_name(name, short_map)
        if readable is None:
            continue
        if readable in var_data:
            if readable in readable_values and readable_values[readable] != value:
                raise InputError(f"the solution gives {readable!r} two values, {readable_values[readable]!r} and "
                                 f"{value!r} (under {name!r})")
            readable_values[readable] = value
        else:
            unknown.append(name)
    if not readable_values:
        raise InputError(f"the solution names no variable of instance {instance_id!r} "
                         f"(first names: {list(values)[:5]})")
    rep = CheckReport(instance=instance_id, trusted=False,
                      objective_claimed=None if claimed is None else float(claimed),
                      n_given=len(readable_values), n_absent=len(var_data) - len(readable_values), unknown=unknown)
    if unknown:
        rep.notes.append(f"{len(unknown)} names are not variables of the rebuilt instance (first: {unknown[:3]}); "
                         "the formulation may have changed since the file was written")

    p = built.split.X_train.shape[1]
    get = lambda name: readable_values.get(name, 0.0)  # noqa: E731
    w_bar = np.array([get(f"w_bar[{j}]") for j in range(p)])
    w = np.array([get(f"w[{j}]") for j in range(p)])
    b = float(get("b"))
    rep.w_bar, rep.w, rep.b = w_bar, w, b
    tol = tolerance

    _bilevel_checks(rep, spec, built, w_bar, w, b, tol)
    _tightest_box_note(rep, spec, built, readable_values, tol)
    if (rep.objective_claimed is not None
            and abs(rep.objective_claimed - rep.objective_recomputed) > max(tol, 1e-6 * abs(rep.objective_claimed))):
        rep.reasons.append(f"the claimed objective {rep.objective_claimed:.8g} differs from the objective "
                           f"{rep.objective_recomputed:.8g} recomputed from (w, b)")
    m_obj, m_bound, m_status = row.get("highs_objective"), row.get("highs_best_bound"), row.get("highs_status")
    if m_status == "optimal" and m_obj is not None:
        diff = rep.objective_recomputed - m_obj
        rep.notes.append("objective equals the manifest's HiGHS optimum" if abs(diff) <= max(tol, 1e-4 * abs(m_obj))
                         else f"objective {'above' if diff > 0 else 'BELOW'} the manifest's HiGHS optimum "
                              f"{m_obj:.6g} by {abs(diff):.3g}")
    if not rep.reasons and m_bound is not None and rep.objective_recomputed < m_bound - max(tol, 1e-4 * abs(m_bound)):
        rep.notes.append(f"a bilevel-feasible point below HiGHS's proven bound {m_bound:.6g}: the MILP or its "
                         "solve is wrong, not this answer")

    # The full MILP vector: feasibility against the instance file, and bilevel.verify_model.
    _milp_checks(rep, row, manifest, short_map, readable_values, feasibility_tolerance)
    for name, var in var_data.items():
        value = readable_values.get(name, 0.0)
        var.set_value(float(round(value)) if var.is_integer() else float(value), skip_validation=True)
    ver = verify_model(model, tolerance=tolerance)
    rep.verify_model_ok, rep.verify_model_messages = ver.verified, list(ver.messages)
    if strict:
        if rep.milp_violation is None:  # the note "MILP feasibility not checked" and a TRUSTED verdict
            raise InputError(f"strict: the MILP feasibility of the vector cannot be checked: instance {instance_id!r} "
                             "has no .mps file or name map next to the manifest (regenerate it with bilevel "
                             "export-library, or check without strict)")
        if rep.milp_violation > feasibility_tolerance:
            rep.reasons.append(f"the vector violates the instance's rows/bounds/integrality by "
                               f"{rep.milp_violation:.3g}")
        if not ver.verified:
            rep.reasons.append("bilevel.verify_model rejects the full vector: " + "; ".join(ver.messages))
    elif rep.milp_violation is not None and rep.milp_violation > feasibility_tolerance:
        rep.notes.append(f"the full vector violates the instance's rows/bounds/integrality by {rep.milp_violation:.3g} "
                         "(only (w_bar, w, b) decide the verdict; --strict to require MILP feasibility)")
    rep.trusted = not rep.reasons
    return rep


def _bilevel_checks(rep: CheckReport, spec, built, w_bar, w, b, tol) -> None:
    """The bilevel checks of :func:`check_solution` of ``(w_bar, w, b)`` on the rebuilt instance ``built``: they
    fill ``rep``'s losses, ``inner_gap``, ``objective_recomputed`` and append to its ``reasons`` and ``notes``."""
    s = built.split
    X_t, y_t, X_v, y_v = s.X_train, s.y_train, s.X_val, s.y_val
    # Leader and follower boxes.
    lo = w_bar - spec.w_bar_lb
    hi = spec.w_bar_ub - w_bar
    if min(lo.min(), hi.min()) < -tol:
        rep.reasons.append(f"w_bar leaves [{spec.w_bar_lb:g}, {spec.w_bar_ub:g}] by {-min(lo.min(), hi.min()):.3g}")
    box = float(np.max(np.abs(w) - w_bar, initial=0.0))
    if box > tol:
        rep.reasons.append(f"w leaves the box [-w_bar, w_bar] by {box:.3g}")
    w_bar_lp = np.clip(w_bar, max(spec.w_bar_lb, 0.0), spec.w_bar_ub)

    # Follower optimality at w_bar, with the package's inner LP.
    try:
        train_min = hinge_lp(w_bar_lp, (X_t, y_t)).value
        rep.train_loss_min = train_min
        rep.train_loss = float(hinge(X_t, y_t, w, b).mean())
        if rep.train_loss < train_min - tol:  # the box test is in w-units: with a steep loss, (w, b) a little
            # outside the box (within tolerance) was trusted with a training loss below any follower's at w_bar
            rep.reasons.append(f"the training loss {rep.train_loss:.6g} of (w, b) is below the least {train_min:.6g} "
                               f"at w_bar by {train_min - rep.train_loss:.3g}: (w, b) is outside the box by more "
                               "than the tolerance is worth")
        if spec.mode == "optimistic":
            rep.inner_gap = rep.train_loss - train_min
            if rep.inner_gap > tol:
                rep.reasons.append(f"(w, b) is not a training optimum at w_bar: its training loss {rep.train_loss:.6g} "
                                   f"exceeds the least {train_min:.6g} by {rep.inner_gap:.3g}")
            best = _least_objective(w_bar_lp, (X_v, y_v), [(X_t, y_t)], [train_min])
        else:
            Vf = built.flipped
            X_f, ybar = X_v[Vf], -y_v[Vf]
            rep.budget = (1 + spec.epsilon) * train_min
            if rep.train_loss > rep.budget + tol:
                rep.reasons.append(f"the training loss {rep.train_loss:.6g} of (w, b) exceeds the budget "
                                   f"(1 + epsilon) v*(w_bar) = {rep.budget:.6g}")
            rep.flipped_loss_min = hinge_lp(w_bar_lp, (X_f, ybar), [(X_t, y_t, rep.budget)]).value
            rep.flipped_loss = float(hinge(X_f, ybar, w, b).mean())
            rep.inner_gap = rep.flipped_loss - rep.flipped_loss_min
            if rep.inner_gap > tol:
                rep.reasons.append(f"(w, b) is not the follower's optimum: flipped-label loss {rep.flipped_loss:.6g} "
                                   f"exceeds the least {rep.flipped_loss_min:.6g} under the budget by "
                                   f"{rep.inner_gap:.3g}")
            best = _least_objective(w_bar_lp, (X_v, y_v), [(X_t, y_t), (X_f, ybar)], [rep.budget, rep.flipped_loss_min])
    except SolverError as exc:
        rep.reasons.append(f"the inner LP at this w_bar failed: {exc}")
        best = None

    # The outer objective.
    rep.objective_recomputed = float(hinge(X_v, y_v, w, b).mean())
    if best is not None and rep.objective_recomputed < best - tol:
        # Within the tolerances above, (w, b) may use a little more training loss (pessimistic: budget) than an
        # exact follower optimum; the follower's least loss falls steeply with it (by the budget's multiplier,
        # often 100 times or more), and so can the outer objective. A trusted answer must be worth no more
        # than some exact follower optimum at its w_bar.
        rep.reasons.append(f"the objective {rep.objective_recomputed:.8g} is below {best:.8g}, the least any exact "
                           "follower optimum at this w_bar reaches: (w, b) leaves the follower's optimal set by "
                           "more than the tolerance is worth")
    elif best is not None and rep.objective_recomputed > best + tol:
        rep.notes.append(f"at this w_bar another follower optimum has outer objective {best:.6g} < "
                         f"{rep.objective_recomputed:.6g} (the answer did not pick the best tie)")


def _tightest_box_note(rep: CheckReport, spec, built, values: dict, tol) -> None:
    """A note on an answer that the bilevel checks reject when its tightest box passes them all.

    The tightest box is ``w_bar'_j = min(w_bar_j, max(w_bar_lb, |w_j|, |w_hat_j|))`` (p,), ``w_hat`` the
    pessimistic replica when the solution gives one (:func:`bilevel.verify_tightest_box`, which :func:`bilevel.tune`
    applies to its own answers: the follower ``(w, b)`` and the replica lie in it, so the least training loss is the
    same there, and a box bound left loose lets the follower's LP at ``w_bar`` move further). When ``w_bar'``
    differs from ``w_bar`` and the checks of :func:`_bilevel_checks` all pass at it, ``rep.notes`` gets a note
    naming ``w_bar'``. The verdict stays the answer's own: the file's ``w_bar`` is what it claims. Called before any
    other reason is added (the claimed objective, the MILP vector), which the note does not speak for."""
    if not rep.reasons or rep.w_bar is None:
        return
    p = len(rep.w_bar)
    w_hat = np.array([values.get(f"w_hat[{j}]", 0.0) for j in range(p)])
    tight = np.minimum(rep.w_bar, np.maximum(spec.w_bar_lb, np.maximum(np.abs(rep.w), np.abs(w_hat))))
    if np.array_equal(tight, rep.w_bar):
        return
    trial = CheckReport(instance=rep.instance, trusted=False)
    _bilevel_checks(trial, spec, built, tight, rep.w, rep.b, tol)
    if trial.reasons or abs(trial.objective_recomputed - rep.objective_recomputed) > tol:
        return
    moved = int(np.sum(tight < rep.w_bar))
    box = ", ".join(f"{x:.6g}" for x in tight)
    rep.notes.append(f"at the tightest box around (w, b) and the replica, w_bar' = [{box}] ({moved} of {p} bounds "
                     "lowered), every bilevel check passes with the same objective: the solver left a box bound "
                     "loose that the follower can use (bilevel.verify_tightest_box does this for tune's answers)")


def _check_row_describes_file(manifest: Path, row: dict, spec, built) -> None:
    """InputError when the instance the manifest row describes (data set, seed, sizes, mode, epsilon, box: rebuilt
    here and written as the library writes it) is another model than the row's ``.mps`` file (compared as models,
    :func:`bilevel.library.instance_differences`). A row edited after the export (``seed=1``, ``w_bar_ub=100``)
    beside its own, checksummed file was checked against the other instance: a right answer REJECTED, or one
    TRUSTED for a box the file does not have. Nothing is checked when the ``.mps`` is absent."""
    mps = manifest.parent / row["mps"] if row.get("mps") else None
    if mps is None or not mps.is_file() or mps.suffix.lower() != ".mps":  # (another kind: _milp_checks names it)
        return
    _check_listed_file(mps, row.get("mps_sha256"), row["id"], ".mps file")  # a changed file first: named so
    import tempfile

    from bilevel.library import instance_differences, write_instance

    with tempfile.TemporaryDirectory(prefix="bilevel-check-") as tmp:
        written = write_instance(spec, tmp, built)
        diffs = instance_differences(mps, Path(tmp) / written["mps"])
    if diffs:
        raise InputError(f"the manifest row of {row['id']!r} describes another model than its file {str(mps)!r} "
                         f"({'; '.join(diffs[:2])}): the row's data, seed, sizes, mode, epsilon or box were changed "
                         "after the export, or the file belongs to another instance")


def _check_listed_file(path: Path, checksum: str | None, instance_id: str, what: str) -> None:
    """InputError when a file the manifest lists for ``instance_id`` is missing, a folder or no regular file
    (:func:`bilevel.validation.check_regular_file`), or differs from the manifest's sha256 ``checksum`` (when the
    manifest gives one)."""
    check_regular_file(path, f"the {what} that the manifest lists for {instance_id!r},")
    if checksum and sha256(path) != checksum:
        raise InputError(f"the {what} {str(path)!r} of {instance_id!r} differs from the manifest's sha256 (the file "
                         "was changed or replaced; re-export the library or restore the file)")


def _milp_checks(rep: CheckReport, row, manifest: Path, short_map: dict, readable_values: dict,
                 feas_tol: float) -> None:
    mps = manifest.parent / row["mps"] if row.get("mps") else None
    if mps is not None and mps.suffix.lower() != ".mps":  # an .lp there: its labels never met the map, and the
        # zero vector was scored (REJECTED, "violates ... by 0.5", a correct solution)
        raise InputError(f"the manifest's mps cell of {row['id']!r} names {row['mps']!r}, not an .mps file")
    # (its checksum: _check_row_describes_file, before the model was compared with it)
    if mps is None or not mps.is_file() or not short_map:
        rep.notes.append("the instance's .mps or name map is absent: MILP feasibility not checked")
        return
    arrays = read_instance_arrays(mps)
    to_short = {name: short for short, (kind, name) in short_map.items() if kind == "col"}
    index = {n: j for j, n in enumerate(arrays["col_names"])}
    x = np.zeros(len(arrays["col_names"]))
    matched = 0
    for readable, value in readable_values.items():
        short = to_short.get(readable)
        if short in index:
            x[index[short]] = value
            matched += 1
    if readable_values and not matched:  # the zero vector was scored
        raise InputError(f"none of the solution's variables is a column of {str(mps)!r} under the name map: the map "
                         "and the .mps file do not belong together")
    viol = []
    lo, up = arrays["col_lower"], arrays["col_upper"]
    viol.append(np.max((lo - x) / (1 + np.abs(np.where(np.isfinite(lo), lo, 0))), initial=0.0))
    viol.append(np.max((x - up) / (1 + np.abs(np.where(np.isfinite(up), up, 0))), initial=0.0))
    ax = arrays["A"] @ x
    rl, ru = arrays["row_lower"], arrays["row_upper"]
    viol.append(np.max(np.where(np.isfinite(rl), (rl - ax) / (1 + np.abs(np.where(np.isfinite(rl), rl, 0))), 0),
                       initial=0.0))
    viol.append(np.max(np.where(np.isfinite(ru), (ax - ru) / (1 + np.abs(np.where(np.isfinite(ru), ru, 0))), 0),
                       initial=0.0))
    integ = arrays["integer"]
    if integ.any():
        viol.append(float(np.max(np.abs(x[integ] - np.round(x[integ])))))
    rep.milp_violation = float(max(0.0, *viol))


def main(argv=None) -> int:
    """Command line: prints the report; exit 0 trusted, 1 rejected, 2 bad input or an operating-system error, 130 on
    Ctrl-C, 141 when the standard output was closed by its reader (:func:`solvers.common.run_main`)."""
    from .common import run_main

    return run_main("check_solution", lambda: _main(argv))


def _main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m solvers.check_solution", formatter_class=DefaultsHelpFormatter,
        description="Re-verify a foreign solver's solution of a library instance with the package's inner LP: "
        "trusted or rejected, with reasons.",
    )
    p.add_argument("manifest", type=path_text, help="the library manifest (models/manifest.csv)")
    p.add_argument("instance", help="instance id from the manifest, e.g. diabetes-opt-n10-s0")
    p.add_argument("solution", type=path_text,
                   help="solution file: CSV name,value; SCIP/Gurobi/HiGHS/CPLEX .sol; CBC -solution output")
    p.add_argument("--tol", type=real, default=1e-5, help="tolerance of the bilevel checks (mean hinge units)")
    p.add_argument("--strict", action="store_true",
                   help="also require MILP feasibility of the full vector and bilevel.verify_model")
    args = p.parse_args(argv)
    try:
        # (Path("") is the working directory: "manifest '.' not found", "solution file '.' is a folder")
        nonempty_path("the library manifest, e.g. models/manifest.csv")(args.manifest, "manifest")
        nonempty_path("the solution file")(args.solution, "solution")
        check_options(args, {"tol": number()})  # check_solution's message named its argument "tolerance"
        rep = check_solution(args.manifest, args.instance, args.solution, tolerance=args.tol, strict=args.strict)
    except InputError as exc:
        print(f"check_solution: error: {exc}", file=sys.stderr)
        return 2
    print(rep.summary())
    return 0 if rep.trusted else 1


if __name__ == "__main__":
    sys.exit(main())
