"""The pair core every pairwise measure shares (error consistency, decision-margin consistency, DVC of choices,
the OOD spectrum's error alignment): the design of observer pairs (design), the correctness statistics of a pair
(metric: kappa, its policies, error overlap; correctness_sums: their per-item sums; kappa_bounds: the kappas two
accuracies allow), the pair kernels (kernels) and their one aggregation (aggregation)."""
