"""Monte-Carlo validity of the certification procedures (slow).

Simulated candidates with known true risks; the null of candidate j ("risk_j > alpha") is true for the
candidates whose true risk exceeds alpha. Over many independent calibration sets we estimate

* FWER = P(at least one certified candidate has true risk > alpha), which must stay <= delta for the
  FWER procedures (Bonferroni, Holm, Pareto testing with fixed-sequence FWER), and
* FDR = E[#bad certified / max(#certified, 1)], which must stay <= delta for BH, BY, fixed-sequence
  FDR, DAGGER and RG-PT,

within 3 Monte-Carlo standard errors. The nulls sit just above alpha and the p-values are exact
binomial ones, so the procedures operate close to their nominal levels; an uncorrected procedure
(reject every p <= delta) is run as a negative control and must violate the FWER bound, showing the
check can fail. The table of estimates (including, for every method, the fraction of runs in which a
certified candidate has true risk > alpha) is printed.
"""

import numpy as np
import pytest

from bilevel.certify import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    dagger,
    holm,
    ltt,
    p_values_from_losses,
    pareto_testing,
    rg_pt,
    split_calibration,
)

pytestmark = pytest.mark.slow

ALPHA, DELTA = 0.2, 0.1
# design "mixed": good candidates, and nulls just above alpha; errors positively dependent
MIXED_RISKS = np.array([0.04, 0.08, 0.11, 0.14, 0.16, 0.18, 0.19, 0.202, 0.205, 0.21, 0.215, 0.22, 0.23, 0.25,
                        0.27, 0.3, 0.34, 0.4, 0.5, 0.6])
# design "boundary": every candidate is a null sitting on the boundary (the least favourable case), so
# P(any rejection) = FWER = FDR is close to delta for the exact procedures -- a sharp check
BOUNDARY_RISKS = np.full(20, ALPHA + 1e-4)
DESIGNS = {
    "mixed": dict(risks=MIXED_RISKS, rho=0.5, n_cal=400, runs=600),
    "boundary": dict(risks=BOUNDARY_RISKS, rho=0.0, n_cal=2000, runs=1000),
}


def simulate(rng, n, rho, risks):
    """0/1 losses, Bernoulli(risks[j]); with probability rho an example shares one latent uniform across
    candidates (comonotone errors: positive dependence between the candidates' p-values)."""
    m = risks.size
    shared = rng.random((n, 1))
    u = np.where(rng.random((n, m)) < rho, shared, rng.random((n, m)))
    return (u < risks).astype(float)


class Tally:
    def __init__(self, bad):
        self.bad = np.asarray(bad, dtype=bool)
        self.fwer = []
        self.fdp = []
        self.n_cert = []

    def add(self, certified_mask_or_idx):
        idx = np.asarray(certified_mask_or_idx)
        if idx.dtype == bool:
            idx = np.nonzero(idx)[0]
        n_bad = int(self.bad[idx].sum())
        self.fwer.append(n_bad > 0)
        self.fdp.append(n_bad / max(idx.size, 1))
        self.n_cert.append(idx.size)

    def stats(self):
        runs = len(self.fwer)
        fwer, fdr = float(np.mean(self.fwer)), float(np.mean(self.fdp))
        return {
            "fwer": fwer,
            "fwer_se": np.sqrt(max(fwer * (1 - fwer), 1e-4) / runs),
            "fdr": fdr,
            "fdr_se": max(float(np.std(self.fdp)), 1e-2) / np.sqrt(runs),
            "certified": float(np.mean(self.n_cert)),
        }


def report(title, tallies, capsys):
    with capsys.disabled():
        print(f"\n{title}")
        print(f"  {'method':<24} {'P(bad certified)':>17} {'FDR':>8} {'mean #certified':>16}")
        for name, t in tallies.items():
            s = t.stats()
            print(f"  {name:<24} {s['fwer']:>10.3f} +- {s['fwer_se']:.3f} {s['fdr']:>8.3f} {s['certified']:>16.2f}")


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_pipelines_control_fwer_and_fdr(design, capsys):
    cfg = DESIGNS[design]
    risks, n_cal, n_runs = cfg["risks"], cfg["n_cal"], cfg["runs"]
    bad = risks > ALPHA
    rng = np.random.default_rng(20240611)
    names = ["uncorrected (control)", "LTT bonferroni", "LTT holm", "PT fwer", "PT fwer k=2",
             "LTT bh", "LTT by", "PT fdr k=1", "PT fdr k=3", "RG-PT identity", "RG-PT by"]
    tallies = {name: Tally(bad) for name in names}
    cost = np.linspace(1.0, 0.0, risks.size)  # later candidates are cheaper (and, in "mixed", riskier)
    for _ in range(n_runs):
        losses = simulate(rng, n_cal, cfg["rho"], risks)
        split = split_calibration(n_cal, 0.5, seed=rng)
        p_all = p_values_from_losses(losses, ALPHA, "binomial")
        tallies["uncorrected (control)"].add(p_all <= DELTA)
        tallies["LTT bonferroni"].add(ltt(losses, ALPHA, DELTA, control="fwer", procedure="bonferroni",
                                          p_value="binomial").certified)
        tallies["LTT holm"].add(ltt(losses, ALPHA, DELTA, control="fwer", p_value="binomial").certified)
        tallies["LTT bh"].add(ltt(losses, ALPHA, DELTA, control="fdr", p_value="binomial").certified)
        tallies["LTT by"].add(ltt(losses, ALPHA, DELTA, control="fdr", procedure="by", p_value="binomial").certified)
        common = dict(aux=cost, split=split, p_value="binomial")
        tallies["PT fwer"].add(pareto_testing(losses, ALPHA, DELTA, control="fwer", **common).certified)
        tallies["PT fwer k=2"].add(pareto_testing(losses, ALPHA, DELTA, control="fwer", max_failures=2,
                                                  **common).certified)
        tallies["PT fdr k=1"].add(pareto_testing(losses, ALPHA, DELTA, control="fdr", **common).certified)
        tallies["PT fdr k=3"].add(pareto_testing(losses, ALPHA, DELTA, control="fdr", max_failures=3,
                                                 **common).certified)
        tallies["RG-PT identity"].add(rg_pt(losses, ALPHA, DELTA, n_levels=4, **common).certified)
        tallies["RG-PT by"].add(rg_pt(losses, ALPHA, DELTA, n_levels=4, reshaping="by", **common).certified)
    report(f"Monte-Carlo validity, design {design!r}: {n_runs} runs, alpha={ALPHA}, delta={DELTA}, "
           f"n_cal={n_cal}, {int(bad.sum())} of {risks.size} candidates with risk > alpha", tallies, capsys)

    s = tallies["uncorrected (control)"].stats()
    assert s["fwer"] > DELTA + 5 * s["fwer_se"], "the negative control should break the FWER bound"
    for name in ["LTT bonferroni", "LTT holm", "PT fwer", "PT fwer k=2"]:
        s = tallies[name].stats()
        assert s["fwer"] <= DELTA + 3 * s["fwer_se"], (name, s)
    for name in ["LTT bh", "LTT by", "PT fdr k=1", "PT fdr k=3", "RG-PT identity", "RG-PT by"]:
        s = tallies[name].stats()
        assert s["fdr"] <= DELTA + 3 * s["fdr_se"], (name, s)
    if design == "mixed":  # the procedures are not vacuous: they certify good candidates
        assert tallies["RG-PT identity"].stats()["certified"] > 1.0
        assert tallies["LTT holm"].stats()["certified"] > 1.0
    else:  # the check is sharp: the exact procedures use most of their error budget
        s = tallies["uncorrected (control)"].stats()
        assert s["fdr"] > DELTA + 5 * s["fdr_se"]
        for name in ["LTT bh", "PT fwer", "RG-PT identity"]:
            assert tallies[name].stats()["fdr"] > 0.6 * DELTA, name


def layered_dag(rng, sizes):
    parents, layers, start = [], [], 0
    for size in sizes:
        layer = list(range(start, start + size))
        prev = layers[-1] if layers else []
        for _ in layer:
            k = min(len(prev), int(rng.integers(1, 3))) if prev else 0
            parents.append(sorted(rng.choice(prev, size=k, replace=False).tolist()) if k else [])
        layers.append(layer)
        start += size
    return parents


def test_dagger_fdr_on_random_graphs(capsys):
    """DAGGER with independent p-values (identity reshaping) and with maximally dependent nulls (BY)."""
    rng = np.random.default_rng(7)
    graph = layered_dag(rng, [3, 5, 8, 10])
    n = len(graph)
    # alternatives near the roots, nulls deeper down and scattered, as in a reliability graph
    bad = np.zeros(n, dtype=bool)
    bad[rng.choice(np.arange(3, n), size=14, replace=False)] = True
    flat = [[] for _ in range(n)]
    tallies = {name: Tally(bad) for name in ["DAGGER identity (indep.)", "BH flat (indep.)", "DAGGER by (dependent)",
                                             "BY (dependent)", "uncorrected (control)"]}
    for _ in range(4000):
        p = np.where(bad, rng.random(n), rng.beta(0.05, 1.0, n))
        tallies["DAGGER identity (indep.)"].add(dagger(p, graph, DELTA))
        tallies["BH flat (indep.)"].add(dagger(p, flat, DELTA))
        tallies["uncorrected (control)"].add(p <= DELTA)
        q = p.copy()
        q[bad] = rng.random()  # all nulls share one uniform: strong dependence
        tallies["DAGGER by (dependent)"].add(dagger(q, graph, DELTA, reshaping="by"))
        tallies["BY (dependent)"].add(benjamini_yekutieli(q, DELTA))
    report("DAGGER Monte-Carlo, 4000 runs, 26 nodes, 14 nulls", tallies, capsys)
    for name in ["DAGGER identity (indep.)", "BH flat (indep.)", "DAGGER by (dependent)", "BY (dependent)"]:
        s = tallies[name].stats()
        assert s["fdr"] <= DELTA + 3 * s["fdr_se"], (name, s)
    # BH under independence is exact: FDR = delta * m0 / m; the Monte-Carlo estimate must find it
    s = tallies["BH flat (indep.)"].stats()
    assert abs(s["fdr"] - DELTA * bad.sum() / n) <= 4 * s["fdr_se"]


def test_fwer_procedures_on_independent_p_values():
    rng = np.random.default_rng(3)
    m, m0 = 30, 20
    bad = np.arange(m) < m0
    hits = {"bonferroni": 0, "holm": 0, "bh_fwer_when_all_null": 0}
    runs = 4000
    for _ in range(runs):
        p = np.where(bad, rng.random(m), rng.beta(0.05, 1.0, m))
        hits["bonferroni"] += bool(bonferroni(p, DELTA)[bad].any())
        hits["holm"] += bool(holm(p, DELTA)[bad].any())
        hits["bh_fwer_when_all_null"] += bool(benjamini_hochberg(rng.random(m), DELTA).any())
    se = np.sqrt(DELTA * (1 - DELTA) / runs)
    assert hits["bonferroni"] / runs <= DELTA + 3 * se
    assert hits["holm"] / runs <= DELTA + 3 * se
    # under the global null BH's FWER equals its FDR = delta (Simes): close to delta, not far below
    assert abs(hits["bh_fwer_when_all_null"] / runs - DELTA) <= 4 * se
