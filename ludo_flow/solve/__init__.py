"""Solving Flow: df-pn with a bounded transposition table, proof certificates checked by the
reference engine, and an exhaustive minimax to check the solver (docs/solver.md).

The search (`solver`, `dfpn`: the kernels) loads on first use of one of its names, so checking
a certificate (`certificate`, the reference engine alone) never imports it."""
SOLVER_NAMES = ("Prover", "Solution", "make_certificate", "proof_size", "settle", "solve")

__all__ = list(SOLVER_NAMES)


def __getattr__(name):
    """Return a name of `solver` (importing it then); AttributeError for any other, so that
    `from ludo_flow.solve import certificate` imports the submodule."""
    if name in SOLVER_NAMES:
        from . import solver
        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
