"""Front ends: models from other frameworks into the echo dialect.

The PyTorch importer works at the ATen level (the command line is
``python3 -m echo.import_torch``): ``trace`` traces a module with make_fx
over functionalize (concrete shapes, real mode), ``importer`` visits the
graph and dispatches each node to its handler in the ``aten`` table (one
module per op family), after ``canonicalize``; ``literals`` converts
arguments and writes constants, ``decomp`` lists the decompositions traced
with, ``errors`` holds the typed errors.
"""

from echo.frontend.errors import (ImporterError, UnsupportedError,
                                  UsageError)
from echo.frontend.importer import (ImportedModel, LossSpec, import_module,
                                    parse_input)

__all__ = ["ImportedModel", "ImporterError", "LossSpec", "UnsupportedError",
           "UsageError", "import_module", "parse_input"]
