"""The sequential probability ratio test of a two-agent match, as fishtest and fastchess run it.

`SprtTest` (on the settings `config.parse_sprt` read) keeps the test up to date one finished game at a time, on pentanomial pair counts
(the two games of an opening, colours swapped), and says when it is decided. The statistics
themselves are `agents.ratings`' pure functions.
"""
from .. import ratings

class SprtTest:
    """The SPRT of a two-agent match, kept up to date one record at a time (a long match would
    otherwise recount every record after every game)."""

    def __init__(self, test, first):
        self.test = test      # parse_sprt's dict
        self.first = first    # the agent whose strength is tested
        self.open = {}        # pair id -> first agent's score in the pair's one finished game
        self.counts = [0] * 5  # pentanomial counts of the finished pairs, as ratings.pair_counts

    def add(self, record):
        """Count one finished game (a pair is counted once both its games are in)."""
        score = ratings.RESULT_SCORES[record["result"]]
        if record["white"] != self.first:
            score = 1.0 - score
        other = self.open.pop(record["pair"], None)
        if other is None:
            self.open[record["pair"]] = score
        else:
            self.counts[int(2 * (score + other))] += 1  # LL, LD, WL+DD, WD, WW

    def llr(self):
        """Return the log-likelihood ratio of the finished pairs (0 before the first)."""
        t = self.test
        return ratings.sprt_llr(self.counts, t["elo0"], t["elo1"], t["model"]) if sum(self.counts) else 0.0

    def decision(self):
        """Return "H1", "H0", or None while the test goes on."""
        return ratings.sprt_decision(self.llr(), self.test["alpha"], self.test["beta"])

    def state(self):
        """Return the test's settings with its LLR, bounds, pair counts and decision."""
        t = self.test
        lower, upper = ratings.sprt_bounds(t["alpha"], t["beta"])
        llr = self.llr()
        return dict(t, llr=llr, lower=lower, upper=upper, pairs=list(self.counts),
                    decision=ratings.sprt_decision(llr, t["alpha"], t["beta"]))
