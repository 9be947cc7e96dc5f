package dev.sika

import java.io.File
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.fail

/**
 * B01: every recorded response of tests/fixtures decodes to its expected values, through the
 * core's decoders. The expected values are written in the fixtures' neutral form (amounts as
 * exact text, timestamps as epoch ms, `Kind` or `Kind:value`), so decoded values are put in
 * that form and compared whole.
 */
class FixturesTest {
    private val cases = Json.parseToJsonElement(File(FIXTURES, "cases.json").readText())
        .jsonObject["cases"]!!.jsonArray.map { it.jsonObject }

    @Test
    fun testB01TheFixtureSetIsComplete() {
        assertTrue(cases.size >= 30, "the fixture set shrank: ${cases.size}")
    }

    @TestFactory
    fun testB01EveryFixtureDecodesToItsExpectedValues(): List<DynamicTest> = cases.map { case ->
        DynamicTest.dynamicTest(case.text("name")) { check(case) }
    }

    private fun check(case: JsonObject) {
        val name = case.text("name")
        val status = case["http_status"]!!.jsonPrimitive.int
        val body = File(FIXTURES, case.text("body_file")).readBytes()
        val expect = case["expect"]!!.jsonObject
        val actual: JsonObject = try {
            when (val operation = case.text("operation")) {
                "list_mobile_money_providers" -> buildJsonObject {
                    putJsonArray("providers") { decodeProvidersResponse(status, body).forEach { add(it.asJson()) } }
                }
                "list_banks" -> buildJsonObject {
                    putJsonArray("banks") { decodeBanksResponse(status, body).forEach { add(it.asJson()) } }
                }
                "verify_transaction" -> decodeTransactionResponse(status, body).let {
                    Json.parseToJsonElement(it.rawJson) // raw_json is JSON
                    buildJsonObject { put("transaction", it.asJson()) }
                }
                "initiate_charge" -> decodeChargeResponse(status, body).let {
                    assertArrayEquals(body, it.rawJson.toByteArray(), "$name: raw_json is the body as sent")
                    buildJsonObject { put("charge", it.asJson()) }
                }
                else -> fail("$name: unknown operation $operation")
            }
        } catch (error: SikaException) {
            val expected = expect["error"]?.jsonObject ?: fail("$name: expected a value, got $error", error)
            checkError(name, error, expected)
            return
        }
        assertTrue(expect["error"] == null, "$name: expected an error, decoded $actual")
        assertEquals(expect, actual, name)
    }

    private fun checkError(name: String, error: SikaException, expected: JsonObject) {
        val (kind, httpStatus, message) = when (error) {
            is SikaException.Unauthorized -> Triple("Unauthorized", null, null)
            is SikaException.InvalidCountryCode -> Triple("InvalidCountryCode", null, null)
            is SikaException.NoProvidersFound -> Triple("NoProvidersFound", null, null)
            is SikaException.TransactionNotFound -> Triple("TransactionNotFound", null, null)
            is SikaException.InvalidReference -> Triple("InvalidReference", null, null)
            is SikaException.Api -> Triple("Api", error.httpStatus, error.serviceMessage)
            is SikaException.RateLimited -> Triple("RateLimited", null, null)
            is SikaException.UnexpectedResponse -> Triple("UnexpectedResponse", error.httpStatus, null)
            else -> fail("$name: unexpected error kind $error", error)
        }
        assertEquals(expected.text("kind"), kind, "$name: got $error")
        expected["http_status"]?.let { assertEquals(it.jsonPrimitive.int, httpStatus, name) }
        expected["message"]?.let { assertEquals(it.jsonPrimitive.content, message, name) }
    }
}

private fun JsonObject.text(key: String): String = this[key]!!.jsonPrimitive.content

private fun kind(kind: String, value: String? = null) = JsonPrimitive(if (value == null) kind else "$kind:$value")

private fun TransactionStatus.asJson() = when (this) {
    TransactionStatus.Successful -> kind("Successful")
    TransactionStatus.Pending -> kind("Pending")
    TransactionStatus.Failed -> kind("Failed")
    TransactionStatus.Abandoned -> kind("Abandoned")
    TransactionStatus.Reversed -> kind("Reversed")
    is TransactionStatus.Unknown -> kind("Unknown", value)
}

private fun PaymentType.asJson() = when (this) {
    PaymentType.Card -> kind("Card")
    PaymentType.MobileMoney -> kind("MobileMoney")
    is PaymentType.Other -> kind("Other", value)
}

private fun BankAccountType.asJson() = when (this) {
    BankAccountType.Nuban -> kind("Nuban")
    BankAccountType.AccountNumber -> kind("AccountNumber")
    is BankAccountType.Other -> kind("Other", value)
}

// The Rust variant names the fixtures use.
private fun MerchantAction.asJson() = JsonPrimitive(
    when (this) {
        MerchantAction.FULFIL_ORDER -> "FulfilOrder"
        MerchantAction.AWAIT_WEBHOOK_OR_REVERIFY -> "AwaitWebhookOrReverify"
        MerchantAction.INFORM_CUSTOMER_ALLOW_RETRY -> "InformCustomerAllowRetry"
        MerchantAction.CONTACT_CUSTOMER -> "ContactCustomer"
        MerchantAction.UPDATE_ORDER_AND_REFUND -> "UpdateOrderAndRefund"
        MerchantAction.INVESTIGATE -> "Investigate"
    },
)

private fun MobileMoneyProvider.asJson() = buildJsonObject {
    put("id", id); put("name", name); put("code", code); put("active", active); put("country", country)
    put("currency", currency); put("provider_type", providerType); put("logo", logo)
    put("created_at_ms", createdAt?.toEpochMilli()); put("updated_at_ms", updatedAt?.toEpochMilli())
}

private fun Bank.asJson() = buildJsonObject {
    put("id", id); put("name", name); put("code", code); put("active", active); put("country", country)
    put("currency", currency); put("account_type", accountType.asJson())
    put("created_at_ms", createdAt?.toEpochMilli()); put("updated_at_ms", updatedAt?.toEpochMilli())
}

private fun Customer.asJson() = buildJsonObject {
    put("id", id); put("name", name); put("phone_number", phoneNumber); put("email", email)
    put("created_at_ms", createdAt?.toEpochMilli()); put("updated_at_ms", updatedAt?.toEpochMilli())
}

private fun Transaction.asJson() = buildJsonObject {
    put("id", id); put("domain", domain)
    put("amount", amount.toPlainString()) // exact text, scale included: 100.10 stays 100.10
    put("currency", currency); put("due_date", dueDate); put("has_invoice", hasInvoice)
    put("invoice_number", invoiceNumber); put("description", description); put("tx_ref", txRef)
    put("gateway_ref", gatewayRef); put("status", status.asJson()); put("payment_type", paymentType?.asJson() ?: JsonNull)
    put("created_at_ms", createdAt?.toEpochMilli()); put("updated_at_ms", updatedAt?.toEpochMilli())
    put("customer", customer?.asJson() ?: JsonNull)
    putJsonArray("custom_fields") {
        customFields.forEach {
            add(buildJsonObject {
                put("display_name", it.displayName); put("variable_name", it.variableName); put("value", it.value)
            })
        }
    }
    put("merchant_action", status.merchantAction().asJson()); put("is_final", status.isFinal())
}

private fun ChargeResponse.asJson(): JsonElement = buildJsonObject {
    put("http_status", httpStatus); put("status", status); put("message", message); put("data_json", dataJson)
}
