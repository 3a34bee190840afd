"""harness_plot: the figures of scripts/plot, one module per family of
figures. Each module exposes FIGURES, a tuple of common.Figure: the PNG's
name, find(results) (what to draw it from, None when the files hold nothing
for it), draw(plt, found) and why(results) (the reason it is skipped).
Matplotlib is imported by scripts/plot and handed in, never here."""

from . import crossover, fusion, loading, program, ready, roofline, visible, waterfall

FAMILIES = (waterfall, crossover, fusion, loading, visible, roofline, program, ready)
FIGURES = tuple(f for family in FAMILIES for f in family.FIGURES)
