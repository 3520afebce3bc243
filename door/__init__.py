"""door: a BBS-style door server for Backgammon and Spectrangle played by turns."""

__version__ = "0.1.0"
