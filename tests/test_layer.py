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
