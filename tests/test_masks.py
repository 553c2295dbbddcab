"""One rule for masks (issue 28): every array argument of every public
function refuses numpy.ma arrays and numpy.ma.masked with a TypeError that
names the argument and says how to pass the mask (where=~mask).  np.asarray
drops a mask, so before, vector_norm(np.ma.array([1., 2., 4.], mask=[0, 1,
0])) gave sqrt(21), and a masked where=, codes= or initial=np.ma.masked were
taken with the mask ignored."""

import inspect

import numpy as np
import pytest

import xsumufunc as xs
from xsumufunc import array_api as xp

M = np.ma.array([1.0, 2.0, 4.0], mask=[0, 1, 0])
WHERE = np.ma.array([True, False, True], mask=[0, 1, 0])
CODES = np.ma.array([0, 1, 0], mask=[0, 1, 0])
X = np.array([1.0, 2.0, 4.0])
F32 = np.zeros(3, np.float32)


def _public():
    """Every dispatching public function: {name: (callable, its Function)}."""
    from xsumufunc._api import add
    found = {}
    callables = [getattr(m, n) for m in (xs, xp, xp.linalg) for n in m.__all__]
    callables += [add._reduce, add._accumulate, add._reduceat]   # exact_add's methods
    for f in callables:
        function = getattr(f, "dispatched", None)
        if function is not None:
            found[function.name] = (f, function)
    return found


# Valid arguments of each function, by argument name; one at a time is masked.
VALID = {"a": X, "x": X, "x1": X, "x2": X, "b": X, "values": X, "codes": np.array([0, 1, 0]),
         "where": np.array([True, True, True]), "initial": 0.0, "indices": [0, 1],
         "state": xs.exact_sum_state(X), "states": np.stack([xs.exact_sum_state(X)] * 2),
         "count": 3, "w": F32, "c": F32, "u": F32, "bits": np.zeros(3, np.uint32),
         "weights": np.ones(3), "m": X, "y": X, "fweights": np.array([1, 2, 1]),
         "aweights": np.ones(3)}
MASKED = {"where": WHERE, "codes": CODES, "initial": np.ma.masked, "count": np.ma.masked,
          "indices": np.ma.array([0, 1], mask=[0, 1]),
          "bits": np.ma.array(np.zeros(3, np.uint32), mask=[0, 1, 0])}
EXTRA = {"exact_grouped_sum": {"ngroups": 2}, "exact_grouped_mean": {"ngroups": 2},
         "exact_grouped_var": {"ngroups": 2}, "exact_grouped_std": {"ngroups": 2},
         "exact_moving_sum": {"window": 2}, "exact_moving_mean": {"window": 2},
         "exact_moving_var": {"window": 2}, "exact_moving_std": {"window": 2},
         "stochastic_round": {"dtype": np.float32}}
PUBLIC = _public()
CASES = [(name, arg) for name, (_, f) in sorted(PUBLIC.items()) for arg in f.arrays]


def test_the_table_covers_every_public_function():
    assert len(CASES) > 40
    names = {name for name, _ in CASES}
    assert {"vector_norm", "exact_sum", "exact_grouped_sum", "kahan_add", "merge_states",
            "exact_moving_mean", "exact_add.reduce", "exact_add.reduceat"} <= names


@pytest.mark.parametrize(("name", "arg"), CASES)
def test_every_masked_array_argument_is_refused(name, arg):
    call, function = PUBLIC[name]
    kwargs = {p: VALID[p] for p in function.arrays}
    kwargs.update(EXTRA.get(name, {}))
    kwargs[arg] = MASKED.get(
        arg, np.ma.array(kwargs[arg], mask=np.ones(np.shape(kwargs[arg]), bool)))
    with pytest.raises(TypeError, match=rf"{name}: {arg} is a numpy.ma masked array.*"
                                        r"(where=|takes no where=)"):
        call(**kwargs)


def test_the_issues_calls():
    with pytest.raises(TypeError, match="vector_norm: x is a numpy.ma masked array"):
        xp.linalg.vector_norm(M)
    with pytest.raises(TypeError, match=r"exact_sum: where .*where.filled\(False\)"):
        xs.exact_sum(X, where=WHERE)
    with pytest.raises(TypeError, match="exact_grouped_sum: codes is a numpy.ma"):
        xs.exact_grouped_sum(X, CODES, 2)
    with pytest.raises(TypeError, match="exact_sum: initial is a numpy.ma"):
        xs.exact_sum(X, initial=np.ma.masked)
    with pytest.raises(TypeError, match=r"exact_mean: a .*where=~numpy.ma.getmaskarray\(a\)"):
        xs.exact_mean(M)
    assert "where" not in inspect.signature(xs.exact_moving_sum).parameters
    with pytest.raises(TypeError, match=r"takes no where=.*a.compressed\(\)"):
        xs.exact_moving_sum(M, 2)
    # The advice works: the mask as where=~mask gives the sum of the others.
    assert xs.exact_sum(M.data, where=~np.ma.getmaskarray(M)) == 5.0
