package dev.sika

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

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
