package dev.sika

import kotlinx.coroutines.CancellationException

/**
 * Runs [call], the generated body of a `suspend` method that makes [charge] (`Client` and
 * `Ledger`'s `initiateCharge`; the patch `charge_cancellations.rs` of `bindings/uniffi-bindgen`
 * puts it there). Cancelled after the charge's request may have reached the service, the
 * [CancellationException] it throws has the charge's [SikaException.ChargeOutcomeUnknown]
 * (reference, request id) as its cause (ADR 0075, ADR 0082): the core kept that outcome, and
 * logged it at WARN, as the generated call freed the Rust future. Cancelled before any socket
 * connected, the host's cancellation goes on as it was: nothing was sent.
 */
@JvmSynthetic
internal suspend fun <T> sikaCharge(charge: ChargeRequest, call: suspend () -> T): T =
    try {
        call()
    } catch (cancelled: CancellationException) {
        val unknown = takeCancelledCharge(charge.reference) ?: throw cancelled
        throw cancelled.withCause(unknown)
    }

/**
 * This cancellation with [unknown] as its cause: itself when it has none yet, else a new one with
 * its message (as when one cancellation ends several calls). The cancellation it was copied from
 * gets [unknown] as its cause too when it has none: kotlinx.coroutines' stack-trace recovery (on
 * in debug mode, `-ea`) hands a suspended call a copy whose cause is the original, and what a
 * `withTimeout` around the charge rethrows is that original (or a copy of it).
 */
private fun CancellationException.withCause(unknown: SikaException): CancellationException {
    var original: Throwable = this
    while (true) {
        val next = original.cause
        if (next !is CancellationException || next === original) break
        original = next
    }
    val taken = original.cause == null &&
        try {
            original.initCause(unknown)
            true
        } catch (_: IllegalStateException) {
            false // made with "no cause" explicitly: it cannot take one
        }
    return if (taken && original === this) this else CancellationException(message, unknown)
}
