package dev.sika

import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/** The async client (and, for B19, the blocking one) against the sandbox. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() = sandbox.reset()

    private fun queries() = sandbox.requests().map { it["query"]!! }

    @Test
    fun testB02ProvidersWithoutACountryAreGhanasAndSendNoCountry() = runBlocking<Unit> {
        val providers = sandbox.client().use { it.listMobileMoneyProviders() }
        assertEquals(3, providers.size)
        assertTrue(providers.all { it.country == "Ghana" && it.currency == "GHS" && it.providerType == "mobile_money" })
        val log = sandbox.requests()
        assertEquals(1, log.size)
        assertEquals("/mobile-money-providers", log[0]["path"]!!.jsonPrimitive.content)
        assertEquals(JsonNull, log[0]["query"], "no country parameter is sent")
    }

    @Test
    fun testB03ProvidersPerCountryAcceptLowerCaseAndSendUpperCase() = runBlocking<Unit> {
        sandbox.client().use { client ->
            for ((code, currency, count) in listOf(Triple("ke", "KES", 2), Triple("Ug", "UGX", 2), Triple("TZ", "TZS", 2), Triple("gh", "GHS", 3))) {
                val providers = client.listMobileMoneyProviders(code)
                assertEquals(count, providers.size, code)
                assertTrue(providers.all { it.currency == currency }, code)
            }
        }
        assertEquals(listOf("country=KE", "country=UG", "country=TZ", "country=GH"), queries().map { it.jsonPrimitive.content })
    }

    @Test
    fun testB04ProviderErrorsAreTyped() = runBlocking<Unit> {
        sandbox.client().use { client ->
            assertThrows<SikaException.NoProvidersFound> { client.listMobileMoneyProviders("NG") }
            assertThrows<SikaException.InvalidCountryCode> { client.listMobileMoneyProviders("ZZ") }
        }
    }

    @Test
    fun testB05BanksWithoutACountryAreNigeriasAndGhanasAreAccountNumbers() = runBlocking<Unit> {
        sandbox.client().use { client ->
            val nigeria = client.listBanks()
            assertTrue(nigeria.isNotEmpty())
            assertTrue(nigeria.all { it.country == "Nigeria" && it.accountType == BankAccountType.Nuban })
            val ghana = client.listBanks("GH")
            assertTrue(ghana.isNotEmpty() && ghana.all { it.accountType == BankAccountType.AccountNumber })
        }
        assertEquals(JsonNull, queries()[0], "no country parameter is sent by default")
    }

    @Test
    fun testB06BanksForAnUnknownCountryAreInvalidCountryCode() = runBlocking<Unit> {
        sandbox.client().use { client -> assertThrows<SikaException.InvalidCountryCode> { client.listBanks("ZZ") } }
    }

    @Test
    fun testB07AWrongKeyIsUnauthorizedEverywhere() = runBlocking<Unit> {
        sandbox.client("sk_test_wrong_key").use { client ->
            assertThrows<SikaException.Unauthorized> { client.listMobileMoneyProviders() }
            assertThrows<SikaException.Unauthorized> { client.listBanks() }
            assertThrows<SikaException.Unauthorized> { client.verifyTransaction("ORDER-1") }
            assertThrows<SikaException.Unauthorized> { client.initiateCharge(charge("ORDER-1")) }
        }
    }

    @Test
    fun testB08VerificationErrorsAreTyped() = runBlocking<Unit> {
        sandbox.client().use { client ->
            assertThrows<SikaException.TransactionNotFound> { client.verifyTransaction("NO-SUCH-ORDER") }
            assertThrows<SikaException.InvalidReference> { client.verifyTransaction("bad ref!") }
        }
    }

    @Test
    fun testB09ASeededTransactionDecodesExactly() = runBlocking<Unit> {
        val sent = transactionObject("ORDER-EXACT", "successful", "100.10").replace("\"gw_ref\"", "\"xyz_ref\"")
        sandbox.seedTransaction(sent)
        val transaction = sandbox.client().use { it.verifyTransaction("ORDER-EXACT") }
        assertEquals("100.10", transaction.amount.toPlainString(), "the amount keeps its scale")
        assertEquals(0, BigDecimal("100.1").compareTo(transaction.amount))
        assertEquals(SEEDED_EXPECTED.long("created_at_epoch_ms"), transaction.createdAt?.toEpochMilli(), "milliseconds kept")
        assertEquals(SEEDED_EXPECTED.long("updated_at_epoch_ms"), transaction.updatedAt?.toEpochMilli())
        assertEquals(SEEDED_EXPECTED.text("gateway_ref"), transaction.gatewayRef, "read from the brand-prefixed xyz_ref")
        val customer = transaction.customer!!
        assertEquals(SEEDED_EXPECTED.text("customer_phone_number"), customer.phoneNumber)
        assertEquals(SEEDED_EXPECTED.text("customer_email"), customer.email)
        assertEquals(TransactionStatus.Successful, transaction.status)
        assertEquals(PaymentType.MobileMoney, transaction.paymentType)
        assertEquals(Json.parseToJsonElement(sent), Json.parseToJsonElement(transaction.rawJson), "raw JSON is the object sent")
        assertTrue(transaction.rawJson.contains("\"amount\":100.10"), "raw JSON keeps the number text: ${transaction.rawJson}")
    }

    @Test
    fun testB10SuccessIsUnknownAndNeverSuccessful() = runBlocking<Unit> {
        sandbox.seedTransaction(transactionObject("ORDER-WORD", "pending", "10"))
        sandbox.setStatus("ORDER-WORD", "success") // the documented client mistake
        val transaction = sandbox.client().use { it.verifyTransaction("ORDER-WORD") }
        assertEquals(TransactionStatus.Unknown("success"), transaction.status)
        assertEquals(MerchantAction.INVESTIGATE, transaction.status.merchantAction())
        assertFalse(transaction.status.isFinal())
    }

    @Test
    fun testB12RejectedInputSendsNothing() = runBlocking<Unit> {
        suspend fun field(call: suspend () -> Unit): String = assertThrows<SikaException.InvalidInput> { call() }.field
        sandbox.client().use { client ->
            for (country in listOf("", "G", "GHA", " GH", "G1")) {
                assertEquals("country", field { client.listMobileMoneyProviders(country) }, country)
                assertEquals("country", field { client.listBanks(country) }, country)
            }
            for (reference in listOf("", ".", "..", "a\u0000b", "tab\there", "x".repeat(257))) {
                assertEquals("reference", field { client.verifyTransaction(reference) }, reference)
            }
            val good = charge("ORDER-V", amount = "10.50")
            val badCharges = listOf(
                "amount" to good.copy(amount = BigDecimal.ZERO),
                "amount" to good.copy(amount = BigDecimal("-1")),
                "amount" to good.copy(amount = BigDecimal("1.001")),
                "email" to good.copy(email = "not-an-email"),
                "phone_number" to good.copy(phoneNumber = "0244123456"),
                "reference" to good.copy(reference = ""),
                "currency" to good.copy(currency = "NGN"),
                "provider" to good.copy(provider = ""),
                "callback_url" to good.copy(callbackUrl = "javascript:alert(1)"),
            )
            for ((expected, request) in badCharges) {
                assertEquals(expected, field { client.initiateCharge(request) }, request.toString())
            }
        }
        assertEquals(emptyList<Any>(), sandbox.requests(), "rejected input reached the service")
    }

    @Test
    fun testB13AReferenceIsAlwaysOnePathSegment() = runBlocking<Unit> {
        sandbox.client().use { client ->
            for (case in scenarioCases("b13_reference_path.json")) {
                val reference = case.text("reference")
                sandbox.seedTransaction(transactionObject(reference, "pending", "5"))
                sandbox.clearRequests()
                assertEquals(reference, client.verifyTransaction(reference).txRef)
                val log = sandbox.requests()
                assertEquals(1, log.size, reference)
                assertEquals(case.text("sent_path"), log[0]["path"]!!.jsonPrimitive.content, reference)
                assertEquals(JsonNull, log[0]["query"], reference)
            }
        }
    }

    @Test
    fun testB14TheUssdFlowEndsAsEachTestNumberSays() = runBlocking<Unit> {
        val outcomes = mapOf(
            "0000" to TransactionStatus.Successful,
            "1111" to TransactionStatus.Failed,
            "2222" to TransactionStatus.Abandoned,
        )
        sandbox.client().use { client ->
            for (suffix in outcomes.keys + "3333") {
                val response = client.initiateCharge(charge("USSD-$suffix", "+23324412$suffix"))
                assertEquals(200, response.httpStatus)
                assertEquals(true, response.status)
                // The charge answers at once: its transaction starts pending.
                val data = Json.parseToJsonElement(response.dataJson!!).jsonObject
                assertEquals("pending", data["status"]!!.jsonPrimitive.content, suffix)
            }
            for ((suffix, want) in outcomes) {
                assertEquals(want, client.verifyUntil("USSD-$suffix") { it.status.isFinal() }.status, suffix)
            }
            // 3333 never resolves: still pending well after the others did.
            val pending = client.verifyTransaction("USSD-3333")
            assertEquals(TransactionStatus.Pending, pending.status)
            assertEquals(MerchantAction.AWAIT_WEBHOOK_OR_REVERIFY, pending.status.merchantAction())
        }
    }

    @Test
    fun testB15ADuplicateChargeReferenceIsAnApiError409() = runBlocking<Unit> {
        sandbox.client().use { client ->
            val request = charge("ORDER-CHARGE-1", "+233244123333", "100.10")
            val response = client.initiateCharge(request)
            assertTrue(response.rawJson.contains("100.10"), response.rawJson)
            assertEquals("100.10", client.verifyTransaction("ORDER-CHARGE-1").amount.toPlainString())
            val error = assertThrows<SikaException.Api> { client.initiateCharge(request) }
            assertEquals(409, error.httpStatus)
            assertTrue(error.serviceMessage.contains("Duplicate"), error.serviceMessage)
        }
    }

    @Test
    fun testB19TheBlockingClientDoesTheSameOperationsAsPlainCalls() {
        sandbox.seedTransaction(transactionObject("ORDER-BLOCKING", "failed", "12.30"))
        sandbox.blockingClient().use { client ->
            assertEquals(3, client.listMobileMoneyProviders().size)
            assertEquals(2, client.listMobileMoneyProviders("ke").size)
            assertTrue(client.listBanks("ng").all { it.accountType == BankAccountType.Nuban })
            val transaction = client.verifyTransaction("ORDER-BLOCKING")
            assertEquals(TransactionStatus.Failed, transaction.status)
            assertEquals("12.30", transaction.amount.toPlainString())
            val response = client.initiateCharge(charge("ORDER-BLOCKING-CHARGE"))
            assertEquals(true, response.status)
            assertEquals(TransactionStatus.Pending, client.verifyTransaction("ORDER-BLOCKING-CHARGE").status)
            assertThrows<SikaException.TransactionNotFound> { client.verifyTransaction("NOPE") }
            assertThrows<SikaException.NoProvidersFound> { client.listMobileMoneyProviders("NG") }
            assertThrows<SikaException.InvalidInput> { client.initiateCharge(charge("ORDER-X", amount = "0")) }
        }
    }
}

private fun JsonObject.long(name: String) = this[name]!!.jsonPrimitive.long

private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content
