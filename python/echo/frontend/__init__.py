"""Front ends: models from other frameworks into the echo dialect.

``fx_importer``: PyTorch ``nn.Module`` -> Echo model, through torch.fx (the
command line is ``python3 -m echo.import_torch``).
"""

from echo.frontend.fx_importer import (ImportedModel, UnsupportedError,
                                       import_module, parse_input)

__all__ = ["ImportedModel", "UnsupportedError", "import_module",
           "parse_input"]
