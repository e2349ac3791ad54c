"""Accuracy, response entropy and observed consistency per condition: the psychometric figures of model-vs-human."""
