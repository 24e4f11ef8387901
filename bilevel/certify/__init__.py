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

from .dagger import dag_depths, dagger, dagger_details, effective_leaves_and_nodes
from .losses import LossTable, load_aux_csv, load_losses_csv, validate_losses
from .p_values import (
    bentkus_p_value,
    binomial_p_value,
    combined_p_value,
    hoeffding_bentkus_p_value,
    hoeffding_kl_p_value,
    hoeffding_p_value,
    p_values_from_losses,
)
from .pareto import pareto_front, pareto_front_mask
from .pipelines import CertificationResult, certify, ltt, pareto_testing, rg_pt, split_calibration
from .procedures import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    fixed_sequence,
    fixed_sequence_thresholds,
    holm,
)

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
