package dev.sika

import java.io.File
import java.math.BigDecimal
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.DynamicTest.dynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * B29: a broken or hostile service. Every fault of tests/fixtures/faults.json, injected on
 * verify, ends in the listed typed error within the budget, through the suspend and the blocking
 * client; a duplicated `status` never reads as paid. The same list as core/tests/hostile.rs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileTest {
    private val sandbox = Sandbox()
    private val faults = Json.parseToJsonElement(File(FIXTURES, "faults.json").readText()).jsonObject
    private val cases = faults["cases"]!!.jsonArray.map { it.jsonObject }

    /** Faults the SDK must survive (`"outcome": "confirmed"`): verify and confirm still succeed. */
    private val confirmedCases = cases.filter { it["outcome"]?.jsonPrimitive?.content == "confirmed" }
    private val errorCases = cases.filter { "error" in it }
    private val budgetMs = faults.long("budget_ms")
    private val limitMs = budgetMs + faults.long("slack_ms")

    @AfterAll
    fun stopSandbox() = sandbox.close()

    /** The client the fault list is written for: the budget as its timeout, its retries. */
    private fun config() = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = budgetMs, maxRetries = faults.long("max_retries").toInt())

    /** A fresh sandbox state with the transaction the faults hide, and [case]'s fault waiting. */
    private fun prepare(case: JsonObject) {
        sandbox.reset()
        sandbox.seedTransaction(transactionObject("HOSTILE-1", "successful", "10"))
        sandbox.fault("/transaction/verify", case.text("kind"), faults.long("count").toInt(), case["options"]!!.jsonObject)
    }

    /** Runs [call], then checks its outcome kind, its duration and that its text holds no key. */
    private fun check(case: JsonObject, call: () -> Result<Transaction>) {
        val id = case.text("id")
        val started = System.nanoTime()
        val result = call()
        val elapsedMs = (System.nanoTime() - started) / 1_000_000
        assertEquals(case.text("error"), outcomeKind(result), "$id: $result")
        assertTrue(elapsedMs < limitMs, "$id: took $elapsedMs ms, more than $limitMs")
        val error = result.exceptionOrNull()!!
        assertFalse("$error ${error.message}".contains(KEY), "$id: the key leaked")
        // B64: whatever the service sent (a 7 MB message), the error's text is bounded.
        val maxChars = faults.long("max_message_chars")
        assertTrue(error.message.orEmpty().length <= maxChars, "$id: a message of ${error.message.orEmpty().length} characters")
        assertTrue(error.toString().length <= 2 * maxChars, "$id: toString() of ${error.toString().length} characters")
    }

    @Test
    fun testB29TheFaultListIsComplete() {
        assertTrue(cases.size >= 18, "the fault list lost cases: ${cases.size}")
        assertEquals(cases.size, cases.map { it.text("id") }.toSet().size, "fault ids are unique")
        assertEquals(cases.size, errorCases.size + confirmedCases.size, "each case has an error or \"outcome\": \"confirmed\"")
        assertTrue(confirmedCases.isNotEmpty(), "the faults the SDK must survive left the list")
    }

    /** Runs [call] and checks it ended within the limit; returns what it returned. */
    private fun <T> timed(id: String, call: () -> T): T {
        val started = System.nanoTime()
        val result = call()
        val elapsedMs = (System.nanoTime() - started) / 1_000_000
        assertTrue(elapsedMs < limitMs, "$id: took $elapsedMs ms, more than $limitMs")
        return result
    }

    private val paid = ExpectedPayment(BigDecimal("10"), "GHS")

    @TestFactory
    fun testB29AFaultTheSdkSurvivesStillConfirmsThePayment(): List<DynamicTest> = confirmedCases.flatMap { case ->
        val id = case.text("id")
        listOf(
            dynamicTest("suspend: $id (${case.text("about")})") {
                prepare(case)
                Client(config()).use { client ->
                    assertEquals(TransactionStatus.Successful, timed(id) { runBlocking { client.verifyTransaction("HOSTILE-1") } }.status)
                    // The same client again, the fault still in place (`count` answers).
                    val check = timed(id) { runBlocking { client.confirmPayment("HOSTILE-1", paid) } }
                    assertTrue(check is PaymentCheck.Confirmed, "$id: $check")
                }
            },
            dynamicTest("blocking: $id (${case.text("about")})") {
                prepare(case)
                BlockingClient(config()).use { client ->
                    assertEquals(TransactionStatus.Successful, timed(id) { client.verifyTransaction("HOSTILE-1") }.status)
                    val check = timed(id) { client.confirmPayment("HOSTILE-1", paid) }
                    assertTrue(check is PaymentCheck.Confirmed, "$id: $check")
                }
            },
        )
    }

    @TestFactory
    fun testB29EveryFaultIsATypedErrorWithinTheDeadline(): List<DynamicTest> = errorCases.map { case ->
        dynamicTest("suspend: ${case.text("id")} (${case.text("about")})") {
            prepare(case)
            Client(config()).use { client -> check(case) { runBlocking { runCatching { client.verifyTransaction("HOSTILE-1") } } } }
        }
    }

    @TestFactory
    fun testB29TheBlockingClientEndsTheSameWay(): List<DynamicTest> = errorCases.map { case ->
        dynamicTest("blocking: ${case.text("id")} (${case.text("about")})") {
            prepare(case)
            BlockingClient(config()).use { client -> check(case) { runCatching { client.verifyTransaction("HOSTILE-1") } } }
        }
    }

    // ---- B50: a service that echoes the key, whole or cut, or forges log lines ----------------

    private val lineBreaks = listOf("\n", "\r", "\u2028", "\u2029", "\u0085")

    private fun assertFitToLeave(text: String, what: String) {
        val leaked = (0..KEY.length - 8).map { KEY.substring(it, it + 8) }.filter { it in text }
        assertTrue(leaked.isEmpty(), "$what: fragments of the key $leaked in $text")
        assertFalse(lineBreaks.any { it in text }, "$what: a raw line break in $text")
    }

    @TestFactory
    fun testB50EchoedKeyFragmentsAndLineBreaksNeverLeaveInAnError(): List<DynamicTest> {
        val echoes = cases.filter { it.text("kind") == "echo_key" }
        assertTrue(echoes.size >= 3, "the echoed-key faults are missing from faults.json")
        return echoes.map { case ->
            dynamicTest("echo: ${case.text("id")}") {
                prepare(case)
                val error = Client(config()).use { client ->
                    assertThrows<SikaException> { runBlocking { client.verifyTransaction("HOSTILE-1") } }
                }
                assertFitToLeave(error.toString(), case.text("id"))
                assertFitToLeave(error.message.orEmpty(), case.text("id"))
                assertTrue("[REDACTED]" in error.toString(), "${case.text("id")}: the echo was not there to remove: $error")
            }
        }
    }

    @Test
    fun testB50AKeyEchoedAsTheStatusNeverLeavesInADecisionReason() = runBlocking<Unit> {
        val notification = """{"event":"charge.success","data":{"reference":"ECHO-1"}}""".toByteArray()
        for (status in listOf(KEY, KEY.substring(3) + "\nERROR forged")) {
            sandbox.reset()
            sandbox.seedTransaction(transactionObject("ECHO-1", status, "10"))
            val decision = Client(config()).use { client -> client.handleWebhook(notification, ExpectedPayment(BigDecimal("10"), "GHS")) }
            val reason = when (decision) {
                is WebhookDecision.Investigate -> decision.reason
                is WebhookDecision.Ignore -> decision.reason
                is WebhookDecision.RetryLater -> decision.reason
                is WebhookDecision.Reject -> decision.reason
                is WebhookDecision.Fulfil -> error("an unknown status fulfilled: $decision")
            }
            assertFitToLeave(reason, "decision reason")
            assertFalse(lineBreaks.any { it in decision.toString() }, "a raw line break in $decision")
            assertTrue("[REDACTED]" in reason, "the echo was not there to remove: $reason")
        }
    }

    @Test
    fun testB29ADuplicatedStatusNeverReadsAsPaid() = runBlocking<Unit> {
        sandbox.reset()
        sandbox.seedTransaction(transactionObject("DUP-1", "failed", "10"))
        val duplicate = JsonObject(mapOf("first" to JsonPrimitive("failed"), "second" to JsonPrimitive("successful")))
        val paid = ExpectedPayment(BigDecimal("10"), "GHS")
        Client(config()).use { client ->
            sandbox.fault("/transaction/verify", "duplicate_keys", 1, duplicate)
            assertThrows<SikaException.UnexpectedResponse> { client.verifyTransaction("DUP-1") }
            // The payment check reads the same answer: an error, never Confirmed.
            sandbox.fault("/transaction/verify", "duplicate_keys", 1, duplicate)
            assertThrows<SikaException.UnexpectedResponse> { client.confirmPayment("DUP-1", paid) }
            // Without the fault the transaction is what it is: failed.
            assertEquals(TransactionStatus.Failed, client.verifyTransaction("DUP-1").status)
        }
        BlockingClient(config()).use { client ->
            sandbox.fault("/transaction/verify", "duplicate_keys", 1, duplicate)
            assertThrows<SikaException.UnexpectedResponse> { client.confirmPayment("DUP-1", paid) }
        }
        assertEquals(4, sandbox.requests().size, "each faulted answer came from one request, none retried")
    }

    @Test
    fun testB29AFaultOnOneEndpointLeavesTheOthersAlone() = runBlocking<Unit> {
        sandbox.reset()
        sandbox.fault("/transaction/verify", "hang", 1, JsonObject(emptyMap()))
        Client(config()).use { client -> assertEquals(3, client.listMobileMoneyProviders(null).size) }
    }

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

    private fun JsonObject.long(name: String) = this[name]!!.jsonPrimitive.long
}
