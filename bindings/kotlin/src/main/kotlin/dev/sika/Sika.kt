@file:JvmName("Sika")

package dev.sika

// Conveniences over the generated bindings (sika_ffi.kt). Idiom only: every decision is the
// Rust core's, reached through the generated functions.

/**
 * A [ClientConfig] from the key's text. Unset settings (null) take the core's defaults.
 *
 * Kotlin: `ClientConfig("sk_test_...", "https://...", timeoutMs = 10_000)`.
 * Java, which cannot call the generated constructor (its settings are Kotlin unsigned types):
 * `Sika.clientConfig(key, url)`, `Sika.clientConfig(key, url, 10_000L)`, ...
 */
@JvmName("clientConfig")
@JvmOverloads
fun ClientConfig(
    secretKey: String,
    baseUrl: String,
    timeoutMs: Long? = null,
    connectTimeoutMs: Long? = null,
    maxRetries: Int? = null,
    bankCacheTtlSeconds: Long? = null,
    userAgentSuffix: String? = null,
): ClientConfig = ClientConfig(
    SecretKey(secretKey),
    baseUrl,
    timeoutMs = unsigned("timeoutMs", timeoutMs),
    connectTimeoutMs = unsigned("connectTimeoutMs", connectTimeoutMs),
    maxRetries = unsigned("maxRetries", maxRetries?.toLong())?.toUInt(),
    bankCacheTtlSeconds = unsigned("bankCacheTtlSeconds", bankCacheTtlSeconds),
    userAgentSuffix = userAgentSuffix,
)

// Only the signed-to-unsigned step: a negative value would otherwise wrap to a huge one.
private fun unsigned(name: String, value: Long?): ULong? {
    if (value == null) return null
    require(value >= 0) { "$name must not be negative: $value" }
    return value.toULong()
}

/** What the merchant should do for this status: `transaction.status.merchantAction`. */
val TransactionStatus.merchantAction: MerchantAction
    @JvmName("merchantActionOf") get() = merchantAction(this)

/** Whether waiting will not change this status (all but Pending and Unknown). */
val TransactionStatus.isFinal: Boolean
    @JvmName("isFinalStatus") get() = isFinal(this)

/**
 * [AwaitOptions] in signed milliseconds; unset settings (null) take the core's defaults (first
 * check after 3000 ms, then every 2000 ms doubling up to 10 000 ms, for at most 120 000 ms).
 *
 * Kotlin can also use the generated constructor: `AwaitOptions(timeoutMs = 60_000u)`.
 * Java, which cannot call it (its settings are Kotlin unsigned types):
 * `Sika.awaitOptions(1000L, 500L, 2000L, 60000L, cancellation)`, `Sika.awaitOptions()`, ...
 */
@JvmOverloads
fun awaitOptions(
    initialDelayMs: Long? = null,
    intervalMs: Long? = null,
    maxIntervalMs: Long? = null,
    timeoutMs: Long? = null,
    cancellation: Cancellation? = null,
): AwaitOptions = AwaitOptions(
    initialDelayMs = unsigned("initialDelayMs", initialDelayMs),
    intervalMs = unsigned("intervalMs", intervalMs),
    maxIntervalMs = unsigned("maxIntervalMs", maxIntervalMs),
    timeoutMs = unsigned("timeoutMs", timeoutMs),
    cancellation = cancellation,
)

/**
 * The HTTP status to answer a webhook notification with (200, 503 or 400), as an `Int`:
 * `decision.httpStatusCode`; Java: `Sika.httpStatusOf(decision)` (it cannot call the generated
 * `httpStatus()`, which returns a Kotlin `UShort`).
 */
val WebhookDecision.httpStatusCode: Int
    @JvmName("httpStatusOf") get() = httpStatus().toInt()
