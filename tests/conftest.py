import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
