"""The exceptions of ludo_flow: all are ValueError subclasses, so `except ValueError` catches them."""


class LudoFlowError(ValueError):
    """Base class of every error ludo_flow raises on bad input."""


class PositionError(LudoFlowError):
    """A position string is malformed or describes an impossible position."""


class ActionError(LudoFlowError):
    """An action (integer or notation) is malformed or illegal in the position."""


class ParameterError(LudoFlowError):
    """A game name, variant or parameter is unknown or out of range."""
