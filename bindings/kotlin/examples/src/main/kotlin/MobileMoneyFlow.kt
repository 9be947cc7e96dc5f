// The main job of a merchant server, end to end: pick a provider, charge a mobile money number,
// wait for the customer's USSD answer, verify, and act on the status.
//
// Run it against the sandbox with `scripts/quickstart --kotlin`, or by hand:
// `SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... scripts/example-kotlin`
package dev.sika.examples

import dev.sika.ChargeRequest
import dev.sika.Client
import dev.sika.MerchantAction
import dev.sika.SikaException
import dev.sika.TransactionStatus
import dev.sika.isFinal
import dev.sika.merchantAction
import java.math.BigDecimal
import kotlin.system.exitProcess
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking

fun main() {
    try {
        runBlocking { run() }
    } catch (error: SikaException) {
        System.err.println("error: ${error.message}")
        exitProcess(1)
    }
}

private suspend fun run() = Client.fromEnv().use { client ->
    println("1. Mobile money providers in Ghana:")
    val providers = client.listMobileMoneyProviders("GH")
    for (provider in providers) {
        println("   - ${provider.name} (code ${provider.code}, ${if (provider.active) "active" else "inactive"})")
    }
    val provider = providers.firstOrNull { it.active }
    if (provider == null) {
        println("   no active provider: nothing to charge")
        return@use
    }

    val reference = "ORDER-${System.currentTimeMillis()}"
    val request = ChargeRequest(
        amount = BigDecimal("25.50"),
        email = "ama@example.com",
        // The sandbox answers by the last four digits: 0000 is a successful payment.
        phoneNumber = "+233244120000",
        reference = reference,
        currency = "GHS",
        provider = provider.code,
        callbackUrl = "https://shop.example.com/orders/return",
    )
    println("2. Charging ${request.amount.toPlainString()} GHS to ${request.phoneNumber} with ${provider.name} (reference $reference)")
    val response = client.initiateCharge(request)
    println("   service said: ${response.message ?: "(no message)"}")

    println("3. Waiting for the customer to answer the USSD prompt...")
    val deadline = System.currentTimeMillis() + 60_000
    var transaction = client.verifyTransaction(reference)
    while (!transaction.status.isFinal && System.currentTimeMillis() < deadline) {
        println("   status: ${describe(transaction.status)} (checking again shortly)")
        delay(500)
        transaction = client.verifyTransaction(reference)
    }

    println("4. Verified: status ${describe(transaction.status)}, amount ${transaction.amount.toPlainString()} ${transaction.currency}")
    val action = transaction.status.merchantAction
    println("5. Merchant action: $action")
    // BigDecimal: compareTo, not equals, which also compares the scale (25.5 vs 25.50).
    if (action == MerchantAction.FULFIL_ORDER && transaction.amount.compareTo(request.amount) == 0 &&
        transaction.txRef == reference
    ) {
        println("   paid in full: ship the order")
    }
}

private fun describe(status: TransactionStatus): String = when (status) {
    is TransactionStatus.Unknown -> "unknown (\"${status.value}\")"
    else -> status.javaClass.simpleName.lowercase()
}
