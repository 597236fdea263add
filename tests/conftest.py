import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the paper sources (plain-text dumps the claims cite), read only by tests marked ``provenance``:
# $DPDERIVE_SEEDS, else ../shared/seeds beside the repository (see "Provenance tests" below)
SEEDS = pathlib.Path(os.environ.get("DPDERIVE_SEEDS") or ROOT.parent / "shared" / "seeds").expanduser().resolve()
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the verdict and sweep caches of dpderive.execution: kept in pytest's own cache directory,
# not in ~/.cache (override with DPDERIVE_CACHE); keys include the code, so entries never go stale
os.environ.setdefault("DPDERIVE_CACHE", str(ROOT / ".pytest_cache" / "dpderive"))

import derive.papers  # noqa: E402,F401  (declares the seed papers to derive.registry, as dpderive does)
import mpmath as _mp  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """A test that sets mpmath's global precision must not change the next test's numbers
    (verdicts are compared across processes, e.g. serial vs joblib vs dask)."""
    prec = _mp.mp.prec
    yield
    _mp.mp.prec = prec


# ----------------------------------------------------------------------------- provenance tests
# A clone without the paper sources still passes: tests marked ``provenance`` are skipped there, and one
# summary line says how many, why, and how to provide the sources.  Under CI (CI=true or CI=1), or where
# DPDERIVE_SEEDS names a folder that does not exist, the sources are required and their absence fails the run.
SEEDS_PRESENT = SEEDS.is_dir()
_SOURCES_REQUIRED = (os.environ.get("CI", "").strip().lower() in ("true", "1")
                     or bool(os.environ.get("DPDERIVE_SEEDS")))
_PROVENANCE_SKIPPED = set()
_HOW = "put the seed texts in ../shared/seeds beside the repository or set DPDERIVE_SEEDS=/path/to/seeds"


def pytest_configure(config):
    config.addinivalue_line("markers", "provenance: reads the paper sources (DPDERIVE_SEEDS, default "
                            "../shared/seeds); skipped where they are absent, required under CI")


@pytest.hookimpl(trylast=True)          # after -k/-m deselection: only the provenance tests that would run
def pytest_collection_modifyitems(config, items):
    if SEEDS_PRESENT or not _SOURCES_REQUIRED:
        return
    n = sum(1 for it in items if it.get_closest_marker("provenance"))
    if n:
        why = "DPDERIVE_SEEDS is set" if os.environ.get("DPDERIVE_SEEDS") else "CI is set"
        pytest.exit(f"provenance: {n} tests need the paper sources and {why}, but {SEEDS} is not a folder; "
                    f"{_HOW}", returncode=pytest.ExitCode.TESTS_FAILED)


def _provenance_skip_reason() -> str:
    return f"provenance tests: the paper sources are not at {SEEDS}; to run them, {_HOW}"


@pytest.fixture(autouse=True)
def _provenance_sources(request):
    if not SEEDS_PRESENT and request.node.get_closest_marker("provenance"):
        _PROVENANCE_SKIPPED.add(request.node.nodeid)
        pytest.skip(_provenance_skip_reason())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """One location for every provenance skip, so that -rs folds them into a single line."""
    rep = yield
    if rep.skipped and rep.when == "setup" and item.nodeid in _PROVENANCE_SKIPPED:
        rep.longrepr = (__file__, _provenance_skip_reason.__code__.co_firstlineno, _provenance_skip_reason())
    return rep


def pytest_terminal_summary(terminalreporter):
    """The skipped provenance tests on one line: -rs (on by default, addopts = "-ra") prints it as
    "SKIPPED [count] tests/conftest.py:N: reason"; without it, this hook does."""
    if _PROVENANCE_SKIPPED and "s" not in terminalreporter.reportchars:
        terminalreporter.write_line(f"SKIPPED {len(_PROVENANCE_SKIPPED)} {_provenance_skip_reason()}", yellow=True)
