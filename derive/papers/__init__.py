"""One package per source paper, each registering its formulas and claims on
import; ``derive.registry`` imports them lazily (``load_paper`` / ``load_all``)."""

PAPER_MODULES = ("asoodeh2021", "zheng2020", "ghazi_issa")
