"""Pure game rules: stdlib only, no I/O, no randomness that was not handed in."""
