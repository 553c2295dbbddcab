"""The low-precision least-squares example in its small configuration: with
a fixed seed, Kahan-compensated and stochastically rounded bfloat16 updates
reach a loss within a stated factor of float32; nearest rounding does not,
and stalls earlier for the smaller learning rate (Zamirai et al.).  In
float8 (e4m3fn) weights the same holds with wider factors: stochastic
rounding keeps a noise floor of about an ulp, and nearest rounding stalls
two orders of magnitude above float32."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lowprec_least_squares.py"

#: Per storage dtype: Kahan, stochastic rounding end within these factors of
#: the float32 loss, and nearest rounding above the last one.
FACTORS = {"bfloat16": {"kahan": 1.5, "stochastic": 1.5, "stalls": 3.0},
           "float8_e4m3fn": {"kahan": 2.0, "stochastic": 15.0, "stalls": 100.0}}


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("lowprec_least_squares", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=sorted(FACTORS))
def storage(request):
    return request.param


@pytest.fixture(scope="module")
def results(example, storage):
    return example.run(**example.SMALL, storage=example.STORAGE[storage])


def test_kahan_and_stochastic_track_float32_nearest_stalls(example, results, storage):
    assert len(results) >= 2
    factors = FACTORS[storage]
    for lr, curves in results.items():
        base = example.final_loss(curves["float32"])
        for method in ("kahan", "stochastic"):
            got = example.final_loss(curves[method])
            assert got <= factors[method] * base, (lr, method, got, base)
        nearest = example.final_loss(curves["nearest"])
        assert nearest > factors["stalls"] * base, (lr, nearest, base)


def test_nearest_is_worse_for_smaller_learning_rates(example, results):
    lrs = sorted(results, reverse=True)
    stalls = [example.final_loss(results[lr]["nearest"]) for lr in lrs]
    assert stalls == sorted(stalls) and stalls[0] < stalls[-1]


def test_example_is_reproducible(example):
    small = dict(example.SMALL, lrs=(0.03,), steps=100)
    a, b = example.run(**small), example.run(**small)
    for method in example.METHODS:
        assert (a[0.03][method][1] == b[0.03][method][1]).all()


@pytest.mark.parametrize("dtype", sorted(FACTORS))
def test_main_prints_losses(example, capsys, dtype):
    assert example.main(["--small", "--no-plot", "--dtype", dtype]) == 0
    shown = capsys.readouterr().out
    assert "kahan" in shown and "final loss" in shown and "plot:" not in shown


def test_main_prints_losses_and_writes_the_plot(example, tmp_path, capsys):
    pytest.importorskip("matplotlib")       # not in the test extras
    out = tmp_path / "plot.png"
    assert example.main(["--small", "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "kahan" in shown and "final loss" in shown
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
