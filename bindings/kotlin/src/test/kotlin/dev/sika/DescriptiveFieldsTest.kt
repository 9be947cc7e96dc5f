package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance

/**
 * B51: descriptive fields (all but txRef, status, amount and currency) missing, null or of another
 * type read as null and the decision proceeds. B52: times no language holds (year 0, year 10000,
 * a leap second) read as null through verify, confirm, webhook, await and a cached bank list;
 * half a second before the epoch crosses exactly. Cases from tests/fixtures/faults.json.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DescriptiveFieldsTest {
    private val sandbox = Sandbox()
    private val faults = Json.parseToJsonElement(File(FIXTURES, "faults.json").readText()).jsonObject
    private val cases = faults["cases"]!!.jsonArray.map { it.jsonObject }.associateBy { it.text("id") }
    private val scenario = faults["scenarios"]!!.jsonArray.map { it.jsonObject }
        .single { it.text("id") == "timestamps_out_of_range" }["setup"]!!.jsonObject
    private val order = ExpectedPayment(BigDecimal("10"), "GHS")
    private val fast = AwaitOptions(timeoutMs = 5_000, initialDelayMs = 50, intervalMs = 50, maxIntervalMs = 200)

    /** The fields each confirmed case leaves absent, as the record's JSON names them. */
    private val absent = mapOf(
        "descriptive_field_mistyped" to listOf("id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at"),
        "descriptive_fields_missing" to listOf("id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at", "customer"),
        "customer_without_updated_at" to listOf(),
        "timestamp_year_10000" to listOf("created_at", "updated_at"),
        "timestamp_leap_second_9999" to listOf("created_at", "updated_at"),
    )

    @AfterAll
    fun stopSandbox() = sandbox.close()

    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    @TestFactory
    fun testB51B52ADescriptiveFaultNeverStopsTheDecision(): List<DynamicTest> = absent.map { (id, fields) ->
        dynamicTest(id) {
            val case = cases.getValue(id)
            assertEquals("confirmed", case.text("outcome"))
            sandbox.reset()
            sandbox.seedTransaction(transactionObject("HOSTILE-1", "successful", "10"))
            sandbox.fault("/transaction/verify", case.text("kind"), 4, case["options"]!!.jsonObject)
            runBlocking {
                sandbox.client().use { client ->
                    val transaction = client.verifyTransaction("HOSTILE-1")
                    assertEquals(TransactionStatus.Successful, transaction.status)
                    assertEquals(BigDecimal("10"), transaction.amount)
                    val json = Json.parseToJsonElement(transaction.toJson()).jsonObject
                    fields.forEach { assertEquals(JsonNull, json[it], "$id: $it") }
                    if (id == "customer_without_updated_at") {
                        assertNull(transaction.customer!!.updatedAt)
                        assertNotNull(transaction.customer!!.createdAt)
                    }
                    if (id == "descriptive_field_mistyped") {
                        val customer = transaction.customer!!
                        assertEquals(listOf(null, null, null, null), listOf(customer.id, customer.name, customer.phoneNumber, customer.email))
                        assertNull(transaction.createdAt)
                        assertNull(transaction.hasInvoice)
                    }
                    assertEquals(transaction, transactionFromJson(transaction.toJson()))
                    assertInstanceOf(PaymentCheck.Confirmed::class.java, client.confirmPayment("HOSTILE-1", order))
                    assertInstanceOf(WebhookDecision.Fulfil::class.java, client.handleWebhook(notification("HOSTILE-1"), order))
                    assertEquals(transaction, client.awaitFinalStatus("HOSTILE-1", fast))
                }
            }
        }
    }

    /** The seeded transaction with `created_at` and the customer's `updated_at` set to [text]. */
    private fun withTimes(reference: String, text: String): String {
        val transaction = Json.parseToJsonElement(transactionObject(reference, "successful", "10")).jsonObject
        val customer = JsonObject(transaction["customer"]!!.jsonObject + ("updated_at" to JsonPrimitive(text)))
        return JsonObject(transaction + ("created_at" to JsonPrimitive(text)) + ("customer" to customer)).toString()
    }

    @TestFactory
    fun testB52ATimeNoLanguageHoldsIsAbsentInEveryCall(): List<DynamicTest> {
        val exact = scenario["exact"]!!.jsonObject
        val texts = scenario["absent"]!!.jsonArray.map { it.jsonPrimitive.content to null } +
            (exact.text("text") to exact.long("epoch_ms"))
        return texts.map { (text, expectedMs) ->
            dynamicTest(text) {
                sandbox.reset()
                sandbox.seedTransaction(withTimes("B52-1", text))
                runBlocking {
                    sandbox.client().use { client ->
                        val transaction = client.verifyTransaction("B52-1")
                        assertEquals(expectedMs, transaction.createdAt?.toEpochMilli(), text)
                        assertEquals(expectedMs, transaction.customer!!.updatedAt?.toEpochMilli(), text)
                        assertNotNull(transaction.updatedAt)
                        val written = Json.parseToJsonElement(transaction.toJson()).jsonObject["created_at"]!!
                        assertEquals(if (expectedMs == null) JsonNull else JsonPrimitive(text), written)
                        assertEquals(transaction, transactionFromJson(transaction.toJson()))
                        val check = assertInstanceOf(PaymentCheck.Confirmed::class.java, client.confirmPayment("B52-1", order))
                        assertEquals(transaction, check.transaction)
                        assertInstanceOf(WebhookDecision.Fulfil::class.java, client.handleWebhook(notification("B52-1"), order))
                        assertEquals(transaction, client.awaitFinalStatus("B52-1", fast))

                        // A bank list with such a time, then the same list from the cache.
                        val body = scenario.text("bank_list_body").replace("{time}", text)
                        sandbox.fault("/bank", "body", 1, JsonObject(mapOf("body" to JsonPrimitive(body))))
                        repeat(2) {
                            val banks = client.listBanks("NG")
                            assertEquals(listOf("044"), banks.map { it.code })
                            assertEquals(expectedMs, banks[0].createdAt?.toEpochMilli())
                            assertNotNull(banks[0].updatedAt)
                        }
                        assertEquals(1, sandbox.requests().count { it.text("path").startsWith("/bank") }, "the second from the cache")
                    }
                }
            }
        }
    }
}

private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

private fun JsonObject.long(name: String) = this[name]!!.jsonPrimitive.long
