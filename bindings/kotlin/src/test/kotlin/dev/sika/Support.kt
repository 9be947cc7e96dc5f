package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.delay
import kotlinx.serialization.json.JsonPrimitive

/** A complete transaction object as the service sends it (JSON text, amount written as given). */
fun transactionObject(reference: String, status: String, amount: String): String = """
    {"id":7,"domain":"test","amount":$amount,"currency":"GHS","due_date":null,"has_invoice":false,
    "invoice_number":null,"description":null,"tx_ref":${JsonPrimitive(reference)},"gw_ref":"GW-SEED",
    "status":"$status","payment_type":"mobile_money","created_at":"2024-05-01T12:00:00.000Z",
    "updated_at":"2024-05-01T12:00:00.000Z","customer":{"id":1,"name":"Ama","phone_number":"+233244123456",
    "email":"ama@example.com","created_at":"2024-04-01T09:00:00.000Z","updated_at":"2024-04-01T09:00:00.000Z"},
    "meta":{"custom_fields":[]}}
""".trimIndent()

fun charge(reference: String, phone: String = "+233244125678", amount: String = "20") = ChargeRequest(
    amount = BigDecimal(amount),
    email = "ama@example.com",
    phoneNumber = phone,
    reference = reference,
    currency = "GHS",
    provider = "MTN",
    callbackUrl = "https://shop.example.com/return",
)

/** Verifies until [done] holds or [limitMs] passes; returns the last transaction. */
suspend fun Client.verifyUntil(reference: String, limitMs: Long = 5_000, done: (Transaction) -> Boolean): Transaction {
    val deadline = System.currentTimeMillis() + limitMs
    while (true) {
        val transaction = verifyTransaction(reference)
        if (done(transaction) || System.currentTimeMillis() > deadline) return transaction
        delay(50)
    }
}

/** The shared test data, tests/fixtures (`$SIKA_FIXTURES_DIR`, set by scripts/test-kotlin). */
val FIXTURES: File = File(
    System.getenv("SIKA_FIXTURES_DIR") ?: System.getProperty("sika.fixtures.dir") ?: "../../tests/fixtures",
)

/** A call's outcome as the shared fixtures name it: the error's kind (`Timeout`, ...) or `Ok`. */
fun outcomeKind(result: Result<*>): String = result.fold(
    onSuccess = { "Ok" },
    onFailure = { error -> if (error is SikaException) error::class.simpleName!! else throw error },
)

/** Polls [read] every 50 ms until [done] holds or [limitMs] passes; returns the last value read. */
suspend fun <T> pollUntil(limitMs: Long, read: () -> T, done: (T) -> Boolean): T {
    val deadline = System.nanoTime() + limitMs * 1_000_000
    while (true) {
        val value = read()
        if (done(value) || System.nanoTime() > deadline) return value
        delay(50)
    }
}
