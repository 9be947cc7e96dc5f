# Sika (patch/python/asyncio_wakes.rs, docs/adr/0030-asyncio-wake-ups.md): coalesced wake-ups.
# A continuation called from one of the SDK's threads queues its (waiter, poll code) for its
# event loop and wakes the loop only when no wake-up is pending there: one
# call_soon_threadsafe (a self-pipe write and one loop iteration) for every completion that is
# ready at that moment, instead of one per completion. A continuation called on the loop's own
# thread inside the poll (the call was ready when polled) only records its poll code: the
# coroutine reads it when the poll returns, and yields once, with no future and no call_soon.
import collections as _sika_collections
import weakref as _sika_weakref

_sika_get_running_loop = asyncio._get_running_loop
# The continuation's handle: a key of `_sika_waiters`. No lock: a dict's store and pop and the
# counter's next are each one atomic step under the GIL.
_sika_next_handle = itertools.count(1, 2).__next__
_sika_waiters = {}


class _SikaLoopWakes:
    """The completions queued for one event loop by other threads, and whether a wake-up of
    the loop is pending. Found through a per-thread cache (a loop runs on one thread); a
    thread that changes loops makes a new one, which is correct (every guarantee holds per
    queue) and only coalesces less. Held by its calls in flight and its scheduled drain, and
    only weakly by the cache: a loop closed before its drain ran leaves a queue holding the
    calls and held by them, which the garbage collector frees as the loop's own scheduled
    callbacks were. It holds the loop weakly too: it must not keep a closed loop alive."""

    __slots__ = ("loop_ref", "queue", "pending", "__weakref__")

    def __init__(self, eventloop):
        self.loop_ref = _sika_weakref.ref(eventloop)
        self.queue = _sika_collections.deque()
        self.pending = False

    def drain(self):
        # Cleared before draining: a completion appended after this line is either drained
        # below or finds no wake-up pending and schedules one, so none is left behind (and one
        # appended before it is in the queue already). At worst a wake-up finds nothing.
        self.pending = False
        queue = self.queue
        # Only the loop's thread pops, so a non-empty queue has an item to pop.
        while queue:
            waiter, poll_code = queue.popleft()
            future = waiter.future
            if future is not None and not future.cancelled():
                future.set_result(poll_code)


class _SikaWaiter:
    """One async call's continuation: the loop's queue, the poll code when the continuation
    came inside the poll, else the future the coroutine awaits."""

    __slots__ = ("wakes", "code", "future")

    def __init__(self, wakes):
        self.wakes = wakes
        self.code = None
        self.future = None


_sika_thread_state = threading.local()


def _sika_loop_wakes(eventloop):
    cached = getattr(_sika_thread_state, "wakes", None)
    wakes = None if cached is None else cached()
    if wakes is None or wakes.loop_ref() is not eventloop:
        wakes = _SikaLoopWakes(eventloop)
        _sika_thread_state.wakes = _sika_weakref.ref(wakes)
    return wakes


# A forked child has only the forking thread: no completion of the parent's calls can come
# there, and a queue or a pending flag copied from the parent must not hold back its loops.
def _sika_wakes_after_fork_in_child():
    global _sika_waiters, _sika_thread_state
    _sika_waiters = {}
    _sika_thread_state = threading.local()


os.register_at_fork(after_in_child=_sika_wakes_after_fork_in_child)


# Continuation callback for async functions
# lift the return value or error and resolve the future, causing the async function to resume.
@_UNIFFI_RUST_FUTURE_CONTINUATION_CALLBACK
def _uniffi_continuation_callback(future_ptr, poll_code):
    waiter = _sika_waiters.pop(future_ptr)
    wakes = waiter.wakes
    eventloop = wakes.loop_ref()
    if eventloop is None:
        # The loop is gone, and with it every task that could await this call.
        return
    if _sika_get_running_loop() is eventloop:
        # On the loop's own thread, so never call_soon_threadsafe: its self-pipe write releases
        # the GIL, and a daemon loop thread retaking it while the interpreter finalizes is ended
        # by pthread_exit, whose unwind through the Rust frames crashes (B54).
        future = waiter.future
        if future is None:
            # Inside the poll (the coroutine sets a future only once the poll returned).
            waiter.code = poll_code
        elif not future.done():
            # Outside any poll (a Rust waker run on this thread): resolve it on the next turn.
            eventloop.call_soon(_uniffi_set_future_result, future, poll_code)
        return
    wakes.queue.append((waiter, poll_code))
    if wakes.pending:
        if eventloop.is_closed():
            # Closed before its drain ran (or after a wake-up failed, below): nothing will
            # drain this queue, and what it holds would keep the abandoned calls alive.
            wakes.queue.clear()
        return
    wakes.pending = True
    try:
        eventloop.call_soon_threadsafe(wakes.drain)
    except RuntimeError:
        # The loop was closed with calls in flight: nobody can await them now, so their
        # completions are dropped, silently (B54), and so are later ones (above).
        if not eventloop.is_closed():
            wakes.pending = False
            raise
        wakes.queue.clear()
