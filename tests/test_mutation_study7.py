"""Mutation study 7 of bilevel.certify.losses, bilevel.certify.pareto, bilevel.certify.milp and bilevel.pause_gc: each
test kills a mutant that passed the rest of the suite, against the documented behaviour (the docstrings, Eq. (2) of
the Pareto-testing paper) with an independent oracle (a brute-force Pareto front, hand-checked tiny cases)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import bilevel
import bilevel.certify.milp as milp
from bilevel.certify.losses import load_aux_csv, load_losses_csv, validate_aux, validate_losses
from bilevel.certify.pareto import pareto_front, pareto_front_mask
from bilevel.datasets import Dataset
from bilevel.errors import InputError
from oracles import brute_front


def _no_milp(*args, **kwargs):
    raise AssertionError("a MILP was solved before the inputs were checked")


# ---------------------------------------------------------------- pareto


def test_pareto_front_mask_of_one_objective_per_candidate():
    """pareto_front_mask: ``objectives`` of shape (m,) is one objective per candidate and the mask has shape (m,);
    with one objective the front is the set of candidates at the minimum (ties all stay on the front)."""
    obj = np.array([3.0, 1.0, 2.0, 1.0, 5.0])
    assert pareto_front_mask(obj).tolist() == (obj == obj.min()).tolist()
    assert pareto_front(obj).tolist() == [1, 3]


@pytest.mark.parametrize("objectives", [np.zeros((3, 0)), np.zeros((2, 2, 2)), [[0.1, np.nan]], [[0.1], [np.inf]]])
def test_pareto_front_mask_refuses_bad_objectives(objectives):
    """pareto_front_mask raises InputError for empty input (no objective: shape (m, 0)), more than 2 dimensions, NaN
    or infinite values."""
    with pytest.raises(InputError, match="objectives"):
        pareto_front_mask(objectives)


def test_pareto_front_indices_are_ascending_and_match_a_brute_force_front():
    """pareto_front: the indices (ascending) of the candidates no other candidate dominates (Eq. (2) of the
    Pareto-testing paper), against a pair-by-pair check; identical objective vectors all stay on the front."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        obj = rng.integers(0, 4, size=(12, 2)).astype(float)
        front = pareto_front(obj)
        assert front.tolist() == brute_front(obj)
    obj = np.array([[0.0, 3.0], [1.0, 1.0], [3.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    assert pareto_front(obj).tolist() == [0, 1, 2, 3]


# ---------------------------------------------------------------- losses


def test_validate_losses_refuses_an_empty_third_axis():
    """validate_losses: losses of shape (n, m, L) need at least one controlled risk; a third axis of length 0 is an
    InputError (not numpy's ValueError about a zero-size reduction)."""
    with pytest.raises(InputError, match="controlled risk"):
        validate_losses(np.zeros((3, 2, 0)))


@pytest.mark.parametrize("low", [-1e-12, -5e-324])
def test_validate_losses_refuses_a_loss_just_below_zero(low):
    """validate_losses raises InputError for values outside [0, 1], however close below 0 they are."""
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        validate_losses([[low, 0.5], [0.0, 1.0]])


def test_validate_aux_one_cost_vector_with_one_calibration_row():
    """validate_aux: a list of numpy arrays is several auxiliary objectives; the refusal of ``n_cal`` arrays of shape
    (m,) applies only when ``n_cal`` > 1, so with one calibration row a list of one cost vector is one objective."""
    out = validate_aux([np.array([1.0, 2.0, 3.0])], 1, 3)
    assert len(out) == 1 and out[0].tolist() == [1.0, 2.0, 3.0]


def test_validate_aux_refuses_the_rows_of_a_matrix_as_two_objectives():
    """validate_aux raises InputError for a list of exactly ``n_cal`` arrays of shape (m,) when ``n_cal`` > 1 (here
    2): the rows of a per-example matrix cannot be told apart from ``n_cal`` cost vectors."""
    with pytest.raises(InputError, match="cannot be told apart"):
        validate_aux([np.ones(3), np.zeros(3)], 2, 3)


def test_validate_aux_a_list_mixing_arrays_and_lists_is_one_matrix():
    """validate_aux: a list counts as several objectives only when every element is a numpy array; a list of one
    array and one list is one per-example matrix given as nested lists (here n_cal = 2, m = 3)."""
    out = validate_aux([np.array([1.0, 2.0, 3.0]), [4.0, 5.0, 6.0]], 2, 3)
    assert len(out) == 1 and out[0].tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.parametrize("aux", [np.ones((3, 2)), np.array([0.0, np.nan, 1.0]), np.array([[0.0, 1.0, np.inf]] * 2)])
def test_validate_aux_refuses_a_transposed_matrix_and_non_finite_values(aux):
    """validate_aux raises InputError for a shape other than (m,) or (n_cal, m) (here the transpose (m, n_cal)) and
    for NaN or infinite values (n_cal = 2, m = 3)."""
    with pytest.raises(InputError, match="auxiliary objective 0"):
        validate_aux(aux, 2, 3)


def _write(tmp_path, text: str, name: str = "l.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_blank_candidate_name_is_an_empty_name(tmp_path):
    """load_losses_csv raises InputError for an empty name in the header; a name of blanks only is empty (the names
    are read without the blanks around them, as ``a, b`` is the header of candidates ``a`` and ``b``)."""
    with pytest.raises(InputError, match="non-empty candidate name"):
        load_losses_csv(_write(tmp_path, "a,   ,c\n0,1,0\n1,0,1\n"))
    assert load_losses_csv(_write(tmp_path, "a, b\n0, 1\n")).names == ["a", "b"]


def test_data_rows_shorter_than_the_header_are_refused(tmp_path):
    """load_losses_csv raises InputError (not a pandas ValueError) when every data row has fewer fields than the
    header names candidates: the missing values of the last columns."""
    with pytest.raises(InputError, match="3 columns"):
        load_losses_csv(_write(tmp_path, "a,b,c\n0,1\n1,0\n"))


def test_a_missing_value_is_located_by_data_row_and_column(tmp_path):
    """load_losses_csv raises InputError for a missing value, naming its data row (1 = the first row under the
    header) and its column: here the second data row, column ``b``."""
    with pytest.raises(InputError, match=r"missing or NaN value at data row 2, column 'b'"):
        load_losses_csv(_write(tmp_path, "a,b\n0,1\n1,\n0,0\n"))


def test_load_aux_csv_refuses_an_extra_column(tmp_path):
    """load_aux_csv raises InputError for column names that differ from ``names``, an extra column included."""
    path = _write(tmp_path, "a,b,c\n1,2,3\n", "aux.csv")
    with pytest.raises(InputError, match="unexpected"):
        load_aux_csv(path, ["a", "b"], 2)


def test_load_aux_csv_one_row_with_one_calibration_row_is_a_cost_vector(tmp_path):
    """load_aux_csv returns shape (m,) when the file has one data row, also when ``n_cal`` is 1; columns in the order
    of ``names``."""
    out = load_aux_csv(_write(tmp_path, "b,a\n2,1\n", "aux.csv"), ["a", "b"], 1)
    assert out.shape == (2,) and out.tolist() == [1.0, 2.0]


def test_load_aux_csv_refuses_n_cal_zero(tmp_path):
    """load_aux_csv raises InputError for ``n_cal`` not an integer >= 1 (here 0)."""
    with pytest.raises(InputError, match="n_cal"):
        load_aux_csv(_write(tmp_path, "a,b\n1,2\n", "aux.csv"), ["a", "b"], 0)


@pytest.mark.parametrize("value", ["inf", "-inf"])
def test_load_aux_csv_refuses_an_infinite_value(tmp_path, value):
    """load_aux_csv: auxiliary values need not lie in [0, 1] but must be finite; an infinite one is an InputError."""
    with pytest.raises(InputError, match="finite"):
        load_aux_csv(_write(tmp_path, f"a,b\n1,{value}\n", "aux.csv"), ["a", "b"], 3)


# ---------------------------------------------------------------- milp


def _small_split():
    d = bilevel.load_dataset("cancer")
    return bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)


def test_milp_candidates_refuses_a_zero_w_bar_ub_before_any_milp(monkeypatch):
    """milp_candidates raises InputError for a ``w_bar_ub`` <= 0 (here 0) before any MILP is solved."""
    monkeypatch.setattr(milp, "tune", _no_milp)
    s = _small_split()
    with pytest.raises(InputError, match="w_bar_ub"):
        milp.milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=[0.1], w_bar_ubs=[1.0, 0.0])


def test_milp_candidates_refuses_a_bad_flip_before_any_milp(monkeypatch):
    """milp_candidates raises InputError for a bad ``flip`` (bilevel.pessimistic.check_flip) before any MILP is
    solved: the optimistic MILP of the first ``w_bar_ub`` is not run first."""
    monkeypatch.setattr(milp, "tune", _no_milp)
    s = _small_split()
    with pytest.raises(InputError, match="flip"):
        milp.milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=[0.1], w_bar_ubs=[1.0], flip="most")


def test_certify_from_data_refuses_nine_calibration_rows(monkeypatch):
    """certify_from_data raises InputError, before any MILP, for fewer than 10 calibration rows: 29 rows, no test
    rows, 10 training and 10 validation rows leave 9."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(29, 2))
    y = np.where(np.arange(29) % 2 == 0, 1.0, -1.0)
    monkeypatch.setattr(milp, "load_dataset", lambda *a, **k: Dataset(X, y, ["f0", "f1"], ()))
    monkeypatch.setattr(milp, "tune", _no_milp)
    args = SimpleNamespace(data="tiny", label=None, n_train=10, n_val=10, n_cal=None, test_fraction=0.0, seed=0,
                           method="ltt", opt_fraction=None, epsilons=None, w_bar_ubs=None, time_limit=None,
                           clock=None)
    with pytest.raises(InputError, match="only 9 calibration rows"):
        milp.certify_from_data(args)
    X30, y30 = np.vstack([X, X[:1]]), np.append(y, y[:1])  # 30 rows leave 10: accepted, the grid is solved
    monkeypatch.setattr(milp, "load_dataset", lambda *a, **k: Dataset(X30, y30, ["f0", "f1"], ()))
    with pytest.raises(AssertionError, match="a MILP was solved"):
        milp.certify_from_data(args)


def test_each_candidate_records_the_grid_values_of_its_name(monkeypatch):
    """milp_candidates: ``len(w_bar_ubs) * (1 + len(epsilons))`` candidates named ``opt_ub<w_bar_ub>`` and
    ``pes_e<epsilon>_ub<w_bar_ub>``; each Candidate records the ``mode``, ``epsilon`` (pessimistic) and ``w_bar_ub``
    its name states, and its MILP was solved with ``w_bar`` in ``[0, w_bar_ub]^p``."""
    bounds = []

    def fake_tune(X_t, y_t, X_v, y_v, mode, **kw):
        bounds.append((mode, kw.get("epsilon"), kw["w_bar_bounds"]))
        p = X_t.shape[1]
        return SimpleNamespace(w_bar=np.zeros(p), w=np.zeros(p), b=0.0, status="optimal", verified=True,
                               verification=SimpleNamespace(messages=[]))
    monkeypatch.setattr(milp, "tune", fake_tune)
    s = _small_split()
    cands = milp.milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=[0.0, 0.3], w_bar_ubs=[0.5, 2.0])
    assert [c.name for c in cands] == ["opt_ub0.5", "pes_e0_ub0.5", "pes_e0.3_ub0.5",
                                       "opt_ub2", "pes_e0_ub2", "pes_e0.3_ub2"]
    assert [(c.mode, c.w_bar_ub) for c in cands] == [("optimistic", 0.5), ("pessimistic", 0.5), ("pessimistic", 0.5),
                                                     ("optimistic", 2.0), ("pessimistic", 2.0), ("pessimistic", 2.0)]
    assert [c.epsilon for c in cands if c.mode == "pessimistic"] == [0.0, 0.3, 0.0, 0.3]
    assert [b for _, _, b in bounds] == [(0.0, 0.5)] * 3 + [(0.0, 2.0)] * 3
