"""An auxiliary objective given as a labelled pandas Series or DataFrame beside a DataFrame of losses: LTT, Pareto
testing and RG-PT read it by position, one value per loss column, so labels in another order changed the chosen
candidate without a word (found by an audit of the certification API's input types). Now labels must match the
losses' columns in order (pandas' default labels 0..m-1 count as none), and a per-example DataFrame's row index the
losses' row index. Oracle: the same costs as an array in the losses' column order."""
import numpy as np
import pandas as pd
import pytest

from bilevel.certify import ltt, pareto_testing, rg_pt
from bilevel.errors import InputError

L = np.zeros((200, 3))
L[:, 2] = np.random.default_rng(0).random(200) < 0.5
LOSSES = pd.DataFrame(L, columns=["good1", "good2", "bad"])
COST = pd.Series([2.0, 1.0, 0.0], index=LOSSES.columns)  # good2 is the cheaper of the two safe candidates
PER_EXAMPLE = pd.DataFrame(np.tile(COST.to_numpy(), (200, 1)), columns=LOSSES.columns)
PIPELINES = [ltt, pareto_testing, rg_pt]


def _run(pipeline, losses, aux):
    kw = {} if pipeline is ltt else {"seed": 0}  # the split of Pareto testing and RG-PT
    return pipeline(losses, 0.1, 0.1, aux=aux, **kw)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_labelled_costs_in_the_losses_order_give_the_array_answer(pipeline):
    expected = _run(pipeline, L, COST.to_numpy()).chosen
    assert expected == 1  # good2: certified and cheapest
    for aux in (COST, PER_EXAMPLE, pd.Series(COST.to_numpy())):
        assert _run(pipeline, LOSSES, aux).chosen == expected


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("aux,match", [
    (COST[["good2", "good1", "bad"]], r"index holds the losses' candidates in another order"),
    (pd.Series([2.0, 1.0, 0.0], index=["x", "y", "z"]), r"index holds labels other than the losses' candidates"),
    (PER_EXAMPLE[["good2", "good1", "bad"]], r"columns hold the losses' candidates in another order"),
    (PER_EXAMPLE.set_index(np.arange(1, 201)), r"row index differs from the losses'"),
])
def test_costs_labelled_otherwise_are_refused(pipeline, aux, match):
    with pytest.raises(InputError, match=match):
        _run(pipeline, LOSSES, aux)


def test_reordered_costs_would_change_the_choice():
    """What the check prevents: the reordered costs read by position pick the other safe candidate."""
    reordered = COST[["good2", "good1", "bad"]].to_numpy()
    assert ltt(L, 0.1, 0.1, aux=reordered).chosen == 0


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_boolean_costs_are_refused(pipeline):
    with pytest.raises(InputError, match="auxiliary objective 0 holds booleans"):
        _run(pipeline, L, np.array([True, False, False]))
