"""The errata groupings of zheng2020: data in errata.toml (read by derive.paperkit.load_errata)."""
from ...paperkit import load_errata

ERRATA = load_errata(__file__)
