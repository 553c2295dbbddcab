"""A small run of the differential fuzzer (tests/fuzz), and checks of the
fuzzer itself: its fast oracle equals the Fraction oracle, and its checks
catch a reduction that rounds."""

import warnings

import numpy as np
import pytest
from fuzz import driver

import xsumufunc as xs

SEED = 8


def test_fuzz_cases_match_the_oracle():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        done, failures = driver.run_range(SEED, 0, 200)
    assert done == 200
    assert failures == []


def test_fuzz_cases_match_the_fraction_oracle():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        done, failures = driver.run_range(SEED + 1, 0, 60, oracle="fraction")
    assert failures == []


def test_fast_oracle_is_the_fraction_oracle():
    """The integer oracle used for millions of cases gives the very bits
    of tests/oracle.py on every check of every case."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index in range(200):
            case = driver.Case(SEED + 2, index)
            fast, slow = driver.expected_fast(case), driver.expected_fraction(case)
            assert fast.keys() == slow.keys()
            for name in fast:
                assert driver.same_bits(fast[name], slow[name]), (case.describe(), name)


def test_cases_cover_every_kind_layout_and_kernel_length():
    cases = [driver.Case(SEED, i) for i in range(800)]
    assert {c.kind for c in cases} == set(driver.KINDS)
    targets = {c.target for c in cases}
    assert set(driver.TARGETS) - {"code"} <= targets
    assert set(driver.CODE_DTYPES) <= targets                 # every byte-coded format
    assert set(driver.CODE_DTYPES) <= {c.dtype for c in cases}
    lengths = [c.x.size for c in cases]
    assert min(lengths) == 0 and any(n > 128 for n in lengths)
    assert any(n >= 1024 for n in lengths)
    layouts = {(c.x_view.ndim, c.x_view.strides[0] // c.x_view.itemsize if c.x_view.ndim == 1
                else None, c.x_view.dtype.isnative, c.x_view.ctypes.data % c.x_view.itemsize == 0)
               for c in cases if c.x_view.size}
    assert (1, 1, True, True) in layouts and (1, -1, True, True) in layouts
    assert any(not native for _, _, native, _ in layouts)
    assert any(not aligned for _, _, _, aligned in layouts)
    assert any(ndim == 2 for ndim, _, _, _ in layouts)
    # Column checks that reach the column sweep (float64 and float32, at
    # least 8 columns and 16 rows), of both layouts.
    swept = [c for c in cases if c.dtype in (driver.FLOAT64, driver.FLOAT32)
             and c.columns() is not None and c.columns().shape[0] >= 16]
    assert {c.column_pad > 0 for c in swept} == {False, True}
    assert any(c.columns().shape[0] > 256 and c.cols >= 16 for c in swept)  # blocks, strips


def test_the_checks_catch_a_rounding_sum(monkeypatch):
    """Replace exact_sum by np.sum: the fuzzer must report it."""
    def rounding_sum(a, axis=None, dtype=None, out=None, where=True):
        return np.sum(np.asarray(a, np.float64), axis=axis, where=where).astype(
            dtype or out.dtype) if out is None else np.copyto(
                out, np.sum(np.asarray(a, np.float64)), casting="unsafe")
    monkeypatch.setattr(xs, "exact_sum", rounding_sum)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        _, failures = driver.run_range(SEED, 0, 200)
    assert any(": sum gave" in f for f in failures)
    assert any(": columns gave" in f for f in failures)          # sums down columns
    assert not any("raised" in f for f in failures)


def test_command_line(capsys):
    with warnings.catch_warnings():
        assert driver.main(["--cases", "30", "--seed", "3"]) == 0
        assert driver.main(["--case", "7", "--seed", "3"]) == 0
    shown = capsys.readouterr().out
    assert "30 cases, seed 3" in shown and "0 failures" in shown
    assert "seed=3 case=7" in shown


def test_same_bits_is_strict():
    """same_bits tells -0.0 from +0.0, a last-bit difference and dtypes."""
    assert not driver.same_bits(np.float64(-0.0), np.float64(0.0))
    assert not driver.same_bits(np.float64(1.0), np.nextafter(1.0, 2.0))
    assert not driver.same_bits(np.float32(1.0), np.float64(1.0))
    assert driver.same_bits(np.float16(np.nan), -np.float16(np.nan))


def test_the_driver_leaves_numpy_error_settings_alone():
    before = np.geterr()
    driver.main(["--cases", "3", "--seed", "5"])
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.float64(1e308) * np.float64(10.0)
