"""Experiments of the ``bilevel`` repository: the small-data UCI studies of the pessimistic bilevel tuning
paper (:mod:`experiments.uci_study`), the closed-form evasion attack (:mod:`experiments.attack`) and the
baselines (:mod:`experiments.baseline`). Run them with ``bilevel study`` from a source checkout."""
