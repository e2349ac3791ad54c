"""Options every command shares, and the one place they become settings.

Import them from here, ``humanlike.measures.options``: this package's one entry point for the commands (the
measures' ``cli`` modules, ``app/``), which re-exports the public names of its modules (``__all__``). Each name
is defined, documented and tested in one module:

- :mod:`~humanlike.measures.options.number_types`: the argparse types of numbers (``int_at_least``,
  ``float_in``, ``resample_count``, ``bounded_resample_count``, ``confidence_level``, ``gibibytes``, ...);
- :mod:`~humanlike.measures.options.resampling`: ``--seed/--resamples/--level/--interval/--observer-level/
  --memory-budget/--workers`` and :func:`resampling_settings`, which turns them into the one
  :class:`~humanlike.resampling.settings.ResamplingSettings` that travels to the engine and into every output;
- :mod:`~humanlike.measures.options.exclusions`: ``--exclusions/--no-exclusions``;
- :mod:`~humanlike.measures.options.outputs`: ``--out``, ``--format``, the command line and the run's outputs
  and manifest;
- :mod:`~humanlike.measures.options.terminal`: ``--json``, ``--quiet``, progress bars, JSON on standard output;
- :mod:`~humanlike.measures.options.data`: ``--humans``, ``--labels``, ``--on-conflict`` and loading the DATA
  with its sources;
- :mod:`~humanlike.measures.options.families`: the modules of the optional command families and the one message
  for a missing optional extra (``require_extra``).

The modules of this package import one another directly, never through this file.
"""

from __future__ import annotations

from .data import (ON_CONFLICT_HELP, add_data_options, add_on_conflict_option, data_labels, data_mapping,
                   exported_designs, load_data, load_data_with_sources, record_sources, with_sources)
from .exclusions import EXCLUSIONS_HELP, ExclusionsOption, add_exclusion_options, exclusions_of, exclusions_record
from .families import EXTRA_MODULES, optional_module, require_extra
from .number_types import (bounded_resample_count, confidence_level, count, float_in, gibibytes, int_at_least,
                           positive_count, probability, resample_count, seed_value)
from .outputs import (DEFAULT_OUT, NOT_OPTIONS, OUT_HELP, OUTPUT_FILE_OPTIONS, OUTPUT_OPTIONS, TEXT_INPUTS,
                      WORK_OPTIONS, add_output_options,
                      command_inputs, command_line, output_path, run_outputs, settle_output_paths)
from .resampling import (INTERVAL_HELP, OBSERVER_LEVEL_HELP, RESAMPLES_DEFAULT_EXCEPTIONS, add_level_option,
                         add_resampling_options, add_seed_option, interval_record, resampling_settings)
from .terminal import StageProgress, add_json_option, add_quiet_option, emit_json, show_progress

__all__ = [
    # number_types
    "bounded_resample_count", "confidence_level", "count", "float_in", "gibibytes", "int_at_least", "positive_count",
    "probability", "resample_count", "seed_value",
    # resampling
    "INTERVAL_HELP", "OBSERVER_LEVEL_HELP", "RESAMPLES_DEFAULT_EXCEPTIONS", "add_level_option", "add_resampling_options",
    "add_seed_option", "interval_record", "resampling_settings",
    # exclusions
    "EXCLUSIONS_HELP", "ExclusionsOption", "add_exclusion_options", "exclusions_of", "exclusions_record",
    # outputs
    "DEFAULT_OUT", "NOT_OPTIONS", "OUT_HELP", "OUTPUT_FILE_OPTIONS", "OUTPUT_OPTIONS", "TEXT_INPUTS", "WORK_OPTIONS",
    "add_output_options",
    "command_inputs", "command_line", "output_path", "run_outputs", "settle_output_paths",
    # terminal
    "StageProgress", "add_json_option", "add_quiet_option", "emit_json", "show_progress",
    # data
    "ON_CONFLICT_HELP", "add_data_options", "add_on_conflict_option", "data_labels", "data_mapping", "load_data",
    "exported_designs", "load_data_with_sources", "record_sources", "with_sources",
    # families
    "EXTRA_MODULES", "optional_module", "require_extra",
]
