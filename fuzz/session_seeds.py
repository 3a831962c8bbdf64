#!/usr/bin/env python3
"""Writes the hand-made seeds of the session harness (fuzz/corpus/session/).

The harness decodes bytes into Session operations (see Harness::step in session.cpp);
this spells a few meaningful journeys in that encoding so the fuzzer starts from real
flows: approvals granted, spent, declined and mismatched; settlement by report; handler
failures; unmount and re-declare; cursors and caps on the block; approvals withdrawn
and standing grants; typed input, argument checks, rejections and did_it_work; items,
choices that are the person's and reads that moved; retried requests; restarts leaving
fires in doubt, and a person resolving them. Run it
after changing
the encoding:  python3 fuzz/session_seeds.py
"""
import os

# Indices into the harness's pools.
IDS = ["cart.add", "cart.clear", "checkout.place-order", "profile.set-name", "forge", "tour.next"]
NO_HANDLER, NO_WRITES, ENABLED_WHEN, GUARD, VERIFY, HIGH_EFFECT = 1, 2, 4, 8, 16, 32
# The second flags byte: an input schema, an argument check, a choice that is the
# person's, reads (the template's writes), items to act on.
INPUT, CHECKED, DECIDES, READS, ITEMS = 1, 2, 4, 8, 16
ITEM_NAMES = {"": 0, "a": 1, "b": 2, "c": 3, "marked": 4}
MODES = {"ok": 0, "fail": 1, "boom": 2, "reports": 3}
AGENT, USER, SYSTEM = 0, 1, 2
PAYLOADS = {"null": 0, "sku": 1, "sku_qty": 2, "marked": 3, "forged_line": 4, "array": 5, "sku_qty_float": 6}
DELTAS = {"cart": 0, "order_id": 1, "profile": 2, "close": 3, "open": 4, "block": 5, "unblock": 6,
          "break": 7, "unbreak": 8, "clear": 9, "both": 10, "empty": 11}


def op(n):
    return [n]


def declare(id_, flags=0, mode="ok", typed=0):
    return op(0) + [IDS.index(id_), flags, MODES[mode], typed]


def undeclare(id_):
    return op(2) + [IDS.index(id_)]


def undeclare_handle(i):
    return op(3) + [i]


def any_id(id_):
    if id_.startswith("ghost"):
        return [0, int(id_[5:] or 0)]
    return [1, IDS.index(id_)]


def ask(which):
    if which is None:
        return [0]
    if which == "bogus":
        return [2]
    if which == "marked":
        return [3]
    return [1, which]  # index into the asks minted so far


def item(name):
    """An item byte: read only for an action declared with ITEMS."""
    return [] if name is None else [ITEM_NAMES[name]]


def fire(id_, source=AGENT, payload="null", ask_id=None, instance=None):
    return op(4) + any_id(id_) + [source, PAYLOADS[payload]] + ask(ask_id) + item(instance)


def report(delta, tid=None):
    if tid is None:
        return op(7) + [DELTAS[delta], 0]
    if tid == "bogus":
        return op(7) + [DELTAS[delta], 2]
    return op(7) + [DELTAS[delta], 1, tid]  # index into transitions


def confirm(id_, payload="null", instance=None):
    return op(8) + any_id(id_) + [PAYLOADS[payload]] + item(instance)


def approve(which):
    return op(9) + ask(which)


def decline(which):
    return op(10) + ask(which)


def work(tid=None):
    return op(11) + ([0] if tid is None else [1, tid])


def end_work(i, done=True):
    return op(12) + [i, 1 if done else 0]


def stale(on=True):
    return op(13) + [1 if on else 0]


def move(node, focus=False):
    return op(14) + [node, 1 if focus else 0]


def whats_here():
    return op(15) + [0]


def do_action(id_, payload="null", ask_id=None, instance=None):
    return op(15) + [1] + any_id(id_) + [PAYLOADS[payload]] + ask(ask_id) + item(instance)


def acknowledge_and_look(id_, since=0):
    return op(22) + any_id(id_) + [since]


def render(since_mode=0, max_attempts=7):
    """since_mode: 0 none, 1 zero, 2 now, 3 one before now (only once a fire recorded)."""
    return op(16) + [since_mode] + ([0] if since_mode == 3 else []) + [1, max_attempts]


def bridge(ghost=0):
    return op(17) + [ghost]


def revoke(which):
    return op(18) + ask(which)


def standing(id_, grant=True, blank=False):
    return op(19) + any_id(id_) + [1 if grant else 0] + [0 if blank else 1]


def transition_id(which):
    """which: an index into the transitions, or "unissued" (past the last one)."""
    return [1, 0] if which == "unissued" else [0, which]


def reject(which):
    return op(20) + transition_id(which)


def did_it_work(which, ask_index=None):
    if ask_index is not None:
        return op(21) + transition_id(0) + [1, ask_index]
    return op(21) + transition_id(which) + [0]


KEYS = {"": 0, "rk-a": 1, "rk-b": 2, "marked": 3, "too_long": 4}
STORE = 4  # in the first byte: the session writes through a store (in memory), so it can restart


def fire_key(key, id_, via_port=False, source=AGENT, payload="null", ask_id=None, instance=None):
    """A fire carrying a request key, through the session or the port."""
    if via_port:
        return op(23) + [KEYS[key], 1] + any_id(id_) + [PAYLOADS[payload]] + ask(ask_id) + item(instance)
    return op(23) + [KEYS[key], 0] + any_id(id_) + [source, PAYLOADS[payload]] + ask(ask_id) + item(instance)


def restart(inside=False):
    """The app stops and starts again; inside: killed inside the latest handler (its return cut)."""
    return op(24) + [1 if inside else 0]


def resolve(index, happened, blank=False):
    """A person resolves the index-th fire in doubt (there must be one)."""
    return op(25) + [1, index, 1 if happened else 0, 0 if blank else 1]


SEEDS = {
    # The seed's checkout: a refused forgery, a person's approval, one fire per yes.
    "approval_journey": [1] + declare("cart.add") + declare("checkout.place-order", HIGH_EFFECT)
    + fire("cart.add", payload="sku") + report("cart")
    + fire("checkout.place-order", payload="sku") + confirm("checkout.place-order", "sku")
    + approve(0) + render() + fire("checkout.place-order", payload="sku_qty", ask_id=0)
    + fire("checkout.place-order", payload="sku", ask_id=0) + fire("checkout.place-order", payload="sku", ask_id=0)
    + report("order_id") + render(1, 2) + bridge(),
    # Decline after approve, a bogus ask id, a user fire that is not gated.
    "declined_and_user": [1] + declare("checkout.place-order", HIGH_EFFECT) + confirm("checkout.place-order", "sku")
    + approve(0) + decline(0) + fire("checkout.place-order", payload="sku", ask_id=0)
    + fire("checkout.place-order", ask_id="bogus") + fire("checkout.place-order", USER) + approve(0)
    + render(),
    # Handler failures, a throwing handler, verify failing at settlement.
    "handlers_fail": [0] + declare("cart.add", VERIFY, "fail") + declare("cart.clear", 0, "boom")
    + declare("profile.set-name", VERIFY, "reports") + fire("cart.add") + fire("cart.clear")
    + report("break") + fire("profile.set-name") + report("unbreak") + render(),
    # Unmount, re-declare, a stale handle, ghost ids and forged lines.
    "unmount_redeclare": [2] + declare("forge") + fire("forge") + undeclare("forge") + fire("forge")
    + fire("ghost0") + fire("ghost1") + declare("forge", NO_HANDLER) + undeclare_handle(0) + fire("forge")
    + move(2, True) + stale() + render() + whats_here() + do_action("ghost1") + do_action("forge"),
    # Pending reports, attributed and inferred settlement, open work, disabled tools.
    "settlement_and_work": [0] + declare("cart.add") + declare("checkout.place-order")
    + declare("tour.next", ENABLED_WHEN | GUARD) + fire("cart.add") + fire("checkout.place-order")
    + work(1) + work() + report("order_id", 1) + report("cart") + report("both") + report("close")
    + fire("tour.next") + do_action("tour.next") + report("open") + report("block") + fire("tour.next")
    + report("cart", "bogus") + end_work(0) + end_work(0, False) + render(2, 0) + render(3, 3),
    # A yes withdrawn and replayed, a standing grant given, used, refused a blank decider,
    # withdrawn mid-loop; a greyed-out action fired through the port lands its row.
    "approval_lifecycle": [1] + declare("checkout.place-order", HIGH_EFFECT)
    + declare("tour.next", ENABLED_WHEN) + report("close") + confirm("checkout.place-order", "sku")
    + revoke(0) + approve(0) + revoke(0) + fire("checkout.place-order", payload="sku", ask_id=0)
    + revoke(0) + approve(0) + decline(0) + standing("checkout.place-order")
    + fire("checkout.place-order") + standing("checkout.place-order", blank=True)
    + standing("checkout.place-order") + fire("checkout.place-order", payload="sku")
    + standing("checkout.place-order", grant=False) + fire("checkout.place-order")
    + standing("checkout.place-order", grant=False) + do_action("checkout.place-order")
    + do_action("tour.next") + standing("ghost0") + render() + bridge(),
    # Many attempts under a small cap, and many awaiting asks.
    "caps": [1] + declare("checkout.place-order", HIGH_EFFECT) + sum(
        (fire("checkout.place-order", payload=p) + confirm("checkout.place-order", p)
         for p in ["null", "sku", "sku_qty", "marked", "forged_line", "array", "sku_qty_float"]), [])
    + render(0, 2) + render(1, 1) + approve(2) + approve(5) + render(),
    # Typed input and an argument check refusing before the approval gate; a pending fire
    # rejected, asked about, and rejected again; an ask asked about.
    "input_checks_reject": [1] + declare("cart.add", 0, "ok", INPUT | CHECKED)
    + declare("checkout.place-order", HIGH_EFFECT, "ok", INPUT) + fire("cart.add", payload="sku")
    + fire("cart.add", payload="array") + fire("cart.add", payload="sku_qty") + did_it_work(0)
    + reject(0) + did_it_work(0) + reject(0) + fire("checkout.place-order", payload="sku")
    + do_action("checkout.place-order", payload="sku_qty_float") + confirm("checkout.place-order", "sku_qty")
    + did_it_work(0, ask_index=0) + did_it_work("unissued") + render(),
    # Items: one approved and refused for another, an item never listed, the list moving
    # (closed adds c, blocked makes the selector throw); a choice that is the person's;
    # reads changed by another and acknowledged; the approval going stale.
    "items_and_moves": [1] + declare("checkout.place-order", HIGH_EFFECT, "ok", ITEMS | READS | DECIDES)
    + declare("cart.add", 0, "ok", READS) + fire("checkout.place-order", instance="")
    + fire("checkout.place-order", instance="a") + confirm("checkout.place-order", "null", "a")
    + approve(0) + fire("checkout.place-order", ask_id=0, instance="b")
    + do_action("checkout.place-order", ask_id=0, instance="marked") + report("close")
    + fire("checkout.place-order", USER, instance="c") + acknowledge_and_look("cart.add")
    + report("cart") + acknowledge_and_look("checkout.place-order", 1) + report("order_id")
    + fire("checkout.place-order", ask_id=0, instance="a") + report("block")
    + do_action("checkout.place-order", instance="a") + report("unblock") + render() + whats_here(),
    # Retried requests: replayed through the session and the port, reused for another
    # payload, replayed for an action no longer declared, a key over its bound, a failed
    # handler replayed, a rejected fire's key judged afresh.
    "retries": [STORE] + declare("cart.clear") + fire_key("rk-a", "cart.clear", payload="sku")
    + fire_key("rk-a", "cart.clear", payload="sku") + fire_key("rk-a", "cart.clear", payload="sku_qty")
    + fire_key("rk-b", "cart.clear", True) + fire_key("rk-b", "cart.clear", True) + undeclare("cart.clear")
    + fire_key("rk-b", "cart.clear", True) + fire_key("rk-b", "cart.clear", True, payload="sku")
    + fire_key("too_long", "cart.clear") + fire_key("too_long", "cart.clear", True)
    + declare("tour.next", 0, "fail") + fire_key("marked", "tour.next") + fire_key("marked", "tour.next")
    + declare("cart.add") + fire_key("rk-a", "cart.add", payload="sku") + fire_key("", "cart.add")
    + render() + whats_here(),
    # Restarts: a fire awaiting its report left in doubt about its effect, one killed inside
    # its handler left in doubt whether it ran; a person resolves them (a blank one
    # refused); the request freed by "did not run" fires again with the same key.
    "restarts_in_doubt": [STORE] + declare("cart.add") + declare("tour.next") + fire_key("rk-a", "cart.add")
    + fire_key("rk-b", "tour.next") + restart(inside=True) + whats_here() + did_it_work(0) + did_it_work(1)
    + resolve(1, False, blank=True) + resolve(1, False) + resolve(0, True) + declare("cart.add")
    + declare("tour.next") + fire_key("rk-a", "cart.add") + fire_key("rk-b", "tour.next") + restart()
    + fire_key("rk-b", "tour.next") + render() + whats_here() + bridge(),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "session")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(data))


if __name__ == "__main__":
    main()
