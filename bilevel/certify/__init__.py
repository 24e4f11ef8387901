"""Statistical certification of tuned hyperparameters.

Given candidate hyperparameters and their losses on calibration data the tuner never saw, return the
candidates that provably meet a risk limit ``alpha`` -- with the family-wise error rate (FWER) or the
false discovery rate (FDR) controlled at ``delta`` -- and the best of them on an auxiliary objective.

* :mod:`.p_values` -- Hoeffding, Hoeffding-KL, Bentkus, Hoeffding-Bentkus and binomial p-values
  (Eqs. (6)-(7) of the RG-PT paper, Eqs. (27)-(28) of the Pareto-testing paper).
* :mod:`.procedures` -- Bonferroni, Holm, Benjamini-Hochberg, Benjamini-Yekutieli, fixed-sequence
  testing (FWER and the FDR version, Eq. (14)).
* :mod:`.dagger` -- DAGGER on a DAG (Eqs. (15)-(18)).
* :mod:`.pareto` -- Pareto fronts.
* :mod:`.pipelines` -- LTT, Pareto Testing and RG-PT (Alg. 2), returning a :class:`CertificationResult`.
* :mod:`.losses` -- loading/validating per-example loss matrices (CSV).
* :mod:`.cli` -- the ``certify`` sub-command.

Bradley-Terry scores and the non-negative Lasso live in :mod:`bilevel.ranking`.

"The Pareto-testing paper" in these docstrings is *Risk-Controlling Model Selection via Guided Bayesian
Optimization* (the papers' README), which restates Pareto Testing (Laufer-Goldshtein et al., 2023) with its
p-values in App. B and its testing stage in Alg. C.1.
"""

from .. import lazy_exports as _lazy_exports

#: Each public name with the submodule that defines it, imported on first use (:mod:`bilevel.lazy_exports`), so
#: that ``bilevel certify --help`` loads no SciPy.
_EXPORTS = {
    "dag_depths": "dagger", "dagger": "dagger", "dagger_details": "dagger", "effective_leaves_and_nodes": "dagger",
    "LossTable": "losses", "load_aux_csv": "losses", "load_losses_csv": "losses", "validate_losses": "losses",
    "bentkus_p_value": "p_values", "binomial_p_value": "p_values", "combined_p_value": "p_values",
    "hoeffding_bentkus_p_value": "p_values", "hoeffding_kl_p_value": "p_values", "hoeffding_p_value": "p_values",
    "p_values_from_losses": "p_values",
    "pareto_front": "pareto", "pareto_front_mask": "pareto",
    "CertificationResult": "pipelines", "certify": "pipelines", "ltt": "pipelines", "pareto_testing": "pipelines",
    "rg_pt": "pipelines", "split_calibration": "pipelines",
    "benjamini_hochberg": "procedures", "benjamini_yekutieli": "procedures", "bonferroni": "procedures",
    "fixed_sequence": "procedures", "fixed_sequence_thresholds": "procedures", "holm": "procedures",
}

__all__ = [
    "hoeffding_p_value",
    "hoeffding_kl_p_value",
    "bentkus_p_value",
    "hoeffding_bentkus_p_value",
    "binomial_p_value",
    "combined_p_value",
    "p_values_from_losses",
    "bonferroni",
    "holm",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "fixed_sequence",
    "fixed_sequence_thresholds",
    "dagger",
    "dagger_details",
    "dag_depths",
    "effective_leaves_and_nodes",
    "pareto_front",
    "pareto_front_mask",
    "ltt",
    "pareto_testing",
    "rg_pt",
    "certify",
    "split_calibration",
    "CertificationResult",
    "LossTable",
    "load_losses_csv",
    "load_aux_csv",
    "validate_losses",
]

_lazy_exports.make_lazy(__name__)
