"""The floating-point formats FPRev can mask, and what it assumes about each.

A format is described by its precision ``p`` (significand bits including the
implicit one), the exponent of its largest power of two and the exponent of
its smallest subnormal.  ``widest`` is the precision of the widest accumulator
a function summing this format may use that the mask of the format can still
swallow units in (see ``_masks.py``).
"""

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class Format:
    name: str
    dtype: np.dtype
    precision: int
    max_exponent: int
    subnormal_exponent: int
    widest: int


# binary128 (113 bits) covers every accumulator in use for the wide-range
# formats: float64, x87 extended (64), double-double (106).  float16's whole
# range spans only 40 binades, so no mask can swallow a representable unit in
# float64: its widest accumulator is float32, the one NumPy uses for it.
FORMATS = {
    f.dtype: f
    for f in (
        Format("float64", np.dtype(np.float64), 53, 1023, -1074, 113),
        Format("float32", np.dtype(np.float32), 24, 127, -149, 113),
        Format("float16", np.dtype(np.float16), 11, 15, -24, 24),
        Format("bfloat16", np.dtype(ml_dtypes.bfloat16), 8, 127, -133, 113),
    )
}

SUPPORTED_NAMES = "float64, float32, float16 or bfloat16"


def format_of(dtype, argname):
    """The Format of a dtype-like; TypeError naming ``argname`` otherwise."""
    try:
        resolved = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{argname} must be a dtype ({SUPPORTED_NAMES}); got {dtype!r}") from exc
    if resolved.byteorder not in "=|":
        resolved = resolved.newbyteorder("=")
    try:
        return FORMATS[resolved]
    except KeyError:
        raise TypeError(
            f"{argname} must be {SUPPORTED_NAMES}; got {resolved}") from None
