"""Shape bias on cue-conflict images (Geirhos et al. 2019), as model-vs-human computes it."""
