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
    timeoutMs = timeoutMs?.let { unsigned("timeoutMs", it).toULong() },
    connectTimeoutMs = connectTimeoutMs?.let { unsigned("connectTimeoutMs", it).toULong() },
    maxRetries = maxRetries?.let { unsigned("maxRetries", it.toLong()).toUInt() },
    bankCacheTtlSeconds = bankCacheTtlSeconds?.let { unsigned("bankCacheTtlSeconds", it).toULong() },
    userAgentSuffix = userAgentSuffix,
)

// Only the signed-to-unsigned step: a negative value would otherwise wrap to a huge one.
private fun unsigned(name: String, value: Long): Long {
    require(value >= 0) { "$name must not be negative: $value" }
    return value
}

/** What the merchant should do for this status: `transaction.status.merchantAction`. */
val TransactionStatus.merchantAction: MerchantAction
    @JvmName("merchantActionOf") get() = merchantAction(this)

/** Whether waiting will not change this status (all but Pending and Unknown). */
val TransactionStatus.isFinal: Boolean
    @JvmName("isFinalStatus") get() = isFinal(this)
