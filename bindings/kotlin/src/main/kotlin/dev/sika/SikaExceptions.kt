@file:JvmName("SikaExceptions")

package dev.sika

// Idiom only: one property for the request id the core put on the error (ADR 0053), as Swift's
// `SikaError.requestId` and Python's `SikaError.request_id`. The `when` is exhaustive over the
// sealed class: a variant the core adds fails the build here until it is placed.

/**
 * The id to quote to support: the service's `X-Request-Id` of the answer, else the one Sika sent
 * with the call's last attempt. `null` for the errors no request preceded (`InvalidInput`,
 * `Configuration`, `Cancelled`, `Storage`, `ClaimLost`). From Java:
 * `SikaExceptions.getRequestId(error)`.
 */
val SikaException.requestId: String?
    get() = when (this) {
        is SikaException.Unauthorized -> requestId
        is SikaException.InvalidCountryCode -> requestId
        is SikaException.NoProvidersFound -> requestId
        is SikaException.TransactionNotFound -> requestId
        is SikaException.InvalidReference -> requestId
        is SikaException.Api -> requestId
        is SikaException.RateLimited -> requestId
        is SikaException.Timeout -> requestId
        is SikaException.Network -> requestId
        is SikaException.UnexpectedResponse -> requestId
        is SikaException.ChargeOutcomeUnknown -> requestId
        is SikaException.InvalidInput, is SikaException.Cancelled, is SikaException.Configuration,
        is SikaException.Storage, is SikaException.ClaimLost,
        -> null
    }
