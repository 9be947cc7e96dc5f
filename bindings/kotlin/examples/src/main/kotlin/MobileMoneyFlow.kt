// The main job of a merchant server, end to end: pick a provider, charge a mobile money number,
// wait for the customer's USSD answer, confirm the payment against the order, and answer the
// service's webhook, all with Sika's decisions rather than reading statuses by hand.
//
// Run it against the sandbox with `scripts/quickstart --kotlin`, or by hand:
// `SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... scripts/example-kotlin`
// (set SIKA_WEBHOOK_PORT and start the sandbox with `--webhook-url http://127.0.0.1:PORT/webhooks/sika`
// to see the webhook step).
package dev.sika.examples

import com.sun.net.httpserver.HttpServer
import dev.sika.AwaitOptions
import dev.sika.BlockingClient
import dev.sika.ChargeRequest
import dev.sika.Client
import dev.sika.ExpectedPayment
import dev.sika.PaymentCheck
import dev.sika.SikaException
import dev.sika.WebhookDecision
import dev.sika.normalizePhoneNumber
import dev.sika.parseWebhookEvent
import java.math.BigDecimal
import java.net.InetSocketAddress
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.system.exitProcess
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

// The merchant's orders: what each reference must be paid, and which were shipped.
// A real server keeps these in its database.
private val orders = ConcurrentHashMap<String, ExpectedPayment>()
private val shipped = ConcurrentHashMap.newKeySet<String>()

/** Ships an order the first time only: the webhook and the check below may both say "paid". */
private fun shipOnce(reference: String): Boolean = shipped.add(reference)

/** What the webhook endpoint decided, and whether it shipped: printed by the main flow. */
private val webhookDecisions = LinkedBlockingQueue<Pair<WebhookDecision, Boolean>>()

fun main() {
    try {
        runBlocking { run() }
    } catch (error: SikaException) {
        System.err.println("error: ${error.message}")
        exitProcess(1)
    }
}

private suspend fun run() = Client.fromEnv().use { client ->
    val webhookServer = System.getenv("SIKA_WEBHOOK_PORT")?.let { startWebhookServer(it.toInt()) }
    try {
        chargeAndConfirm(client)
        if (webhookServer != null) {
            println("5. The service's charge.success webhook:")
            val received = withContext(Dispatchers.IO) { webhookDecisions.poll(10, TimeUnit.SECONDS) }
            if (received == null) {
                println("   none arrived within 10 s")
            } else {
                val (decision, shippedNow) = received
                println("   decision: ${decision.javaClass.simpleName}, answered HTTP ${decision.httpStatus()}")
                if (decision is WebhookDecision.Fulfil) {
                    println(if (shippedNow) "   shipped by the webhook" else "   already shipped: nothing more to do")
                }
            }
        }
    } finally {
        webhookServer?.stop(0)
    }
}

private suspend fun chargeAndConfirm(client: Client) {
    println("1. Mobile money providers in Ghana:")
    val providers = client.listMobileMoneyProviders("GH")
    for (provider in providers) {
        println("   - ${provider.name} (code ${provider.code}, ${if (provider.active) "active" else "inactive"})")
    }
    val provider = providers.firstOrNull { it.active }
    if (provider == null) {
        println("   no active provider: nothing to charge")
        return
    }

    val phone = normalizePhoneNumber("024 412 0000", "GH") // as the customer typed it
    val reference = "ORDER-${System.currentTimeMillis()}"
    val order = ExpectedPayment(BigDecimal("25.50"), "GHS")
    orders[reference] = order
    println("2. Charging ${order.amount.toPlainString()} ${order.currency} to $phone with ${provider.name} (reference $reference)")
    try {
        val response = client.initiateCharge(
            ChargeRequest(
                amount = order.amount,
                email = "ama@example.com",
                phoneNumber = phone, // the sandbox answers by the last four digits: 0000 pays
                reference = reference,
                currency = order.currency,
                provider = provider.code,
                callbackUrl = "https://shop.example.com/orders/return",
            ),
        )
        println("   service said: ${response.message ?: "(no message)"}")
    } catch (error: SikaException.ChargeOutcomeUnknown) {
        // The service may have taken the charge: never send it again, follow the reference.
        println("   ${error.message}")
        println("   following ${error.reference} instead of charging again")
    }

    println("3. Waiting for the customer to answer the USSD prompt...")
    val options = AwaitOptions(initialDelayMs = 1000, intervalMs = 500, maxIntervalMs = 2000, timeoutMs = 60_000)
    val transaction = try {
        client.awaitFinalStatus(reference, options)
    } catch (error: SikaException.Timeout) {
        println("   no final answer within 60 s: keep the order pending (the webhook or a later check decides)")
        return
    }
    println("   final status: ${transaction.status}")

    println("4. Confirming the payment against the order:")
    when (val check = client.confirmPayment(reference, order)) {
        is PaymentCheck.Confirmed -> {
            val paid = check.transaction
            println("   confirmed: ${paid.amount.toPlainString()} ${paid.currency} paid in full")
            println(if (shipOnce(reference)) "   ship the order" else "   already shipped (by the webhook)")
        }
        is PaymentCheck.NotYet -> println("   not yet paid: do not ship")
        is PaymentCheck.NotPaid -> println("   not paid: do not ship")
        is PaymentCheck.Mismatch ->
            println("   ${check.field} does not match (expected ${check.expected}, paid ${check.actual}): do not ship, investigate")
    }
    println("   merchant action: ${transaction.status.merchantAction()}")
}

/**
 * The webhook endpoint, as a thread-per-request server writes it (servlet style, with
 * BlockingClient). The notification is only a hint: handleWebhook verifies it with the service.
 */
private fun startWebhookServer(port: Int): HttpServer {
    val client = BlockingClient.fromEnv()
    val server = HttpServer.create(InetSocketAddress("127.0.0.1", port), 0)
    server.createContext("/webhooks/sika") { exchange ->
        try {
            val body = exchange.requestBody.readNBytes(64 * 1024 + 1) // larger bodies are rejected anyway
            // Unverified: only to find the order the notification claims to be about.
            val order = runCatching { parseWebhookEvent(body).reference }.getOrNull()?.let { orders[it] }
            val status = if (order == null) {
                400
            } else {
                val decision = client.handleWebhook(body, order)
                val shippedNow = decision is WebhookDecision.Fulfil && shipOnce(decision.transaction.txRef)
                webhookDecisions.put(decision to shippedNow)
                decision.httpStatus()
            }
            exchange.sendResponseHeaders(status, -1)
        } catch (error: SikaException) {
            exchange.sendResponseHeaders(500, -1) // the service will deliver it again
        } finally {
            exchange.close()
        }
    }
    server.start()
    return server
}
