// A small shop as a Ktor application: the customer orders (a mobile money charge through the
// ledger, which records the order's figures first), checks the order (the payment confirmed
// against it), and the service's webhook fulfils it, exactly once however often it is delivered
// (the ledger's claim). Every decision is the SDK's: the shop only stores orders, ships, and
// answers HTTP.
package dev.sika.examples.ktor

import dev.sika.ChargeRequest
import dev.sika.Client
import dev.sika.Ledger
import dev.sika.LedgerDecision
import dev.sika.PaymentCheck
import dev.sika.SikaException
import dev.sika.WebhookDecision
import dev.sika.fulfil
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.Application
import io.ktor.server.application.ApplicationStopped
import io.ktor.server.application.install
import io.ktor.server.application.log
import io.ktor.server.plugins.statuspages.StatusPages
import io.ktor.server.request.contentLength
import io.ktor.server.request.receiveChannel
import io.ktor.server.request.receiveText
import io.ktor.server.response.respond
import io.ktor.server.routing.get
import io.ktor.server.routing.post
import io.ktor.server.routing.routing
import io.ktor.utils.io.readRemaining
import java.util.UUID
import kotlinx.io.readByteArray

fun Application.shop(client: Client, ledger: Ledger, orders: Orders = Orders()) {
    // One client and one ledger for the application: their connections are shared by every request.
    monitor.subscribe(ApplicationStopped) {
        client.shutdown() // closes its connections
        client.close() // frees the native object
        ledger.close() // closes the database connections
    }
    install(StatusPages) {
        // The service's answers the shop cannot act on: say so, never "paid".
        exception<SikaException.TransactionNotFound> { call, error -> call.respondJson(HttpStatusCode.NotFound, errorJson(error)) }
        exception<SikaException> { call, error -> call.respondJson(HttpStatusCode.BadGateway, errorJson(error)) }
    }
    routing {
        post("/orders") {
            val asked = readOrderRequest(call.receiveText()) ?: return@post call.respond(HttpStatusCode.BadRequest)
            val order = Order("ORDER-${UUID.randomUUID()}", asked.amount, "GHS")
            orders.add(order) // before the charge: its webhook may arrive before the answer
            try {
                // The ledger records the order's amount and currency, then sends the charge.
                ledger.initiateCharge(
                    client,
                    ChargeRequest(order.amount, asked.email, asked.phoneNumber, order.reference, order.currency, "MTN", RETURN_URL),
                )
                call.respondJson(HttpStatusCode.Created, orderJson(order, "pending"))
            } catch (error: SikaException.InvalidInput) {
                orders.remove(order.reference) // refused before anything was sent
                call.respondJson(HttpStatusCode.BadRequest, errorJson(error))
            } catch (error: SikaException.ChargeOutcomeUnknown) {
                // The service may have taken it: never charge again; the check or webhook decides.
                call.respondJson(HttpStatusCode.Accepted, orderJson(order, "pending"))
            }
        }

        get("/orders/{reference}") {
            val order = orders.find(call.parameters["reference"]!!) ?: return@get call.respond(HttpStatusCode.NotFound)
            val (state, transaction) = when (val check = client.confirmPayment(order.reference, order.expected)) {
                is PaymentCheck.Confirmed -> {
                    // The webhook may be first, or at the same time: the ledger's claim decides who ships.
                    val decision = ledger.settle(client, order.reference)
                    if (decision is LedgerDecision.Fulfil) {
                        // Renewed while it ships, marked fulfilled after, given back if shipping throws.
                        ledger.fulfil(decision.claim) { orders.ship(it.reference, "check") }
                    }
                    "paid" to check.transaction
                }
                is PaymentCheck.NotYet -> "pending" to check.transaction
                is PaymentCheck.NotPaid -> "not paid" to check.transaction
                is PaymentCheck.Mismatch -> "${check.field} does not match" to check.transaction
            }
            call.respondJson(HttpStatusCode.OK, orderJson(orders.find(order.reference)!!, state, transaction))
        }

        post("/webhooks/sika") {
            // Read at most MAX_WEBHOOK_BODY_BYTES: anyone can post here, and a body read whole
            // without a cap lets one request fill the server's memory.
            val declared = call.request.contentLength()
            if (declared != null && declared > MAX_WEBHOOK_BODY_BYTES) return@post call.respond(HttpStatusCode.PayloadTooLarge)
            val body = call.receiveChannel().readRemaining(MAX_WEBHOOK_BODY_BYTES + 1).readByteArray()
            if (body.size > MAX_WEBHOOK_BODY_BYTES) return@post call.respond(HttpStatusCode.PayloadTooLarge)
            // The ledger verifies the notification with the service (one it does not expect is
            // Reject, 400, nothing asked), decides against the order's recorded figures, and
            // gives Fulfil, with a claim, to one delivery only.
            val decision = ledger.handleWebhook(client, body)
            when (decision) {
                // Every later delivery: AlreadyFulfilled. A shipment that throws gives the claim
                // back, so the service's next delivery ships it at once.
                is LedgerDecision.Fulfil -> ledger.fulfil(decision.claim) { orders.ship(it.reference, "webhook") }
                is LedgerDecision.Decided ->
                    (decision.decision as? WebhookDecision.Investigate)?.let { log.warn("webhook: {}", it.reason) }
                else -> {} // AlreadyFulfilled (200); InProgress (another delivery holds the claim): 503, delivered again
            }
            call.respond(HttpStatusCode.fromValue(decision.httpStatus()))
        }
    }
}

/** Where the service sends the customer back after a card or bank payment. */
private const val RETURN_URL = "https://shop.example.com/orders/return"

/** A notification is a few hundred bytes; 64 KiB leaves room and bounds what one request costs. */
const val MAX_WEBHOOK_BODY_BYTES = 64 * 1024L
