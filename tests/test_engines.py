"""The engine recipes of docs/engines.md, run as they are written: Ray (where
it installs: a local ray.init(num_cpus=1)) and Spark (a local session where
pyspark and Java are present, else a stand-in that splits a pandas frame
into partitions).  Every result is checked against the exact oracle."""

import pathlib
import re
import shutil
import types

import numpy as np
import pandas as pd
import pytest
from oracle import FLOAT64
from oracle_moments import check as check_variance

ROOT = pathlib.Path(__file__).resolve().parents[1]


def recipe(name):
    """The code block of docs/engines.md whose first line is '# recipe: name'."""
    text = (ROOT / "docs" / "engines.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    found = [b for b in blocks if b.startswith(f"# recipe: {name}\n")]
    assert len(found) == 1, f"docs/engines.md has no single '{name}' recipe"
    return found[0]


def data(rows=3000, nkeys=7, seed=3):
    """A frame whose values cancel across parts and keys (float64 sums that
    round at each step go wrong here)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(rows) * 10.0 ** rng.integers(-8, 9, rows)
    x[::3] = 1e16
    x[1::3] = -1e16
    keys = np.array([f"k{i}" for i in rng.integers(0, nkeys, rows)])
    return pd.DataFrame({"key": keys, "x": x})


def check_results(frame, namespace, total_name, by_key_name):
    from xsumufunc.state import finish_var
    x = frame["x"].to_numpy()
    check_variance(finish_var(namespace[total_name], ddof=1), list(map(float, x)), 1,
                   FLOAT64, False)
    keys = namespace["keys"]
    got = finish_var(namespace[by_key_name], ddof=1)
    assert list(keys) == sorted(frame["key"].unique())
    for k, value in zip(keys, got):
        terms = list(map(float, x[frame["key"].to_numpy() == k]))
        check_variance(value, terms, 1, FLOAT64, False)


# ---- Ray -------------------------------------------------------------------------

def test_ray_recipe(capsys):
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install ray)")
    frame = data()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    try:
        namespace = {"frame": frame}
        exec(compile(recipe("ray"), "docs/engines.md (ray)", "exec"), namespace)
    finally:
        if started:
            ray.shutdown()
    check_results(frame, namespace, "total", "by_key")
    assert "variance" in capsys.readouterr().out


# ---- Spark -----------------------------------------------------------------------

class _Rows:
    """The few RDD methods the recipe uses, over a list of rows."""

    def __init__(self, rows):
        self.rows = rows

    def map(self, func):
        return _Rows([func(r) for r in self.rows])

    def reduce(self, func):
        out = self.rows[0]
        for r in self.rows[1:]:
            out = func(out, r)
        return out


class StandInFrame:
    """A pandas frame cut into partitions, with the Spark DataFrame methods
    the recipe uses (mapInPandas, rdd, select/distinct/collect, groupBy/
    applyInPandas, toPandas), run in this process."""

    def __init__(self, partitions):
        self.partitions = [p.reset_index(drop=True) for p in partitions]

    def mapInPandas(self, func, schema):             # noqa: N802 (Spark's name)
        out = []
        for part in self.partitions:
            # Spark hands a partition as Arrow batches: two here when it can.
            batches = [part.iloc[:len(part) // 2], part.iloc[len(part) // 2:]]
            produced = list(func(iter(b for b in batches if len(b))))
            out.append(pd.concat(produced) if produced else pd.DataFrame())
        return StandInFrame(out)

    @property
    def rdd(self):
        rows = [types.SimpleNamespace(**row) for part in self.partitions
                for row in part.to_dict("records")]
        return _Rows(rows)

    def select(self, column):
        return StandInFrame([p[[column]] for p in self.partitions])

    def distinct(self):
        whole = pd.concat(self.partitions).drop_duplicates()
        return StandInFrame([whole])

    def collect(self):
        return self.rdd.rows

    def groupBy(self, column):                        # noqa: N802 (Spark's name)
        frame = self

        class Grouped:
            def applyInPandas(self, func, schema):    # noqa: N802 (Spark's name)
                whole = pd.concat(frame.partitions)
                return StandInFrame([func(g.reset_index(drop=True))
                                     for _, g in whole.groupby(column, sort=False)])
        return Grouped()

    def toPandas(self):                              # noqa: N802 (Spark's name)
        return pd.concat(self.partitions, ignore_index=True)


def _spark_session():
    """A local Spark session, or None (with the reason) where pyspark or Java is
    missing."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return None, "pyspark is not installed"
    if shutil.which("java") is None:
        return None, "Java is not installed"
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[1]").appName("xsumufunc-engines")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    return session, None


def _run_spark_recipe(df, frame, capsys):
    namespace = {"df": df}
    exec(compile(recipe("spark"), "docs/engines.md (spark)", "exec"), namespace)
    check_results(frame, namespace, "total", "by_key")
    # The applyInPandas variant: one state per key, finished on the driver.
    from xsumufunc.state import finish_var
    rows = namespace["rows"]
    x, keys = frame["x"].to_numpy(), frame["key"].to_numpy()
    for k, state in zip(rows["key"], rows["state"]):
        check_variance(finish_var(bytes(state), ddof=1), list(map(float, x[keys == k])), 1,
                       FLOAT64, False)
    assert "variance" in capsys.readouterr().out


def test_spark_recipe_through_the_stand_in(capsys):
    frame = data()
    parts = [frame.iloc[i * len(frame) // 5:(i + 1) * len(frame) // 5] for i in range(5)]
    _run_spark_recipe(StandInFrame(parts), frame, capsys)


# pyspark's own warnings about the pandas and Python it runs with (not ours).
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")
@pytest.mark.filterwarnings("ignore::DeprecationWarning:pyspark")
def test_spark_recipe_on_spark(capsys, monkeypatch):
    import sys
    # The Python workers run this interpreter (the one with xsumufunc).
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    session, reason = _spark_session()
    if session is None:
        pytest.skip(reason)
    frame = data(rows=2000)
    try:
        df = session.createDataFrame(frame, schema="key string, x double").repartition(3)
        _run_spark_recipe(df, frame, capsys)
    finally:
        session.stop()
