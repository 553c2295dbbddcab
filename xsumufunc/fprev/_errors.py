"""The one error FPRev adds to Python's: the black box is not a plain summation."""


class NotASummationError(ValueError):
    """The tested function did not behave like a fixed-order floating-point summation.

    Raised when an output is not a count of unswallowed units (NaN, Inf, a
    fraction, out of range) or when the measured leaf counts fit no
    summation tree (random or value-dependent order, or an accumulator wider
    than the masks can swallow in).  It is a ``ValueError``, so callers that
    treat bad input generically still catch it.
    """
