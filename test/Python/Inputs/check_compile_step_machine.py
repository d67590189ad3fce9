"""compile_step's machine= argument: each file given is refused with a
ValueError before anything is compiled."""
import os
import sys

import torch

from echo.torch import compile_step

for path in sys.argv[1:]:
    model = torch.nn.Linear(4, 2)
    try:
        compile_step(model, torch.zeros(3, 4), torch.zeros(3, dtype=torch.long),
                     machine=path)
        print(f"{os.path.basename(path)}: accepted")
    except Exception as e:  # the type is what the test checks
        print(f"{os.path.basename(path)}: {type(e).__name__}: {e}")
