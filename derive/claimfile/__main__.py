"""``python3 -m derive.claimfile --reference [--write]``: print or write docs/claim-files.md."""
from .reference import _main

raise SystemExit(_main())
