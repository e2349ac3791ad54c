"""Files out: tidy tables as CSV/Parquet/JSON and figures, always written atomically, and the run manifest.

Import them from here, ``humanlike.files``: this package's one entry point for the rest of humanlike (the lowest
layer: it imports no other part of it), which re-exports the public names of its modules (``__all__``). Each
name is defined, documented and tested in one module:

- :mod:`~humanlike.files.atomic`: the one atomic writer :func:`atomic_write` (a temporary file renamed into
  place; unnamed until complete on Linux), ``atomic_write_text``, ``atomic_write_bytes`` and
  :class:`OutputPathError`;
- :mod:`~humanlike.files.formats`: JSON text and files (``to_json_text``, ``write_json``), tables
  (``TABLE_FORMATS``, ``table_format``, ``table_path``, ``write_table``) and figures (``save_figure``);
- :mod:`~humanlike.files.manifest`: the run manifest (``MANIFEST_NAME``, ``MANIFEST_FORMAT``,
  ``manifest_entry``, ``write_manifest``, ``read_manifest``);
- :mod:`~humanlike.files.run_outputs`: the files of one run, :class:`RunOutputs` (collision checks, the manifest
  in progress until the run finishes), :class:`OutputCollisionError`, ``check_output_folder``,
  ``check_outputs_spare_inputs`` and ``file_in_folder``.

The modules of this package import one another directly, never through this file.
"""

from __future__ import annotations

from .atomic import OutputPathError, atomic_write, atomic_write_bytes, atomic_write_text
from .formats import TABLE_FORMATS, save_figure, table_format, table_path, to_json_text, write_json, write_table
from .manifest import MANIFEST_FORMAT, MANIFEST_NAME, manifest_entry, read_manifest, write_manifest
from .run_outputs import (OutputCollisionError, RunOutputs, check_output_folder, check_outputs_spare_inputs,
                          file_in_folder)

__all__ = [
    # atomic
    "OutputPathError", "atomic_write", "atomic_write_bytes", "atomic_write_text",
    # formats
    "TABLE_FORMATS", "save_figure", "table_format", "table_path", "to_json_text", "write_json", "write_table",
    # manifest
    "MANIFEST_FORMAT", "MANIFEST_NAME", "manifest_entry", "read_manifest", "write_manifest",
    # run_outputs
    "OutputCollisionError", "RunOutputs", "check_output_folder", "check_outputs_spare_inputs", "file_in_folder",
]
