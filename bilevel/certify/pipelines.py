"""Certification pipelines: Learn-then-Test, Pareto Testing and RG-PT.

All three take a loss matrix ``losses`` of shape (n_cal, m) with values in [0, 1] -- ``losses[i, j]`` is
the loss of candidate ``j`` on calibration example ``i``, e.g. its 0-1 error (a third axis of length L
holds several controlled risks, each with its own limit in ``alpha``) -- and return a
:class:`CertificationResult`. The null hypothesis of candidate ``j`` is "its true risk exceeds
``alpha``" (for several risks: some risk exceeds its limit, Eq. (5) of the RG-PT paper); the certified
candidates are the rejected nulls.

Auxiliary objectives (``aux``): a cost per candidate, shape (m,) (constant, e.g. ``||w_bar||_1``), or a
per-example auxiliary loss, shape (n_cal, m) (averaged on the optimisation split), or a list of such
arrays. They shape the Pareto front (PT, RG-PT) and pick the *chosen* configuration: the certified
candidate with the smallest first auxiliary objective (ties broken by the next auxiliary objectives,
then the estimated risks, then the index), measured on the optimisation split (Eq. (9) of the RG-PT
paper, Eq. (13) of the Pareto-testing paper). Without ``aux`` the chosen one is the certified
candidate with the smallest estimated risk.

Data splitting -- the rule that makes the guarantees hold
--------------------------------------------------------
Pareto testing and RG-PT split the calibration rows at random (``seed``, or an explicit ``split``)
into an optimisation part ``Z_OPT`` and a testing part ``Z_MHT``:

* the Pareto front, the test order (PT), the Bradley-Terry scores, the depth levels and the parents of
  the reliability graph (RG-PT) are computed from the rows ``opt_indices`` only;
* the p-values passed to the multiple-testing procedure are computed from the rows ``test_indices``
  only.

Because ``Z_MHT`` is independent of ``Z_OPT``, the ordering/graph is fixed before the test p-values
are looked at, which is what fixed-sequence testing and DAGGER require. The tests in
``tests/test_pipelines.py`` check it by perturbing one part and watching the other. LTT does not split:
its p-values use all rows (``opt_indices`` is empty), and its chosen candidate is selected on all rows.

Caveat on *chosen*: with FWER control every certified candidate, hence the chosen one, has risk
<= alpha with probability >= 1 - delta. FDR control only bounds the expected share of bad certified
candidates; it gives no such statement about the single chosen one.
"""

from __future__ import annotations

import collections

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage, maxdists

from ..errors import InputError
from ..ranking import bradley_terry, check_eta, nonnegative_lasso, rgpt_win_counts
from ..validation import as_float_array, as_number, check_count, check_seed, is_choice, value_text
from .dagger import dagger_details
from .losses import validate_aux, validate_losses
from .p_values import MAX_N, p_values_from_losses, resolve_p_value_method
from .pareto import pareto_front
from .procedures import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    check_delta,
    fixed_sequence_details,
    holm,
)

__all__ = ["CertificationResult", "ltt", "pareto_testing", "rg_pt", "certify", "split_calibration"]

_FWER_PROCEDURES: dict[str, Callable] = {"bonferroni": bonferroni, "holm": holm}
_FDR_PROCEDURES: dict[str, Callable] = {"bh": benjamini_hochberg, "by": benjamini_yekutieli}


@dataclass(frozen=True)
class CertificationResult:
    """What a certification pipeline did and found.

    Arrays aligned with ``candidates`` (the hypotheses handed to the procedure, in test order):
    ``p_values`` (on the testing part), ``tested`` (examined by the procedure), ``rejected``
    (certified), ``p_values_opt`` (on the optimisation part; PT and RG-PT), ``levels`` and
    ``log_scores`` (RG-PT: depth level and Bradley-Terry log-score).

    Attributes
    ----------
    method : "ltt" | "pt" | "rgpt"
    alpha : ndarray, shape (L,) -- risk limit(s).
    delta : float -- FWER or FDR level.
    control : "fwer" | "fdr"
    procedure : str -- "bonferroni", "holm", "bh", "by", "fixed_sequence" or "dagger".
    p_value : str -- name of the p-value.
    candidates : ndarray of int -- candidate (column) indices in test order.
    certified : ndarray of int -- certified candidate indices, ascending.
    chosen : int or None -- the certified candidate with the best auxiliary objective.
    opt_indices, test_indices : ndarray of int -- calibration rows of the optimisation / testing part.
    front : ndarray of int or None -- Pareto front on the optimisation part (PT, RG-PT).
    parents : dict or None -- RG-PT graph, ``{candidate: [parent candidates]}``.
    risk_opt : ndarray, shape (m, L) -- empirical risks on the optimisation part (all rows for LTT).
    aux_opt : ndarray, shape (m, A) or None -- auxiliary objectives on the same rows.
    """

    method: str
    alpha: np.ndarray
    delta: float
    control: str
    procedure: str
    p_value: str
    candidates: np.ndarray
    p_values: np.ndarray
    tested: np.ndarray
    rejected: np.ndarray
    certified: np.ndarray
    chosen: int | None
    opt_indices: np.ndarray
    test_indices: np.ndarray
    risk_opt: np.ndarray
    aux_opt: np.ndarray | None = None
    front: np.ndarray | None = None
    p_values_opt: np.ndarray | None = None
    parents: dict[int, list[int]] | None = None
    levels: np.ndarray | None = None
    log_scores: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n_candidates(self) -> int:
        return int(self.risk_opt.shape[0])

    def summary(self, names: Sequence[str] | Mapping[int, str] | None = None) -> str:
        """A short human-readable report; ``names`` maps candidate indices to labels: a sequence of one label per
        candidate (``n_candidates`` of them), or a mapping from candidate index to label that holds every
        certified index. Raises InputError for any other ``names`` (e.g. a string, a list of another length, a
        mapping without a certified index, a label given twice), naming it. A utility (no equation)."""
        if names is not None:
            if isinstance(names, Mapping):
                missing = [int(j) for j in self.certified if int(j) not in names]
                if missing:
                    raise InputError(f"names has no label for the certified candidate {missing[0]} (a mapping of "
                                     "names needs one for every certified candidate index)")
            elif (isinstance(names, (str, bytes)) or not isinstance(names, (Sequence, np.ndarray))
                  or (isinstance(names, np.ndarray) and names.ndim == 0)):  # len() of one raised a TypeError
                raise InputError(f"names must be a sequence of one label per candidate, or a mapping from candidate "
                                 f"index to label; got {value_text(names)}")
            elif len(names) != self.n_candidates:
                raise InputError(f"names has {len(names)} labels for {self.n_candidates} candidates; give one per "
                                 "candidate")
            labels = [str(v) for v in (names.values() if isinstance(names, Mapping) else names)]
            twice = sorted(v for v, n in collections.Counter(labels).items() if n > 1)
            if twice:  # "certified: a, a" named two candidates alike (the CLI refuses repeated loss-table headers)
                raise InputError(f"names gives two candidates the label {twice[0]!r}; labels must be distinct")

        def label(j: int) -> str:
            return str(names[int(j)]) if names is not None else str(j)

        alpha = ", ".join(f"{a:g}" for a in self.alpha)
        lines = [
            f"method: {self.method} ({self.procedure}, {self.control.upper()} <= {self.delta:g}), "
            f"p-value: {self.p_value}, alpha: {alpha}",
            f"calibration rows: {self.opt_indices.size} optimisation, {self.test_indices.size} testing",
            f"candidates: {self.n_candidates}, tested: {int(self.tested.sum())} of {self.candidates.size} "
            f"hypotheses, certified: {self.certified.size}",
            "certified: " + (", ".join(label(j) for j in self.certified) if self.certified.size else "none"),
            "chosen: " + (label(self.chosen) if self.chosen is not None else "none"),
        ]
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------------------


_LINKAGE_METHODS = ("single", "complete", "average", "weighted", "centroid", "median", "ward")


def _prepare(losses, alpha) -> tuple[np.ndarray, np.ndarray]:
    arr = validate_losses(losses)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    n_risks = arr.shape[2]
    a = np.atleast_1d(as_float_array(alpha, "alpha (risk limit)", "a number or one number per controlled risk"))
    if a.ndim != 1 or a.size not in (1, n_risks):
        raise InputError(f"alpha (risk limit) must be a scalar or have one entry per controlled risk ({n_risks}), "
                         f"got {np.shape(alpha)}")
    if a.size == 1:
        a = np.full(n_risks, a[0])
    if not np.all(np.isfinite(a)) or np.any(a <= 0) or np.any(a >= 1):
        raise InputError(f"alpha (risk limit) must lie strictly between 0 and 1, got {alpha!r}")
    return arr, a


def _p_value_name(p_value) -> str:
    resolve_p_value_method(p_value)
    return p_value if isinstance(p_value, str) else getattr(p_value, "__name__", "custom")


def _aux_on(aux_items: list[np.ndarray], rows: np.ndarray, m: int) -> np.ndarray | None:
    if not aux_items:
        return None
    cols = [item if item.ndim == 1 else item[rows].mean(axis=0) for item in aux_items]
    return np.column_stack(cols).reshape(m, len(cols))


def _choose(certified: np.ndarray, aux_sel: np.ndarray | None, risk_sel: np.ndarray) -> int | None:
    if certified.size == 0:
        return None
    keys = []  # primary key first
    if aux_sel is not None:
        keys += [aux_sel[certified, k] for k in range(aux_sel.shape[1])]
    keys += [risk_sel[certified, k] for k in range(risk_sel.shape[1])]
    keys.append(certified)
    return int(certified[np.lexsort(keys[::-1])[0]])


def _check_opt_fraction(opt_fraction, name: str = "opt_fraction") -> float:
    f = as_number(opt_fraction, name)
    if not np.isfinite(f) or not 0.0 < f < 1.0:
        raise InputError(f"{name} must lie strictly between 0 and 1, got {opt_fraction!r}")
    return f


def split_calibration(n_cal: int, opt_fraction: float = 0.5, seed=None,
                      name: str = "opt_fraction") -> tuple[np.ndarray, np.ndarray]:
    """Random split of ``n_cal`` calibration rows into optimisation and testing parts.

    The split ``Z = Z_OPT u Z_MHT`` of line 3 of Alg. 2 of the RG-PT paper (also Pareto testing's).

    ``round(opt_fraction * n_cal)`` rows go to the optimisation part. ``n_cal`` is an int (not a float or a
    bool); ``seed`` is an int >= 0, ``None`` or a ``numpy.random.Generator``. Returns
    ``(opt_indices, test_indices)``, each sorted. ``name`` is the name of ``opt_fraction`` in the messages (a
    command-line tool passes its option, ``"--opt-fraction"``).

    Raises ``InputError`` when ``n_cal`` is not an integer in [0, 2**53], ``seed`` is not one of the above (a negative
    number, a float, a string), ``opt_fraction`` is not in (0, 1) or either part would be empty.
    """
    n_cal = check_count(n_cal, "n_cal (number of calibration rows)", 0, MAX_N)  # 10**400: OverflowError below
    seed = check_seed(seed)
    f = _check_opt_fraction(opt_fraction, name)
    n_opt = int(round(f * n_cal))
    if n_opt < 1 or n_opt > n_cal - 1:
        given = f"{name} {f:g}" if name.startswith("-") else f"{name}={f:g}"  # an option as typed, an argument
        raise InputError(
            f"cannot split {n_cal} calibration rows with {given}: both parts need at least one row"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    perm = rng.permutation(n_cal)
    return np.sort(perm[:n_opt]), np.sort(perm[n_opt:])


def _resolve_split(n_cal: int, opt_fraction, seed, split) -> tuple[np.ndarray, np.ndarray]:
    if split is None:
        return split_calibration(n_cal, opt_fraction, seed)
    check_seed(seed)  # a bad seed or opt_fraction is an error even when the explicit split leaves it unused
    _check_opt_fraction(opt_fraction)  # (opt_fraction=5 or "abc" with a split was accepted without a word)
    if isinstance(split, Mapping) or (type(split).__module__.startswith("pandas") and hasattr(split, "columns")):
        # iterating a dict gives its keys and a DataFrame its column labels: {0: opt, 1: test} ran with the single
        # optimisation row 0 and the single testing row 1
        raise InputError("split must be a pair (opt_indices, test_indices) of integer row indices, not a mapping or "
                         "a DataFrame (iterating one gives its keys / column labels); pass (split[0], split[1])")
    try:
        masks = [np.asarray(s).dtype == bool for s in split]
        opt_f, test_f = (np.asarray(s, dtype=float) for s in split)
    except (TypeError, ValueError):
        raise InputError("split must be a pair (opt_indices, test_indices) of integer row indices") from None
    except OverflowError:  # an int beyond the float range, e.g. 10**400
        raise InputError(f"split: row indices must lie in 0..{n_cal - 1}; got an int too large for a float") from None
    for part, arr in (("opt_indices", opt_f), ("test_indices", test_f)):
        if arr.ndim != 1:  # raveled before: split=(0, 1) ran on rows 0 and 1 only, [[0, 1]] was the rows 0 and 1
            raise InputError(f"split: {part} must be a 1-D list of row indices, got "
                             f"{'the number ' if arr.ndim == 0 else 'an array of shape '}"
                             f"{format(arr.item(), 'g') if arr.ndim == 0 else arr.shape}")
    if any(masks):  # as numbers, the mask [True, False] would name rows 1 and 0
        raise InputError("split takes integer row indices, not boolean masks (np.nonzero(mask)[0] gives them)")
    both_f = np.concatenate([opt_f, test_f])
    if not np.all(np.isfinite(both_f)) or np.any(both_f != np.round(both_f)):
        raise InputError("split: row indices must be integers")
    opt_idx, test_idx = opt_f.astype(np.int64), test_f.astype(np.int64)
    if opt_idx.size == 0 or test_idx.size == 0:
        raise InputError("split: both the optimisation and the testing part need at least one row")
    both = np.concatenate([opt_idx, test_idx])
    if both.min() < 0 or both.max() >= n_cal:
        raise InputError(f"split: row indices must lie in 0..{n_cal - 1}")
    if np.unique(both).size != both.size:
        raise InputError("split: the optimisation and testing parts must be disjoint and without repeats")
    return opt_idx, test_idx


def _front_and_objectives(opt: np.ndarray, aux_items, opt_idx, m):
    risk_opt = opt.mean(axis=0)  # (m, L)
    aux_opt = _aux_on(aux_items, opt_idx, m)
    objectives = risk_opt if aux_opt is None else np.hstack([risk_opt, aux_opt])
    return risk_opt, aux_opt, pareto_front(objectives)


# --------------------------------------------------------------------------------------------------
# LTT
# --------------------------------------------------------------------------------------------------


def ltt(
    losses,
    alpha,
    delta,
    *,
    aux=None,
    control: str = "fdr",
    procedure: str | None = None,
    p_value: str | Callable = "hb",
) -> CertificationResult:
    """Learn-then-Test (Angelopoulos et al., 2021): p-values on all calibration data, then one procedure.

    Parameters
    ----------
    losses : array_like, shape (n_cal, m) or (n_cal, m, L), values in [0, 1]
    alpha : float or array_like of shape (L,) -- risk limit(s), each in (0, 1).
    delta : float in (0, 1) -- FDR or FWER level.
    aux : see the module docstring; used only to pick the chosen candidate (on all rows).
    control : {"fdr", "fwer"}
    procedure : {"bh", "by"} for FDR (default "bh"), {"holm", "bonferroni"} for FWER (default "holm").
    p_value : {"hoeffding", "hoeffding_kl", "bentkus", "hb", "binomial"} or a callable
        ``(r_hat, n, alpha) -> p``; Eq. (6)/(7) of the RG-PT paper and Eqs. (27)-(28) of the
        Pareto-testing paper.

    Returns
    -------
    CertificationResult with ``candidates = arange(m)`` and every hypothesis tested.

    Raises
    ------
    InputError
        Bad losses/alpha/delta/aux, unknown or mismatched ``control``/``procedure``/``p_value``.
    """
    arr, a = _prepare(losses, alpha)
    d = check_delta(delta)
    n_cal, m, _ = arr.shape
    aux_items = validate_aux(aux, n_cal, m, losses)
    proc = procedure_name(control, procedure)
    pv = p_values_from_losses(arr, a, p_value)
    rejected = _procedures_for(control)[proc](pv, d)
    all_rows = np.arange(n_cal)
    risk = arr.mean(axis=0)
    aux_all = _aux_on(aux_items, all_rows, m)
    certified = np.nonzero(rejected)[0]
    return CertificationResult(
        method="ltt",
        alpha=a,
        delta=d,
        control=control,
        procedure=proc,
        p_value=_p_value_name(p_value),
        candidates=np.arange(m),
        p_values=pv,
        tested=np.ones(m, dtype=bool),
        rejected=rejected,
        certified=certified,
        chosen=_choose(certified, aux_all, risk),
        opt_indices=np.zeros(0, dtype=np.int64),
        test_indices=all_rows,
        risk_opt=risk,
        aux_opt=aux_all,
    )


def procedure_name(control: str, procedure: str | None) -> str:
    """The multiple-testing procedure :func:`ltt` applies under ``control`` (``"fdr"`` or ``"fwer"``):
    ``procedure`` itself (``"bh"``/``"by"`` for the FDR, ``"holm"``/``"bonferroni"`` for the FWER), or
    ``"bh"``/``"holm"`` when it is None; names in any case (``"BH"``), as the p-value names. A utility (no
    equation). Raises InputError for another control, a ``procedure`` that is not a name, an unknown name, or one
    that does not control ``control``."""
    procs = _procedures_for(control)
    proc = ("bh" if control == "fdr" else "holm") if procedure is None else procedure  # "" is no name
    if not isinstance(proc, str):
        raise InputError(f"procedure must be a name, one of {sorted(procs)}; got {value_text(proc)}")
    if proc.lower() in procs:
        return proc.lower()
    other = "fwer" if control == "fdr" else "fdr"
    if proc.lower() in _procedures_for(other):
        raise InputError(f"procedure {proc!r} controls the {other.upper()}, not the {control.upper()}; for the "
                         f"{control.upper()} choose one of {sorted(procs)}")
    raise InputError(f"unknown procedure {proc!r}; for the {control.upper()} choose one of {sorted(procs)}")


def _procedures_for(control: str) -> dict[str, Callable]:
    if not is_choice(control, ("fdr", "fwer")):  # an array: numpy's "truth value ... is ambiguous"
        raise InputError(f"control must be 'fdr' or 'fwer', got {value_text(control)}")
    if control == "fdr":
        return _FDR_PROCEDURES
    if control == "fwer":
        return _FWER_PROCEDURES
    raise InputError(f"control must be 'fdr' or 'fwer', got {value_text(control)}")


# --------------------------------------------------------------------------------------------------
# Pareto testing
# --------------------------------------------------------------------------------------------------


def pareto_testing(
    losses,
    alpha,
    delta,
    *,
    aux=None,
    control: str = "fwer",
    p_value: str | Callable = "hb",
    opt_fraction: float = 0.5,
    seed=None,
    split=None,
    max_failures: int = 1,
) -> CertificationResult:
    """Pareto Testing (Laufer-Goldshtein et al., 2023), as Alg. C.1 of the Pareto-testing paper states its
    testing stage (that paper's Bayesian-optimisation search for candidates is not part of it: the candidates are
    the columns of ``losses``).

    1. Split the calibration rows into ``Z_OPT`` and ``Z_MHT`` (``opt_fraction``, ``seed`` or ``split``).
    2. On ``Z_OPT``: the Pareto front of (estimated risks, auxiliary objectives); order it by increasing
       p-value on ``Z_OPT`` (ties: smaller estimated first risk, then smaller index).
    3. On ``Z_MHT``: p-values of the ordered front, then fixed-sequence testing
       (:func:`~bilevel.certify.procedures.fixed_sequence`): FWER (``control="fwer"``, default; level
       ``delta / min(max_failures, front size)``) or FDR (``control="fdr"``, Eq. (14) of the RG-PT paper).

    Parameters are those of :func:`ltt` plus ``opt_fraction`` (share of rows in ``Z_OPT``), ``seed``
    (int, None or numpy Generator), ``split`` (explicit ``(opt_indices, test_indices)``, overrides the
    random split) and ``max_failures`` (``k`` of Eq. (14): failures tolerated before testing stops).

    Returns a CertificationResult whose ``candidates`` are the ordered front.

    Raises
    ------
    InputError
        As :func:`ltt`, plus a split that leaves a part empty, overlaps, has a part that is not a 1-D list of row
        indices (a number, a 2-D array) or is given as boolean masks (or as a dict or DataFrame), a ``seed``
        other than an int >= 0, ``None`` or a Generator, an ``opt_fraction`` not in (0, 1) (both checked even
        when ``split`` is given).
    """
    arr, a = _prepare(losses, alpha)
    d = check_delta(delta)
    if not is_choice(control, ("fdr", "fwer")):
        raise InputError(f"control must be 'fdr' or 'fwer', got {value_text(control)}")
    n_cal, m, _ = arr.shape
    aux_items = validate_aux(aux, n_cal, m, losses)
    opt_idx, test_idx = _resolve_split(n_cal, opt_fraction, seed, split)
    opt, test = arr[opt_idx], arr[test_idx]  # from here on: graph/order from `opt`, p-values from `test`

    risk_opt, aux_opt, front = _front_and_objectives(opt, aux_items, opt_idx, m)
    p_opt = p_values_from_losses(opt[:, front], a, p_value)
    order = np.lexsort((front, risk_opt[front, 0], p_opt))
    candidates, p_opt = front[order], p_opt[order]

    p_test = p_values_from_losses(test[:, candidates], a, p_value)
    rejected, tested = fixed_sequence_details(p_test, d, fdr=(control == "fdr"), max_failures=max_failures)
    certified = np.sort(candidates[rejected])
    return CertificationResult(
        method="pt",
        alpha=a,
        delta=d,
        control=control,
        procedure="fixed_sequence",
        p_value=_p_value_name(p_value),
        candidates=candidates,
        p_values=p_test,
        tested=tested,
        rejected=rejected,
        certified=certified,
        chosen=_choose(certified, aux_opt, risk_opt),
        opt_indices=opt_idx,
        test_indices=test_idx,
        risk_opt=risk_opt,
        aux_opt=aux_opt,
        front=np.sort(front),
        p_values_opt=p_opt,
        extra={"max_failures": int(max_failures)},
    )


# --------------------------------------------------------------------------------------------------
# RG-PT
# --------------------------------------------------------------------------------------------------


#: Bradley-Terry log-scores closer than this (relative to ``max(1, |score|)``) are one score. Candidates with equal
#: p-values on ``Z_OPT`` have equal scores in exact arithmetic, but the fit returns them a few ulps apart, and
#: clustering then split them into different depth levels, one the parent of the other.
_SCORE_TIE_RTOL = 1e-9


def _merge_score_ties(log_scores: np.ndarray) -> np.ndarray:
    """``log_scores`` with every run of values within ``_SCORE_TIE_RTOL`` of the run's smallest value set to it
    exactly, so that depth levels, test order and the orphans' best parent treat them as the ties they are."""
    out = np.array(log_scores, dtype=float)
    order = np.argsort(out, kind="stable")
    head = out[order[0]]
    for i in order[1:]:
        if out[i] - head <= _SCORE_TIE_RTOL * max(1.0, abs(head)):
            out[i] = head
        else:
            head = out[i]
    return out


def _at_most_clusters(tree: np.ndarray, n_clusters: int) -> np.ndarray:
    """Flat clusters (labels, one per leaf) of the linkage ``tree`` at the least cut height that leaves at most
    ``n_clusters`` of them, heights taken from SciPy's monotone criterion ``maxdists``: what
    ``fcluster(tree, n_clusters, criterion="maxclust")`` returns from SciPy 1.15 on. Earlier releases never
    chose the least height (scipy/scipy#12651), so log-scores [0, -1, -10] in two levels came out as one level
    with SciPy 1.11. The number of clusters falls as the height rises, so a bisection over the heights finds it."""
    if n_clusters > tree.shape[0]:  # as many clusters as leaves (tree.shape[0] + 1): every leaf its own
        return np.arange(1, tree.shape[0] + 2, dtype=np.int32)
    crit = maxdists(tree)
    heights = np.unique(crit)
    lo, hi = -1, heights.size - 1  # at the largest height every leaf is in one cluster

    def cut(h):
        return fcluster(tree, t=h, criterion="monocrit", monocrit=crit)

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cut(heights[mid]).max() > n_clusters:
            lo = mid
        else:
            hi = mid
    return cut(heights[hi])


def _depth_levels(log_scores: np.ndarray, n_levels: int, method: str) -> np.ndarray:
    """Cluster 1-D log-scores into at most ``n_levels`` groups; level 1 = highest scores."""
    k = log_scores.size
    if n_levels <= 1 or k == 1:
        return np.ones(k, dtype=np.int64)
    if n_levels >= k:
        order = np.lexsort((np.arange(k), -log_scores))
        levels = np.empty(k, dtype=np.int64)
        levels[order] = np.arange(1, k + 1)
        return levels
    if np.ptp(log_scores) == 0.0:
        return np.ones(k, dtype=np.int64)
    labels = _at_most_clusters(linkage(log_scores.reshape(-1, 1), method=method), n_levels)
    uniq = np.unique(labels)
    means = np.array([log_scores[labels == u].mean() for u in uniq])
    rank = {u: r + 1 for r, u in enumerate(uniq[np.argsort(-means, kind="stable")])}
    return np.array([rank[u] for u in labels], dtype=np.int64)


def rg_pt(
    losses,
    alpha,
    delta,
    *,
    aux=None,
    p_value: str | Callable = "hb",
    opt_fraction: float = 0.5,
    seed=None,
    split=None,
    n_levels: int | None = None,
    n_p: float = 0.0,
    eta=None,
    tau: float = 0.1,
    reshaping: str = "identity",
    cluster_method: str = "ward",
    orphans: str = "best",
    control: str = "fdr",
) -> CertificationResult:
    """Reliability-graph-based Pareto testing, Alg. 2 of the RG-PT paper (FDR control).

    1. Split the calibration rows into ``Z_OPT`` and ``Z_MHT``.
    2. On ``Z_OPT``: the Pareto front ``Lambda_OPT`` of (estimated risks, auxiliary objectives).
    3. On ``Z_OPT``: pairwise counts ``w_ij = |Z_OPT| p_ij + n_p eta_ij`` (Eqs. (10)-(11), see
       :func:`bilevel.ranking.rgpt_win_counts` for the orientation of ``p_ij``) and Bradley-Terry
       scores (Eq. (12), :func:`bilevel.ranking.bradley_terry`).
    4. Depth levels: agglomerative clustering (``scipy.cluster.hierarchy``, ``cluster_method`` linkage)
       of the Bradley-Terry **log**-scores into ``D = n_levels`` clusters, level 1 = most reliable. Log
       scale because with ``n_p = 0`` the scores are ``1 / p``-values, which span many orders of
       magnitude; clustering raw scores would isolate the top candidate and lump all others together.
       Scores equal up to round-off (relative ``1e-9``; e.g. equal p-values on ``Z_OPT``) are ties: one
       level (ordered by index in a chain), one rank when the orphans' best parent is picked.
       ``D >= |front|`` gives one candidate per level (a chain, i.e. PT with FDR control, but with
       tied p-values ordered by index where PT orders them by estimated risk); ``D = 1``
       gives no edges (BH/BY on the front, like LTT).
    5. Parents: for each candidate at level ``d >= 2``, the non-negative Lasso (Eq. (13),
       :func:`bilevel.ranking.nonnegative_lasso`, penalty ``tau`` on the *sum* over rows) of its
       per-example losses on ``Z_OPT`` on those of level ``d - 1``; candidates with a positive
       coefficient become parents, however small it is: the Lasso already sets its round-off to 0 relative to each
       column's own scale (``beta_j < 1e-12 ||y|| / ||x_j||``), so rescaling the losses (with ``tau = 0``, where
       Eq. (13) is homogeneous) does not change the parents. When the Lasso selects none (e.g. a column constant on
       ``Z_OPT``), ``orphans="best"`` (default) attaches the candidate to the highest-scored candidate of level
       ``d - 1``, keeping the depth assigned by clustering; ``orphans="root"`` leaves it without parents,
       so DAGGER treats it as a root and tests it first.
    6. On ``Z_MHT``: p-values of the front and DAGGER (:func:`bilevel.certify.dagger.dagger`) with the
       given ``reshaping`` ("identity" for independent/PRDS p-values, "by" for arbitrary dependence).

    Parameters beyond those of :func:`pareto_testing`: ``n_levels`` (``D``, an integer >= 1; default
    ``ceil(sqrt(|front|))``; the clustering makes at most ``|front|`` non-empty levels, so a larger ``D``, however
    large, is ``|front|``: one candidate per level, nothing of size ``D`` is allocated; the levels used are
    ``extra["n_levels"]``), ``n_p`` and ``eta`` (prior pseudo-count and (m, m) prior matrix over all
    candidates, ``eta[i, j]`` = prior probability that ``i`` is more reliable than ``j``), ``tau``
    (Lasso penalty, 0.1 as in the paper's Table 1), ``reshaping``, ``cluster_method`` (a
    ``scipy.cluster.hierarchy.linkage`` method), ``orphans`` ("best" or "root"). ``control`` must be
    "fdr" (DAGGER controls the FDR only).

    Returns
    -------
    CertificationResult with ``candidates`` = the front ordered by (level, score), ``parents``,
    ``levels`` and ``log_scores``.

    Raises
    ------
    InputError
        As :func:`pareto_testing`, plus ``control="fwer"``, bad ``n_levels``/``n_p``/``tau``/``reshaping``/
        ``orphans``, an ``eta`` (whenever given, whatever the front) not of shape (m, m), with an off-diagonal
        entry outside [0, 1] or NaN, or with ``eta_ij + eta_ji != 1`` (to 1e-6).
    """
    if not is_choice(control, ("fdr", "fwer")):  # an array: numpy's "truth value ... is ambiguous" in the test below
        raise InputError(f"control must be 'fdr' (RG-PT controls the FDR only), got {value_text(control)}")
    if control != "fdr":
        raise InputError("RG-PT controls the FDR (DAGGER); for FWER control use Pareto testing or LTT")
    arr, a = _prepare(losses, alpha)
    d = check_delta(delta)
    n_cal, m, n_risks = arr.shape
    aux_items = validate_aux(aux, n_cal, m, losses)
    if not is_choice(orphans, ("best", "root")):
        raise InputError(f"orphans must be 'best' or 'root', got {value_text(orphans)}")
    # an integer as max_failures is (2.0 was taken as 2, "2" refused); an int beyond the float range stays one
    # (any D >= |front| means one candidate per level)
    n_lev = None if n_levels is None else check_count(n_levels, "n_levels (depth levels D)", 1)
    if not is_choice(cluster_method, _LINKAGE_METHODS):
        raise InputError(f"cluster_method must be one of {', '.join(_LINKAGE_METHODS)}; "
                         f"got {value_text(cluster_method)}")
    tau_f = as_number(tau, "tau")
    if not np.isfinite(tau_f) or tau_f < 0:
        raise InputError(f"tau must be a finite non-negative number, got {tau!r}")
    n_p_f = as_number(n_p, "n_p (prior pseudo-count)")
    if not np.isfinite(n_p_f) or n_p_f < 0:
        raise InputError(f"n_p (prior pseudo-count) must be >= 0, got {n_p!r}")
    if n_p_f > 0 and eta is None:
        raise InputError("n_p > 0 needs a prior matrix eta")
    if not isinstance(reshaping, str) or reshaping.lower() not in ("identity", "id", "by", "benjamini_yekutieli"):
        raise InputError(f"reshaping must be 'identity' or 'by', got {value_text(reshaping)}")
    if eta is not None:
        eta = check_eta(eta, m)
    opt_idx, test_idx = _resolve_split(n_cal, opt_fraction, seed, split)
    opt, test = arr[opt_idx], arr[test_idx]  # from here on: graph from `opt`, p-values from `test`

    # 2. Pareto front on Z_OPT
    risk_opt, aux_opt, front = _front_and_objectives(opt, aux_items, opt_idx, m)
    k = front.size
    p_opt = p_values_from_losses(opt[:, front], a, p_value)

    # 3. Bradley-Terry scores on Z_OPT (+ prior)
    if k > 1:
        wins = rgpt_win_counts(p_opt, opt_idx.size, eta=None if eta is None else eta[np.ix_(front, front)], n_p=n_p)
        log_s = _merge_score_ties(bradley_terry(wins, return_log=True))
    else:
        log_s = np.zeros(1)

    # 4. depth levels
    if n_lev is None:
        n_lev = int(np.ceil(np.sqrt(k)))
    levels = _depth_levels(log_s, min(n_lev, k), cluster_method)  # (at most one level per candidate of the front)

    # 5. parents by non-negative Lasso on Z_OPT
    local_parents: list[list[int]] = [[] for _ in range(k)]
    for level in range(2, int(levels.max()) + 1):
        prev = np.nonzero(levels == level - 1)[0]
        cur = np.nonzero(levels == level)[0]
        x = opt[:, front[prev], :].transpose(0, 2, 1).reshape(-1, prev.size)  # rows: (example, risk)
        best_prev = int(prev[np.argmax(log_s[prev])])
        for j in cur:
            y = opt[:, front[j], :].reshape(-1)
            beta = nonnegative_lasso(x, y, tau)
            # > 0, not > 1e-8: an absolute cut dropped real parents of a child whose losses are small (its
            # coefficients scale with them); nonnegative_lasso zeroes round-off relative to the data's scale
            chosen_parents = [int(q) for q in prev[beta > 0.0]]
            if not chosen_parents and orphans == "best":
                chosen_parents = [best_prev]
            local_parents[j] = chosen_parents

    # test order: by level, then score, then index
    order = np.lexsort((front, -log_s, levels))
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    candidates = front[order]
    parents_in_order = [[int(position[q]) for q in local_parents[j]] for j in order]

    # 6. DAGGER on Z_MHT
    p_test = p_values_from_losses(test[:, candidates], a, p_value)
    res = dagger_details(p_test, parents_in_order, d, reshaping)
    certified = np.sort(candidates[res.rejected])
    parents_global = {int(front[j]): sorted(int(front[q]) for q in local_parents[j]) for j in range(k)}
    return CertificationResult(
        method="rgpt",
        alpha=a,
        delta=d,
        control="fdr",
        procedure="dagger",
        p_value=_p_value_name(p_value),
        candidates=candidates,
        p_values=p_test,
        tested=res.tested,
        rejected=res.rejected,
        certified=certified,
        chosen=_choose(certified, aux_opt, risk_opt),
        opt_indices=opt_idx,
        test_indices=test_idx,
        risk_opt=risk_opt,
        aux_opt=aux_opt,
        front=np.sort(front),
        p_values_opt=p_opt[order],
        parents=parents_global,
        levels=levels[order],
        log_scores=log_s[order],
        extra={"reshaping": reshaping, "n_levels": int(levels.max()), "tau": float(tau), "n_p": float(n_p)},
    )


_METHODS: dict[str, Callable[..., CertificationResult]] = {"ltt": ltt, "pt": pareto_testing, "rgpt": rg_pt}


def certify(losses, alpha, delta, *, method: str = "rgpt", **kwargs) -> CertificationResult:
    """Run one of the pipelines by name: ``"ltt"``, ``"pt"`` (Pareto testing) or ``"rgpt"``.

    Keyword arguments are passed on; see :func:`ltt`, :func:`pareto_testing`, :func:`rg_pt`.
    A dispatcher (no equation of its own). Raises ``InputError`` for an unknown method and whatever the
    pipeline raises (Python's ``TypeError`` for a keyword the pipeline does not take).
    """
    try:
        fn = _METHODS[method]
    except (KeyError, TypeError):  # TypeError: an unhashable method such as a list
        raise InputError(f"unknown certification method {value_text(method)}; "
                         f"choose one of {sorted(_METHODS)}") from None
    return fn(losses, alpha, delta, **kwargs)
