"""SGD on a least-squares problem with bfloat16 or float8 weights.

Four ways to store and update the weights ``w`` (float32 gradients in all):

* ``float32``: the baseline, ``w += u`` in float32;
* ``nearest``: low-precision weights, ``w + u`` rounded to nearest (the
  exact sum rounded once, with ``xsumufunc.exact_sum``): updates below half
  an ulp of a weight are lost, so training stalls, earlier for smaller
  learning rates;
* ``stochastic``: low-precision weights, ``xsumufunc.stochastic_add``;
* ``kahan``: low-precision weights and a compensation buffer of the same
  dtype, ``xsumufunc.kahan_add`` (Zamirai et al., Algorithm 1).

Only the weight update is in low precision here (the forward pass and
gradient are float32 from the stored weights): the paper's finding is that
this update is where 16-bit training loses its accuracy, and at float8's
4 significant bits it is worse.  For float8 the true weights are values of
the format (the problem has an answer the storage can hold; float8 weights
cannot get closer to a general one than its 4-bit grid).

Run ``python examples/lowprec_least_squares.py [--dtype float8_e4m3fn]`` to
print the final losses and write ``docs/images/<dtype>_least_squares.png``;
``--small`` runs the small configuration the tests use.
"""

import argparse
import pathlib
import sys

import ml_dtypes
import numpy as np

import xsumufunc as xs

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT8 = np.dtype(ml_dtypes.float8_e4m3fn)
STORAGE = {"bfloat16": BFLOAT16, "float8_e4m3fn": FLOAT8}
METHODS = ("float32", "nearest", "stochastic", "kahan")
ROOT = pathlib.Path(__file__).resolve().parents[1]
PLOT_NAMES = {BFLOAT16: "bf16_least_squares.png", FLOAT8: "fp8_least_squares.png"}


def make_problem(rng, samples, features, noise, storage=BFLOAT16):
    """X (float32) and y = X w_true + noise (float32); for float8 storage the
    true weights are float8 values."""
    X = rng.standard_normal((samples, features)).astype(np.float32)
    w_true = rng.standard_normal(features)
    if storage == FLOAT8:
        w_true = w_true.astype(FLOAT8).astype(np.float64)
    y = (X.astype(np.float64) @ w_true + noise * rng.standard_normal(samples)).astype(np.float32)
    return X, y


def loss(X, y, w):
    """0.5 * mean squared residual, in float64 (measurement only)."""
    r = X.astype(np.float64) @ np.asarray(w, dtype=np.float64) - y.astype(np.float64)
    return 0.5 * float(r @ r) / len(y)


class Weights:
    """The weights of one method and its update rule."""

    def __init__(self, method, features, rng, storage):
        self.method = method
        self.rng = rng
        self.storage = storage
        dtype = np.float32 if method == "float32" else storage
        self.w = np.zeros(features, dtype=dtype)
        # Kahan compensation: in the weights' dtype, but bfloat16 for
        # float8 weights (a float8 buffer drops updates below half of its
        # own ulp, and stalls as nearest rounding does, only later).
        self.c = np.zeros(features, dtype=BFLOAT16 if storage == FLOAT8 else dtype)

    def as_float32(self):
        return self.w.astype(np.float32)

    def update(self, u):
        """Add the float32 update u."""
        if self.method == "float32":
            self.w += u
        elif self.method == "nearest":
            # w + u exactly, rounded once to nearest in the storage dtype.
            self.w = xs.exact_sum(np.stack([self.w.astype(np.float32), u]), axis=0,
                                  dtype=self.storage)
        elif self.method == "stochastic":
            xs.stochastic_add(self.w, u, rng=self.rng, out=self.w)
        else:
            xs.kahan_add(self.w, self.c, u, out=(self.w, self.c))


def train(X, y, method, lr, steps, batch, seed, every, storage=BFLOAT16):
    """Minibatch SGD; returns (steps, losses) measured every `every` steps."""
    rng = np.random.default_rng(seed)                  # same batches for every method
    weights = Weights(method, X.shape[1], np.random.default_rng(seed + 1), storage)
    lr32 = np.float32(lr)
    at, losses = [0], [loss(X, y, weights.as_float32())]
    for step in range(1, steps + 1):
        rows = rng.integers(0, len(y), batch)
        Xb, yb = X[rows], y[rows]
        w32 = weights.as_float32()
        grad = (Xb.T @ (Xb @ w32 - yb)) / np.float32(batch)
        weights.update((-lr32 * grad).astype(np.float32))
        if step % every == 0:
            at.append(step)
            losses.append(loss(X, y, weights.as_float32()))
    return np.array(at), np.array(losses)


def run(lrs=(0.1, 0.03, 0.01), steps=3000, samples=2048, features=64, batch=64,
        noise=0.05, seed=0, every=20, storage=BFLOAT16):
    """{lr: {method: (steps, losses)}} for every learning rate and method."""
    storage = np.dtype(storage)
    X, y = make_problem(np.random.default_rng(seed), samples, features, noise, storage)
    return {lr: {m: train(X, y, m, lr, steps, batch, seed + 100, every, storage)
                 for m in METHODS}
            for lr in lrs}


def final_loss(curve, last=5):
    """Mean of the last few measured losses (SGD noise averaged out)."""
    return float(np.mean(curve[1][-last:]))


def plot(results, path, storage=BFLOAT16):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lrs = list(results)
    fig, axes = plt.subplots(1, len(lrs), figsize=(4.2 * len(lrs), 3.6), sharey=True)
    axes = np.atleast_1d(axes)
    styles = {"float32": ("k", "-"), "nearest": ("tab:red", "-"),
              "stochastic": ("tab:blue", "--"), "kahan": ("tab:green", ":")}
    for ax, lr in zip(axes, lrs):
        for method, (at, losses) in results[lr].items():
            color, ls = styles[method]
            label = method if method == "float32" else f"{storage}, {method}"
            if method == "kahan" and storage == FLOAT8:
                label += " (bfloat16 c)"
            ax.semilogy(at, losses, color=color, linestyle=ls, label=label, linewidth=1.6)
        ax.set_title(f"learning rate {lr}")
        ax.set_xlabel("step")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("training loss")
    axes[0].legend()
    fig.suptitle(f"SGD on least squares: {storage} weight updates")
    fig.tight_layout()
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


SMALL = dict(lrs=(0.03, 0.01), steps=800, samples=512, features=16, batch=32, every=20)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=sorted(STORAGE), default="bfloat16",
                        help="storage dtype of the weights")
    parser.add_argument("--out", help="PNG file to write (default: docs/images/...)")
    parser.add_argument("--small", action="store_true", help="the small test configuration")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    storage = STORAGE[args.dtype]
    results = run(**SMALL, storage=storage) if args.small else run(storage=storage)
    print(f"{'lr':>6} " + " ".join(f"{m:>12}" for m in METHODS) + "   (final loss)")
    for lr, curves in results.items():
        print(f"{lr:>6} " + " ".join(f"{final_loss(curves[m]):12.4e}" for m in METHODS))
    if not args.no_plot:
        out = args.out or ROOT / "docs" / "images" / PLOT_NAMES[storage]
        print(f"plot: {plot(results, out, storage)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
