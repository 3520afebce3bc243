"""Pure board renderers: a game state, a size and the terminal's caps → canvas cells.

A renderer draws into a :class:`door.ui.canvas.Canvas` it is handed and never touches a
terminal, a service or the clock; the game screens (``door/ui/screens``) decide what to
show (cursor, highlights, the player's side) and pass it in.
"""
