"""Solving Flow: df-pn with a bounded transposition table, proof certificates checked by the
reference engine, and an exhaustive minimax to check the solver (docs/solver.md)."""
from .solver import Prover, Solution, make_certificate, proof_size, settle, solve

__all__ = ["Prover", "Solution", "make_certificate", "proof_size", "settle", "solve"]
