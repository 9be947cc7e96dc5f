package dev.sika

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive

/** The core's status decisions and country table, as Kotlin sees them. */
class StatusTest {
    @Test
    fun testB11MerchantActionAndIsFinalForEveryStatus() {
        val table = listOf(
            Triple(TransactionStatus.Successful, MerchantAction.FULFIL_ORDER, true),
            Triple(TransactionStatus.Pending, MerchantAction.AWAIT_WEBHOOK_OR_REVERIFY, false),
            Triple(TransactionStatus.Failed, MerchantAction.INFORM_CUSTOMER_ALLOW_RETRY, true),
            Triple(TransactionStatus.Abandoned, MerchantAction.CONTACT_CUSTOMER, true),
            Triple(TransactionStatus.Reversed, MerchantAction.UPDATE_ORDER_AND_REFUND, true),
            Triple(TransactionStatus.Unknown("success"), MerchantAction.INVESTIGATE, false),
            Triple(TransactionStatus.Unknown("SUCCESSFUL"), MerchantAction.INVESTIGATE, false),
            Triple(TransactionStatus.Unknown(""), MerchantAction.INVESTIGATE, false),
        )
        for ((status, action, final) in table) {
            assertEquals(action, status.merchantAction(), "$status")
            assertEquals(final, status.isFinal(), "$status")
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

    @Test
    fun testB20FiveCountriesAndNigeriaHasBanksOnly() {
        val all = countries()
        assertEquals(listOf("GH", "KE", "UG", "TZ", "NG"), all.map { it.code })
        val nigeria = all.single { it.code == "NG" }
        assertFalse(nigeria.mobileMoney)
        assertEquals(BankAccountType.Nuban, nigeria.bankAccountType)
        assertEquals("NGN", nigeria.currency)
        assertTrue(all.filter { it.code != "NG" }.all { it.mobileMoney && it.bankAccountType == BankAccountType.AccountNumber })
    }
}
