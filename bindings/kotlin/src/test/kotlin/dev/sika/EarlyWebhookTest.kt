package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * B53: a reference the service does not know yet gets a grace period (ADR 0023), through the
 * suspend and the blocking client. The parameters come from the `early_webhook` scenario of
 * tests/fixtures/faults.json, as in every language's test of it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EarlyWebhookTest {
    private val sandbox = Sandbox()
    private val scenario = Json.parseToJsonElement(File(FIXTURES, "faults.json").readText()).jsonObject["scenarios"]!!
        .jsonArray.map { it.jsonObject }.single { it.text("id") == "early_webhook" }
    private val setup = scenario["setup"]!!.jsonObject
    private val graceMs = setup.long("not_found_grace_ms")
    private val order = ExpectedPayment(BigDecimal(setup.text("amount")), setup.text("currency"))
    private val waitSetup = setup["await"]!!.jsonObject
    private val options = AwaitOptions(
        initialDelayMs = waitSetup.long("initial_delay_ms"),
        intervalMs = waitSetup.long("interval_ms"),
        maxIntervalMs = waitSetup.long("max_interval_ms"),
        timeoutMs = waitSetup.long("timeout_ms"),
    )

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() = sandbox.reset()

    private fun config(graceMs: Long = this.graceMs) = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 10_000, notFoundGraceMs = graceMs)

    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    @Test
    fun testB53TheScenarioIsThisBehaviour() = assertEquals("B53", scenario.text("behaviour"))

    @Test
    fun testB53AnEarlyWebhookIsRetriedAndFulfilledOnceTheReferenceIsVisible() = runBlocking<Unit> {
        val reference = setup.text("reference")
        Client(config()).use { client ->
            val early = assertInstanceOf(WebhookDecision.RetryLater::class.java, client.handleWebhook(notification(reference), order))
            assertEquals(Pair(false, 503), Pair(early.acknowledge(), early.httpStatus()))
            assertTrue(early.reason.contains("does not know the reference yet"), early.reason)

            sandbox.seedTransaction(transactionObject(reference, "successful", setup.text("amount")))
            val redelivered = assertInstanceOf(WebhookDecision.Fulfil::class.java, client.handleWebhook(notification(reference), order))
            assertEquals(reference, redelivered.transaction.txRef)
        }
    }

    @Test
    fun testB53AnUnknownReferenceIsRetriedWithinTheGraceAndRejectedAfterIt() = runBlocking<Unit> {
        Client(config()).use { client ->
            val body = notification("EARLY-NEVER-CHARGED")
            val started = System.nanoTime()
            assertEquals(503, client.handleWebhook(body, order).httpStatus())
            val again = client.handleWebhook(body, order)
            assertTrue((System.nanoTime() - started) / 1_000_000 < graceMs, "the machine was too slow to check within the grace")
            assertEquals(503, again.httpStatus(), "a redelivery within the grace: $again")

            delay(graceMs)
            val late = assertInstanceOf(WebhookDecision.Reject::class.java, client.handleWebhook(body, order))
            assertEquals(400, late.httpStatus())
            assertTrue(late.reason.contains("still does not know"), late.reason)
        }
    }

    @Test
    fun testB53TheBlockingClientHasTheSameGrace() {
        BlockingClient(config()).use { client ->
            val body = notification("EARLY-BLOCKING")
            assertEquals(503, client.handleWebhook(body, order).httpStatus())
            Thread.sleep(graceMs)
            assertInstanceOf(WebhookDecision.Reject::class.java, client.handleWebhook(body, order))
        }
    }

    @Test
    fun testB53WithoutAGraceAnUnknownReferenceIsRejectedAtOnce() {
        BlockingClient(config(graceMs = 0)).use { client ->
            assertInstanceOf(WebhookDecision.Reject::class.java, client.handleWebhook(notification("EARLY-NO-GRACE"), order))
        }
        val negative = assertThrows<SikaException.InvalidInput> { BlockingClient(config(graceMs = -1)) }
        assertEquals("not_found_grace_ms", negative.field)
    }

    @Test
    fun testB53AwaitFinalStatusEndsWithNotFoundOnceTheGraceIsOver() = runBlocking<Unit> {
        Client(config()).use { client ->
            val started = System.nanoTime()
            assertThrows<SikaException.TransactionNotFound> { client.awaitFinalStatus("AWAIT-NEVER-CHARGED", options) }
            val waitedMs = (System.nanoTime() - started) / 1_000_000
            assertTrue(waitedMs >= graceMs, "ended before the grace: $waitedMs ms")
            val boundMs = graceMs + waitSetup.long("max_interval_ms") + 2_000
            assertTrue(waitedMs < boundMs, "retried past the grace: $waitedMs ms (timeout ${options.timeoutMs} ms)")
        }
    }

    @Test
    fun testB53AwaitFinalStatusSeesAChargeThatBecomesVisibleDuringTheGrace() = runBlocking<Unit> {
        val reference = "AWAIT-EARLY"
        BlockingClient(config()).use { client ->
            val seeding = launch(Dispatchers.IO) {
                delay(graceMs / 3)
                sandbox.seedTransaction(transactionObject(reference, "successful", setup.text("amount")))
            }
            val transaction = withContext(Dispatchers.IO) { client.awaitFinalStatus(reference, options) }
            seeding.join()
            assertEquals(TransactionStatus.Successful, transaction.status)
        }
    }

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

    private fun JsonObject.long(name: String) = this[name]!!.jsonPrimitive.long
}
