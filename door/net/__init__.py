"""Transports: telnet, SSH, rlogin and stdio door mode, each adapted to one Terminal."""
