"""``dpderive sweep``: grid expansion, serial == joblib == dask (LocalCluster, and a scheduler and
a worker started as separate processes), error rows, outputs, cache and resume."""
import contextlib
import csv
import io
import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest

from dpderive import sweep_cli
from dpderive.cli import main
from dpderive.sweep_cli import build_grid, sweep

distributed = pytest.importorskip("distributed")
ROOT = pathlib.Path(__file__).resolve().parent.parent

# 2 x 2 = 4 quick RDP points
FLAGS = ["--sigma", "0.8,1.2", "--sampling-rate", "0.01", "--steps", "100:1000:2", "--delta", "1e-5"]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DPDERIVE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _single(argv):
    """The single command's own JSON record, run directly."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv + ["--json"]) == 0
    return json.loads(out.getvalue())


def test_grid_lists_log_ranges_and_integer_counts():
    axes, points = build_grid("epsilon", ["--sigma", "0.5:2:3", "--steps", "1000:10000:3",
                                          "--delta=1e-5", "--sampling-rate", "0.01,0.02"])
    by = {a.dest: a for a in axes}
    assert by["sigma"].values == pytest.approx([0.5, 1.0, 2.0], rel=1e-12)
    assert by["steps"].values == [1000, 3162, 10000]  # 1000 * 10**0.5 = 3162.28, kept integer
    assert all(isinstance(v, int) for v in by["steps"].values)
    assert by["sampling_rate"].values == [0.01, 0.02] and by["delta"].values == [1e-5]
    assert len(points) == 3 * 3 * 2
    assert points[1][0] == {"sigma": 0.5, "steps": 1000, "delta": 1e-5, "sampling_rate": 0.02}
    inputs, argv = points[2]  # the first flag varies slowest, the last fastest
    assert inputs == {"sigma": 0.5, "steps": 3162, "delta": 1e-5, "sampling_rate": 0.01}
    assert argv[0] == "epsilon" and argv[-1] == "--json" and argv[argv.index("--steps") + 1] == "3162"


def test_choices_take_lists_and_text_passes_through():
    axes, points = build_grid("epsilon", ["--sigma", "1", "--method", "rdp,pld", "--delta", "1e-5"])
    assert [a.values for a in axes] == [[1], ["rdp", "pld"], [1e-5]] and len(points) == 2
    with pytest.raises(ValueError, match="--sigma"):
        build_grid("epsilon", ["--sigma", "1,x", "--delta", "1e-5"])
    # a flag the command does not (yet) know keeps a text value whole; the command judges it
    axes, _ = build_grid("epsilon", ["--spec", "a,b", "--sigma", "1", "--delta", "1e-5"])
    assert axes[0].texts == ["a,b"]


def test_a_list_of_routes_gives_one_row_each():
    rec = [{"quantity": "epsilon", "route": "rdp", "guarantee": True, "lower": None, "upper": 1.5,
            "approximation": None},
           {"quantity": "epsilon", "route": "clt", "guarantee": False, "lower": None, "upper": None,
            "approximation": 0.7}]
    rows = sweep_cli._rows("epsilon", {"sigma": 1.0}, {"record": rec})
    assert [(r["route"], r["value"], r["guarantee"]) for r in rows] == [("rdp", 1.5, True), ("clt", 0.7, False)]
    assert all(r["sigma"] == 1.0 and r["error"] == "" for r in rows)
    (err,) = sweep_cli._rows("calibrate", {"epsilon": 1}, {"error": "sigma=-1 is outside"})
    assert err["value"] is None and err["error"] == "sigma=-1 is outside" and "epsilon_achieved" in err
    # a calibration reports the parameter it solved for, not the record's other keys
    rec = {"scale": 15.6, "sigma": None, "solved_for": "scale", "epsilon": 0.99, "epsilon_achieved": 0.99,
           "epsilon_lower": 0.98, "epsilon_upper": 0.99, "method": "best", "route": "pld", "guarantee": True}
    (row,) = sweep_cli._rows("calibrate", {"epsilon": 1}, {"record": rec})
    assert row["quantity"] == "scale" and row["value"] == 15.6 and row["epsilon_achieved"] == 0.99
    rec = dict(rec, sigma=1.1, steps=120, solved_for="steps")
    (row,) = sweep_cli._rows("calibrate", {"epsilon": 1}, {"record": rec})
    assert row["quantity"] == "steps" and row["value"] == 120


def test_bad_range_is_one_line_exit_2(capsys):
    assert main(["sweep", "epsilon", "--sigma", "1", "--steps", "10:1:0", "--delta", "1e-5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--steps" in err[0] and "lo:hi:n" in err[0]


def test_rows_match_the_single_command():
    axes, rows, counts = sweep("epsilon", FLAGS, progress=False)
    assert counts == {"points": 4, "cached": 0, "computed": 4, "errors": 0}
    for r in rows:
        rec = _single(["epsilon", "--sigma", str(r["sigma"]), "--sampling-rate", "0.01",
                       "--steps", str(r["steps"]), "--delta", "1e-5"])
        assert r["value"] == rec["epsilon"] and r["method"] == rec["method"] == "best" and r["error"] == ""
    assert [(r["sigma"], r["steps"]) for r in rows] == [(0.8, 100), (0.8, 1000), (1.2, 100), (1.2, 1000)]
    # more noise, less epsilon; more steps, more epsilon
    assert rows[0]["value"] > rows[2]["value"] and rows[1]["value"] > rows[0]["value"]


def test_serial_equals_joblib_equals_local_cluster():
    serial = sweep("epsilon", FLAGS, cache=False, progress=False)[1]
    assert sweep("epsilon", FLAGS, workers=2, cache=False, progress=False)[1] == serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as lc:
        assert sweep("epsilon", FLAGS, scheduler=lc.scheduler_address, cache=False,
                     progress=False)[1] == serial


def test_failing_point_gives_an_error_row_and_keeps_the_others():
    _, rows, counts = sweep("epsilon", ["--sigma", "-1,1", "--delta", "1e-5", "--steps", "10"],
                            workers=2, progress=False)
    assert counts["errors"] == 1
    assert rows[0]["value"] is None and "sigma" in rows[0]["error"] and "(0, oo)" in rows[0]["error"]
    assert rows[1]["error"] == "" and rows[1]["value"] == _single(
        ["epsilon", "--sigma", "1", "--delta", "1e-5", "--steps", "10"])["epsilon"]


def test_every_point_invalid_is_one_line_exit_2_before_anything_runs(capsys):
    assert main(["sweep", "delta", "--sigma", "1,2", "--epsilon", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "every point is invalid" in err[0] and "epsilon" in err[0], err


def test_an_invalid_point_is_a_row_and_is_never_run(monkeypatch):
    ran = []
    real = sweep_cli.run_point
    monkeypatch.setattr(sweep_cli, "run_point", lambda argv: ran.append(argv) or real(argv))
    _, rows, counts = sweep("epsilon", ["--sigma", "-1,1", "--delta", "1e-5", "--steps", "10"],
                            progress=False, cache=False)
    assert counts["errors"] == 1 and len(ran) == 1 and "-1" not in ran[0]
    assert "(0, oo)" in rows[0]["error"]


def test_cache_hit_then_resume_after_interruption(monkeypatch):
    real = sweep_cli.run_point
    calls = []

    def counting(argv):
        calls.append(argv)
        return real(argv)

    monkeypatch.setattr(sweep_cli, "run_point", counting)
    first = sweep("epsilon", FLAGS, progress=False)[1]
    assert len(calls) == 4
    again = sweep("epsilon", FLAGS, progress=False)
    assert len(calls) == 4 and again[2]["cached"] == 4 and again[1] == first

    # another version of the accountant's code: every point is recomputed
    code = sweep_cli._code_digest
    monkeypatch.setattr(sweep_cli, "_code_digest", lambda: "edited accountant")
    assert sweep("epsilon", FLAGS, progress=False)[2]["computed"] == 4 and len(calls) == 8
    monkeypatch.setattr(sweep_cli, "_code_digest", code)
    calls.clear()
    assert sweep("epsilon", FLAGS, progress=False)[2]["cached"] == 4 and calls == []
    calls.extend([None] * 4)

    # a wider grid with 4 new points, interrupted after two of them: a rerun computes only the rest
    wide = ["--sigma", "0.8,1.2,1.6,2.0"] + FLAGS[2:]

    def interrupted(argv):
        if len(calls) == 6:
            raise KeyboardInterrupt
        return counting(argv)

    monkeypatch.setattr(sweep_cli, "run_point", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sweep("epsilon", wide, progress=False)
    assert len(calls) == 6
    monkeypatch.setattr(sweep_cli, "run_point", counting)
    axes, rows, counts = sweep("epsilon", wide, progress=False)
    assert counts == {"points": 8, "cached": 6, "computed": 2, "errors": 0} and len(calls) == 8
    assert rows == sweep("epsilon", wide, cache=False, progress=False)[1]


def test_outputs_csv_json_plot(tmp_path, capsys):
    csv_path, png = tmp_path / "g.csv", tmp_path / "g.png"
    assert main(["sweep", "epsilon", *FLAGS, "--out", str(csv_path), "--plot", str(png)]) == 0
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == 4 and {"sigma", "steps", "value", "lower", "upper", "method", "error"} <= set(rows[0])
    ref = sweep("epsilon", FLAGS, progress=False)[1]
    assert [float(r["value"]) for r in rows] == [r["value"] for r in ref]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    js = tmp_path / "g.json"
    assert main(["sweep", "epsilon", *FLAGS, "--out", str(js)]) == 0
    assert json.loads(js.read_text()) == ref
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        capsys.readouterr()
        assert main(["sweep", "epsilon", *FLAGS, "--out", str(tmp_path / "g.parquet")]) == 2
        assert "pyarrow" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_sweep_through_a_separate_scheduler_and_worker(tmp_path):
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    dask = [sys.executable, "-m", "dask"]
    procs = []
    try:
        procs.append(subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                                              "--no-dashboard"], env=env, cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen(dask + ["worker", addr, "--nworkers", "1", "--nthreads", "1",
                                              "--no-dashboard", "--host", "127.0.0.1"], env=env,
                                      cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while True:
            try:
                with distributed.Client(addr, timeout="5s") as c:
                    c.wait_for_workers(1, timeout=max(1, deadline - time.monotonic()))
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        out = tmp_path / "d.csv"
        assert main(["sweep", "epsilon", *FLAGS, "--scheduler", addr, "--no-cache", "--out", str(out)]) == 0
        got = [float(r["value"]) for r in csv.DictReader(out.open())]
        assert got == [r["value"] for r in sweep("epsilon", FLAGS, cache=False, progress=False)[1]]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait(timeout=20)
