"""Board renderers and what the two game screens share.

``backgammon`` and ``spectrangle`` are pure renderers: a position, a size and the
terminal's caps in, canvas cells out. They never touch a terminal, a service or the clock;
the game screens (``door/ui/screens``) decide what to show (cursor, highlights, the
player's side) and pass it in. ``common`` holds the helpers both game screens use (names,
deadlines, the replayed log) and their base class, which loads a game, sends moves and
follows notices through the services.
"""
