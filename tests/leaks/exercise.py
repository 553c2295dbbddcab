"""Call every public function once, error paths included, on small inputs.

Used by tests/test_leaks.py (repeated calls must not grow memory) and run
under valgrind memcheck (docs/hardening.md):

    PYTHONMALLOC=malloc valgrind --leak-check=full python tests/leaks/exercise.py
"""

import warnings

import ml_dtypes
import numpy as np

import xsumufunc as xs

BF16 = np.dtype(ml_dtypes.bfloat16)


def _inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(300) * np.exp2(rng.integers(-200, 200, 300))
    x[::7] = -x[::7] * 1e200
    return {
        "x": x,
        "x2": x.reshape(15, 20),
        "f32": (x * 1e-280).astype(np.float32),
        "bf16": (x * 1e-280).astype(np.float32).astype(BF16),
        "z": x + 1j * x[::-1],
        "i": rng.integers(-2**40, 2**40, 300),
        "long": np.tile(x, 3600),                   # > 2**20: the internal threads
        "swapped": x.astype(">f8")[::-1],
    }


def calls():
    """name -> zero-argument call; errors the calls are meant to raise are caught."""
    d = _inputs()
    out4 = np.zeros(20)
    state = xs.exact_sum_state_ufunc(d["x2"])
    table = {
        "sum": lambda: xs.exact_sum(d["x"]),
        "sum axis out": lambda: xs.exact_sum(d["x2"], axis=0, out=out4),
        "sum where initial": lambda: xs.exact_sum(d["x2"], axis=1, where=d["x2"] > 0,
                                                  initial=1.5, dtype=np.float32),
        "sum multi-axis": lambda: xs.exact_sum(d["x2"].T, axis=(0, 1), keepdims=True),
        "nansum": lambda: xs.exact_nansum(d["z"]),
        "mean": lambda: xs.exact_mean(d["bf16"], dtype=np.float16),
        "nanmean": lambda: xs.exact_nanmean(d["x2"], axis=0, where=d["x2"] < 0),
        "dot": lambda: xs.exact_dot(d["x2"], d["x2"][::-1]),
        "dot complex": lambda: xs.exact_dot(d["z"], d["x"]),
        "dot int": lambda: xs.exact_dot(d["i"] % 1000, d["i"] % 777),
        "dot wide int": lambda: xs.exact_dot(d["i"] * 2**22 + 1, d["i"]),
        "add": lambda: xs.exact_add(d["x"], 1.0),
        "reduce": lambda: xs.exact_add.reduce(d["x2"]),
        "accumulate": lambda: xs.exact_add.accumulate(d["f32"], dtype=BF16),
        "accumulate complex": lambda: xs.exact_add.accumulate(d["z"]),
        "reduceat": lambda: xs.exact_add.reduceat(d["x"], [0, 5, 3, 100]),
        "long row": lambda: xs.exact_sum(d["long"]),
        "swapped": lambda: xs.exact_mean(d["swapped"]),
        "ufuncs": lambda: (xs.exact_sum_ufunc(d["i"]), xs.exact_mean_ufunc(d["f32"]),
                           xs.exact_cumsum_ufunc(d["bf16"]), xs.exact_dot_ufunc(d["x"], d["x"])),
        "states": lambda: xs.exact_state_mean_ufunc(xs.exact_state_merge_ufunc(state), 7),
        "state round": lambda: xs.exact_state_round_ufunc(state, signature=(np.int64, BF16)),
        "threads": lambda: (xs.set_num_threads(2), xs.get_num_threads(), xs.set_num_threads(None)),
        # The small calls' compiled paths (state checks and canonical form,
        # segment sums, the low-precision loops' common calls).
        "public states": lambda: xs.state_mean(xs.merge_states(np.stack(
            [xs.exact_sum_state(d["x"]), xs.exact_sum_state(d["f32"])])), 600),
        "reduceat short": lambda: xs.exact_add.reduceat(d["x"], np.array([0, 5, 3, 100])),
        "reduceat short inf": lambda: xs.exact_add.reduceat(d["x"] * 1e300, np.array([0, 9])),
        "updates": lambda: (xs.kahan_add(d["f32"], d["f32"], d["x"]),
                            xs.stochastic_add(d["f32"], d["x"], np.zeros(300, np.uint32)),
                            xs.stochastic_round(d["x"], np.float32, np.zeros(300, np.uint32))),
    }
    errors = {
        "bad dtype": (TypeError, lambda: xs.exact_sum(np.array(["a"]))),
        "bad result dtype": (TypeError, lambda: xs.exact_mean(d["x"], dtype=np.int32)),
        "bad axis": (np.exceptions.AxisError, lambda: xs.exact_sum(d["x"], axis=3)),
        "bad out shape": (ValueError, lambda: xs.exact_sum(d["x2"], axis=1, out=out4)),
        "bad out type": (TypeError, lambda: xs.exact_dot(d["x"], d["x"], out=[0.0])),
        "read-only out": (ValueError, lambda: xs.exact_sum(d["x"], out=np.broadcast_to(0.0, ()))),
        "bad where": (TypeError, lambda: xs.exact_sum(d["x"], where="yes")),
        "where shape": (ValueError, lambda: xs.exact_nansum(d["x2"], where=np.ones(3, bool))),
        "masked": (TypeError, lambda: xs.exact_mean(np.ma.array(d["x"]))),
        "bad initial": (TypeError, lambda: xs.exact_sum(d["x"], initial="1")),
        "dot lengths": (ValueError, lambda: xs.exact_dot(d["x"], d["x"][1:])),
        "dot int64": (TypeError, lambda: xs.exact_dot_ufunc(d["i"] * 2**22 + 1, d["i"])),
        "reduceat index": (IndexError, lambda: xs.exact_add.reduceat(d["x"], [400])),
        "reduceat short index": (IndexError,
                                 lambda: xs.exact_add.reduceat(d["x"], np.array([0, 400]))),
        "bad state": (ValueError, lambda: xs.round_state(np.full(69, -1))),
        "accumulate 0-d": (ValueError, lambda: xs.exact_add.accumulate(1.0)),
        "ufunc type": (TypeError, lambda: xs.exact_sum_ufunc(np.array(["a"]))),
        "threads": (ValueError, lambda: xs.set_num_threads(-1)),
    }
    for name, (error, call) in errors.items():
        table["error: " + name] = _expecting(error, call)
    return table


def _expecting(error, call):
    def run():
        try:
            call()
        except error:
            return
        raise AssertionError(f"{error.__name__} not raised")
    return run


def main():
    warnings.simplefilter("ignore")
    table = calls()
    for _ in range(3):
        for call in table.values():
            call()
    print(f"exercised {len(table)} calls")


if __name__ == "__main__":
    main()
