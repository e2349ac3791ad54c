"""Every plot function draws into the caller's axes (``ax=``) and returns their figure (issue 33: a notebook user
places our figures in their own)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from humanlike.resampling.settings import ResamplingSettings  # noqa: E402

MEASURES = Path(__file__).resolve().parents[2] / "src" / "humanlike" / "measures"
SETTINGS = ResamplingSettings(n_resamples=30, seed=0)


def plot_functions():
    for path in sorted(MEASURES.glob("*/plot.py")):
        module = importlib.import_module(f"humanlike.measures.{path.parent.name}.plot")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.endswith("_figure") and function.__module__ == module.__name__:
                yield f"{path.parent.name}.{name}", function


@pytest.mark.parametrize("name,function", list(plot_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_plot_function_takes_ax(name, function):
    parameters = inspect.signature(function).parameters
    assert "ax" in parameters and parameters["ax"].default is None, f"{name} takes no ax="
    assert "ax :" in (function.__doc__ or ""), f"{name} does not document ax"


def test_one_panel_plot_draws_into_the_callers_axes():
    from humanlike.measures.shapebias.analysis import shape_bias_analysis
    from humanlike.measures.shapebias.measure import simulate
    from humanlike.measures.shapebias.plot import shape_bias_figure

    result = shape_bias_analysis(simulate(0).data, settings=SETTINGS)
    fig, (left, right) = plt.subplots(1, 2)
    assert shape_bias_figure(result, ax=right) is fig
    assert right.has_data() and not left.has_data()
    assert len(plt.get_fignums()) == 1                     # no figure of its own
    plt.close("all")


def test_several_panel_plots_take_as_many_axes_and_refuse_others():
    from humanlike.measures.mlds.analysis import analyse_mlds
    from humanlike.measures.mlds.plot import mlds_scale_figure
    from humanlike.measures.mlds.simulate import simulate_judgements

    results = analyse_mlds(simulate_judgements(np.linspace(0, 1, 7) ** 2, 0.15, repeats=2, seed=0), settings=SETTINGS)
    fig, axes = plt.subplots(2, 2)
    assert mlds_scale_figure(results, ncols=1, ax=axes[0, 0]) is fig     # one scale: one panel
    assert axes[0, 0].get_title() == "simulated" and axes[0, 1].get_title() == ""
    with pytest.raises(ValueError, match="give 1 axes"):
        mlds_scale_figure(results, ncols=1, ax=axes)
    plt.close("all")


def test_the_benchmark_figure_fills_two_axes_of_a_bigger_figure():
    from humanlike.measures.ec.benchmark import run_benchmark
    from humanlike.measures.ec.plot import benchmark_figure
    from humanlike.trials.simulate import simulate_benchmark

    result = run_benchmark(simulate_benchmark(seed=0, n_humans=3, n_items=24), settings=SETTINGS)
    fig, axes = plt.subplots(2, 2)
    assert benchmark_figure(result, ax=axes[1]) is fig
    assert axes[1, 0].has_data() and axes[1, 1].has_data() and not axes[0, 0].has_data()
    plt.close("all")
