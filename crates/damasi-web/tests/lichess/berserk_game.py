"""A whole game through the official lichess Python client (berserk), against a damasi server,
with only the base URL changed: accounts, a direct challenge by name, accepted from the event
stream, both game streams, moves in landing notation, a declined and a withdrawn challenge,
and games ended by resignation, agreement and time, each seen with lichess's status (`resign`,
`draw`, `outoftime`) in the game stream, in gameFinish and in the exports; players' statuses
and token tests. Run by scripts/test-lichess-clients:

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

# While they play: lichess's real-time statuses, with the game's id.
statuses = a.users.get_realtime_statuses(name_a, "nobody-here", name_b, with_game_ids=True)
check([s["name"] for s in statuses] == [name_a, name_b], "get_realtime_statuses: known players, in order")
check(all(s.get("playing") and s.get("playingId") == game_id for s in statuses),
      "get_realtime_statuses: both play this game")
check(all(s.get("online") for s in statuses), "get_realtime_statuses: both online (their event streams)")
tested = a.oauth.test_tokens(token_a, "not-a-token")
check(tested[token_a]["userId"] == name_a.lower() and tested["not-a-token"] is None,
      "oauth.test_tokens: the account of each token")


def last_state(stream):
    """The game stream's first state that is not `started`: the end."""
    for event in stream:
        if event.get("type") == "gameState" and event["status"] != "started":
            return event


def finish_of(q, gid):
    while True:
        game = next_event(q, "gameFinish")["game"]
        if game["gameId"] == gid:
            return game


b.board.resign_game(game_id)
end = last_state(stream_a)
check((end["status"], end["winner"], end["outcome"]) == ("resign", "white", "white:resignation"),
      "B resigned: lichess's status resign, White wins, damasi's reason in outcome")
finish = finish_of(events_b, game_id)
check(finish["winner"] == "white" and finish["status"]["name"] == "resign"
      and finish["outcome"] == "white:resignation", "gameFinish says resign, the winner and the reason")
finished = {game_id: "resign"}


def play(clock_limit, clock_increment):
    """A new casual game, A White: both sides' first moves played; its id and A's stream."""
    c = a.challenges.create(name_b, rated=False, clock_limit=clock_limit,
                            clock_increment=clock_increment, color="white")
    next_event(events_b, "challenge")
    b.challenges.accept(c["id"])
    stream = a.board.stream_game_state(c["id"])
    next(stream)
    a.board.make_move(c["id"], "c3-c4")
    b.board.make_move(c["id"], "f6-f5")
    return c["id"], stream


# A draw agreed: lichess's `draw`.
draw_id, stream = play(300, 3)
a.board.offer_draw(draw_id)
b.board.accept_draw(draw_id)
end = last_state(stream)
check((end["status"], end.get("winner"), end["outcome"]) == ("draw", None, "draw:agreement"),
      "a draw agreed: lichess's status draw, no winner, damasi's reason in outcome")
check(finish_of(events_a, draw_id)["status"]["name"] == "draw", "gameFinish says draw")
finished[draw_id] = "draw"

# A flag: the shortest clock, 15 s and nothing a move. Once both first moves (untimed) are made
# White's clock runs, and nobody moves: the server ends the game on time by itself.
flag_id, stream = play(15, 0)
end = last_state(stream)
check((end["status"], end["winner"], end["outcome"]) == ("outoftime", "black", "black:time"),
      "White's flag fell: lichess's status outoftime, Black wins, damasi's reason in outcome")
check(finish_of(events_a, flag_id)["status"]["name"] == "outoftime", "gameFinish says outoftime")
finished[flag_id] = "outoftime"

# The exports: one game in JSON and in PDN, and the player's games.
game = a.games.export(game_id)
check(game["id"] == game_id and game["status"] == "resign" and game["winner"] == "white"
      and game["outcome"] == "white:resignation", "games.export: lichess's status and damasi's outcome")
check(game["players"]["white"]["user"]["name"] == name_a and game["moves"].startswith("c3-c4 f6-f5"),
      "games.export: players and moves")
check(game["createdAt"].year >= 2024, "games.export: berserk reads createdAt as a date")
pdn = a.games.export(game_id, as_pgn=True)
check('[Termination "resignation"]' in pdn and '[Result "1-0"]' in pdn, "games.export as PGN: the PDN with its end")
games = list(a.games.export_by_player(name_b, max=3))
check({g["id"]: g["status"] for g in games} == finished,
      "games.export_by_player: the three games, each with lichess's status")
check([g["id"] for g in games] == [flag_id, draw_id, game_id], "games.export_by_player: newest first")
check([g["id"] for g in a.games.export_by_player(name_b, max=1)] == [flag_id], "games.export_by_player: max")
check([g["id"] for g in a.games.export_by_player(name_b, rated=True)] == [game_id],
      "games.export_by_player: rated")
print("berserk: three games played and exported, no call failed")
