"""Plots of pyiml's results with matplotlib, one module per method.

Each method's ``.plot()`` imports its module here lazily and gets a
:class:`matplotlib.figure.Figure` that mirrors iml's ggplot layers; the computation modules
never import matplotlib, and nothing here calls ``plt.show()``.
"""
