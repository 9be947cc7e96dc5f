package dev.sika

import java.io.PrintWriter
import java.io.StringWriter
import java.math.BigDecimal
import java.net.ServerSocket
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * The payment-safety layer (B21-B25): confirmPayment, handleWebhook, awaitFinalStatus and its
 * cancellation (the handle, and the coroutine's own), phone numbers, and charges whose outcome
 * is unknown; and (B36) a verification answered about another reference. The same scenarios as
 * bindings/python/tests/test_safety.py.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SafetyTest {
    private val sandbox = Sandbox()

    /** Every text this test saw from the SDK (errors, decisions, checks): none may hold a key. */
    private val seen = mutableListOf<String>()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() {
        sandbox.reset()
        seen.clear()
    }

    @AfterEach
    fun noTextContainsAKey() {
        for (text in seen) {
            for (key in listOf(KEY, WRONG_KEY)) assertFalse(text.contains(key), "a key leaked: $text")
        }
    }

    /** Records how [value] reads (an error also with its stack trace) and returns it. */
    private fun <T> seen(value: T): T {
        seen += value.toString()
        if (value is Throwable) {
            seen += value.message.orEmpty()
            seen += StringWriter().also { value.printStackTrace(PrintWriter(it)) }.toString()
        }
        return value
    }

    private fun paths() = sandbox.requests().map { it["path"]!!.jsonPrimitive.content }

    private fun verifies(reference: String) = paths().count { it == "/transaction/verify/$reference" }

    private fun expect(amount: String, currency: String = "GHS") = ExpectedPayment(BigDecimal(amount), currency)

    // ---- B21: confirmPayment -------------------------------------------------------------

    private fun seedPayments() {
        for ((reference, status) in listOf("PAID" to "successful", "WORD" to "success", "PEND" to "pending", "FAIL" to "failed")) {
            sandbox.seedTransaction(transactionObject(reference, status, "100.10"))
        }
    }

    private fun rows(name: String): List<DynamicTest> = Calls.rows(sandbox, name)

    @TestFactory
    fun testB21ConfirmPaymentConfirmsOnlyAnExactMatch(): List<DynamicTest> = rows("b21_confirm_payment.json")

    @Test
    fun testB21TheBlockingClientConfirmsTheSameWay() {
        seedPayments()
        sandbox.blockingClient().use { client ->
            assertInstanceOf(PaymentCheck.Confirmed::class.java, seen(client.confirmPayment("PAID", expect("100.1", "ghs"))))
            val short = assertInstanceOf(PaymentCheck.Mismatch::class.java, seen(client.confirmPayment("PAID", expect("100.11"))))
            assertEquals("amount", short.field)
            val word = assertInstanceOf(PaymentCheck.NotPaid::class.java, seen(client.confirmPayment("WORD", expect("100.10"))))
            assertEquals(MerchantAction.INVESTIGATE, word.action)
            assertInstanceOf(PaymentCheck.NotYet::class.java, seen(client.confirmPayment("PEND", expect("100.10"))))
            assertInstanceOf(PaymentCheck.NotPaid::class.java, seen(client.confirmPayment("FAIL", expect("100.10"))))
        }
    }

    // ---- B22: handleWebhook --------------------------------------------------------------

    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    private fun seedWebhookOrders() {
        for ((reference, status, amount) in listOf(
            Triple("HOOK-PAID", "successful", "25.00"),
            Triple("HOOK-FAILED", "failed", "25.00"),
            Triple("HOOK-PENDING", "pending", "25.00"),
            Triple("HOOK-SHORT", "successful", "2.50"),
            Triple("HOOK-WORD", "success", "25.00"),
        )) {
            sandbox.seedTransaction(transactionObject(reference, status, amount))
        }
    }

    private fun assertAnswer(decision: WebhookDecision, status: Int, acknowledge: Boolean) {
        assertEquals(status, decision.httpStatus(), "$decision")
        assertEquals(acknowledge, decision.acknowledge(), "$decision")
    }

    @TestFactory
    fun testB22AWebhookIsDecidedOnlyAfterVerification(): List<DynamicTest> = rows("b22_webhook_decisions.json")

    @Test
    fun testB22ParseWebhookEventIsUnverifiedAndTyped() {
        val event = parseWebhookEvent(notification("R-1"))
        assertEquals(Pair("charge.success", "R-1"), Pair(event.event, event.reference))
        assertEquals(String(notification("R-1")), event.rawJson)
        assertEquals(null, parseWebhookEvent("""{"event":"charge.success"}""".toByteArray()).reference)
        assertEquals("webhook", seen(assertThrows<SikaException.InvalidInput> { parseWebhookEvent("{".toByteArray()) }).field)
        assertEquals("webhook", seen(assertThrows<SikaException.InvalidInput> { parseWebhookEvent(ByteArray(64 * 1024 + 1)) }).field)
    }

    @Test
    fun testB22AWebhookIsRetriedLaterWhenOurKeyIsRejected() = runBlocking<Unit> {
        seedWebhookOrders()
        sandbox.client(WRONG_KEY).use { client ->
            val decision = assertInstanceOf(WebhookDecision.RetryLater::class.java, seen(client.handleWebhook(notification("HOOK-PAID"), ORDER)))
            assertAnswer(decision, 503, acknowledge = false)
        }
    }

    @Test
    fun testB22TheBlockingClientHandlesWebhooksTheSameWay() {
        seedWebhookOrders()
        sandbox.blockingClient().use { client ->
            val paid = assertInstanceOf(WebhookDecision.Fulfil::class.java, seen(client.handleWebhook(notification("HOOK-PAID"), ORDER)))
            assertAnswer(paid, 200, acknowledge = true)
            assertEquals(paid, client.handleWebhook(notification("HOOK-PAID"), ORDER), "a repeated delivery")
            assertAnswer(assertInstanceOf(WebhookDecision.Ignore::class.java, seen(client.handleWebhook(notification("HOOK-FAILED"), ORDER))), 200, true)
            assertAnswer(assertInstanceOf(WebhookDecision.RetryLater::class.java, seen(client.handleWebhook(notification("HOOK-PENDING"), ORDER))), 503, false)
            assertAnswer(assertInstanceOf(WebhookDecision.Investigate::class.java, seen(client.handleWebhook(notification("HOOK-SHORT"), ORDER))), 200, true)
            assertAnswer(assertInstanceOf(WebhookDecision.RetryLater::class.java, seen(client.handleWebhook(notification("HOOK-NEVER-CHARGED"), ORDER))), 503, false)
            assertAnswer(assertInstanceOf(WebhookDecision.Reject::class.java, seen(client.handleWebhook("not json".toByteArray(), ORDER))), 400, false)
        }
    }

    // ---- B23: awaitFinalStatus -----------------------------------------------------------

    @Test
    fun testB23AwaitFinalStatusFollowsTheUssdAnswer() = runBlocking<Unit> {
        sandbox.client().use { client ->
            for ((suffix, want) in listOf("0000" to TransactionStatus.Successful, "1111" to TransactionStatus.Failed)) {
                client.initiateCharge(charge("WAIT-$suffix", "+23324412$suffix"))
                val transaction = client.awaitFinalStatus("WAIT-$suffix", fast(timeoutMs = 5_000))
                assertEquals(want, transaction.status, suffix)
                assertEquals("WAIT-$suffix", transaction.txRef)
            }
        }
    }

    @Test
    fun testB23ACustomerWhoNeverAnswersTimesOutWithinTheBudget() = runBlocking<Unit> {
        sandbox.client().use { client ->
            client.initiateCharge(charge("WAIT-3333", "+233244123333"))
            val started = System.nanoTime()
            seen(assertThrows<SikaException.Timeout> { client.awaitFinalStatus("WAIT-3333", fast(timeoutMs = 600)) })
            assertTrue(elapsedMs(started) < 3_000, "the 600 ms budget was not kept: ${elapsedMs(started)} ms")
            assertTrue(verifies("WAIT-3333") >= 2, "it kept checking while pending")
        }
    }

    @Test
    fun testB23ACancellationHandleStopsTheWaitAndThePolling() = runBlocking<Unit> {
        sandbox.client().use { client ->
            client.initiateCharge(charge("WAIT-CANCEL", "+233244123333"))
            Cancellation().use { cancellation ->
                // The result, not the exception: a failed child would cancel runBlocking itself.
                val waiting = async { runCatching { client.awaitFinalStatus("WAIT-CANCEL", fast(60_000, cancellation)) } }
                delay(300)
                assertTrue(verifies("WAIT-CANCEL") >= 1, "it was polling before the cancellation")
                val cancelledAt = System.nanoTime()
                cancellation.cancel()
                val result = withTimeout(2_000) { waiting.await() }
                assertInstanceOf(SikaException.Cancelled::class.java, seen(result.exceptionOrNull()), "$result")
                assertTrue(elapsedMs(cancelledAt) < 2_000)
                assertTrue(cancellation.isCancelled())
                assertNoMorePolling("WAIT-CANCEL")

                // An already cancelled handle ends a new wait at once, before any check.
                sandbox.clearRequests()
                seen(assertThrows<SikaException.Cancelled> { client.awaitFinalStatus("WAIT-CANCEL", fast(60_000, cancellation)) })
                assertEquals(emptyList<Any>(), sandbox.requests())
            }
        }
    }

    @Test
    fun testB23CancellingTheCoroutineStopsTheRustPolling() = runBlocking<Unit> {
        sandbox.client().use { client ->
            client.initiateCharge(charge("WAIT-JOB", "+233244123333"))

            // launch + job.cancel(): no Cancellation handle, only the coroutine's own.
            val job = launch(Dispatchers.Default) { client.awaitFinalStatus("WAIT-JOB", fast(timeoutMs = 60_000)) }
            delay(400)
            assertTrue(verifies("WAIT-JOB") >= 2, "it was polling before the cancellation")
            withTimeout(2_000) { job.cancelAndJoin() }
            assertTrue(job.isCancelled)
            assertNoMorePolling("WAIT-JOB")

            // async + deferred.cancel(): the awaiting side sees a CancellationException.
            sandbox.clearRequests()
            val deferred = async(Dispatchers.IO) { client.awaitFinalStatus("WAIT-JOB", fast(timeoutMs = 60_000)) }
            delay(400)
            assertTrue(verifies("WAIT-JOB") >= 2, "the second wait was polling")
            deferred.cancel()
            withTimeout(2_000) { deferred.join() }
            assertTrue(deferred.isCancelled)
            assertThrows<CancellationException> { deferred.await() }
            assertNoMorePolling("WAIT-JOB")

            // withTimeout: the usual way to bound a wait from the caller's side.
            sandbox.clearRequests()
            val started = System.nanoTime()
            assertThrows<TimeoutCancellationException> {
                withTimeout(400) { client.awaitFinalStatus("WAIT-JOB", fast(timeoutMs = 60_000)) }
            }
            assertTrue(elapsedMs(started) < 2_000)
            assertNoMorePolling("WAIT-JOB")

            // The client is still usable after its futures were dropped.
            assertEquals(TransactionStatus.Pending, client.verifyTransaction("WAIT-JOB").status)
        }
    }

    @Test
    fun testB23ABlockingWaitIsCancelledFromAnotherThread() {
        sandbox.blockingClient().use { client ->
            client.initiateCharge(charge("WAIT-THREAD", "+233244123333"))
            Cancellation().use { cancellation ->
                val canceller = Thread {
                    Thread.sleep(300)
                    cancellation.cancel()
                }
                val started = System.nanoTime()
                canceller.start()
                seen(assertThrows<SikaException.Cancelled> { client.awaitFinalStatus("WAIT-THREAD", fast(60_000, cancellation)) })
                val elapsed = elapsedMs(started)
                assertTrue(elapsed >= 250 && elapsed < 2_000, "ended after $elapsed ms, not at the cancellation (300 ms)")
                canceller.join()
                assertTrue(verifies("WAIT-THREAD") >= 1, "it was polling before the cancellation")
                runBlocking { assertNoMorePolling("WAIT-THREAD") }
            }
        }
    }

    @Test
    fun testB23AZeroTimeoutIsInvalidInputAndSendsNothing() {
        // In range for the type but not a budget: the core refuses it before any check.
        sandbox.blockingClient().use { client ->
            val error = seen(assertThrows<SikaException.InvalidInput> { client.awaitFinalStatus("ORDER-1", AwaitOptions(timeoutMs = 0)) })
            assertEquals("timeout_ms", error.field)
        }
        assertEquals(emptyList<Any>(), sandbox.requests())
    }

    /** After a settling moment, the request log stops growing: nothing keeps verifying. */
    private suspend fun assertNoMorePolling(reference: String) {
        delay(100) // a request already on the wire may still land
        val polls = verifies(reference)
        delay(600) // three of the 200 ms maximum intervals
        assertEquals(polls, verifies(reference), "$reference was still verified after the wait was cancelled")
    }

    // ---- B24: normalizePhoneNumber -------------------------------------------------------

    @Test
    fun testB24NormalizePhoneNumber() {
        for (case in scenarioCases("b24_phone_numbers.json")) {
            val input = case["input"]!!.jsonPrimitive.content
            val country = case["country"]!!.jsonPrimitive.content
            val expect = case["expect"]!!.jsonObject
            val normalized = expect["normalized"]?.jsonPrimitive?.content
            if (normalized != null) {
                assertEquals(normalized, normalizePhoneNumber(input, country), "$input in $country")
            } else {
                val error = assertThrows<SikaException.InvalidInput>("$input in $country") { normalizePhoneNumber(input, country) }
                assertEquals(expect["invalid_input"]!!.jsonPrimitive.content, seen(error).field, "$input in $country")
            }
        }
    }

    // ---- B25: a charge whose answer is lost ----------------------------------------------

    @TestFactory
    fun testB25AChargeWhoseAnswerIsLostIsOutcomeUnknownAndSentOnce(): List<DynamicTest> = rows("b25_lost_charge.json")

    @Test
    fun testB25TheBlockingClientReportsALostChargeTheSameWay() {
        sandbox.blockingClient().use { client ->
            sandbox.fault("/charge", "after_processing", "then" to "reset")
            val error = seen(assertThrows<SikaException.ChargeOutcomeUnknown> { client.initiateCharge(charge("LOST-2")) })
            assertEquals("LOST-2", error.reference)
            assertEquals(listOf("/charge"), paths(), "a charge is never re-sent")
            assertEquals("LOST-2", client.verifyTransaction("LOST-2").txRef)
        }
        // A charge that never left (the connection was refused) is a plain Network error: safe to retry.
        val closedPort = ServerSocket(0).use { it.localPort }
        BlockingClient(ClientConfig(SecretKey(KEY), "http://127.0.0.1:$closedPort", maxRetries = 0)).use { client ->
            seen(assertThrows<SikaException.Network> { client.initiateCharge(charge("NEVER-SENT")) })
        }
    }

    @TestFactory
    fun testB26ReadsAreRetriedAndChargesAreNot(): List<DynamicTest> = rows("b26_retries.json")

    @TestFactory
    fun testB27BankListsAreCachedAndRefreshBypassesTheCache(): List<DynamicTest> = rows("b27_bank_cache.json")

    // ---- B36: an answer about another reference -----------------------------------------

    /**
     * The next verification of [requested] is answered about [answered]: a successful
     * transaction of the order's amount and currency, so only its reference is wrong.
     */
    private fun crossedAnswer(requested: String, answered: String) {
        val body = """{"status":true,"message":"Verification successful","data":${transactionObject(answered, "successful", "100.10")}}"""
        sandbox.fault("/transaction/verify/$requested", "body", "body" to body)
    }

    /** The error names both the reference verified (`ORDER-A`) and the one answered about (`ORDER-B`). */
    private fun assertNamesBoth(error: SikaException.UnexpectedResponse) {
        assertEquals(200, error.httpStatus, "$error")
        assertTrue(error.reason.contains("`ORDER-B`") && error.reason.contains("`ORDER-A`"), error.reason)
    }

    @TestFactory
    fun testB36AnAnswerAboutAnotherReferenceIsNeverATransactionOfThisOne(): List<DynamicTest> =
        rows("b36_answer_about_another_reference.json")

    /** The blocking client takes the same path (B19's shape; the suspend rows are the scenario file's). */
    @Test
    fun testB36TheBlockingClientRejectsAnAnswerAboutAnotherReference() {
        sandbox.blockingClient().use { client ->
            crossedAnswer("ORDER-A", "ORDER-B")
            assertNamesBoth(seen(assertThrows<SikaException.UnexpectedResponse> { client.verifyTransaction("ORDER-A") }))
        }
    }

    private companion object {
        /** A second canary: the key of a client the service refuses. */
        const val WRONG_KEY = "sk_test_canary_wrong_kt_b22e"
        val ORDER = ExpectedPayment(BigDecimal("25.00"), "GHS")

        /** Quick polling for the sandbox, whose customers answer after 150 ms. */
        fun fast(timeoutMs: Long, cancellation: Cancellation? = null) =
            AwaitOptions(initialDelayMs = 50, intervalMs = 50, maxIntervalMs = 200, timeoutMs = timeoutMs, cancellation = cancellation)

        fun elapsedMs(since: Long) = (System.nanoTime() - since) / 1_000_000
    }
}
