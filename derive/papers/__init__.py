"""One package per source paper, each registering its formulas and claims on import.

Importing this package declares them to ``derive.registry`` as sources (``add_source``), which
imports each lazily (``load_paper`` / ``load_all``); the library never imports this package:
the application (``dpderive``) and the test configuration do."""
from derive import registry as _registry
from derive import sources as _sources

PAPER_MODULES = ("asoodeh2021", "zheng2020", "ghazi_issa")

# each source file -> how an author cites the paper it holds
_sources.SEED_CITES.update({
    "000_719a574de2899529.txt": "Asoodeh et al. 2020 (ISIT)",
    "001_7a33c8c9f53e52ce.txt": "Asoodeh et al. 2020 (ISIT)",
    "002_681a0562af0ee53f.txt": "Asoodeh et al. 2021",
    "003_6d6b38ca867c8af9.txt": "Ghazi and Issa 2023",
    "004_92b282974724984b.txt": "Zheng et al. 2020",
})

for _key in PAPER_MODULES:
    _registry.add_source(_key, f"{__name__}.{_key}")
