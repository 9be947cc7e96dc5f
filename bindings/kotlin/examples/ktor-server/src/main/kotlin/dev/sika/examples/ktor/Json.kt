// The shop's JSON, with kotlinx.serialization's JsonElement API (no compiler plugin).
package dev.sika.examples.ktor

import dev.sika.SikaException
import dev.sika.Transaction
import io.ktor.http.ContentType
import io.ktor.http.HttpStatusCode
import io.ktor.server.application.ApplicationCall
import io.ktor.server.response.respondText
import java.math.BigDecimal
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put

/** What the customer's `POST /orders` asks for. */
class OrderRequest(val amount: BigDecimal, val email: String, val phoneNumber: String)

/** `{"amount": "20.00", "email": ..., "phone_number": ...}`, or null when it is not that. */
fun readOrderRequest(text: String): OrderRequest? {
    val fields = runCatching { Json.parseToJsonElement(text).jsonObject }.getOrNull() ?: return null
    val amount = fields.text("amount")?.toBigDecimalOrNull() ?: return null
    return OrderRequest(amount, fields.text("email") ?: return null, fields.text("phone_number") ?: return null)
}

/**
 * The order as the shop answers it, with what the customer needs of [transaction]: its
 * reference, status as the service's text and exact amount. Never the whole record: its
 * `toJson()` is for storing, with the customer's phone, e-mail and the service's raw answer.
 */
fun orderJson(order: Order, state: String, transaction: Transaction? = null): JsonObject = buildJsonObject {
    put("reference", order.reference)
    put("amount", order.amount.toPlainString())
    put("currency", order.currency)
    put("state", state)
    put("fulfilled_by", order.fulfilledBy)
    if (transaction != null) {
        put(
            "transaction",
            buildJsonObject {
                put("tx_ref", transaction.txRef)
                put("status", transaction.status.toString())
                put("amount", transaction.amount.toPlainString())
                put("currency", transaction.currency)
            },
        )
    }
}

/** A typed error as `{"error": "InvalidInput", "message": ...}`: the core's message, never the key. */
fun errorJson(error: SikaException): JsonObject = buildJsonObject {
    put("error", error.javaClass.simpleName)
    put("message", error.message)
}

suspend fun ApplicationCall.respondJson(status: HttpStatusCode, json: JsonElement) =
    respondText(json.toString(), ContentType.Application.Json, status)

/** The JSON string field [name] of this object, or null. */
private fun JsonObject.text(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.content
