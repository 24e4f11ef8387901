"""bilevel.certify: p-values exactly at a threshold, huge calibration sizes, and bad inputs that must raise an
InputError naming the argument (found by fuzzing; each case failed before the fix)."""

import re

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bilevel.certify import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bentkus_p_value,
    binomial_p_value,
    bonferroni,
    certify,
    combined_p_value,
    dagger,
    fixed_sequence,
    fixed_sequence_thresholds,
    hoeffding_bentkus_p_value,
    hoeffding_kl_p_value,
    hoeffding_p_value,
    load_aux_csv,
    load_losses_csv,
    ltt,
    p_values_from_losses,
    pareto_front,
    pareto_testing,
    rg_pt,
    split_calibration,
)
from bilevel.certify.losses import validate_losses
from bilevel.certify.procedures import check_delta
from bilevel.errors import InputError

DELTAS = (0.05, 0.005, 0.1, 0.2, 0.3)


# --- p-values at a threshold -----------------------------------------------------------------------


@pytest.mark.parametrize("delta", DELTAS)
def test_chain_rejects_p_equal_to_delta(delta):
    # On a chain the first node's threshold is delta itself (Eq. (14), k = 1, i = 1), so p[0] = delta is
    # rejected, whatever the reshaping. Before the fix "by" missed it (digamma(6) - digamma(5) != 1/5,
    # n = 5) and so did "identity" for e.g. delta = 0.005, n = 29 ((delta * n) / n < delta).
    for n in range(1, 30):
        chain = [[]] + [[i - 1] for i in range(1, n)]
        p = np.ones(n)
        p[0] = delta
        expected = np.zeros(n, dtype=bool)
        expected[0] = True
        np.testing.assert_array_equal(fixed_sequence(p, delta, fdr=True), expected)
        for reshaping in ("identity", "by"):
            np.testing.assert_array_equal(dagger(p, chain, delta, reshaping), expected,
                                          err_msg=f"n={n} reshaping={reshaping}")


@pytest.mark.parametrize("delta", DELTAS)
def test_no_edges_p_at_the_by_and_bh_cutoffs(delta):
    # p-values exactly at the step-up cutoffs, written as statsmodels computes them: every one is rejected by
    # statsmodels, by our procedure and by DAGGER on a graph with no edges.
    for n in range(1, 61):
        i = np.arange(1, n + 1)
        flat = [[] for _ in range(n)]
        cm = np.sum(1.0 / np.arange(1, n + 1))
        for method, ours, reshaping, cutoffs in (
            ("fdr_by", benjamini_yekutieli, "by", (i / float(n)) / cm * delta),
            ("fdr_bh", benjamini_hochberg, "identity", (i / float(n)) * delta),
        ):
            p = cutoffs[::-1].copy()  # not in sorted order
            assert multipletests(p, alpha=delta, method=method)[0].all()
            np.testing.assert_array_equal(ours(p, delta), np.ones(n, dtype=bool), err_msg=f"{method} n={n}")
            np.testing.assert_array_equal(dagger(p, flat, delta, reshaping), np.ones(n, dtype=bool),
                                          err_msg=f"{method} n={n}")


def test_no_edges_p_just_above_the_by_cutoff():
    # the slack of DAGGER's comparison is relative 1e-12, not more: 1e-9 above the only cutoff is no rejection
    p = np.array([0.05 / 1.0 * (1 + 1e-9)])
    assert not dagger(p, [[]], 0.05, "by")[0] and not benjamini_yekutieli(p, 0.05)[0]


# --- huge n ------------------------------------------------------------------------------------------

P_VALUE_FUNCTIONS = (hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value,
                     binomial_p_value)


@pytest.mark.parametrize("fn", P_VALUE_FUNCTIONS)
def test_huge_n_is_an_error_not_inf_or_nan(fn):
    for n in (1e19, 2**63, 2**64 - 1, np.uint64(2**63), [10, 1e19], 2**53 + 2):
        with pytest.raises(InputError, match=r"\bn\b"):
            fn(0.0, n, 0.2)


@pytest.mark.parametrize("fn", P_VALUE_FUNCTIONS)
def test_largest_n_gives_p_values_in_0_1(fn):
    # at r_hat = 0 every closed form, exp(-2 n a^2), (1 - a)^n, e (1 - a)^n, underflows to 0; at r_hat = 1 >=
    # alpha the p-value is 1
    p = fn(np.array([0.0, 1.0]), 2**53, 0.2)
    np.testing.assert_array_equal(p, [0.0, 1.0])


def test_n_and_r_hat_that_do_not_broadcast():
    with pytest.raises(InputError, match="r_hat"):
        hoeffding_p_value([0.1, 0.2, 0.3], [10, 20], 0.2)


# --- custom p-value functions ---------------------------------------------------------------------


LOSSES = (np.random.default_rng(0).random((40, 4)) < np.array([0.05, 0.1, 0.3, 0.5])).astype(float)


@pytest.mark.parametrize("bad", [
    lambda r, n, a: np.full(np.shape(r), 5.0),  # outside [0, 1]
    lambda r, n, a: np.full(np.shape(r), -0.1),
    lambda r, n, a: np.full(np.shape(r), np.nan),
    lambda r, n, a: 0.001,  # one value for all candidates
    lambda r, n, a: np.full(np.size(r) + 1, 0.001),
    lambda r, n, a: "x",
])
def test_custom_p_value_must_return_one_p_value_per_candidate(bad):
    with pytest.raises(InputError, match="p-value function"):
        p_values_from_losses(LOSSES, 0.3, method=bad)
    with pytest.raises(InputError, match="p-value function"):
        ltt(LOSSES, 0.2, 0.1, p_value=bad)


def test_good_custom_p_value_still_works():
    pv = p_values_from_losses(LOSSES, 0.3, method=lambda r, n, a: np.where(r < a, 0.0, 1.0))
    np.testing.assert_array_equal(pv, (LOSSES.mean(axis=0) >= 0.3).astype(float))


# --- RG-PT prior matrix, whatever the front ------------------------------------------------------


def one_candidate_front_losses():
    # candidate 0 has risk 0 and the smallest cost: it dominates the others, the front is {0}
    losses = LOSSES.copy()
    losses[:, 0] = 0.0
    return losses


@pytest.mark.parametrize("eta", [np.full((4, 4), 3.0), np.full((4, 4), np.nan), np.full((4, 4), 0.3),
                                 [["a"] * 4] * 4])
def test_rg_pt_checks_all_of_eta(eta):
    losses = one_candidate_front_losses()
    assert rg_pt(losses, 0.2, 0.1, aux=[1, 2, 3, 4], n_p=1, eta=np.full((4, 4), 0.5), seed=0).front.tolist() == [0]
    with pytest.raises(InputError, match="eta"):
        rg_pt(losses, 0.2, 0.1, aux=[1, 2, 3, 4], n_p=1, eta=eta, seed=0)


# --- other bad inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("call, name", [
    (lambda: split_calibration(2.5), "n_cal"),
    (lambda: split_calibration("10"), "n_cal"),
    (lambda: split_calibration(float("nan")), "n_cal"),
    (lambda: split_calibration(True), "n_cal"),
    (lambda: split_calibration(10, seed=-1), "seed"),
    (lambda: split_calibration(10, seed="abc"), "seed"),
    (lambda: split_calibration(10, seed=1.5), "seed"),
    (lambda: pareto_testing(LOSSES, 0.2, 0.1, seed=-1), "seed"),
    (lambda: pareto_testing(LOSSES, 0.2, 0.1, seed="abc", split=([0, 1], [2, 3])), "seed"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=-1), "seed"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed="abc"), "seed"),
    (lambda: fixed_sequence_thresholds(2.5, 0.1), "m"),
    (lambda: fixed_sequence_thresholds(float("nan"), 0.1), "m"),
    (lambda: fixed_sequence_thresholds(True, 0.1), "m"),
    (lambda: fixed_sequence_thresholds(0, 0.1), "m"),
    (lambda: bonferroni(["a"], 0.1), "p_values"),
    (lambda: benjamini_hochberg([[0.1, 0.2], [0.3]], 0.1), "p_values"),
    (lambda: hoeffding_p_value("x", 20, 0.2), "r_hat"),
    (lambda: pareto_front([["a"]]), "objectives"),
    (lambda: pareto_front([[1, 2], [3]]), "objectives"),
    (lambda: p_values_from_losses([["a"]], 0.2), "losses"),
    (lambda: p_values_from_losses(LOSSES, "a"), "alpha"),
    (lambda: dagger([0.01] * 3, [[], [0], "01"], 0.1), r"parents\[2\]"),
    (lambda: dagger([0.01] * 3, [[], [0], [True]], 0.1), r"parents\[2\]"),
    (lambda: dagger([0.01] * 2, [[], ["0"]], 0.1), r"parents\[1\]"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(InputError, match=name):
        call()


@pytest.mark.parametrize("pipeline", [pareto_testing, rg_pt])
@pytest.mark.parametrize("bad", [5, -1, 0, 1, "abc", None, float("nan")])
def test_bad_opt_fraction_is_refused_even_with_an_explicit_split(pipeline, bad):
    # the split overrides opt_fraction, but a meaningless one was accepted without a word (a bad seed is refused
    # there); a valid one is still allowed, and the split decides
    split = ([0, 1, 2], [3, 4, 5])
    with pytest.raises(InputError, match="opt_fraction"):
        pipeline(LOSSES, 0.2, 0.1, split=split, opt_fraction=bad)
    res = pipeline(LOSSES, 0.2, 0.1, split=split, opt_fraction=0.9)
    assert res.opt_indices.tolist() == [0, 1, 2] and res.test_indices.tolist() == [3, 4, 5]


def test_dagger_parents_as_integer_sequences_still_work():
    for parents in ([[], [0], (0, 1)], [[], np.array([0]), np.array([0.0, 1.0])], [None, [0], range(2)]):
        np.testing.assert_array_equal(dagger([0.01] * 3, parents, 0.1), [True] * 3)


def test_split_calibration_accepts_numpy_integers():
    a = split_calibration(np.int64(10), seed=np.int64(3))
    b = split_calibration(10, seed=3)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert sorted(np.concatenate(a).tolist()) == list(range(10))


def test_load_aux_csv_checks_names_and_n_cal(tmp_path):
    path = tmp_path / "aux.csv"
    path.write_text("a,b\n1,2\n3,4\n5,6\n7,8\n")
    with pytest.raises(InputError, match="n_cal") as err:
        load_aux_csv(path, ["a", "b"], "4")
    assert "got 4" not in str(err.value)  # the old message: "expected 1 row or 4 rows ... got 4"
    for names in (None, "ab", [1, 2]):
        with pytest.raises(InputError, match="names"):
            load_aux_csv(path, names, 4)
    np.testing.assert_array_equal(load_aux_csv(path, ("b", "a"), 4), [[2, 1], [4, 3], [6, 5], [8, 7]])
    with pytest.raises(InputError, match="expected 1 row"):
        load_aux_csv(path, ["a", "b"], 3)


# --- found by a review on 2026-11-24 (each failed before the fix) -----------------------------------


def test_kl_p_value_a_few_ulps_below_alpha_stays_at_most_1():
    # the column mean of ten 0.1s is 0.09999999999999999; h1 rounded to about -1e-16 and exp(-n h1) exceeded 1
    losses = np.zeros((10, 2))
    losses[:, 0] = 0.1
    r_hat = losses.mean(axis=0)[0]
    assert r_hat < 0.1
    below, at = hoeffding_kl_p_value(r_hat, 10, 0.1), hoeffding_kl_p_value(0.1, 10, 0.1)
    assert below <= at == 1.0
    assert hoeffding_kl_p_value(np.nextafter(0.3, 0.0), 2**53, 0.3) <= 1.0
    result = ltt(losses, 0.1, 0.1, p_value="hoeffding_kl")
    assert result.p_values[0] == 1.0 and 0 not in result.certified


def test_p_values_from_losses_without_a_risk_axis_entry():
    with pytest.raises(InputError, match="controlled risk"):
        p_values_from_losses(np.zeros((3, 2, 0)), 0.1)


@pytest.mark.parametrize("call, name", [
    (lambda: certify(LOSSES, 0.3, 0.1, method=["ltt"]), "method"),
    (lambda: ltt(LOSSES, 0.3, 0.1, procedure=["bh"]), "procedure"),
])
def test_a_list_where_a_name_is_expected(call, name):
    with pytest.raises(InputError, match=name):
        call()


def test_a_csv_field_beyond_the_csv_module_limit(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("x" * 200_000)
    with pytest.raises(InputError, match="as CSV"):
        load_losses_csv(path)


@pytest.mark.parametrize("text,row,fields", [("a,b\n0\n1,0\n", 1, 1), ("a,b\n0,1\n1,0,1\n", 2, 3),
                                              ("a,b\n0\n1\n0,1,1\n", 1, 1)])
def test_a_data_row_of_another_width_is_named_by_its_own_number(tmp_path, text, row, fields):
    """pandas took the first data row's width as the table's: "a,b / 0 / 1,0" gave "Expected 1 fields in line 3, saw
    2", naming the good row."""
    path = tmp_path / "losses.csv"
    path.write_text(text)
    n = len(text.splitlines()[0].split(","))
    with pytest.raises(InputError, match=rf"data row {row} has {fields} field\(s\) but the header names {n} columns"):
        load_losses_csv(path)


def test_complex_losses_are_refused():
    # float conversion dropped the imaginary parts with a warning only, and certified the real parts
    losses = np.zeros((60, 3)) + 0.9j
    with pytest.raises(InputError, match="complex"):
        ltt(losses, 0.2, 0.1)


@pytest.mark.parametrize("suffix", [".zip", ".gz", ".xz", ".bz2", ".tar"])
def test_a_plain_csv_whose_name_looks_compressed(tmp_path, suffix):
    # pandas guessed a compression from the name: BadZipFile / LZMAError tracebacks or 'Not a gzipped file',
    # while the header had been read as plain text
    path = tmp_path / f"losses{suffix}"
    path.write_text("a,b\n0,1\n1,0\n")
    table = load_losses_csv(path)
    np.testing.assert_array_equal(table.losses, [[0, 1], [1, 0]])
    aux = tmp_path / f"aux{suffix}"
    aux.write_text("b,a\n2,1\n")
    np.testing.assert_array_equal(load_aux_csv(aux, ["a", "b"], 2), [1, 2])


def test_a_row_with_too_many_fields_is_a_one_line_error(tmp_path, capsys):
    # pandas's "Error tokenizing data ... saw 3\n" made the CLI print a second, empty line on stderr
    from bilevel.certify import cli

    path = tmp_path / "losses.csv"
    path.write_text("a,b\n0,1\n1,0,1\n")
    assert cli.main(["--losses", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bilevel certify: error: ") and "data row 2 has 3 field(s)" in err, repr(err)
    assert err.count("\n") == 1, repr(err)


def test_complex_aux_is_refused():
    # the imaginary parts were dropped with a ComplexWarning only, and the real parts picked the chosen one
    with pytest.raises(InputError, match="auxiliary objective 0.*complex"):
        ltt(LOSSES, 0.3, 0.1, aux=np.array([4, 3 + 0j, 2 - 5j, 1]))
    with pytest.raises(InputError, match="auxiliary objective 1.*complex"):
        pareto_testing(LOSSES, 0.3, 0.1, aux=[np.ones(4), np.ones(4) * 1j], seed=0)


@pytest.mark.parametrize("alpha", [0.0, 1.0, float("nan"), 5.0, -0.1])
def test_alpha_is_checked_with_a_custom_p_value(alpha):
    # only the built-in p-values checked alpha: a custom one got alpha = 0 or NaN and its p-values were used
    def custom(r_hat, n, a):
        return np.zeros_like(r_hat)

    with pytest.raises(InputError, match="alpha"):
        p_values_from_losses(LOSSES, alpha, custom)
    with pytest.raises(InputError, match="alpha"):
        combined_p_value([[0.1, 0.2]], 40, [0.3, alpha], custom)


@pytest.mark.parametrize("split", [([True], [False]), (np.arange(40) < 20, np.arange(40) >= 20),
                                   ([0, 1], np.zeros(3, dtype=bool))])
def test_split_as_boolean_masks_is_refused(split):
    # the masks were read as the numbers 1 and 0: ([True], [False]) ran with opt row 1 and test row 0, and
    # full-length masks got 'parts must be disjoint and without repeats'
    with pytest.raises(InputError, match="boolean masks"):
        pareto_testing(LOSSES, 0.3, 0.1, split=split)
    with pytest.raises(InputError, match="boolean masks"):
        rg_pt(LOSSES, 0.3, 0.1, split=split)


@pytest.mark.parametrize("as_table", [dict, "frame"])
def test_split_as_a_mapping_or_dataframe_is_refused(as_table):
    # iterating {0: opt, 1: test} (or a DataFrame with columns 0 and 1) gives the keys 0 and 1: the pipelines ran
    # with the single optimisation row 0 and the single testing row 1, the other 38 rows silently unused
    parts = {0: np.arange(20), 1: np.arange(20, 40)}
    split = parts if as_table is dict else __import__("pandas").DataFrame(parts)
    with pytest.raises(InputError, match="split"):
        pareto_testing(LOSSES, 0.3, 0.1, split=split)
    with pytest.raises(InputError, match="split"):
        rg_pt(LOSSES, 0.3, 0.1, split=split)


def test_split_as_integer_indices_still_works():
    res = pareto_testing(LOSSES, 0.3, 0.1, split=(np.arange(20), np.arange(20, 40)))
    np.testing.assert_array_equal(res.test_indices, np.arange(20, 40))


def test_an_empty_aux_list_means_no_auxiliary_objective():
    # aux=[] (a list of no objectives) was read as one objective of shape (0,) and refused
    rng = np.random.default_rng(3)
    losses = (rng.random((60, 4)) < np.array([0.05, 0.1, 0.3, 0.5])).astype(float)
    for run, kw in ((ltt, {}), (pareto_testing, {"seed": 0})):
        none = run(losses, alpha=0.2, delta=0.1, aux=None, **kw)
        empty = run(losses, alpha=0.2, delta=0.1, aux=[], **kw)
        assert empty.chosen == none.chosen
        np.testing.assert_array_equal(empty.certified, none.certified)


def test_a_loss_csv_without_a_header_row_is_named(tmp_path):
    # a headerless file's first row of losses became the candidate names and was lost without a word
    path = tmp_path / "losses.csv"
    path.write_text("0.1,0.25,1\n0,0.5,1\n1,0,0\n")
    with pytest.warns(UserWarning, match="first row is dropped"):
        table = load_losses_csv(path)
    assert table.names == ["0.1", "0.25", "1"] and table.losses.shape == (2, 3)
    named = tmp_path / "named.csv"
    named.write_text("lam_0.1,lam_1,2\n0,0.5,1\n")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_losses_csv(named)  # one non-numeric name: no warning


_HUGE = 10**400  # a Python int beyond the float range: float() raises OverflowError, not ValueError


@pytest.mark.parametrize("call, name", [
    (lambda: ltt(LOSSES, _HUGE, 0.1), "alpha"),
    (lambda: ltt(LOSSES, 0.2, _HUGE), "delta"),
    (lambda: pareto_testing(LOSSES, 0.2, _HUGE, seed=0), "delta"),
    (lambda: rg_pt(LOSSES, [_HUGE], 0.1, seed=0), "alpha"),
    (lambda: bonferroni([0.01, 0.2], _HUGE), "delta"),
    (lambda: fixed_sequence([0.01, 0.2], -_HUGE), "delta"),
    (lambda: hoeffding_p_value(0.1, 20, _HUGE), "alpha"),
    (lambda: ltt([[0.0, _HUGE]], 0.2, 0.1), "losses"),
    (lambda: ltt(LOSSES, 0.2, 0.1, aux=[_HUGE] * LOSSES.shape[1]), "auxiliary objective"),
    (lambda: pareto_testing(LOSSES, 0.2, 0.1, split=([_HUGE], [0])), "split"),
    (lambda: dagger([0.01] * 2, [[], [_HUGE]], 0.1), r"parents\[1\]"),
])
def test_an_int_too_large_for_a_float_is_an_input_error(call, name):
    """Each of these raised OverflowError ('int too large to convert to float') instead of an InputError; the
    message names the number's size, not its 401 digits (delta's printed them all)."""
    with pytest.raises(InputError, match=name) as exc:
        call()
    assert len(str(exc.value)) < 200, str(exc.value)


@pytest.mark.parametrize("value, digits", [(10**400, 401), (10**400 - 1, 400), (-10**5000, 5001), (2**100000, 30103)],
                         ids=["1e400", "1e400-1", "-1e5000", "2^100000"])
def test_an_int_too_large_for_a_float_is_named_by_its_digits(value, digits):
    """The number of digits came from str(value), which raises ValueError ("Exceeds the limit (4300 digits) for
    integer string conversion") beyond 4300 digits: delta=10**5000 was that traceback. Oracle: len(str()) with the
    limit lifted."""
    import sys

    saved = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert len(str(abs(value))) == digits
    finally:
        sys.set_int_max_str_digits(saved)
    message = rf"delta \(error level\) is too large for a float: an integer of {digits} digits"
    with pytest.raises(InputError, match=message):
        check_delta(value)


# --- found by a type-mutation fuzz of the public API (each failed before the fix) ---------------------


@pytest.mark.parametrize("call, name", [
    # booleans read as numbers: a rejection mask as p-values (True = p 1), True as the empirical risk 1.0,
    # numpy's True_ as tau = 1 (Python's True was refused)
    (lambda: bonferroni([True, False], 0.1), "p_values .*booleans"),
    (lambda: dagger(np.array([False, True]), [[], [0]], 0.1), "p_values .*booleans"),
    (lambda: hoeffding_p_value(True, 10, 0.2), "r_hat .*booleans"),
    (lambda: hoeffding_p_value(np.array([False, True]), 10, 0.2), "r_hat .*booleans"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=0, tau=np.True_), "tau"),
    # an array where a name is expected: numpy's "truth value of an array ... is ambiguous"
    (lambda: ltt(LOSSES, 0.2, 0.1, control=np.array(["fdr", "fwer"])), "control"),
    (lambda: pareto_testing(LOSSES, 0.2, 0.1, seed=0, control=np.array(["fdr", "fwer"])), "control"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=0, control=np.array(["fdr", "fwer"])), "control"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=0, control=np.zeros((0, 0))), "control"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=0, orphans=np.array(["best", "root"])), "orphans"),
    (lambda: rg_pt(LOSSES, 0.2, 0.1, seed=0, cluster_method=np.array(["ward", "single"])), "cluster_method"),
    # a ragged n: numpy's "inhomogeneous shape" ValueError
    (lambda: hoeffding_p_value([0.1, 0.2], [[10, 20], [30]], 0.2), r"\bn\b"),
    # 10**400: OverflowError, numpy's "Maximum allowed dimension exceeded"
    (lambda: split_calibration(10**400), "n_cal"),
    (lambda: fixed_sequence_thresholds(10**400, 0.1), "m"),
])
def test_fuzzed_bad_arguments_name_the_argument(call, name):
    with pytest.raises(InputError, match=name):
        call()


@pytest.mark.parametrize("call, name", [
    (lambda: __import__("bilevel.ranking").ranking.bradley_terry(np.ones((2, 2)), method=np.array(["mm", "x"])),
     "method"),
    (lambda: __import__("bilevel.ranking").ranking.nonnegative_lasso(np.eye(2), np.ones(2), 0.1,
                                                                     loss=np.array(["squared", "absolute"])), "loss"),
])
def test_ranking_names_an_array_given_for_a_name(call, name):
    with pytest.raises(InputError, match=name):
        call()


def test_boolean_free_inputs_still_work():
    # 0/1 losses as a bool array are losses, not p-values: still accepted, and the same as floats
    bool_losses = LOSSES.astype(bool)
    np.testing.assert_array_equal(ltt(bool_losses, 0.2, 0.1).certified, ltt(LOSSES, 0.2, 0.1).certified)
    assert hoeffding_p_value(0.0, 10, 0.2) == pytest.approx(np.exp(-2 * 10 * 0.2**2))


def test_a_loss_csv_whose_first_line_is_blank_says_so(tmp_path):
    """csv reads a blank first line as no field: the file was refused as 'empty', though it holds a table."""
    path = tmp_path / "losses.csv"
    path.write_text("\nc1,c2\n0,1\n")
    with pytest.raises(InputError, match="first line is blank"):
        load_losses_csv(path)
    path.write_text("")
    with pytest.raises(InputError, match="is empty"):
        load_losses_csv(path)


@pytest.mark.parametrize("path", [None, 3.0, ["losses.csv"]])
def test_loss_and_aux_readers_name_a_path_that_is_not_a_str_or_path(path):
    # pathlib's TypeError "expected str, bytes or os.PathLike object, not NoneType"
    with pytest.raises(InputError, match="path .*must be a path"):
        load_losses_csv(path)
    with pytest.raises(InputError, match="path .*must be a path"):
        load_aux_csv(path, ["a"], 3)


def test_wide_loss_and_aux_csv_are_not_searched_once_per_name(tmp_path):
    """A header of m candidate names was checked for duplicates with names.count(n) per name and the auxiliary
    CSV's columns put in order with header.index(n) per name: quadratic (4.3 s and 6.6 s at m = 20,000, minutes
    at the 10^5 columns a grid can have). Counted here as calls of list.count / list.index (a profile hook sees
    every C call); the values are checked against the reversed column order written."""
    import sys

    m = 3000
    names = [f"lam_{i}" for i in range(m)]
    losses = tmp_path / "losses.csv"
    losses.write_text(",".join(names) + "\n" + ",".join(["0.25"] * m) + "\n" + ",".join(["0.5"] * m) + "\n")
    aux = tmp_path / "aux.csv"
    aux.write_text(",".join(reversed(names)) + "\n" + ",".join(str(i) for i in range(m)) + "\n")
    searches = []

    def hook(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") in ("count", "index") and isinstance(
                getattr(arg, "__self__", None), list):
            searches.append(arg.__name__)

    sys.setprofile(hook)
    try:
        table = load_losses_csv(losses)
        values = load_aux_csv(aux, table.names, 2)
    finally:
        sys.setprofile(None)
    assert table.names == names and table.losses.shape == (2, m)
    np.testing.assert_array_equal(values, np.arange(m - 1, -1, -1))
    assert len(searches) < 10
    dup = tmp_path / "dup.csv"
    dup.write_text("a,b,a,c,b\n0,0,0,0,0\n")
    with pytest.raises(InputError, match="duplicated candidate names in the header: a, b"):
        load_losses_csv(dup)


@pytest.mark.parametrize("text, name", [('"a\nb",c\n0,1\n1,0\n', "a\\nb"), ('a,"b\n0,1\n1,0\n', "b\\n0,1"),
                                        ('"a\r\nb",c\r\n0,1\r\n', "a\\r\\nb")])
def test_candidate_names_with_a_line_break_are_refused(tmp_path, text, name, capsys):
    """A quoted line break in a header name was kept in the name, so the report printed "certified: a" and "b, c" on
    two lines; a quote left open swallowed the data rows into one name and the file was said to have "a header but
    no data row". Both loaders and the command line refuse the name, on one line, quoting it."""
    from bilevel.cli import main

    path = tmp_path / "losses.csv"
    path.write_bytes(text.encode())
    with pytest.raises(InputError, match="spans several lines"):
        load_losses_csv(path)
    with pytest.raises(InputError, match="spans several lines"):
        load_aux_csv(path, ["a", "c"], 1)
    code = main(["certify", "--losses", str(path), "--method", "ltt"])
    err = capsys.readouterr().err
    assert code == 2 and name in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("call", [lambda: ltt(LOSSES, np.ones((2, 2)), 0.1),
                                  lambda: p_values_from_losses(LOSSES, np.ones((2, 2)))])
def test_an_alpha_of_the_wrong_shape_is_named_as_the_risk_limit(call):
    """The other alpha messages say "alpha (risk limit)"; the shape's said "alpha must be ..."."""
    with pytest.raises(InputError, match=r"alpha \(risk limit\) must be a scalar or have one entry per"):
        call()


@pytest.mark.parametrize("content, said", [
    (lambda: __import__("gzip").compress(b"a,b\n0.1,0.2\n"), "is a gzip file, not text; decompress it first"),
    (lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, r"is an Excel \.xls \(OLE2\) file, not text"),
])
def test_a_compressed_or_binary_loss_table_is_named_so(tmp_path, content, said):
    """A gzip loss table (even named .csv) said "cannot read ...: 'utf-8' codec can't decode byte 0x8b"; the data
    set loader already named such files. Oracle: the bytes written."""
    path = tmp_path / "losses.csv"
    path.write_bytes(content())
    for load in (load_losses_csv, lambda p: load_aux_csv(p, ["a", "b"], 1)):
        with pytest.raises(InputError, match=said):
            load(path)


_BEYOND_STR = 10**5000  # repr() of it raises ValueError (Python's 4300-digit limit for int-to-str conversion)


@pytest.mark.parametrize("call, name", [
    (lambda: split_calibration(_BEYOND_STR), "n_cal"),
    (lambda: hoeffding_p_value(0.1, _BEYOND_STR, 0.2), "at most 2\\*\\*53"),
    (lambda: binomial_p_value(0.1, _BEYOND_STR, 0.2), "at most 2\\*\\*53"),
    (lambda: hoeffding_bentkus_p_value(0.1, -_BEYOND_STR, 0.2), "n must be a positive integer"),
    (lambda: bentkus_p_value(0.1, [_BEYOND_STR], 0.2), "a list holding an integer of more than 4300 digits"),
    (lambda: check_delta(_BEYOND_STR), "delta"),
], ids=["split_calibration", "hoeffding", "binomial", "negative", "list", "delta"])
def test_an_int_beyond_4300_digits_gets_the_input_error_meant(call, name):
    """Each message printed the number with repr/str, which raised ValueError "Exceeds the limit (4300 digits) for
    integer string conversion" in place of the InputError naming the argument."""
    with pytest.raises(InputError, match=name) as exc:
        call()
    assert "Exceeds the limit" not in str(exc.value) and len(str(exc.value)) < 200, str(exc.value)


@pytest.mark.parametrize("name", [_BEYOND_STR, None, b"losses"], ids=["huge-int", "None", "bytes"])
def test_validate_losses_refuses_a_name_that_is_not_a_string(name):
    """``name`` is printed in every message: ``name=10**5000`` raised str()'s "Exceeds the limit (4300 digits)"
    ValueError at the first refusal. Oracle: an InputError naming ``name``, for good losses too (a label that
    could not be printed is refused before it is needed), and the same losses with a string label accepted."""
    for losses in ([[0.5, 2.0]], [[0.5, 0.1]]):
        with pytest.raises(InputError, match="name \\(the label of the losses in messages\\) must be a string") as exc:
            validate_losses(losses, name=name)
        assert "Exceeds the limit" not in str(exc.value)
    np.testing.assert_array_equal(validate_losses([[0.5, 0.1]], name="my losses"), [[0.5, 0.1]])


@pytest.mark.parametrize("column", ["True\nFalse\nTrue\n", "TRUE\nfalse\nTrue\n"], ids=["True", "mixed-case"])
def test_a_column_of_true_false_is_refused_in_loss_and_aux_csvs(tmp_path, column):
    """pandas reads a column of True/False as booleans, which count as numeric, so the loss CSV took them as 1/0
    without a word; True may as well mean "correct" (loss 0) as "an error" (loss 1). Oracle: the column named in
    an InputError, and the same file with 1/0 read as those numbers."""
    rows = column.splitlines()
    path = tmp_path / "losses.csv"
    path.write_text("a,b\n" + "".join(f"{r},0.5\n" for r in rows))
    for load in (load_losses_csv, lambda p: load_aux_csv(p, ["a", "b"], 3)):
        with pytest.raises(InputError, match="column\\(s\\) a hold True/False"):
            load(path)
    path.write_text("a,b\n" + "".join(f"{int(r.lower() == 'true')},0.5\n" for r in rows))
    np.testing.assert_array_equal(load_losses_csv(path).losses, [[1, 0.5], [0, 0.5], [1, 0.5]])


def test_a_loss_just_above_one_is_reported_with_its_digits(tmp_path):
    """The range was printed with :g, so a loss of 1.0000000000000002 (a rounding error above 1) was refused with
    "got range [0, 1]", a range inside the one asked for. Oracle: repr of the largest value."""
    path = tmp_path / "losses.csv"
    path.write_text(f"a,b\n{1 + 2**-52!r},0\n0,1\n")
    with pytest.raises(InputError, match=re.escape(f"got range [0.0, {1 + 2**-52!r}]")):
        load_losses_csv(path)
    with pytest.raises(InputError, match=re.escape("got range [-1e-300, 1.0]")):
        ltt(np.array([[-1e-300, 1.0], [0.0, 0.5]]), 0.2, 0.1)


@pytest.mark.parametrize("sep", [";", "\t"], ids=["semicolon", "tab"])
def test_a_loss_file_with_another_separator_is_named_as_such(tmp_path, sep):
    """A semicolon- or tab-separated file (a spreadsheet's export in many locales) was "non-numeric values in
    column(s) a;b" without a word on why. Oracle: the message names the separator; the same table with commas
    loads."""
    path = tmp_path / "losses.csv"
    path.write_text(f"a{sep}b\n0.5{sep}0.1\n0{sep}1\n")
    name = {";": "semicolons", "\t": "tabs"}[sep]
    with pytest.raises(InputError, match=f"its header is one field with {name} in it: the loss CSV is comma-separated"):
        load_losses_csv(path)
    path.write_text("a,b\n0.5,0.1\n0,1\n")
    np.testing.assert_array_equal(load_losses_csv(path).losses, [[0.5, 0.1], [0, 1]])


@pytest.mark.parametrize("control,procedure", [("fdr", "BH"), ("fdr", "By"), ("fwer", "HOLM"), ("fwer", "Bonferroni")])
def test_ltt_procedure_names_in_any_case_give_the_lower_case_answer(control, procedure):
    """p_value="HB" was taken and procedure="BH" refused, as "not controlling the FDR"."""
    upper = ltt(LOSSES, 0.3, 0.1, control=control, procedure=procedure)
    lower = ltt(LOSSES, 0.3, 0.1, control=control, procedure=procedure.lower())
    assert list(upper.certified) == list(lower.certified) and upper.chosen == lower.chosen


@pytest.mark.parametrize("control,procedure,match", [
    ("fdr", "holm", r"procedure 'holm' controls the FWER, not the FDR; for the FDR choose one of \['bh', 'by'\]"),
    ("fwer", "BH", r"procedure 'BH' controls the FDR, not the FWER"),
    ("fdr", "bogus", r"unknown procedure 'bogus'; for the FDR choose one of"),
])
def test_ltt_procedure_messages_tell_an_unknown_name_from_the_other_error_rate(control, procedure, match):
    with pytest.raises(InputError, match=match):
        ltt(LOSSES, 0.3, 0.1, control=control, procedure=procedure)


@pytest.mark.parametrize("call", [
    lambda d: fixed_sequence([0.01, 0.5, 0.01], 0.1, max_failures=d),
    lambda d: fixed_sequence_thresholds(d, 0.1),
    lambda d: split_calibration(10, seed=d),
    lambda d: pareto_testing(LOSSES, 0.3, 0.1, seed=d),
])
@pytest.mark.parametrize("duration", [np.timedelta64(2), np.timedelta64(2, "D")], ids=["no unit", "days"])
def test_a_numpy_duration_is_not_a_count(call, duration):
    """np.timedelta64 is a subclass of np.integer: one without a unit passed as max_failures=2, one in days raised
    a bare TypeError from int() (the certification audit of 2026-12-08). Oracle: the same call with the int
    passes."""
    assert issubclass(np.timedelta64, np.integer)
    with pytest.raises(InputError, match="integer"):
        call(duration)
    call(2)


def test_summary_refuses_a_0d_array_of_names():
    """A 0-d array of names reached len() and raised a bare TypeError, not the InputError of any other bad
    names; the 1-D array of the same labels is taken."""
    res = ltt([[0, 1], [0, 0]], 0.5, 0.5)
    with pytest.raises(InputError, match="names must be a sequence of one label per candidate"):
        res.summary(np.array("ab"))
    assert res.summary(np.array(["a", "b"])) == res.summary(["a", "b"])


def test_combined_p_value_names_an_n_that_widens_the_shape():
    """An n of shape (2, 1) against risks of shape (1, 2) was blamed on the p-value function ("'hoeffding' ...
    must return one p-value per empirical risk"). Oracle: an n per row of risks broadcasts and gives the
    single-limit p-values' maximum."""
    with pytest.raises(InputError, match=r"n must be one number .* shape \(1,\); got shape \(2, 1\)"):
        combined_p_value([[0.1, 0.2]], [[10], [20]], [0.3, 0.4])
    r, n = np.array([[0.1, 0.2], [0.2, 0.1]]), np.array([10, 20])
    expected = np.maximum(hoeffding_p_value(r[:, 0], n, 0.3), hoeffding_p_value(r[:, 1], n, 0.4))
    np.testing.assert_allclose(combined_p_value(r, n, [0.3, 0.4]), expected)
