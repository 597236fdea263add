__version__ = "0.1.0"

# The application wires the seed papers into the library's registry (derive.registry.add_source,
# lazily: no paper module is imported here); the library itself never names them.
import derive.papers as _seed_papers  # noqa: E402,F401
