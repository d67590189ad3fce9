"""Python helpers of the Echo project (standard library only).

Submodules:

* :mod:`echo.models` -- builders that emit Echo training graphs (MLP, LSTM,
  NMT, Transformer, ResNet, DeepSpeech2) as MLIR text in generic op form,
  and a command line, ``python3 -m echo.models <model> [--key=value ...]``.

Submodules are not imported here, so that ``python3 -m echo.models`` runs the
module exactly once.
"""
