"""live.layer.LiveChannelLayer: the single-process layer, cheap per message and loud when full."""

import logging

from debates.live.layer import LiveChannelLayer


async def test_a_group_gets_every_message_in_order_and_a_full_member_is_logged_not_fatal(caplog):
    layer = LiveChannelLayer(capacity=2)
    quiet, reading = await layer.new_channel(), await layer.new_channel()
    for channel in (quiet, reading):
        await layer.group_add("question-1", channel)
    with caplog.at_level(logging.WARNING, logger="debates.live.layer"):
        for seq in range(1, 4):
            await layer.group_send("question-1", {"type": "live.batch", "seq": seq})
            assert (await layer.receive(reading))["seq"] == seq
    assert [(await layer.receive(quiet))["seq"] for _ in range(2)] == [1, 2]  # the third found it full
    assert f"channel {quiet} is full" in caplog.text


async def test_expired_messages_are_swept_at_most_once_a_second(monkeypatch):
    layer = LiveChannelLayer()
    sweeps = []
    monkeypatch.setattr(LiveChannelLayer.__mro__[1], "_clean_expired", lambda self: sweeps.append(1))
    now = [1000.0]
    monkeypatch.setattr("debates.live.layer.time.monotonic", lambda: now[0])
    for _ in range(5):
        await layer.group_send("question-1", {"type": "live.batch"})
    assert len(sweeps) == 1
    now[0] += layer.sweep_every
    await layer.group_send("question-1", {"type": "live.batch"})
    assert len(sweeps) == 2


async def test_a_subscribed_member_is_handed_each_message_at_once_and_its_failure_is_not_the_others(caplog):
    layer = LiveChannelLayer()
    direct, queued, broken = [await layer.new_channel() for _ in range(3)]
    for channel in (broken, direct, queued):
        await layer.group_add("question-1", channel)
    got: list[int] = []
    layer.subscribe(direct, lambda message: got.append(message["seq"]))

    def fails(message):
        raise RuntimeError("a viewer's bug")

    layer.subscribe(broken, fails)
    with caplog.at_level(logging.ERROR, logger="debates.live.layer"):
        await layer.group_send("question-1", {"type": "live.batch", "seq": 1})
    assert got == [1]  # handed over inside group_send, not put in a queue
    assert (await layer.receive(queued))["seq"] == 1
    assert f"handing a message to {broken} failed" in caplog.text

    layer.unsubscribe(direct)
    await layer.group_send("question-1", {"type": "live.batch", "seq": 2})
    assert got == [1]
    assert (await layer.receive(direct))["seq"] == 2
