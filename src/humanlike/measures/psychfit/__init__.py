"""Psychometric-function fits (threshold, slope, lapse) per observer and experiment, with bootstrap intervals."""
