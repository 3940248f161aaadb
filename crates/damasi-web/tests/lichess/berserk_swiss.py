"""A Swiss tournament through the official lichess Python client (berserk), against a damasi
server, with only the base URL changed: created for a team path, joined (one player withdraws),
scheduled to start, its game announced by gameStart on both event streams and played, then
the results stream, the TRF and the games' export; a second one is terminated. Run by
scripts/test-lichess-clients:

    python berserk_swiss.py URL TOKEN_A NAME_A TOKEN_B NAME_B TOKEN_C NAME_C
"""

import queue
import sys
import threading
import time

import berserk

url, token_a, name_a, token_b, name_b, token_c, name_c = sys.argv[1:8]
a = berserk.Client(berserk.TokenSession(token_a), base_url=url)
b = berserk.Client(berserk.TokenSession(token_b), base_url=url)
c = berserk.Client(berserk.TokenSession(token_c), base_url=url)


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def listen(client, into):
    def run():
        for event in client.board.stream_incoming_events():
            into.put(event)

    threading.Thread(target=run, daemon=True).start()


def next_event(q, kind):
    while True:
        event = q.get(timeout=15)
        if event.get("type") == kind:
            return event


t = a.tournaments.create_swiss("club", 60, 1, 1, name="Berserk Swiss", roundInterval=0,
                               rated=False, variant="turkish; king-beats-lone-man")
tid = t["id"]
check(t["status"] == "created" and t["nbRounds"] == 1 and t["clock"]["limit"] == 60, "create_swiss")
check(t["variant"] == "turkish; king-beats-lone-man", "create_swiss with a variant: the rules it names")
for client in (a, b, c):
    client.tournaments.join_swiss(tid)
c.tournaments.withdraw_swiss(tid)
info = a.tournaments.get_swiss(tid)
check(info["nbPlayers"] == 2 and info["createdBy"] == name_a, "get_swiss: two players after a withdrawal")

events_a, events_b = queue.Queue(), queue.Queue()
listen(a, events_a)
listen(b, events_b)
time.sleep(1)
a.tournaments.schedule_swiss_next_round(tid, int(time.time() * 1000))
start_a = next_event(events_a, "gameStart")["game"]
start_b = next_event(events_b, "gameStart")["game"]
game_id = start_a["gameId"]
check(start_b["gameId"] == game_id, "both players hear the round's gameStart")
white, black = (a, b) if start_a["color"] == "white" else (b, a)
white_name = name_a if white is a else name_b
white.board.make_move(game_id, "c3-c4")
black.board.resign_game(game_id)

deadline = time.time() + 15
while a.tournaments.get_swiss(tid)["status"] != "finished":
    if time.time() > deadline:
        raise SystemExit("FAILED: the tournament did not finish")
    time.sleep(0.2)
results = list(a.tournaments.stream_swiss_results(tid))
check(len(results) == 2, "stream_swiss_results: one line a player")
check(results[0]["username"] == white_name and results[0]["points"] == 1 and results[0]["rank"] == 1,
      "the winner is first with a point")
trf = a.tournaments.export_swiss_trf(tid)
check("012 Berserk Swiss" in trf and trf.count("\n001 ") + trf.startswith("001 ") == 2,
      "export_swiss_trf: FIDE's report with both players")
pdn = "".join(a.tournaments.export_swiss_games(tid, as_pgn=True))
check(f'[White "{white_name}"]' in pdn, "export_swiss_games: the game as PDN")

t2 = a.tournaments.create_swiss("club", 180, 0, 3)
check(t2["name"] == "Swiss 3+0", "a tournament left without a name gets one")
try:
    b.tournaments.terminate_swiss(t2["id"])
    raise SystemExit("FAILED: a player who is not the organiser ended a tournament")
except berserk.exceptions.ResponseError as e:
    check(e.status_code == 403, "only the organiser may terminate")
a.tournaments.terminate_swiss(t2["id"])
check(a.tournaments.get_swiss(t2["id"])["status"] == "finished", "terminate_swiss")

# An arena, as lichess's arena API: created, joined, started by its organiser, its first game
# played, the results, ended.
arena = a.tournaments.create_arena(3, 2, 20, name="Berserk Arena", rated=False)
aid = arena["id"]
check(arena["status"] == "created" and arena["minutes"] == 20, "create_arena")
a.tournaments.join_arena(aid)
b.tournaments.join_arena(aid)
check(a.tournaments.get_tournament(aid)["nbPlayers"] == 2, "get_tournament: two players")
import urllib.request
req = urllib.request.Request(f"{url}/api/tournament/{aid}/start", data=b"{}", method="POST",
                             headers={"Authorization": f"Bearer {token_a}", "Content-Type": "application/json"})
urllib.request.urlopen(req).read()
start_a = next_event(events_a, "gameStart")["game"]
start_b = next_event(events_b, "gameStart")["game"]
check(start_a["gameId"] == start_b["gameId"], "the arena pairs them at once")
loser = b if start_b["color"] == "black" else a
winner_name = name_a if loser is b else name_b
loser.board.resign_game(start_a["gameId"])
deadline = time.time() + 10
while True:
    lines = list(a.tournaments.stream_results(aid))
    if lines and lines[0]["score"] == 2:
        break
    if time.time() > deadline:
        raise SystemExit(f"FAILED: no score: {lines}")
    time.sleep(0.2)
check(lines[0]["username"] == winner_name, "stream_results: the winner first with 2 points")
a.tournaments.terminate_arena(aid)
check(a.tournaments.get_tournament(aid)["isFinished"], "terminate_arena")
print("berserk: a Swiss tournament and an arena run, no call failed")
