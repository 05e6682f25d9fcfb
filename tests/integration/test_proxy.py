"""Two web processes behind HAProxy (haproxy.cfg), as the server setup grows past one process.

A web process killed mid-debate costs its viewers a reconnect and nothing else: through the proxy,
with no sticky session, they land on the other process, which sends each a fresh snapshot, and
every page ends with every word once and in order. The run, on a worker, never notices: each call
is made once.
"""

import asyncio
import signal
import time
from collections import Counter
from dataclasses import dataclass

import pytest

from tests.integration.cluster import Cluster, ask
from tests.integration.debate import PANEL, Deployment, Store, requests_about, step_of
from tests.integration.test_scale_out import assert_complete_run, assert_saw_everything, question_text, until
from tests.integration.viewer import Viewer, dom_text_id, follow, out_of_order

pytestmark = [pytest.mark.services, pytest.mark.timeout(600)]
VIEWERS = 8  # through the proxy: it spreads them over both processes


@dataclass(frozen=True)
class Handover:
    moved: int  # viewers that were on the killed process
    recovered: list[float]  # per moved viewer: seconds from the kill to its snapshot from the other process


def sockets_on(web) -> int:
    return web.output().count('"WSCONNECT /ws/questions/')


async def kill_a_web_process_mid_debate(deployment: Deployment, cluster: Cluster) -> Handover:
    """One debate watched by VIEWERS sockets through the proxy; SIGKILL the web process holding
    some of them once a contribution is stored; check the run and every viewer."""
    webs = [cluster.web("web-1"), cluster.web("web-2")]
    proxy = cluster.proxy("proxy", webs)
    cluster.worker("worker")
    store = Store(deployment.database_url)
    session = deployment.credentials.session
    try:
        text = question_text("proxy")
        question_id = ask(proxy, deployment.credentials, text, PANEL)
        viewers = [Viewer(proxy.port) for _ in range(VIEWERS)]
        opened = [asyncio.Event() for _ in viewers]
        following = [
            asyncio.create_task(follow(v, question_id, session, o)) for v, o in zip(viewers, opened, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 60)
        assert all(sockets_on(web) for web in webs), "the proxy sent every socket to one process"

        await until(lambda: store.calls(question_id), "a stored contribution", cluster)
        victim = webs[0]
        victim.signal(signal.SIGKILL)
        killed = time.time()
        await until(lambda: store.question(question_id)["status"] == "done", "the debate to finish", cluster)
        await asyncio.wait_for(asyncio.gather(*following), 120)
        contributions = assert_complete_run(store, question_id)
    finally:
        store.close()

    asked = Counter((r.model, step_of(r)) for r in requests_about(deployment.server, text))
    assert set(asked.values()) == {1}, f"a call was made twice: {asked}"
    stored = {dom_text_id(v.round, v.seat): v.text for v in contributions}
    for viewer in viewers:
        assert out_of_order(viewer, stored)[:3] == []
        # What a moved viewer had streamed of a card when its process died is a beginning of the
        # stored text; the other process's snapshot shows the rest.
        assert_saw_everything(viewer, contributions, cut_short=set(stored))
    moved = [viewer for viewer in viewers if viewer.connections > 1]
    return Handover(len(moved), [next(at for at, _ in v.messages if at >= v.opened[1]) - killed for v in moved])


async def test_a_web_process_killed_mid_debate_hands_its_viewers_to_the_other_through_the_proxy(
    deployment: Deployment, cluster: Cluster
) -> None:
    handover = await kill_a_web_process_mid_debate(deployment, cluster)

    assert handover.moved > 0  # the kill did take viewers with it
