package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
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

    /** Every row of a scenario file of client calls, one dynamic test each, by the shared runner. */
    private fun rows(name: String): List<DynamicTest> = Calls.rows(sandbox, name)

    @TestFactory
    fun testB02ProvidersWithoutACountryAreGhanasAndSendNoCountry(): List<DynamicTest> = rows("b02_providers_default.json")

    @TestFactory
    fun testB20TheCountryTableHasFiveCountriesAndNigeriaBanksOnly(): List<DynamicTest> = rows("b20_countries.json")

    /** A key outside the vocabulary (a typo) fails the row before any call, rather than pass unchecked. */
    @Test
    fun testB170TheScenarioRunnerRefusesAnUnknownKey() {
        fun row(text: String) = Json.parseToJsonElement(text).jsonObject
        assertEquals(emptyList<String>(), Calls.unknownKeys(row("""{"operation":"countries","input":{},"expect":{"count":5,"sent":[]},"note":"ok"}""")))
        for (typo in listOf(
            """{"operation":"countries","input":{},"expect":{"count":5,"sentt":[]}}""",
            """{"operation":"countries","input":{"refrence":"R"},"expect":{"sent":[]}}""",
            """{"operation":"countries","input":{},"expect":{"sent":[]},"notes":"x"}""",
        )) {
            assertThrows<AssertionError> { runBlocking { Calls.checkRow(sandbox, row(typo), "typo") } }
        }
    }

    @TestFactory
    fun testB03ProvidersPerCountryAcceptLowerCaseAndSendUpperCase(): List<DynamicTest> = rows("b03_providers_per_country.json")

    @TestFactory
    fun testB04ProviderErrorsAreTyped(): List<DynamicTest> = rows("b04_provider_errors.json")

    @TestFactory
    fun testB05BanksWithoutACountryAreNigeriasAndOthersAreAccountNumbers(): List<DynamicTest> = rows("b05_banks_default.json")

    @TestFactory
    fun testB06BanksForAnUnknownCountryAreInvalidCountryCode(): List<DynamicTest> = rows("b06_banks_unknown_country.json")

    @TestFactory
    fun testB07AWrongKeyIsUnauthorizedEverywhere(): List<DynamicTest> = rows("b07_wrong_key.json")

    @TestFactory
    fun testB08VerificationErrorsAreTyped(): List<DynamicTest> = rows("b08_verification_errors.json")

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

    @TestFactory
    fun testB10SuccessIsUnknownAndNeverSuccessful(): List<DynamicTest> = rows("b10_success_is_unknown.json")

    @TestFactory
    fun testB160AReferenceSharingTextWithTheKeyVerifiesAsItself(): List<DynamicTest> =
        rows("b160_reference_shares_key_text.json")

    /** B12 runs the `invalid_input` rows of the shared bad-input matrix (B30 runs all of it). */
    @TestFactory
    fun testB12RejectedInputSendsNothing(): List<DynamicTest> {
        val rows = Json.parseToJsonElement(File(FIXTURES, "bad_inputs.json").readText()).jsonObject["cases"]!!.jsonArray
            .map { it.jsonObject }
            .filter { "invalid_input" in it["expect"]!!.jsonObject }
        assertTrue(rows.size >= 40, "bad_inputs.json's invalid_input rows shrank: ${rows.size}")
        return rows.mapIndexed { index, row ->
            val label = "bad_inputs #$index (${row["note"]!!.jsonPrimitive.content})"
            dynamicTest(label) { runBlocking { Calls.checkRow(sandbox, row, label) } }
        }
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
    fun testB09AChargedAmountVerifiesExactly() = runBlocking<Unit> {
        sandbox.client().use { client ->
            val response = client.initiateCharge(charge("ORDER-CHARGE-EXACT", "+233244123333", "100.10"))
            assertTrue(response.rawJson.contains("100.10"), response.rawJson)
            assertEquals("100.10", client.verifyTransaction("ORDER-CHARGE-EXACT").amount.toPlainString())
        }
    }

    @TestFactory
    fun testB15ADuplicateChargeReferenceIsAnApiError409(): List<DynamicTest> = rows("b15_duplicate_charge.json")

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
