"""A whole game through the official lichess Python client (berserk), against a damasi server,
with only the base URL changed: accounts, a direct challenge by name, accepted from the event
stream, both game streams, moves in landing notation, a declined and a withdrawn challenge,
and a resignation. Run by scripts/test-lichess-clients:

    python berserk_game.py URL TOKEN_A NAME_A TOKEN_B NAME_B
"""

import queue
import sys
import threading
import time

import berserk

url, token_a, name_a, token_b, name_b = sys.argv[1:6]
a = berserk.Client(berserk.TokenSession(token_a), base_url=url)
b = berserk.Client(berserk.TokenSession(token_b), base_url=url)


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def listen(client, into):
    """Puts every event of client's event stream on the queue (a daemon thread)."""

    def run():
        for event in client.board.stream_incoming_events():
            into.put(event)

    threading.Thread(target=run, daemon=True).start()


def next_event(q, kind):
    while True:
        event = q.get(timeout=10)
        if event.get("type") == kind:
            return event


check(a.account.get()["name"] == name_a, "account.get names the token's account")
events_a, events_b = queue.Queue(), queue.Queue()
listen(a, events_a)
listen(b, events_b)
# A challenge sent before B's stream opens is announced when it does; but A must be listening
# to hear it declined (events about a challenge are not replayed), so give the streams a moment.
time.sleep(1)

# A challenge declined, and one withdrawn.
c = a.challenges.create(name_b, rated=False, clock_limit=300, clock_increment=3)
check(next_event(events_b, "challenge")["challenge"]["id"] == c["id"], "the challenge reaches B")
b.challenges.decline(c["id"], reason="later")
declined = next_event(events_a, "challengeDeclined")
check(declined["challenge"]["id"] == c["id"], "A hears the challenge declined")
c = a.challenges.create(name_b, rated=False, clock_limit=60, clock_increment=0)
next_event(events_b, "challenge")
a.challenges.cancel(c["id"])
check(next_event(events_b, "challengeCanceled")["challenge"]["id"] == c["id"],
      "B hears the challenge withdrawn")

# A challenge under other rules (lichess's variant field, a damasi rule-set name): B sees them.
rules = "turkish; no-capture-limit 50"
c = a.challenges.create(name_b, rated=False, clock_limit=180, clock_increment=2, variant=rules)
incoming = next_event(events_b, "challenge")["challenge"]
check(incoming["id"] == c["id"] and incoming["variant"]["key"] == rules, "a challenge says its rules")
a.challenges.cancel(c["id"])
next_event(events_b, "challengeCanceled")

# The game: A challenges B by name with White, B accepts from its event stream.
c = a.challenges.create(name_b, rated=True, clock_limit=300, clock_increment=3, color="white")
incoming = next_event(events_b, "challenge")["challenge"]
check(incoming["challenger"]["name"] == name_a and incoming["rated"], "B sees who and how")
check(incoming["timeControl"]["limit"] == 300, "the clock as asked")
b.challenges.accept(incoming["id"])
start_a = next_event(events_a, "gameStart")["game"]
start_b = next_event(events_b, "gameStart")["game"]
game_id = start_a["gameId"]
check(start_b["gameId"] == game_id == c["id"], "both hear gameStart with game.gameId")
check((start_a["color"], start_b["color"]) == ("white", "black"), "colours as asked")
check(start_a["isMyTurn"] and not start_b["isMyTurn"], "White moves first")

stream_a = a.board.stream_game_state(game_id)
stream_b = b.board.stream_game_state(game_id)
full = next(stream_a)
check(full["type"] == "gameFull" and full["white"]["name"] == name_a, "gameFull names White")
check(full["variant"]["key"] == "standard", "gameFull's variant is lichess's standard for the federation's rules")
check(full["state"]["wtime"] == 300_000 and full["state"]["moves"] == "", "clocks and no moves")
check(next(stream_b)["black"]["name"] == name_b, "B's stream names Black")


def state_after(stream, moves):
    for event in stream:
        if event.get("type") == "gameState" and event["moves"] == moves:
            return event


a.board.make_move(game_id, "c3-c4")
b.board.make_move(game_id, "f6-f5")
a.board.make_move(game_id, "d3-d4")
s = state_after(stream_b, "c3-c4 f6-f5 d3-d4")
check(s["status"] == "started" and s["btime"].total_seconds() > 290, "B's stream carries the moves and clocks (berserk reads them as times)")
a.board.post_message(game_id, "iyi oyunlar")
b.board.resign_game(game_id)
for event in stream_a:
    if event.get("type") == "gameState" and event["status"] != "started":
        check(event["winner"] == "white", "B resigned: White wins")
        break
finish = next_event(events_b, "gameFinish")["game"]
check(finish["gameId"] == game_id and finish["winner"] == "white", "gameFinish with the winner")
print("berserk: a whole game played, no call failed")
