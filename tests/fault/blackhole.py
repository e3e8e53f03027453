#!/usr/bin/env python3
"""A server that accepts connections on 127.0.0.1 and never answers: a
database that hangs. Prints its port, keeps every connection open, and
ends by itself after SECONDS (argv[1], 120 by default) or on SIGTERM."""
import signal
import socket
import sys
import time

life = float(sys.argv[1]) if len(sys.argv) > 1 else 120.0
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
srv.settimeout(0.2)
print(srv.getsockname()[1], flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
held = []
end = time.monotonic() + life
while time.monotonic() < end:
    try:
        c, _ = srv.accept()
        held.append(c)
    except socket.timeout:
        pass
