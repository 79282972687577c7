"""Concurrent reward requests gathered into one POST /v1/rewards.

Standard library only. Trainers that score samples as concurrent
coroutines (verl 0.9's reward loop, verifiers' Rubric.score_group) call
``batched_reward(item)`` once per sample; the items pending together in one
event loop go to the server as one batch, so it deduplicates a group's
repeated answers and runs each distinct statement once.

SQLGYM_BATCH_WINDOW_MS (default 20) is how long the first item waits for
others; SQLGYM_BATCH_MAX_ITEMS (default 512) sends a batch at once when
that many are pending. SQLGYM_RETRY_FOR (default 300) is how many seconds
a batch is retried through 429, 503 and outages before it fails.
"""

import asyncio
import os
import threading
import weakref

from sqlgym_reward import SqlgymClient

__all__ = ["batched_reward", "Batcher"]


class Batcher:
    """Gathers the items scored at the same time in one event loop into one
    request: the first waits ``window`` seconds for the others (or until
    ``max_items`` are pending), then all are sent together. A failed batch
    fails every waiter; none gets a reward."""

    def __init__(self, client, window, max_items):
        self.client, self.window, self.max_items = client, window, max_items
        self.pending = []  # (item, future)
        self.timer = None

    async def score(self, item):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.pending.append((item, fut))
        if len(self.pending) >= self.max_items:
            self._flush()
        elif self.timer is None:
            self.timer = loop.call_later(self.window, self._flush)
        return await fut

    def _flush(self):
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        batch, self.pending = self.pending, []
        if batch:
            asyncio.ensure_future(self._send(batch))

    async def _send(self, batch):
        try:
            results = await asyncio.to_thread(self.client.rewards, [item for item, _ in batch])
        except BaseException as e:  # noqa: BLE001 - handed to every waiter
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(e)
            return
        for (_, fut), res in zip(batch, results):
            if not fut.done():
                fut.set_result(res)


_batchers = weakref.WeakKeyDictionary()  # event loop -> Batcher
_lock = threading.Lock()


def _batcher():
    loop = asyncio.get_running_loop()
    with _lock:
        b = _batchers.get(loop)
        if b is None:
            window = float(os.environ.get("SQLGYM_BATCH_WINDOW_MS", "20")) / 1000.0
            max_items = int(os.environ.get("SQLGYM_BATCH_MAX_ITEMS", "512"))
            retry_for = float(os.environ.get("SQLGYM_RETRY_FOR", "300"))
            b = _batchers[loop] = Batcher(SqlgymClient(retry_for=retry_for), window, max_items)
        return b


async def batched_reward(item):
    """The server's result for one /v1/rewards item, sent with the items
    pending at the same time."""
    return await _batcher().score(item)
