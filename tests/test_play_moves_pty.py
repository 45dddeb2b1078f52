"""Moves and words in ``quinze play`` after what a newcomer hit by hand (issue 14), in a real
terminal (pexpect; 80x24 and 120x40, English and French): Le Quinze ends a turn by itself when
``end`` is all that is left, Le 14 does not offer to undo the swap just made, classique asks
before ``raise max`` and reads the French words of its rules text (« je m'y tiens », « je
tiens », « parole »), error texts name jokers as typed and quote in French with « », and the
others hear that a player has been thinking long (the server's ``thinking_long`` set small).

No duration is asserted: waits are pexpect timeouts.
"""

from __future__ import annotations

import re
import subprocess

import pexpect
import pytest
from playkit import CLOSED, ENTER, PROMPT, QUINZE, TIMEOUT, last_screen, move_prompts, quit_game, spawn_local as local, spawn_play as spawn
import forkkit

LISTED = re.compile(r"^\s+(\d+)\) (.+?)\s*$", re.M)


def words(text: str) -> str:
    """A pattern for ``text`` however the terminal wrapped it."""
    return r"\s+".join(re.escape(w) for w in text.split())


def listed(child: pexpect.spawn) -> list[tuple[str, str]]:
    return LISTED.findall(last_screen(child))


# ---------------------------------------------------------------- Le Quinze: a turn that can only end


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), "fr")])
def test_le_quinze_ends_the_turn_itself_when_nothing_else_is_possible(env, size, lang):
    """quinze_cli/rules/quinze.md "A turn", step 3: after a fifteen the turn ends; with no other
    fifteen to make, ``end`` would be the only entry: it is played without a question."""
    fr = lang == "fr"
    child = local(env, "quinze", "--seed", "4", "--opponents", "builtin:greedy", size=size, lang=lang)
    ended = False
    for _ in move_prompts(child, 200):
        entries = listed(child)
        assert [e for _, e in entries] != ["end the turn"] and [e for _, e in entries] != ["finir le tour"], entries
        if "Plus rien à faire : votre tour se termine." in last_screen(child) or \
                "Nothing else to do: your turn ends." in last_screen(child):
            ended = True
            break
        child.sendline("1")
    assert ended, "no turn ended by itself"
    quit_game(child, fr)


# ---------------------------------------------------------------- Le 14: no undo of the swap just made


def _undoes(done: str, entry: str) -> bool:
    """True when the listed ``entry`` gives back what the swap ``done`` (``swap 9S for 6H 3D of
    #1`` as listed) took, on the same combination, by ranks."""
    m = re.match(r"(?:swap|échanger) (.+?) (?:for|contre) (.+?) (?:of|de) #(\d+)", done)
    n = re.match(r"(?:swap|échanger) (.+?) (?:for|contre) (.+?) (?:of|de) #(\d+)", entry)
    if not m or not n:
        return False

    def ranks(cards: str) -> list[str]:
        return sorted(c[:-1] for c in cards.split())

    return n.group(3) == m.group(3) and ranks(n.group(1)) == ranks(m.group(2)) and ranks(n.group(2)) == ranks(m.group(1))


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), "fr")])
def test_le_14_does_not_list_the_undoing_of_the_swap_just_made(env, size, lang):
    swapped = None
    for seed in range(1, 30):
        child = local(env, "quatorze", "--seed", str(seed), "--opponents", "builtin:greedy", size=size, lang=lang)
        for _ in move_prompts(child, 40):
            entries = listed(child)
            rows = last_screen(child).split("\n")
            assert len([r for r in rows if r.strip()]) <= size[0] and all(len(r) <= size[1] for r in rows)
            if swapped is not None:
                assert not any(_undoes(swapped, e) for _, e in entries), (swapped, entries)
                break
            swap = next(((n, e) for n, e in entries if re.match(r"(swap|échanger) ", e)), None)
            draw = next((n for n, e in entries if re.match(r"(draw from|piocher)", e)), None)
            if swap is not None:
                swapped = swap[1]
                child.sendline(swap[0])
            else:
                child.sendline(draw or "1")
        child.close(force=True)
        if swapped is not None:
            break
    assert swapped is not None, "no swap came up in 30 seeds"


# ---------------------------------------------------------------- classique: raise max, French words


def _to_raise(child: pexpect.spawn, fr: bool) -> list[tuple[str, str]]:
    """Play on (opening with a card) until a raise is offered with a range; the listed entries."""
    for _ in range(300):
        k = child.expect([PROMPT, ENTER, CLOSED])
        assert k != 2, "the table closed before a raise came"
        if k == 1:
            child.sendline("")
            continue
        entries = listed(child)
        if any(re.search(r"(relancer de|raise by) \d+\s+\(", e) for _, e in entries):
            return entries
        hit = next((n for n, e in entries if e.startswith(("carte", "open and ask", "draw a card"))), None)
        check = next((n for n, e in entries if e.startswith(("parole", "check", "je tiens", "call"))), None)
        child.sendline(hit or check or "1")
    raise AssertionError("no raise came")


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), "fr")])
def test_classique_asks_before_raise_max(env, size, lang):
    fr = lang == "fr"
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5", size=size, lang=lang)
    _to_raise(child, fr)
    child.sendline("relancer max" if fr else "raise max")
    child.expect(r"Relancer de (\d+), le plus possible \(peut-être tous vos jetons\) \? \[o/N\] " if fr else
                 r"Raise by (\d+), the most allowed \(it may be all your chips\)\? \[y/N\] ")
    top = child.match.group(1)
    child.sendline("")  # Enter: no
    child.expect("Rien n'est envoyé : choisissez ou tapez un autre coup." if fr else "Not sent: pick or type another move.")
    child.expect(PROMPT)
    entries = listed(child) or []
    top_entry = next((n for n, e in entries if re.match(rf"(relancer de|raise by) {top}\b", e)), None)
    if top_entry is not None:  # the listed top of the range is asked too
        child.sendline(top_entry)
        child.expect(r"\[o/N\] " if fr else r"\[y/N\] ")
        child.sendline("n")
        child.expect(PROMPT)
    child.sendline("aide" if fr else "help")
    child.expect(words("« relancer max » demande confirmation" if fr else "'raise max' asks y/n first"))
    child.expect(PROMPT)
    child.sendline("relancer max" if fr else "raise max")
    child.expect(r"\[o/N\] " if fr else r"\[y/N\] ")
    child.sendline("o" if fr else "y")
    child.expect(r"(Vous relancez|You raise)( de)? \d+")
    child.close(force=True)


def test_classique_french_words_follow_the_rules_text(env):
    """quinze_cli/rules/fr/quinze-classique.md "Un coup": stand is « je m'y tiens », call « je
    tiens », check « parole »; the list says so and ``tiens`` is whichever is legal now."""
    child = local(env, "quinze-classique", "--opponents", "builtin:threshold", "--seed", "5", size=(24, 80), lang="fr")
    child.expect(PROMPT)
    entries = [e for _, e in listed(child)]
    assert "je passe" in entries and "je m'y tiens (ouvrir sans carte)" in entries, entries
    assert "carte (ouvrir et tirer ensuite)" in entries
    child.sendline("aide")
    child.expect(words("« m'y tiens » (ouvrir sans carte)"))
    child.expect(words("« tiens » (égaler l'enjeu le plus haut)"))
    child.expect(PROMPT)
    child.sendline("xyz")
    child.expect(words("« xyz » n'est pas une action ici ; maintenant : passe, m'y tiens, carte."))
    child.expect(PROMPT)
    child.sendline("tiens")  # speaking round: tiens is to stand (call is not legal here)
    child.expect(r"Vous vous y tenez\.")
    child.close(force=True)


# ---------------------------------------------------------------- error texts


@pytest.mark.parametrize(("lang", "typed", "said"), [
    (None, "xyz", "'xyz' is not a card (write rank then suit: 7h, 10s, qd, ac; a joker: jk; or values: 7+8)."),
    ("fr", "xyz", "« xyz » n'est pas une carte (valeur puis couleur : 7c, 10p, dk, at ; un joker : jo ; ou des valeurs : 7+8)."),
    ("fr", "5+20", "« 20 » n'est pas une valeur (2..10, a, v, d, r, jo)."),
])
def test_error_texts_name_jokers_as_typed_and_quote_in_the_language(env, lang, typed, said):
    child = local(env, "quinze", "--seed", "4", size=(24, 80), lang=lang)
    child.expect(PROMPT)
    child.sendline(typed)
    child.expect(words(said))
    child.expect(PROMPT)
    child.sendline("aide" if lang else "help")
    child.expect(words("s'écrit jo, ou jn (noir) et jr (rouge)" if lang else "is typed jk, or bj (black) and rj (red)"))
    child.expect(PROMPT)
    quit_game(child, bool(lang))


# ---------------------------------------------------------------- thinking long


@pytest.fixture
def serve_thinking():
    """``quinze serve`` with ``--thinking-long 1``: returns its port."""
    procs = []

    def start(env) -> int:
        proc = forkkit.Popen([QUINZE, "serve", "--port", "0", "--no-log", "--no-announce", "--thinking-long", "1"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        procs.append(proc)
        seen = ""
        while "listening on" not in seen:
            line = proc.stdout.readline()
            assert line, seen
            seen += line
        return int(re.search(r"listening on \S+:(\d+)", seen).group(1))

    yield start
    for p in procs:
        p.terminate()
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.mark.parametrize(("size", "lang"), [((24, 80), None), ((40, 120), "fr")])
def test_others_hear_that_a_player_is_thinking_long(env, tmp_path, serve_thinking, size, lang):
    fr = lang == "fr"
    port = serve_thinking(env)
    ana = spawn(env, "--server", f"127.0.0.1:{port}", "--name", "Ana", size=size, lang=lang)
    ana.expect("salon> " if fr else "lobby> ")
    ana.sendline("c")
    ana.expect(r"(Game|Jeu) \(")
    ana.sendline("")
    ana.expect(r"\(2-8\)")
    ana.sendline("2")
    ana.expect("CLÉ=VALEUR" if fr else "KEY=VALUE")
    ana.sendline("")
    ana.expect(r"([a-z2-9]{4}-t\d+)")
    table = ana.match.group(1)
    bea = spawn(dict(env, XDG_CACHE_HOME=str(tmp_path / "bea")), "--server", f"127.0.0.1:{port}", "--name", "Bea",
                "--table", table, size=(24, 80))
    pattern = r"Bea réfléchit depuis \d+ s\." if fr else r"Bea has been thinking for \d+ s\."
    for _ in range(20):  # Ana plays her turns; Bea never answers hers
        k = ana.expect([PROMPT, pattern])
        if k == 1:
            break
        ana.sendline("1")
    else:
        raise AssertionError("no thinking notice")
    bea.close(force=True)
    ana.close(force=True)
