"""Picking a server found on the local network, in French, in a real terminal (pexpect, 80x24;
issue 14 §3): the search, the list, a wrong pick (one server: "Tapez 1 pour le serveur
affiché"), the pick by number into the French lobby; and a server that stops, told in French with
the other server offered. Real processes and real multicast (tests/lankit.py); no duration is
asserted.
"""

from __future__ import annotations

import signal

import pexpect
import pytest
from lankit import lan
from test_lan import launch, started, stop, wait_for
from test_lan_play import close, look_until_listed, spawn, words


def test_servers_are_listed_and_picked_in_french(tmp_path):
    with lan() as net:
        server, port, _ = started(launch(net, "--name", "Salle A"))
        child = None
        try:
            wait_for(net, lambda s: s["port"] == port, f"on port {port}")
            child = spawn(net, tmp_path, "--name", "Bea", "--lang", "fr")
            look_until_listed(child, words("Recherche de serveurs Quinze sur le réseau local…"),
                              r"Serveurs du réseau local :[\s\S]*?Salle A\s+\S+:\d+", "Aucun serveur Quinze n'a répondu",
                              words("« l » pour jouer sur cette machine contre les robots intégrés"))
            if net.kind == "netns":  # alone on its network: the only server listed
                child.sendline("7")
                child.expect(words("Tapez 1 pour le serveur affiché, « l », Entrée ou « q »."))
            else:
                child.sendline("0")
                child.expect(r"Tapez (1 pour le serveur affiché|le numéro d'un serveur \(1 à \d+\)), « l », Entrée ou « q »\.")
            child.expect_exact("serveur> ")
            child.sendline("1" if net.kind == "netns" else "")
            if net.kind != "netns":
                pytest.skip("on a shared loopback the number of Salle A is not known")
            child.expect("Tables sur ")
            child.expect_exact("salon> ")
            child.sendline("q")
            child.expect(pexpect.EOF)
        finally:
            if child is not None:
                close(child)
            stop(server)


def test_a_server_that_stops_is_told_in_french_and_another_is_offered(tmp_path):
    with lan() as net:
        procs = [launch(net, "--name", "Salle A"), launch(net, "--name", "Salle B")]
        child = None
        try:
            (first, port_a, _), (_second, port_b, _) = map(started, procs)
            wait_for(net, lambda s: s["port"] == port_b, f"on port {port_b}")
            child = spawn(net, tmp_path, "--server", f"{net.server_address}:{port_a}", "--name", "Bea", "--lang", "fr")
            child.expect_exact("salon> ")
            first.send_signal(signal.SIGINT)
            child.expect(words(f"Le serveur {net.server_address}:{port_a} s'est arrêté"))
            look_until_listed(child, words("Recherche d'un autre serveur sur le réseau local…"), rf"Salle B\s+\S+:{port_b}",
                              "Aucun serveur Quinze n'a répondu", words("Entrée pour chercher de nouveau, « q » pour quitter."),
                              what="the other server")
            assert "Reconnecting" not in child.before and "Reconnexion" not in child.before
            child.sendline("l")  # no local game offered after a stop
            child.expect(r"Tapez (1 pour le serveur affiché|le numéro d'un serveur \(1 à \d+\)), Entrée ou « q »\.")
            child.expect_exact("serveur> ")
            child.sendline("q")
            child.expect(pexpect.EOF)
        finally:
            if child is not None:
                close(child)
            stop(*procs)
