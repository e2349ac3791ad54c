"""Paired comparisons of models on any measure that keeps paired replicates: differences, ceilings, planning."""
