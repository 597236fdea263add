"""Write ``dpderive/claim_costs.json``: the CPU seconds of one cold check of every seed claim and
every example claim (examples/*.toml), measured serially in this process.

``dpderive check`` on several workers hands the claims out longest first by this estimate
(``dpderive.execution.longest_first``), so that a 5-second claim does not start last while the
other workers idle.  The estimate only orders the work; it never touches a verdict, and a claim
missing from it counts as the median claim.  CPU time (``time.process_time``) is used because it
is robust to the load of a shared machine, where wall time is not.  Rerun after a change that
makes a claim much slower or faster:

    PYTHONPATH=. DPDERIVE_CACHE=$(mktemp -d) python3 benchmarks/claim_costs.py
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dpderive" / "claim_costs.json"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    import derive.papers  # noqa: F401  (registers the seed papers)
    from derive import registry
    from derive.claimfile import load_file
    registry.load_all()
    claims = list(registry.claims(None))
    for p in sorted((ROOT / "examples").glob("*.toml")):
        claims += list(registry.claims(load_file(str(p))))
    seconds = {}
    for c in claims:
        t0 = time.process_time()
        c.check(refresh=True)
        seconds[c.id] = round(time.process_time() - t0, 2)
    out = {"about": "CPU seconds of one cold check of each claim (benchmarks/claim_costs.py); "
                    "orders the work of a parallel check, longest first",
           "loadavg": [round(x, 2) for x in os.getloadavg()],
           "total_seconds": round(sum(seconds.values()), 1),
           "seconds": dict(sorted(seconds.items()))}
    OUT.write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {OUT}: {len(seconds)} claims, {out['total_seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
