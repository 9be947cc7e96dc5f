package dev.sika

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/** The core's status decisions and country table, as Kotlin sees them. */
class StatusTest {
    @Test
    fun testB11MerchantActionAndIsFinalForEveryStatus() {
        for (row in scenarioCases("b11_status_actions.json")) {
            val text = row["text"]!!.jsonPrimitive.content
            val status = transactionStatusFromText(text)
            assertEquals(text, status.toString(), "the text is kept")
            assertEquals(row["status"]!!.jsonPrimitive.content, Calls.variant(status), text)
            assertEquals(row["merchant_action"]!!.jsonPrimitive.content, Calls.variant(status.merchantAction()), text)
            assertEquals(row["is_final"]!!.jsonPrimitive.boolean, status.isFinal(), text)
        }
    }

    @Test
    fun testB40RecordsAreTheCoresJsonAndPrintMasked() {
        val body = File(FIXTURES, "responses/verify_successful.json").readBytes()
        val transaction = decodeTransactionResponse(200, body)
        val json = Json.parseToJsonElement(transaction.toJson()).jsonObject
        assertEquals("100.10", json["amount"]!!.jsonPrimitive.content)
        assertTrue(json["amount"]!!.jsonPrimitive.isString, "an exact decimal string")
        assertEquals("successful", json["status"]!!.jsonPrimitive.content)
        assertEquals("2024-05-01T12:00:00.000Z", json["created_at"]!!.jsonPrimitive.content)
        assertEquals(TransactionStatus.Successful, transactionStatusFromText("successful"))
        val printed = "$transaction"
        val customer = transaction.customer!!
        assertTrue(printed.startsWith("transaction ORDER-1001: successful, 100.10 GHS"), printed)
        assertFalse(printed.contains(customer.phoneNumber!!) || printed.contains(customer.email!!), printed)
    }
}
