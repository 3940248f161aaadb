"""The opening explorer through the official lichess Python client (berserk 0.14), against a
damasi server, with only the explorer's address changed (explorer_url = SERVER/api/explorer):
master games imported with `damasi explorer import` read back with get_masters_games, number
by number, and the server's own games (those berserk_game.py played) with get_lichess_games
and its filters. Run by scripts/test-lichess-clients:

    python berserk_explorer.py URL DAMASI_BINARY DATA_DIR
"""

import os
import subprocess
import sys
import tempfile
import time

import berserk
import requests

url, damasi, data_dir = sys.argv[1:4]
# No token: the explorer is open to everybody, as lichess's is.
client = berserk.Client(requests.Session(), base_url=url, explorer_url=url + "/api/explorer")


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


# Two master games: c3-c4 f6-f5 1-0 (2400 and 2200: 2300) and c3-c4 a6-a5 drawn (2000 and 2100:
# 2050).
PDN = """[White "Usta A"]
[Black "Usta B"]
[WhiteElo "2400"]
[BlackElo "2200"]
[Date "2019.07.04"]
[Result "1-0"]

1. c3-c4 f6-f5 1-0

[White "Usta C"]
[Black "Usta D"]
[WhiteElo "2000"]
[BlackElo "2100"]
[Result "1/2-1/2"]

1. c3-c4 a6-a5 1/2-1/2
"""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "masters.pdn")
    with open(path, "w") as f:
        f.write(PDN)
    out = subprocess.run(
        [damasi, "explorer", "import", path, "--data-dir", data_dir],
        check=True, capture_output=True, text=True,
    ).stdout
    check("imported 2 games" in out, f"damasi explorer import: {out.strip()}")

m = client.opening_explorer.get_masters_games()
check((m["white"], m["draws"], m["black"]) == (1, 1, 0), f"masters' totals {m}")
c4 = m["moves"][0]
check(c4["uci"] == "c3-c4" and c4["averageRating"] == 2175, f"masters' c3-c4 {c4}")
m = client.opening_explorer.get_masters_games(play=["c3-c4"], top_games=1)
check([x["uci"] for x in m["moves"]] == ["a6-a5", "f6-f5"], f"after c3-c4 {m['moves']}")
check(m["moves"][1]["game"]["white"]["name"] == "Usta A", "f6-f5's one game")
check(len(m["topGames"]) == 1 and m["topGames"][0]["year"] == 2019, f"top game {m['topGames']}")

# The server's games: berserk_game.py's games ended just before, counted as they ended.
for _ in range(50):
    s = client.opening_explorer.get_lichess_games()
    if s["white"] + s["draws"] + s["black"] > 0:
        break
    time.sleep(0.1)
total = s["white"] + s["draws"] + s["black"]
check(total > 0 and sum(x["white"] + x["draws"] + x["black"] for x in s["moves"]) == total,
      f"the server's games: {total}")
blitz = client.opening_explorer.get_lichess_games(speeds=["blitz"], ratings=["0", "1000", "1200", "1400", "1600"])
check(blitz["white"] + blitz["draws"] + blitz["black"] <= total, "filters narrow")
try:
    client.opening_explorer.get_lichess_games(speeds=["slow"])
    check(False, "a bad speed is refused")
except berserk.exceptions.ResponseError as e:
    check(e.status_code == 400 and "speeds" in str(e), f"a bad speed is a 400: {e}")
