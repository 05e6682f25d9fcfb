"""The server setup's channel layer, as settings.py configures it, against the loopback Redis."""

import asyncio
import json
import os
import subprocess
import sys

import pytest
from django.utils.module_loading import import_string

from tests.integration import cluster as deploy

pytestmark = pytest.mark.services

SHOW_LAYER = "from django.conf import settings; import json; print(json.dumps(settings.CHANNEL_LAYERS['default']))"


@pytest.fixture
def configured() -> dict:
    """CHANNEL_LAYERS["default"] as a server with REDIS_URL set gets it."""
    deploy.require_services()
    env = os.environ | {"REDIS_URL": "redis://127.0.0.1:6379/0", "DJANGO_SETTINGS_MODULE": "teorema.settings"}
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {SHOW_LAYER}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=deploy.ROOT,
    )
    return json.loads(shown.stdout.strip().splitlines()[-1])


async def test_a_viewer_waiting_longer_than_a_read_timeout_still_gets_its_message(configured):
    # redis-py 8 times a read out after 5 s, channels_redis's own wait: every socket without a
    # broadcast for 5 s died with a 1011 until settings.py turned the read timeout off.
    layer = import_string(configured["BACKEND"])(**configured["CONFIG"], prefix=f"teorema-test-{os.getpid()}")
    channel = await layer.new_channel()
    waiting = asyncio.create_task(layer.receive(channel))
    await asyncio.sleep(6.5)
    assert not waiting.done() or waiting.exception() is None, waiting.exception()
    await layer.send(channel, {"type": "live.batch", "seq": 1})
    assert (await asyncio.wait_for(waiting, 10))["seq"] == 1
    await layer.flush()
