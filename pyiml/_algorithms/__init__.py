"""Reimplementations of the R primitives and algorithms that parity with iml needs."""
