"""One module per source paper; importing this package registers them all."""
from . import asoodeh2021  # noqa: F401
from . import zheng2020  # noqa: F401
from . import ghazi_issa  # noqa: F401
