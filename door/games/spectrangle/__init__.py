"""Spectrangle rules: board, pieces, state, moves, SPN, aids and the rules object.

Pure stdlib. The rest of door talks to the game through
:class:`door.games.spectrangle.rules.SpectrangleRules`; the screens and bots may also use the
helpers in :mod:`.board`, :mod:`.pieces`, :mod:`.moves` and :mod:`.aids` directly.
"""
