"""Zheng, Dong, Long, Su, "Sharp Composition Bounds for Gaussian Differential
Privacy via Edgeworth Expansion" (2020), seed 004 - in the paper's order."""
