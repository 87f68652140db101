"""A person at the terminal as an agent: the legal actions are listed, bad input is asked again."""
import sys

from .base import BaseAgent, check_state


class HumanAgent(BaseAgent):
    """Reads the action in notation from a person (stdin by default) and checks it is legal.

    `last_stats` is always empty (`STATS_KEYS` is empty). Ctrl-C at the prompt, or the end of
    the input, raises KeyboardInterrupt."""

    agent_name = "human"
    STATS_KEYS = ()
    settings = {}

    def __init__(self, input_fn=None, output=None, **options):
        self._input = input_fn or input
        self._output = output or sys.stdout
        super().__init__(**options)

    def reset(self, seed=None):
        """Nothing to forget between games."""

    def select_action(self, state):
        """Return the action the person types (asks again until it is legal)."""
        check_state(state)
        legal = state.legal_actions()
        names = sorted(state.action_to_string(a) for a in legal)
        print(str(state), file=self._output)
        print(f"{'White' if state.current_player() == 0 else 'Black'} to move; legal: "
              + " ".join(names), file=self._output)
        while True:
            try:
                text = self._input("your move> ")
            except EOFError:
                raise KeyboardInterrupt from None  # the person left: stop the game
            try:
                action = state.parse_action(text)
            except ValueError as err:
                print(f"{err}; try again", file=self._output)
                continue
            self.last_stats = {}
            return action
