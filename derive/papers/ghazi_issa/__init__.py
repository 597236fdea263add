"""Ghazi, Issa, "Total Variation Meets Differential Privacy", seed 003 - in the
paper's order."""
