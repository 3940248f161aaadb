"""A BOT through lichess's Bot API with the official lichess Python client (berserk), against a
damasi server, with only the base URL changed: an account made by `damasi user add` upgraded
with its printed token, listed among the online bots, challenged by a person and accepting
from its event stream, its own game stream, moves, chat, a takeback and a draw refused, an
abort and a resignation, statuses and the export, each naming it a BOT; and lichess's rules:
the Bot API refuses a person, the Board API refuses the BOT, and an account that has played
cannot become one. Run by scripts/test-lichess-clients:

    python berserk_bot.py URL BOT_TOKEN BOT_NAME PERSON_TOKEN PERSON_NAME
"""

import queue
import sys
import threading
import time

import berserk

url, bot_token, bot_name, person_token, person_name = sys.argv[1:6]
bot = berserk.Client(berserk.TokenSession(bot_token), base_url=url)
person = berserk.Client(berserk.TokenSession(person_token), base_url=url)


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}")


def refused(call, status, what):
    """Checks that `call` fails with HTTP `status`."""
    try:
        call()
    except berserk.exceptions.ResponseError as e:
        check(e.status_code == status, f"{what} (HTTP {e.status_code})")
        return
    raise SystemExit(f"FAILED: {what}: it was not refused")


def listen(stream, into):
    """Puts every event of `stream` on the queue (a daemon thread)."""

    def run():
        for event in stream:
            into.put(event)

    threading.Thread(target=run, daemon=True).start()


def next_event(q, kind):
    while True:
        event = q.get(timeout=10)
        if event.get("type") == kind:
            return event


check("title" not in bot.account.get(), "before the upgrade the account has no title")
bot.account.upgrade_to_bot()
check(bot.account.get()["title"] == "BOT", "account.upgrade_to_bot: the account is a BOT")

bot_events, person_events = queue.Queue(), queue.Queue()
listen(bot.bots.stream_incoming_events(), bot_events)
listen(person.board.stream_incoming_events(), person_events)
time.sleep(1)
online = list(bot.bots.get_online_bots())
check([u["username"] for u in online] == [bot_name] and online[0]["title"] == "BOT",
      "bots.get_online_bots: the BOT with its event stream open, and nobody else")

# A person challenges the BOT; it accepts from its event stream.
c = person.challenges.create(bot_name, rated=False, clock_limit=300, clock_increment=3, color="white")
incoming = next_event(bot_events, "challenge")["challenge"]
check(incoming["id"] == c["id"] and incoming["challenger"]["name"] == person_name,
      "the challenge reaches the BOT's event stream")
bot.bots.accept_challenge(incoming["id"])
game_id = next_event(bot_events, "gameStart")["game"]["gameId"]
check(game_id == c["id"], "the BOT hears gameStart")
next_event(person_events, "gameStart")

stream = bot.bots.stream_game_state(game_id)
full = next(stream)
check(full["type"] == "gameFull" and full["black"]["name"] == bot_name and full["black"]["title"] == "BOT"
      and "title" not in full["white"], "bots.stream_game_state: gameFull names the BOT with its title")


def state_after(moves):
    for event in stream:
        if event.get("type") == "gameState" and event["moves"] == moves:
            return event


# lichess's rules: a person cannot use the Bot API, nor a BOT the Board API.
refused(lambda: person.bots.make_move(game_id, "c3-c4"), 403, "the Bot API refuses a person")
person.board.make_move(game_id, "c3-c4")
refused(lambda: bot.board.make_move(game_id, "f6-f5"), 403, "the Board API refuses a BOT")
bot.bots.make_move(game_id, "f6-f5")
check(state_after("c3-c4 f6-f5")["status"] == "started", "bots.make_move: the BOT's move is played")
bot.bots.post_message(game_id, "iyi oyunlar")
chat = next(e for e in stream if e.get("type") == "chatLine")
check(chat["username"] == bot_name and chat["text"] == "iyi oyunlar", "bots.post_message: the line in the stream")

check(person.board.get_game_chat(game_id) == [{"user": bot_name, "text": "iyi oyunlar"}],
      "board.get_game_chat: the person reads the BOT's line")


def next_state():
    return next(e for e in stream if e.get("type") == "gameState")


# The person offers a draw, then a takeback; the BOT refuses both through lichess's yes/no
# routes (berserk 0.14 has no helper for them in its bots client: its own requester posts).
person.board.offer_draw(game_id)
check(next_state()["wdraw"], "the BOT's stream shows the draw offered")
bot._r.post(f"/api/bot/game/{game_id}/draw/no")
check(not next_state()["wdraw"], "the BOT declines the draw")
person.board.make_move(game_id, "d3-d4")
state_after("c3-c4 f6-f5 d3-d4")
person.board.offer_takeback(game_id)
check(next_state()["wtakeback"], "the BOT's stream shows the takeback asked")
bot._r.post(f"/api/bot/game/{game_id}/takeback/no")
s = next_state()
check(not s["wtakeback"] and s["moves"] == "c3-c4 f6-f5 d3-d4", "the BOT refuses the takeback")

statuses = person.users.get_realtime_statuses(bot_name, person_name, with_game_ids=True)
check(statuses[0]["title"] == "BOT" and statuses[0]["playingId"] == game_id
      and "title" not in statuses[1], "users.get_realtime_statuses: the BOT's title and game")

bot.bots.resign_game(game_id)
end = next(e for e in stream if e.get("type") == "gameState" and e["status"] != "started")
check((end["status"], end["winner"]) == ("resign", "white"), "bots.resign_game: lichess's status resign")
finish = next_event(bot_events, "gameFinish")["game"]
check(finish["gameId"] == game_id and finish["status"]["name"] == "resign", "gameFinish on the BOT's stream")
game = person.games.export(game_id)
check(game["status"] == "resign" and game["players"]["black"]["user"]["title"] == "BOT",
      "games.export: lichess's status and the BOT's title")

# A second game, aborted by the BOT before its first move.
c = person.challenges.create(bot_name, rated=False, clock_limit=180, clock_increment=2, color="white")
bot.bots.accept_challenge(next_event(bot_events, "challenge")["challenge"]["id"])
next_event(bot_events, "gameStart")
bot.bots.abort_game(c["id"])
check(person.games.export(c["id"])["status"] == "aborted", "bots.abort_game: the game is aborted")

# The person has played: they cannot become a BOT; and a declined challenge is heard.
refused(lambda: person.account.upgrade_to_bot(), 409, "an account that has played cannot become a BOT")
c = person.challenges.create(bot_name, rated=False, clock_limit=60, clock_increment=0)
bot.bots.decline_challenge(next_event(bot_events, "challenge")["challenge"]["id"], reason="later")
check(next_event(person_events, "challengeDeclined")["challenge"]["id"] == c["id"],
      "bots.decline_challenge: the challenger hears it")
print("berserk: a BOT upgraded, listed, challenged, played, resigned and aborted; no call failed")
