"""Front ends: models from other frameworks into the echo dialect.

``fx_importer``: PyTorch ``nn.Module`` -> Echo model, through torch.fx (the
command line is ``python3 -m echo.import_torch``); its handlers live in
``fx_modules`` (torch.nn modules) and ``fx_functions`` (functions and
methods), its typed errors in ``errors``.
"""

from echo.frontend.errors import (ImporterError, UnsupportedError,
                                  UsageError)
from echo.frontend.fx_importer import (ImportedModel, import_module,
                                       parse_input)

__all__ = ["ImportedModel", "ImporterError", "UnsupportedError",
           "UsageError", "import_module", "parse_input"]
