"""Adapters to other game-AI ecosystems (docs/adapters.md), each an optional extra.

`ludo_flow.adapters.openspiel` (pip install "ludo_flow[openspiel]") registers both games with
OpenSpiel; `ludo_flow.adapters.pettingzoo` (pip install "ludo_flow[pettingzoo]") makes them
PettingZoo AEC environments; `ludo_flow.adapters.raster` draws a board as an RGB array with
numpy alone. Importing this package imports none of them, so the core never needs the extras.
"""
