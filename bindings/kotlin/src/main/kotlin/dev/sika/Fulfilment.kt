@file:JvmName("Fulfilment")

package dev.sika

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import java.util.concurrent.atomic.AtomicReference
import java.util.function.Function

// The ledger's fulfilment blocks (issue 43, ADR 0071): the claim renewed on entry and every
// `renewIntervalMs()` while the block runs, marked fulfilled when it returns, given back
// (`release`) when it throws an exception. An interruption (a cancelled coroutine, an
// interrupted thread) keeps the claim: the shipment may have gone out, so the order is offered
// again only after the lease, logged at WARN by the core. A renewal that found the claim lost
// throws `ClaimLost` when the block ends; the block itself is never stopped half-way.

// Null without an SLF4J provider: then these records go nowhere, as the core's do (Slf4jLogging).
private val log get() = Slf4jLogging.packageLogger

/** Whether [failure] means "the fulfilment failed" (give the claim back), not "interrupted". */
private fun failed(failure: Throwable): Boolean =
    failure is Exception && failure !is CancellationException && failure !is InterruptedException &&
        failure !is SikaException.Cancelled

private fun reason(failure: Throwable): String =
    failure.message?.let { "${failure.javaClass.simpleName}: $it" } ?: failure.javaClass.simpleName

private fun warnRenewalFailed(claim: Claim, failure: Throwable) =
    log?.warn("renewing the claim of '{}' failed (tried again at the next interval): {}", claim.reference, failure.message)

private fun warnKept(claim: Claim, failure: Throwable) = log?.warn(
    "the fulfilment of '{}' was interrupted ({}): its claim is kept, so the order is offered again only after " +
        "the lease; if the shipment went out, fulfil idempotently on offer {}",
    claim.reference, failure.javaClass.simpleName, claim.offer,
)

/**
 * After [failure] ended a block: the claim given back ([giveBack] with the reason) when the
 * fulfilment failed, kept when it was interrupted, left alone when it was lost already.
 */
private inline fun afterFailure(held: Claim, lost: SikaException.ClaimLost?, failure: Throwable, giveBack: (String) -> Unit) {
    when {
        lost != null -> {}
        failed(failure) -> try {
            giveBack(reason(failure))
        } catch (releaseFailure: SikaException) {
            log?.warn("giving back the claim of '{}' failed: {}", held.reference, releaseFailure.message)
        }
        else -> warnKept(held, failure)
    }
}

/**
 * Fulfils [claim]'s order in [block]: renews the claim first (`ClaimLost` when it was offered to
 * another caller meanwhile: [block] does not run) and every [Ledger.renewIntervalMs] while
 * [block] runs, marks it fulfilled when [block] returns, gives it back ([Ledger.release]) when
 * [block] throws. A renewal that found the claim lost throws [SikaException.ClaimLost] when
 * [block] ends.
 */
// Kotlin's alone (a suspend function Java cannot call well: B123); Java uses BlockingLedger's.
@JvmSynthetic
@Throws(SikaException::class)
suspend fun <T> Ledger.fulfil(claim: Claim, block: suspend (Claim) -> T): T = coroutineScope {
    val held = renew(claim)
    val lost = AtomicReference<SikaException.ClaimLost?>(null)
    val renewer = launch {
        var current = held
        while (true) {
            delay(renewIntervalMs())
            try {
                current = renew(current)
            } catch (claimLost: SikaException.ClaimLost) {
                lost.set(claimLost)
                return@launch
            } catch (failure: SikaException) {
                warnRenewalFailed(current, failure)
            }
        }
    }
    val result = try {
        block(held)
    } catch (failure: Throwable) {
        renewer.cancelAndJoin()
        afterFailure(held, lost.get(), failure) { release(held, it) }
        throw failure
    }
    renewer.cancelAndJoin()
    lost.get()?.let { throw it }
    markFulfilled(held)
    result
}

/**
 * [Ledger.fulfil] for threads: [block] runs on the calling thread while a daemon thread renews
 * the claim. From Java: `Fulfilment.fulfil(ledger, claim, c -> { ship(c.getReference()); return null; })`.
 */
@Throws(SikaException::class)
fun <T> BlockingLedger.fulfil(claim: Claim, block: Function<Claim, T>): T {
    val held = renew(claim)
    val lost = AtomicReference<SikaException.ClaimLost?>(null)
    val stop = java.util.concurrent.CountDownLatch(1)
    val renewer = Thread({
        var current = held
        while (!stop.await(renewIntervalMs(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            try {
                current = renew(current)
            } catch (claimLost: SikaException.ClaimLost) {
                lost.set(claimLost)
                return@Thread
            } catch (failure: SikaException) {
                warnRenewalFailed(current, failure)
            }
        }
    }, "sika-renew-${held.reference}")
    renewer.isDaemon = true
    renewer.start()
    fun stopRenewing() {
        stop.countDown()
        renewer.join()
    }
    val result = try {
        block.apply(held)
    } catch (failure: Throwable) {
        stopRenewing()
        afterFailure(held, lost.get(), failure) { release(held, it) }
        throw failure
    }
    stopRenewing()
    lost.get()?.let { throw it }
    markFulfilled(held)
    return result
}
