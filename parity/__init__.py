"""Parity harness: every spec in ``parity/specs`` run in pyiml and in CRAN iml (through
``r_bridge``), compared, and reported in ``parity/REPORT.md``. Run with ``python -m parity``."""
