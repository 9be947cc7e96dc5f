package dev.sika

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import com.fasterxml.jackson.databind.ObjectMapper
import dev.sika.serialization.TransactionSerializer
import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.slf4j.LoggerFactory

/**
 * Issue 25 on the JVM: no input reaches an internal error (B63), texts from the service are
 * bounded (B64), and a key the service echoes into a record's fields is in no record, printed
 * form, decision or log record (B66).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoundsAndSecretsTest {
    private val sandbox = Sandbox()
    private val faults = Json.parseToJsonElement(File(FIXTURES, "faults.json").readText()).jsonObject
    private val maxChars = faults["max_message_chars"]!!.jsonPrimitive.long
    private val oversized = faults["cases"]!!.jsonArray.map { it.jsonObject }.single { it.text("id") == "oversized_message" }
    private val echo = scenario("echoed_key_in_fields")
    private val records = ListAppender<ILoggingEvent>()
    private val sika = LoggerFactory.getLogger("sika") as Logger

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun captureRecords() {
        sandbox.reset()
        records.start()
        sika.addAppender(records)
        sika.level = Level.TRACE
        setLogSinkLevel(Slf4jLogging.level())
    }

    @AfterEach
    fun restoreLevels() {
        sika.detachAppender(records)
        records.list.clear()
        sika.level = null
        setLogSinkLevel(Slf4jLogging.level())
    }

    private fun config() = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 10_000, maxRetries = 0)

    // ---- B63 ----------------------------------------------------------------------------------

    @Test
    fun testB63ToJsonOfAnAmountTheCoreCannotHoldIsInvalidInput() {
        for (amount in listOf("1e40", "123456789012345678901234567890", "-1E+29")) {
            val error = assertThrows(SikaException.InvalidInput::class.java) {
                ExpectedPayment(BigDecimal(amount), "GHS").toJson()
            }
            assertEquals("amount", error.field, amount)
            assertThrows(SikaException.InvalidInput::class.java) { charge("B63-KT", amount = amount).toJson() }
        }
        assertTrue(ExpectedPayment(BigDecimal("10.50"), "GHS").toJson().contains("\"10.50\""))
    }

    // ---- B64 ----------------------------------------------------------------------------------

    @Test
    fun testB64ASevenMegabyteServiceMessageGivesAnExceptionOfBoundedSize() {
        sandbox.fault("/transaction/verify", oversized.text("kind"), 1, oversized["options"]!!.jsonObject)
        val error = assertThrows(SikaException.Api::class.java) {
            BlockingClient(config()).use { it.verifyTransaction("B64-KT-1") }
        }
        assertTrue(error.message.orEmpty().length <= maxChars, "a message of ${error.message.orEmpty().length}")
        assertTrue(error.toString().length <= 2 * maxChars, "toString() of ${error.toString().length}")
        assertTrue(error.message.orEmpty().contains("[cut: 7000000 characters in all]"), error.message.orEmpty().takeLast(80))
    }

    // ---- B66 ----------------------------------------------------------------------------------

    private fun echoFault(which: String) {
        val setup = echo[which]!!.jsonObject
        sandbox.fault(
            setup.text("path"), echo.text("fault_kind"), echo["count"]!!.jsonPrimitive.int,
            JsonObject(mapOf("body" to JsonPrimitive(setup.text("body")))),
        )
    }

    private fun assertNoKey(texts: List<String>, what: String) {
        val length = echo["fragment_chars"]!!.jsonPrimitive.int
        for (text in texts) {
            val leaked = (0..KEY.length - length).map { KEY.substring(it, it + length) }.filter { it in text }
            assertTrue(leaked.isEmpty(), "$what: fragments of the key $leaked in ${text.take(300)}")
        }
    }

    private fun logged(): List<String> {
        flushLogRecords(10_000L) // records reach SLF4J on the SDK's logging thread (ADR 0044)
        return records.list.flatMap { listOf(it.formattedMessage, it.toString()) }
    }

    @Test
    fun testB66AKeyEchoedIntoTheStatusIsInNoRecordDecisionOrLog() = runBlocking<Unit> {
        val reference = echo.text("reference")
        val order = ExpectedPayment(BigDecimal("10"), "GHS")
        val jackson = ObjectMapper().findAndRegisterModules()
        Client(config()).use { client ->
            echoFault("status_echo")
            val transaction = client.verifyTransaction(reference)
            assertEquals(TransactionStatus.Unknown(echo.text("marker")), transaction.status)
            assertNoKey(
                listOf(
                    transaction.toString(), transaction.toJson(), transaction.rawJson, jackson.writeValueAsString(transaction),
                    Json.encodeToString(TransactionSerializer, transaction), transaction.customer.toString(),
                ),
                "transaction",
            )
            echoFault("status_echo")
            val check = client.confirmPayment(reference, order)
            assertFalse(check is PaymentCheck.Confirmed, "$check")
            assertNoKey(listOf(check.toString()), "payment check")
            echoFault("status_echo")
            val decision = client.handleWebhook("""{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray(), order)
            assertFalse(decision is WebhookDecision.Fulfil, "$decision")
            assertNoKey(listOf(decision.toString()), "decision")
        }
        assertNoKey(logged(), "log records")
    }

    @Test
    fun testB66AKeyEchoedIntoTheTxRefIsInNoErrorOrLog() {
        echoFault("tx_ref_echo")
        val result = runCatching { BlockingClient(config()).use { it.verifyTransaction(echo.text("reference")) } }
        assertEquals(echo["tx_ref_echo"]!!.jsonObject.text("error"), outcomeKind(result), "$result")
        val error = result.exceptionOrNull()!!
        assertNoKey(listOf(error.toString(), error.message.orEmpty()), "error")
        assertTrue(logged().any { "domain" in it }, "the mistyped domain is logged: ${logged()}")
        assertNoKey(logged(), "log records")
    }

    @Test
    fun testB66AKeyEchoedIntoAChargeMessageIsInNoResponse() {
        echoFault("message_echo")
        val response = BlockingClient(config()).use { it.initiateCharge(charge("B66-KT-CHARGE")) }
        assertTrue(response.message.orEmpty().contains(echo.text("marker")), "${response.message}")
        assertNoKey(
            listOf(response.toString(), response.toJson(), response.rawJson, response.dataJson.orEmpty(), ObjectMapper().findAndRegisterModules().writeValueAsString(response)),
            "charge response",
        )
        assertNoKey(logged(), "log records")
    }

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content
}
