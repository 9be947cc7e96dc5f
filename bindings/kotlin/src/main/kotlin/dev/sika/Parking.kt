package dev.sika

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.launch
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit

/**
 * Where the blocking client's calls and the `...Async` twins run (ADR 0018, 0036): never
 * cancelled as a whole (each caller cancels only its own call), and one failing call does not
 * cancel the others.
 */
internal val sikaCalls = CoroutineScope(SupervisorJob() + Dispatchers.Default)

/**
 * Runs [call] for an `...Async` twin (ADR 0018) as a [CompletableFuture]. Undispatched, as
 * [parkUntilDone]: the call starts on the calling thread, up to its first wait, so what the core
 * reads at a call's start is the caller's (the host tracer's parent: the caller's OpenTelemetry
 * context, `Context.current()`, B263); it then completes on [sikaCalls]. Cancelling the future
 * cancels the call and returns once it has ended (its connection closed), waiting at most
 * [CANCEL_GRACE_MS], or for a [charge] [CHARGE_END_WAIT_MS]: the future's
 * [java.util.concurrent.CancellationException] then has a charge's
 * [SikaException.ChargeOutcomeUnknown] as its cause when the charge may have been sent (ADR 0082,
 * ADR 0094). Completed in any other way (`complete`, `orTimeout`), the future cancels the call too.
 */
internal fun <T> sikaFuture(charge: Boolean = false, call: suspend CoroutineScope.() -> T): CompletableFuture<T> {
    val future = SikaCallFuture<T>(if (charge) CHARGE_END_WAIT_MS else CANCEL_GRACE_MS)
    future.job = sikaCalls.launch(start = CoroutineStart.UNDISPATCHED) {
        try {
            future.complete(call())
        } catch (failure: Throwable) {
            future.failed(failure)
        }
    }
    future.whenComplete { _, _ -> future.job?.cancel() }
    return future
}

/** The future of an `...Async` twin: [cancel] cancels its call and waits for its end, at most [endWaitMs]. */
private class SikaCallFuture<T>(private val endWaitMs: Long) : CompletableFuture<T>() {
    @Volatile var job: Job? = null

    /** What the call ended with once [cancel] cancelled it (its charge's outcome is the cause). */
    @Volatile private var cancelledWith: Throwable? = null

    @Volatile private var cancelling = false

    fun failed(failure: Throwable) {
        if (cancelling && failure is CancellationException) cancelledWith = failure else completeExceptionally(failure)
    }

    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val job = job ?: return super.cancel(mayInterruptIfRunning)
        if (isDone) return false
        cancelling = true
        // A charge waits as long as its outcome needs (the cause, when it may have been sent); a
        // read only a grace, so a caller cancelling it on a loaded machine is not held 30 s.
        awaitEnd(job, endWaitMs)
        val unknown = cancelledWith?.let(::chargeOutcomeIn)
        val cancelled = java.util.concurrent.CancellationException(
            if (unknown != null) "the call was cancelled after its charge may have reached the service" else "the call was cancelled",
        )
        unknown?.let(cancelled::initCause)
        return completeExceptionally(cancelled) || isCancelled
    }
}

/** How long an interrupted call waits for its Rust future to be dropped before it returns. */
private const val CANCEL_GRACE_MS = 2_000L

/**
 * How long a cancelled charge waits for its call's end (its Rust future dropped on
 * [Dispatchers.Default], which a loaded machine can delay past [CANCEL_GRACE_MS]): the outcome
 * the core keeps then is the only way to tell a charge that was sent from one that was not.
 */
private const val CHARGE_END_WAIT_MS = 30_000L

/**
 * Runs [call] (one of [Client]'s suspend functions) and parks the calling thread until it ends
 * (ADR 0036). A virtual thread unmounts while it waits: no JNA call is in progress then, so its
 * carrier is free. On [Thread.interrupt] the call is cancelled (the Rust future dropped, its
 * connection closed), the interrupt flag is set again and [SikaException.Cancelled] thrown; a
 * thread already interrupted sends nothing. A call that makes [charge] throws
 * [SikaException.ChargeOutcomeUnknown] instead when the charge may have been sent (ADR 0075):
 * the core kept it, and logged it at WARN, as the Rust future was dropped.
 */
@Throws(SikaException::class)
internal fun <T> parkUntilDone(charge: ChargeRequest? = null, call: suspend () -> T): T {
    if (Thread.interrupted()) throw cancelledBy(Job().apply { cancel() }, null, null)
    val result = CompletableFuture<T>()
    // Undispatched: the call starts on this thread, up to its first wait, without a hop.
    val job = sikaCalls.launch(start = CoroutineStart.UNDISPATCHED) {
        try {
            result.complete(call())
        } catch (failure: Throwable) {
            result.completeExceptionally(failure)
        }
    }
    try {
        return result.get()
    } catch (_: InterruptedException) {
        throw cancelledBy(job, result, charge)
    } catch (failure: ExecutionException) {
        throw failure.cause ?: failure
    }
}

/**
 * Cancels [job] and waits until it has ended, so the Rust future is dropped when the caller sees
 * the exception; then sets the interrupt flag again. The exception: [SikaException.Cancelled],
 * unless the call makes [charge] and that charge may have been sent: then its
 * [SikaException.ChargeOutcomeUnknown] (the cause of the cancellation the suspend charge ended
 * with, [sikaCharge], else the one the core kept). A charge's call that has not ended after
 * [CHARGE_END_WAIT_MS] may still send it: its outcome is unknown too (without a request id), never
 * "cancelled".
 */
private fun cancelledBy(job: Job, result: CompletableFuture<*>?, charge: ChargeRequest?): SikaException {
    if (charge == null) {
        awaitEnd(job, CANCEL_GRACE_MS)
        Thread.currentThread().interrupt()
        return SikaException.Cancelled()
    }
    val ended = awaitEnd(job, CHARGE_END_WAIT_MS)
    Thread.currentThread().interrupt()
    val failure = result?.let { runCatching { it.getNow(null) }.exceptionOrNull() }
    return failure?.let(::chargeOutcomeIn)
        ?: takeCancelledCharge(charge.reference)
        ?: if (ended) SikaException.Cancelled() else SikaException.ChargeOutcomeUnknown(charge.reference, STILL_RUNNING, null)
}

/** Why a charge whose call did not end in time is reported with an unknown outcome. */
private const val STILL_RUNNING =
    "the call was cancelled while its request may have been on its way to the service, and had not ended after " +
        "${CHARGE_END_WAIT_MS / 1_000} s"

/** The charge's outcome a cancelled call ended with: [failure] or one of its causes. */
private fun chargeOutcomeIn(failure: Throwable): SikaException.ChargeOutcomeUnknown? =
    // Bounded: a cause chain can loop (A caused by B caused by A).
    generateSequence(failure, Throwable::cause).take(8).firstNotNullOfOrNull { it as? SikaException.ChargeOutcomeUnknown }

/**
 * Cancels [job] and waits (at most [boundMs], not interruptibly) until it has ended: whether it
 * did.
 */
private fun awaitEnd(job: Job, boundMs: Long): Boolean {
    job.cancel()
    val ended = CountDownLatch(1)
    job.invokeOnCompletion { ended.countDown() }
    val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs)
    var interrupted = false
    while (true) {
        val left = deadline - System.nanoTime()
        try {
            if (left <= 0 || ended.await(left, TimeUnit.NANOSECONDS)) break
        } catch (_: InterruptedException) {
            // Interrupted again while the call ends: the flag is set again below.
            interrupted = true
        }
    }
    if (interrupted) Thread.currentThread().interrupt()
    return job.isCompleted
}
