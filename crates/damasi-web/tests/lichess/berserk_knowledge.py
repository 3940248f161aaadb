"""What the server knows of a position, through the official lichess Python client (berserk),
unchanged, against a damasi server with three-piece tables: the tablebase
(`client.tablebase.look_up`, lichess's tablebase server's `GET /standard`) and the cloud
evaluations (`client.analysis.get_cloud_evaluation`) of analyses made over HTTP first.
Run by scripts/test-lichess-clients:

    python berserk_knowledge.py URL

berserk joins its tablebase URL and `/standard` as URLs (urljoin), so whatever path the URL
has, it asks the server's root `/standard`; damasi answers there and at
`/api/tablebase/standard`.
"""

import json
import sys
import urllib.request
import urllib.parse

import berserk

url = sys.argv[1]
client = berserk.Client(base_url=url, tablebase_url=url + "/api/tablebase")


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def post(path, body):
    req = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req) as res:
        return json.load(res)


def by_uci(answer):
    return {m["uci"]: m for m in answer["moves"]}


# White to move shuts Black's lone king in the corner with h1-h8 and takes it next move: a
# win three plies from the capture; an a1 king's step up the a-file is taken at once, and one
# piece each is a draw. The move's category is the opponent's after it.
shut = client.tablebase.look_up("W:WKa1,Kh1:BKa8")
check(shut["category"] == "win" and shut["dtz"] == 3, f"a win, 3 plies to the capture: {shut['category']} {shut['dtz']}")
check(shut["dtm"] is None, "no distance to the end (dtm null)")
moves = by_uci(shut)
check(moves["h1-h8"]["category"] == "loss" and moves["h1-h8"]["dtz"] == -2, "h1-h8 leaves Black lost in 2")
check(all(moves[f"a1-{to}"]["category"] == "draw" for to in ["a2", "a3", "a4", "a5", "a6", "a7"]), "the a-file steps draw")
check(shut["moves"][0]["category"] == "loss", "a winning move first")
# berserk's standard() is the same request.
check(client.tablebase.standard("W:WKa1,Kh1:BKa8") == shut, "standard() says the same")
# Black to move there: every move is taken, the game is lost.
lost = client.tablebase.look_up("B:WKa1,Kh8:BKa8")
check(lost["category"] == "loss" and lost["dtz"] == -2, "Black to move is lost in 2")
check(len(lost["moves"]) == 12 and all(m["category"] == "win" for m in lost["moves"]), "its 12 moves all lose")
# A finished game: one piece each; a position beyond the tables: unknown.
check(client.tablebase.look_up("W:WKa1:BKh8")["insufficient_material"], "one piece each is insufficient material")
check(client.tablebase.look_up("W:WKa1,Kb2:BKh8,Kg8")["category"] == "unknown", "four pieces are unknown")

# Cloud evaluations: none before an analysis (lichess's 404), then the analysis's own line.
after = post("/api/move", {"move": "c3-c4"})["position"]["fen"]
try:
    client.analysis.get_cloud_evaluation(after)
    check(False, "no evaluation before an analysis")
except berserk.exceptions.ResponseError as e:
    check(e.status_code == 404, f"404 before an analysis ({e.status_code})")
analysis = post("/api/analyze", {"moves": ["c3-c4"], "move_time_ms": 300, "multipv": 2})
cloud = client.analysis.get_cloud_evaluation(after)
check(cloud["depth"] == analysis["depth"], f"the analysis's depth {cloud['depth']}")
check(len(cloud["pvs"]) == 1, "one line by default")
check(cloud["pvs"][0]["moves"] == " ".join(analysis["lines"][0]["pv"]), f"its best line: {cloud['pvs'][0]['moves']}")
check(cloud["pvs"][0]["cp"] == analysis["white_score"], f"its score from White's side: {cloud['pvs'][0]['cp']}")
two = client.analysis.get_cloud_evaluation(after, num_variations=2)
check([pv["moves"] for pv in two["pvs"]] == [" ".join(l["pv"]) for l in analysis["lines"]], "two lines")
# A forced win is a mate, in the winner's moves from White's side.
post("/api/analyze", {"fen": "B:WKa1,Kh8:BKa8", "move_time_ms": 200})
mate = client.analysis.get_cloud_evaluation("B:WKa1,Kh8:BKa8")
check(mate["pvs"][0].get("mate") == 1, f"White mates in 1: {mate['pvs'][0]}")
print("berserk: tablebase and cloud evaluations answer as lichess's")
