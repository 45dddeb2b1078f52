"""Servers found on the local network: DNS-SD over multicast DNS (RFC 6762, RFC 6763), with
python-zeroconf.

``quinze serve`` announces one service of type :data:`SERVICE_TYPE` (:mod:`.announce`);
``quinze servers`` and ``quinze play`` without ``--server`` browse for them (:mod:`.browse`).
Only IPv4 is announced and browsed. The TXT record of a server (every value a string):

- ``name``: the server's name (``quinze serve --name``, the machine's host name by default);
- ``version``: the Quinze version of the server; ``protocol``: the protocol version it speaks
  (PROTOCOL.md ``hello.version``);
- ``games``: the game ids it offers, comma-separated;
- ``tables``: its open tables (waiting or playing); ``free``: those of them that still wait for
  players (a free seat).

The interfaces used (:func:`.addresses.interfaces`) follow the listening address of the server
(loopback for 127.0.0.1, every interface for 0.0.0.0); the environment variable
:data:`.addresses.INTERFACES_ENV` (IPv4 addresses, comma-separated) restricts both the announcer
and the browser to those interfaces, e.g. ``127.0.0.1`` for this machine only.
"""

SERVICE_TYPE = "_quinze._tcp.local."
"""The DNS-SD service type of a Quinze server."""
