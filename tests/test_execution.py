"""The execution layer (dpderive.execution): serial == joblib == dask.distributed, failing
tasks reported with the others kept, and the on-disk verdict cache."""
import importlib
import math
import sys
import textwrap
import time

import pytest

from derive import registry
from derive.core import Claim, Source, Verdict
from dpderive import execution
from dpderive.execution import check_claims, run_tasks, verdict_key

distributed = pytest.importorskip("distributed")

# a few fast claims of one paper, including failing ones (their counterexamples must travel)
SOME = 6


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as lc:
        yield lc.scheduler_address


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DPDERIVE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _claims():
    cls = registry.claims("zheng2020")
    fails = [c for c in cls if c.id in ("zheng2020.eq3_4.last", "zheng2020.eq3_8.sigma")]
    picked = cls[:SOME] + [c for c in fails if c not in cls[:SOME]]
    for c in picked:
        c._verdict = None
    return picked


def _records(claims):
    recs = [c.record() for c in claims]
    for c in claims:
        c._verdict = None
    return recs


def test_run_tasks_order_and_errors_serial_joblib_dask(cluster):
    tasks = [4.0, -1.0, 9.0, 2.0, -4.0, 16.0]
    runs = [run_tasks(math.sqrt, tasks, progress=False),
            run_tasks(math.sqrt, tasks, workers=2, progress=False),
            run_tasks(math.sqrt, tasks, scheduler=cluster, progress=False)]
    for res in runs:
        assert [r.index for r in res] == list(range(len(tasks)))
        assert [r.name for r in res] == [str(t) for t in tasks]
        for r, t in zip(res, tasks):
            if t >= 0:
                assert r.ok and r.value == math.sqrt(t) and r.error == ""
            else:  # reported (which task, why); the others kept
                assert not r.ok and r.value is None and r.error == "math domain error"


def test_check_serial_equals_joblib_and_local_cluster(cluster):
    cls = _claims()
    assert any(c.check().status == "fails" for c in cls)  # a counterexample must travel too
    for c in cls:
        c._verdict = None
    check_claims(cls, cache=False, progress=False)
    serial = _records(cls)
    check_claims(cls, workers=2, cache=False, progress=False)
    assert _records(cls) == serial
    check_claims(cls, scheduler=cluster, cache=False, progress=False)
    assert _records(cls) == serial


def test_failing_task_is_reported_and_the_others_kept():
    good = _claims()[:2]
    ghost = Claim(id="zheng2020.no_such_claim", paper="zheng2020", source=Source("x", "(0)"),
                  kind="identity", statement="", printed_latex="", check_fn=lambda: None)
    counts = check_claims(good + [ghost], workers=2, cache=False, progress=False)
    assert counts == {"claims": 3, "cached": 0, "checked": 3}
    assert all(c._verdict.method != "error" for c in good)
    v = ghost._verdict
    assert v.status == "inconclusive" and v.method == "error"
    assert v.note.startswith("task failed: ") and "zheng2020.no_such_claim" in v.note and "Error" not in v.note


def _counting_claims(calls):
    def make(i):
        def fn():
            calls.append(i)
            return Verdict("proved", f"test {i}", derived=None)
        return Claim(id=f"testpaper.c{i}", paper="testpaper", source=Source("x", f"({i})"),
                     kind="identity", statement="", printed_latex="", check_fn=fn)
    return [make(i) for i in range(3)]


def test_verdict_cache_hit_and_invalidated_by_definition(cache_dir):
    calls = []
    cls = _counting_claims(calls)
    assert check_claims(cls, progress=False)["checked"] == 3 and sorted(calls) == [0, 1, 2]
    first = [c._verdict.method for c in cls]
    for c in cls:
        c._verdict = None
    assert check_claims(cls, progress=False) == {"claims": 3, "cached": 3, "checked": 0}
    assert len(calls) == 3 and [c._verdict.method for c in cls] == first
    for c in cls:
        c._verdict = None
    cls[1].definition = "identity: a == b (edited)"
    assert check_claims(cls, progress=False) == {"claims": 3, "cached": 2, "checked": 1}
    assert calls[3:] == [1]
    for c in cls:
        c._verdict = None
    assert check_claims(cls, progress=False, cache=False)["checked"] == 3  # --no-cache


def test_verdict_key_follows_the_module_source(tmp_path, monkeypatch):
    mod = tmp_path / "claimmod_for_cache_test.py"
    mod.write_text("def check():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("claimmod_for_cache_test")
    c = Claim(id="t.k", paper="t", source=Source("x", "(1)"), kind="identity", statement="",
              printed_latex="", check_fn=m.check)
    k1 = verdict_key(c)
    assert verdict_key(c) == k1
    mod.write_text(textwrap.dedent("""\
        def check():
            return 2
        """))
    assert verdict_key(c) != k1
    sys.modules.pop("claimmod_for_cache_test", None)


def test_paper_claim_key_covers_its_package_and_the_engine():
    custom = next(c for c in registry.claims("ghazi_issa") if c.checker == "custom")
    files = {p.name for p in execution.claim_files(custom)}
    assert {"_paper.py", "sec2_3.py", "sec7.py", "sec2_3.toml"} <= files, custom.id   # formulas: TOML
    engine = {p.name for p in execution.engine_files()}     # the paper's truths live in the library
    assert {"core.py", "verify.py", "checkers.py", "truths_pmf.py", "evidence.py",
            "paperkit.py"} <= engine
    root = execution._derive_root()
    assert {"truths/pmf.py", "truths/names.py", "kinds/bound.py"} <= {
        p.relative_to(root).as_posix() for p in execution.engine_files()}


def test_generic_claim_key_is_its_definition_and_the_engine(monkeypatch):
    """A generic claim's whole input is its definition: editing another claim of its paper
    leaves its key alone, while its definition and its artifact tag change it."""
    c = next(c for c in registry.claims("ghazi_issa") if c.checker != "custom")
    assert execution.claim_files(c) == []
    k = verdict_key(c)
    monkeypatch.setattr(c, "definition", c.definition + " ")
    assert verdict_key(c) != k
    monkeypatch.setattr(c, "definition", c.definition[:-1])
    assert verdict_key(c) == k
    monkeypatch.setattr(c, "artifact", {"version": "v", "seed": "s", "why": "w"})
    assert verdict_key(c) != k


def test_load_source_rejects_unknown_sources():
    with pytest.raises(KeyError, match="nope"):
        execution.load_source("nope")


def test_claim_sources_and_claims_no_worker_can_load(monkeypatch):
    c = registry.claims("zheng2020")[0]
    assert execution.claim_source(c) == "zheng2020"
    monkeypatch.setitem(registry.PAPERS, "userfile", {"key": "userfile", "file": "/tmp/u/claims.toml"})
    calls = []
    cls = _counting_claims(calls)
    for x in cls:
        x.paper = "userfile"
    assert execution.claim_source(cls[0]) == "/tmp/u/claims.toml"
    cls[0].paper = "testpaper"  # neither a paper module nor a claim file: checked in this process
    assert execution.claim_source(cls[0]) is None
    check_claims(cls[:1], workers=2, cache=False, progress=False)
    assert calls == [0] and cls[0]._verdict.method == "test 0"


def test_verdict_key_is_the_same_in_every_process():
    """A claim whose definition carries SymPy Dummies (negative indices too) keys its verdict the
    same way in two fresh processes, so a warm cache is found again."""
    import subprocess
    import sys
    code = ("import derive.registry as R; from dpderive import execution as E; "
            "R.load_paper('zheng2020'); print(E.verdict_key(R.claim('zheng2020.eqA_2.scaling')))")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert len(keys) == 1 and len(next(iter(keys)).strip()) == 64


def _sleep(t):
    time.sleep(t)
    return t


def test_progress_names_the_running_task_and_the_slowest(monkeypatch, capsys):
    from dpderive import execution
    monkeypatch.setattr(execution.Progress, "LINE_SECONDS", 0.5)
    run_tasks(_sleep, [0.1, 2.6, 0.2, 1.2], progress=True, desc="nap", names=["a", "b", "c", "d"])
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("[nap] 4 tasks on 1 process")
    assert any("running b (" in line for line in err), err          # while b sleeps, it is named
    assert err[-1] == "[nap] slowest: b 2.6 s, d 1.2 s", err        # the tasks of a second or more
