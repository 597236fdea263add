"""One package per source paper, each registering its formulas and claims on import.

Importing this package declares them to ``derive.registry`` as sources (``add_source``), which
imports each lazily (``load_paper`` / ``load_all``); the library never imports this package:
the application (``dpderive``) and the test configuration do."""
from derive import registry as _registry

PAPER_MODULES = ("asoodeh2021", "zheng2020", "ghazi_issa")

for _key in PAPER_MODULES:
    _registry.add_source(_key, f"{__name__}.{_key}")
