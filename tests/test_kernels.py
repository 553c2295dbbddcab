"""The C kernels' own boundaries, checked against the Fraction oracle.

The property tests use short arrays; these target what only long rows reach:
the switch from the small to the large accumulator, large-accumulator bins
that fill up (4096 terms of one sign and exponent), carry propagation every
2047 small-accumulator adds, zero strides (n copies added as one exact
product), and the exact state (round trip and merging).
"""

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16, exact_sum_oracle, round_fraction

import xsumufunc as xs

TARGETS = [np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16), BFLOAT16]
FLOAT_INPUTS = TARGETS
# Around the small/large switch (160) and a full large-accumulator bin (4096).
LENGTHS = [1, 2, 159, 160, 161, 2047, 2048, 4095, 4096, 4097, 9000]


def _wide_values(rng, n, dtype):
    """Values over many binades, both signs, cancelling in part."""
    finfo_max = float(np.finfo(np.float64).max) if dtype == np.float64 else 6e4
    exps = rng.integers(-60, 60, n)
    x = rng.standard_normal(n) * np.ldexp(1.0, exps)
    x = np.clip(x, -finfo_max, finfo_max).astype(dtype)
    half = n // 2
    x[:half // 2] = -x[half // 2:half // 2 * 2]
    rng.shuffle(x)
    return x


@pytest.mark.parametrize("dtype", FLOAT_INPUTS, ids=str)
@pytest.mark.parametrize("n", LENGTHS)
def test_long_rows_every_target(dtype, n):
    rng = np.random.default_rng(n)
    x = _wide_values(rng, n, dtype)
    for target in TARGETS:
        assert_same(xs.exact_sum(x, dtype=target), exact_sum_oracle(x, target),
                    f"n={n} {dtype}->{target}")


@pytest.mark.parametrize("n", [4095, 4096, 4097, 3 * 4096 + 5])
def test_full_bins_one_exponent(n):
    # Every term in one binade and sign: one large-accumulator bin fills and
    # is emptied into the small accumulator several times.
    rng = np.random.default_rng(7)
    x = 1.0 + rng.random(n)                      # all in [1, 2)
    assert_same(xs.exact_sum(x), exact_sum_oracle(x, np.dtype(np.float64)))
    assert_same(xs.exact_sum(-x), exact_sum_oracle(-x, np.dtype(np.float64)))
    # Subnormals share a bin whose terms have no implicit bit.
    sub = x * 2.0**-1060
    assert_same(xs.exact_sum(sub), exact_sum_oracle(sub, np.dtype(np.float64)))
    assert_same(xs.exact_sum(-sub), exact_sum_oracle(-sub, np.dtype(np.float64)))


def test_negative_zeros_in_long_rows():
    z = np.full(5000, -0.0)
    assert_same(xs.exact_sum(z), np.float64(-0.0))
    z[1234] = 0.0
    assert_same(xs.exact_sum(z), np.float64(0.0))
    z[1234] = -5e-324
    assert_same(xs.exact_sum(z), np.float64(-5e-324))


@pytest.mark.parametrize("n", [2046, 2047, 2048, 4100])
def test_carry_propagation_boundaries_integers(n):
    # Integer rows always use the small accumulator: its countdown of 2047
    # adds between carry propagations is crossed here.
    big = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    big[::3] = np.iinfo(np.int64).min
    assert_same(xs.exact_sum(big), exact_sum_oracle(big, np.dtype(np.float64)))
    ubig = np.full(n, np.iinfo(np.uint64).max, dtype=np.uint64)
    assert_same(xs.exact_sum(ubig, dtype=np.float32),
                exact_sum_oracle(ubig, np.dtype(np.float32)))


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_long_accumulate(target):
    rng = np.random.default_rng(3)
    x = _wide_values(rng, 2600, np.float64)
    res = xs.exact_add.accumulate(x, dtype=target)
    # Spot-check prefixes across the 2047-add propagation boundary.
    for i in (0, 1, 2045, 2046, 2047, 2048, 2599):
        assert_same(res[i], exact_sum_oracle(x[:i + 1], target), f"prefix {i}")


@settings(max_examples=40)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=64),
    # NumPy caps an array at 2^63 bytes, views included: 2^59 float64 terms.
    count=st.integers(min_value=1, max_value=2**59),
    target=st.sampled_from(TARGETS),
)
def test_zero_stride_is_an_exact_product(value, count, target):
    # np.broadcast_to makes a zero-stride view: no memory for `count` copies.
    x = np.broadcast_to(np.float64(value), (count,))
    from fractions import Fraction
    expected = round_fraction(Fraction(value) * count, target,
                              zero_sign=-1 if np.signbit(value) else 1)
    with np.errstate(over="ignore"):
        assert_same(xs.exact_sum(x, dtype=target), expected)


def test_zero_stride_beyond_2_31():
    from fractions import Fraction
    n = 2**31 + 3
    x = np.broadcast_to(np.float32(0.1), (n,))
    expected = round_fraction(Fraction(float(np.float32(0.1))) * n, np.dtype(np.float32))
    assert_same(xs.exact_sum(x), expected)


@settings(max_examples=60)
@given(
    parts=st.lists(st.lists(st.floats(width=64, allow_nan=False), max_size=300),
                   min_size=1, max_size=5),
    target=st.sampled_from(TARGETS),
)
def test_states_merge_to_the_sum_of_all_parts(parts, target):
    states = np.stack([xs.exact_sum_state_ufunc(np.array(p, dtype=np.float64))
                       for p in parts])
    merged = xs.exact_state_merge_ufunc(states)
    everything = [v for p in parts for v in p]
    expected = exact_sum_oracle(np.array(everything, dtype=np.float64), target)
    with np.errstate(over="ignore", invalid="ignore"):
        got = xs.exact_state_round_ufunc(merged, signature=(np.int64, target))
    assert_same(got, expected)
    # The state of the concatenation is the same state: it is canonical.
    whole = xs.exact_sum_state_ufunc(np.array(everything, dtype=np.float64))
    assert np.array_equal(whole, merged)


def test_state_layout():
    assert xs.STATE_LENGTH == 69
    s = xs.exact_sum_state_ufunc(np.array([1.0]))
    assert s.dtype == np.int64 and s.shape == (69,)
    # 1.0 = 2^52 * 2^(1023 - 1075): bit 1075 of the fixed point, digit 33 bit 19.
    expected = np.zeros(69, np.int64)
    expected[33] = 1 << 19
    expected[68] = 0b11                  # had a term, and one that is not -0.0
    assert np.array_equal(s, expected)


@pytest.mark.parametrize("axes", [(0, 2), (2, 0), (0, 1, 2), (1, 2)])
@pytest.mark.parametrize("initial", [None, -2.5e300])
def test_several_axes_that_cannot_merge_into_a_view(axes, initial):
    # Strides that no reshape can merge: the reduction goes axis by axis
    # through exact states (the long axis) rather than copying the data.
    rng = np.random.default_rng(11)
    base = _wide_values(rng, 5 * 400 * 3, np.float64).reshape(5, 400, 3)
    x = base.transpose(1, 2, 0)[:, ::-1, ::2]           # shape (400, 3, 3)
    kwargs = {} if initial is None else {"initial": initial}
    got = xs.exact_sum(x, axis=axes, **kwargs)
    moved = np.moveaxis(x, axes, tuple(range(-len(axes), 0)))
    flat = moved.reshape(moved.shape[:-len(axes)] + (-1,))
    if initial is not None:
        flat = np.concatenate([flat, np.full(flat.shape[:-1] + (1,), initial)], axis=-1)
    expected = np.array([exact_sum_oracle(row, np.dtype(np.float64))
                         for row in flat.reshape(-1, flat.shape[-1])])
    assert_same(np.asarray(got), expected.reshape(flat.shape[:-1]))


@pytest.mark.parametrize("n", [3, 159, 160, 2000])
@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_dot_long_rows_with_extreme_products(n, target):
    # Ordinary products (the p + e split, through the large accumulator for
    # long rows) mixed with products that overflow or fall below 2^-1074
    # (the scaled accumulators), all rounded together once.
    from fractions import Fraction

    from oracle import round_fraction
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-40, 40, n))
    b = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-40, 40, n))
    a[0], b[0] = 1e300, 3e200              # overflows
    a[-1], b[-1] = -1e300, 3e200           # cancels it
    a[n // 2], b[n // 2] = 2.0**-600, 3 * 2.0**-600   # below the smallest subnormal
    exact = sum((Fraction(x) * Fraction(y) for x, y in zip(a.tolist(), b.tolist())),
                Fraction(0))
    with np.errstate(over="ignore"):
        got = xs.exact_dot(a, b, dtype=target)
    assert_same(got, round_fraction(exact, target))


@settings(max_examples=40)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=64),
    count=st.integers(min_value=1, max_value=2**59),
)
def test_mean_of_copies_is_the_value(value, count):
    # Long division by any count NumPy allows; zero strides make huge counts cheap.
    x = np.broadcast_to(np.float64(value), (count,))
    assert_same(xs.exact_mean(x), np.float64(value))


@settings(max_examples=40)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=64),
    count=st.integers(min_value=1, max_value=2**40),
    divisor_offset=st.integers(min_value=1, max_value=2**20),
    target=st.sampled_from(TARGETS),
)
def test_mean_divides_exactly(value, count, divisor_offset, target):
    # count copies of value plus divisor_offset zeros: the mean is
    # value * count / (count + divisor_offset), an arbitrary exact quotient.
    from fractions import Fraction

    from oracle import round_fraction
    copies = np.broadcast_to(np.float64(value), (count,))
    zeros = np.broadcast_to(np.float64(0.0), (divisor_offset,))
    states = np.stack([xs.exact_sum_state_ufunc(copies), xs.exact_sum_state_ufunc(zeros)])
    merged = xs.exact_state_merge_ufunc(states)
    n = count + divisor_offset
    with np.errstate(over="ignore"):
        got = xs.exact_state_mean_ufunc(merged, np.int64(n),
                                        signature=(np.int64, np.int64, target))
    # The +0.0 terms make an exact zero +0.0; a tiny quotient keeps its sign.
    expected = round_fraction(Fraction(value) * count / n, target,
                              zero_sign=-1 if value < 0 else 1)
    assert_same(got, expected)


@pytest.mark.parametrize("ufunc,operands", [
    (xs.exact_sum_ufunc, 1), (xs.exact_mean_ufunc, 1), (xs.exact_cumsum_ufunc, 1),
    (xs.exact_dot_ufunc, 2)])
def test_bfloat16_input_uses_its_own_loop(ufunc, operands):
    # NumPy must pick the bfloat16 -> bfloat16 loop, not cast the input to
    # another dtype first (exact, but a full copy) nor round into float16.
    got = ufunc.resolve_dtypes((BFLOAT16,) * operands + (None,))
    assert got == (BFLOAT16,) * (operands + 1)
    for dtype in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)):
        assert ufunc.resolve_dtypes((dtype,) * operands + (None,)) == (dtype,) * (operands + 1)


@pytest.mark.parametrize("value,dtype", [(-2**63, np.int64), (2**64 - 1, np.uint64),
                                         (True, np.bool_), (-7, np.int8), (65535, np.uint16)])
def test_integer_zero_stride_is_an_exact_product(value, dtype):
    from fractions import Fraction

    from oracle import round_fraction
    n = 2**32 + 1
    x = np.broadcast_to(np.array(value, dtype), (n,))
    assert_same(xs.exact_sum(x), round_fraction(Fraction(int(value)) * n, np.dtype(np.float64)))
    assert_same(xs.exact_mean(x), round_fraction(Fraction(int(value)), np.dtype(np.float64)))
