"""One module per source paper; importing this package registers them all."""
from . import asoodeh2021  # noqa: F401
