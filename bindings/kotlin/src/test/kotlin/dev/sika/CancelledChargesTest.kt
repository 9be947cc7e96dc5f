package dev.sika

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import java.nio.file.Files
import java.util.concurrent.CancellationException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.slf4j.LoggerFactory

/**
 * B232 (issue 46, ADR 0075): a blocking charge interrupted with `Thread.interrupt()` (platform
 * and virtual threads, plain and through `BlockingLedger`) after the sandbox logged
 * `POST /charge` (a `hang` fault: its answer never comes) throws
 * `SikaException.ChargeOutcomeUnknown` with the reference and the request id the sandbox
 * received, never `Cancelled`; a thread interrupted before it charges sends nothing and gets
 * `Cancelled`. B233: a call on a closed client or ledger throws `SikaException.Configuration`,
 * not `IllegalStateException`.
 *
 * B280 (ADR 0082): a coroutine cancelled in a suspend `initiateCharge` (plain and
 * `Ledger.initiateCharge`) after the sandbox logged `POST /charge` ends with a
 * `CancellationException` whose cause is the charge's `ChargeOutcomeUnknown` (reference, the
 * request id the sandbox received), logged at WARN with both; a `withTimeout` around it rethrows
 * it with the cause; cancelled while it waits for a socket, the bare cancellation and nothing
 * sent. B281: the same for Java's `initiateChargeAsync` future cancelled (`cancel(true)`).
 */
class CancelledChargesTest {
    private companion object {
        /** Longer than the 2 s an interrupted call waits for its end before it gives up on it. */
        const val STARVED_MS = 3_000L
    }

    private val hang = JsonObject(emptyMap())
    private val dir = Files.createTempDirectory("sika-cancelled-kt").toFile()

    private fun chargesReceived(sandbox: Sandbox) =
        sandbox.requests().filter { it["path"]!!.jsonPrimitive.content == "/charge" }
            .map { it["request_id"]!!.jsonPrimitive.content }

    /**
     * Holds every thread of [Dispatchers.Default] (where a cancelled call's Rust future is
     * dropped) busy for [ms], as a loaded machine can: returns once they all are.
     */
    private fun starveTheDefaultDispatcher(ms: Long) {
        val threads = Runtime.getRuntime().availableProcessors().coerceAtLeast(2)
        val busy = CountDownLatch(threads)
        repeat(threads * 2) {
            CoroutineScope(Dispatchers.Default).launch {
                busy.countDown()
                Thread.sleep(ms)
            }
        }
        assertTrue(busy.await(5, TimeUnit.SECONDS), "Dispatchers.Default's threads did not all start")
    }

    private fun interruptedAfterSending(throughLedger: Boolean, starved: Boolean = false, start: (Runnable) -> Thread) {
        Sandbox().use { sandbox ->
            sandbox.blockingClient().use { client ->
                val reference = "B232-${if (throughLedger) "LEDGER" else "CLIENT"}-${System.nanoTime()}"
                val ledger = if (throughLedger) BlockingLedger.sqlite(dir.resolve("$reference.db").path) else null
                sandbox.fault("/charge", "hang", 1, hang)
                var outcome: Result<ChargeResponse>? = null
                var flagAfter = false
                val caller = start {
                    val request = charge(reference, "+233244123333")
                    outcome = runCatching { ledger?.initiateCharge(client, request) ?: client.initiateCharge(request) }
                    flagAfter = Thread.currentThread().isInterrupted
                }
                val received = runBlocking { pollUntil(5_000, { chargesReceived(sandbox) }) { it.isNotEmpty() } }
                assertEquals(1, received.size, "the charge reached the sandbox")
                if (starved) starveTheDefaultDispatcher(STARVED_MS)
                caller.interrupt()
                caller.join(5_000 + if (starved) STARVED_MS else 0)
                assertFalse(caller.isAlive, "the interrupted charge did not end")
                val unknown = assertInstanceOf(
                    SikaException.ChargeOutcomeUnknown::class.java, outcome?.exceptionOrNull(), "$outcome",
                )
                assertEquals(reference, unknown.reference)
                assertEquals(received.single(), unknown.requestId, "the request id the sandbox received")
                assertTrue(unknown.reason.contains("cancelled"), unknown.reason)
                assertTrue(flagAfter, "the interrupt flag is set again")
                assertNull(takeCancelledCharge(reference), "thrown, so taken")
                ledger?.use { assertTrue(it.payment(reference) != null, "still expected: reconcile settles it") }
            }
        }
    }

    @Test
    fun testB232InterruptingAPlatformThreadAfterTheChargeWasSentThrowsOutcomeUnknown() =
        interruptedAfterSending(false) { task -> Thread(task).also(Thread::start) }

    @Test
    fun testB232InterruptingAPlatformThreadInALedgerChargeAfterItWasSentThrowsOutcomeUnknown() =
        interruptedAfterSending(true) { task -> Thread(task).also(Thread::start) }

    @Test
    fun testB232InterruptingAVirtualThreadAfterTheChargeWasSentThrowsOutcomeUnknown() {
        needsVirtualThreads()
        interruptedAfterSending(false) { task -> virtualThread(task).also(Thread::start) }
    }

    @Test
    fun testB232AnInterruptedChargeWhoseCallEndsLateStillThrowsOutcomeUnknown() =
        // Its Rust future is dropped only after the 2 s an interrupted read waits for it.
        interruptedAfterSending(false, starved = true) { task -> Thread(task).also(Thread::start) }

    @Test
    fun testB232AThreadInterruptedBeforeItChargesSendsNothingAndIsCancelled() {
        Sandbox().use { sandbox ->
            sandbox.blockingClient().use { client ->
                var outcome: Result<ChargeResponse>? = null
                val caller = Thread {
                    Thread.currentThread().interrupt()
                    outcome = runCatching { client.initiateCharge(charge("B232-EARLY", "+233244123333")) }
                }.also(Thread::start)
                caller.join(5_000)
                assertInstanceOf(SikaException.Cancelled::class.java, outcome?.exceptionOrNull(), "$outcome")
                assertTrue(chargesReceived(sandbox).isEmpty(), "nothing sent")
                assertNull(takeCancelledCharge("B232-EARLY"))
            }
        }
    }

    @Test
    fun testB233ACallOnAClosedClientOrLedgerThrowsConfiguration() {
        Sandbox().use { sandbox ->
            val client = sandbox.blockingClient()
            client.close()
            val closed = assertThrows<SikaException.Configuration> { client.verifyTransaction("B233-1") }
            assertTrue(closed.reason.contains("closed"), closed.reason)
            val async = sandbox.client()
            async.close()
            val closedAsync = assertThrows<SikaException.Configuration> { async.withOptions(timeoutMs = 1_000) }
            assertTrue(closedAsync.reason.contains("closed"), closedAsync.reason)
            val ledger = BlockingLedger.sqlite(dir.resolve("b233.db").path)
            ledger.close()
            val closedLedger = assertThrows<SikaException.Configuration> { ledger.payment("B233-1") }
            assertTrue(closedLedger.reason.contains("closed"), closedLedger.reason)
            assertTrue(sandbox.requests().isEmpty(), "nothing sent")
        }
    }

    private val sika = LoggerFactory.getLogger("sika") as Logger

    /** Runs [body] with the `sika` logger's records collected, and gives them back. */
    private inline fun <T> withRecords(body: (ListAppender<ILoggingEvent>) -> T): T {
        val records = ListAppender<ILoggingEvent>().apply { start() }
        sika.addAppender(records)
        try {
            return body(records)
        } finally {
            sika.detachAppender(records)
        }
    }

    /** The one WARN record that names [reference] and [requestId]. */
    private fun assertOneWarning(records: ListAppender<ILoggingEvent>, reference: String, requestId: String) {
        flushLogRecords(10_000L) // records reach SLF4J on the SDK's logging thread (ADR 0044)
        val named = records.list.toList().filter {
            it.level == Level.WARN && it.formattedMessage.contains(reference) && it.formattedMessage.contains(requestId)
        }
        assertEquals(1, named.size, "one WARN record names the reference and the request id: ${records.list}")
        assertTrue(named.single().formattedMessage.contains("outcome is unknown"), named.single().formattedMessage)
    }

    private fun assertOutcomeUnknown(cancelled: Throwable?, reference: String, requestId: String) {
        assertInstanceOf(CancellationException::class.java, cancelled, "$cancelled")
        val unknown = assertInstanceOf(SikaException.ChargeOutcomeUnknown::class.java, cancelled!!.cause, "the cause of $cancelled")
        assertEquals(reference, unknown.reference)
        assertEquals(requestId, unknown.requestId, "the request id the sandbox received")
        assertTrue(unknown.reason.contains("cancelled"), unknown.reason)
        assertNull(takeCancelledCharge(reference), "carried by the cancellation, so taken")
    }

    /** A suspend charge (through a ledger or not) cancelled once the sandbox logged it. */
    private fun coroutineCancelledAfterSending(throughLedger: Boolean) = runBlocking<Unit> {
        Sandbox().use { sandbox ->
            sandbox.client().use { client ->
                withRecords { records ->
                    val reference = "B280-${if (throughLedger) "LEDGER" else "CLIENT"}-${System.nanoTime()}"
                    val ledger = if (throughLedger) Ledger.sqlite(dir.resolve("$reference.db").path) else null
                    sandbox.fault("/charge", "hang", 1, hang)
                    val thrown = CompletableDeferred<Throwable?>()
                    val job = launch(Dispatchers.Default) {
                        try {
                            val request = charge(reference, "+233244123333")
                            ledger?.initiateCharge(client, request) ?: client.initiateCharge(request)
                            thrown.complete(null)
                        } catch (failure: Throwable) {
                            thrown.complete(failure)
                            throw failure
                        }
                    }
                    val received = pollUntil(5_000, { chargesReceived(sandbox) }) { it.isNotEmpty() }
                    job.cancel()
                    job.join()
                    assertOutcomeUnknown(thrown.await(), reference, received.single())
                    assertOneWarning(records, reference, received.single())
                    ledger?.use { assertTrue(it.payment(reference) != null, "still expected: reconcile settles it") }
                }
            }
        }
    }

    @Test
    fun testB280ACoroutineCancelledAfterTheChargeWasSentCarriesOutcomeUnknownAsItsCause() =
        coroutineCancelledAfterSending(false)

    @Test
    fun testB280ALedgerChargeCancelledAfterItWasSentCarriesOutcomeUnknownAndStaysExpected() =
        coroutineCancelledAfterSending(true)

    @Test
    fun testB280AWithTimeoutEndingAfterTheChargeWasSentRethrowsTheOutcome() = runBlocking<Unit> {
        Sandbox().use { sandbox ->
            sandbox.client().use { client ->
                sandbox.fault("/charge", "hang", 1, hang)
                val reference = "B280-TIMEOUT-${System.nanoTime()}"
                val timedOut = runCatching { withTimeout(1_000) { client.initiateCharge(charge(reference, "+233244123333")) } }
                val received = chargesReceived(sandbox)
                assertEquals(1, received.size, "the charge reached the sandbox")
                val timeout = assertInstanceOf(TimeoutCancellationException::class.java, timedOut.exceptionOrNull())
                // Its cause, or (kotlinx's stack-trace recovery on, as under -ea) its copy's.
                val unknown = generateSequence<Throwable>(timeout) { it.cause }.filterIsInstance<SikaException.ChargeOutcomeUnknown>().firstOrNull()
                assertEquals(reference, unknown?.reference, "the outcome in the cause chain of $timeout")
                assertEquals(received.single(), unknown?.requestId)
                assertNull(takeCancelledCharge(reference), "carried by the cancellation, so taken")
            }
        }
    }

    /**
     * B312: the charge's answer arrives (a 300 ms `delay` fault) while [Dispatchers.Default] is
     * held, so the coroutine's resumption waits to be dispatched, and the job is cancelled then:
     * kotlinx's prompt cancellation drops the resumed answer, and the caller must still learn
     * the charge's outcome is unknown, not "cancelled".
     */
    @Test
    fun testB312ACoroutineCancelledAsItsChargesAnswerArrivesCarriesOutcomeUnknown() = runBlocking<Unit> {
        Sandbox().use { sandbox ->
            sandbox.client().use { client ->
                withRecords { records ->
                    val reference = "B312-${System.nanoTime()}"
                    sandbox.fault("/charge", "delay", 1, JsonObject(mapOf("delay_ms" to JsonPrimitive(300))))
                    val thrown = CompletableDeferred<Throwable?>()
                    val job = CoroutineScope(Dispatchers.Default).launch {
                        try {
                            client.initiateCharge(charge(reference, "+233244123333"))
                            thrown.complete(null)
                        } catch (failure: Throwable) {
                            thrown.complete(failure)
                            throw failure
                        }
                    }
                    val received = pollUntil(5_000, { chargesReceived(sandbox) }) { it.isNotEmpty() }
                    starveTheDefaultDispatcher(STARVED_MS)
                    Thread.sleep(1_000) // the answer arrives, its resumption waits for a thread
                    job.cancel()
                    job.join()
                    assertOutcomeUnknown(thrown.await(), reference, received.single())
                    assertOneWarning(records, reference, received.single())
                }
            }
        }
    }

    /**
     * A client whose one socket is held by a verify that hangs: a charge waits for a socket, and
     * is cancelled while it waits (nothing connected for it).
     */
    private fun withTheOnlySocketHeld(body: suspend CoroutineScope.(Sandbox, Client) -> Unit) = runBlocking<Unit> {
        Sandbox().use { sandbox ->
            Client(sandbox.config().copy(maxConnectionsPerHost = 1, timeoutMs = 30_000, maxRetries = 0)).use { client ->
                sandbox.seedTransaction(transactionObject("B280-HOLD", "pending", "1"))
                sandbox.fault("/transaction/verify", "hang", 1, hang)
                val holder = launch(Dispatchers.Default) { runCatching { client.verifyTransaction("B280-HOLD") } }
                pollUntil(5_000, { sandbox.requests() }) { requests ->
                    requests.any { it["path"]!!.jsonPrimitive.content == "/transaction/verify/B280-HOLD" }
                }
                try {
                    this@runBlocking.body(sandbox, client)
                } finally {
                    holder.cancel()
                }
            }
        }
    }

    @Test
    fun testB280ACoroutineCancelledBeforeAnySocketConnectedIsTheBareCancellation() = withTheOnlySocketHeld { sandbox, client ->
        val thrown = CompletableDeferred<Throwable?>()
        val job = launch(Dispatchers.Default, start = CoroutineStart.UNDISPATCHED) {
            try {
                client.initiateCharge(charge("B280-UNSENT", "+233244123333"))
                thrown.complete(null)
            } catch (failure: Throwable) {
                thrown.complete(failure)
                throw failure
            }
        }
        Thread.sleep(300)
        job.cancel()
        job.join()
        val cancelled = assertInstanceOf(CancellationException::class.java, thrown.await())
        assertNull(cancelled.cause as? SikaException, "nothing sent: no outcome to carry")
        assertTrue(chargesReceived(sandbox).isEmpty(), "nothing sent")
        assertNull(takeCancelledCharge("B280-UNSENT"))
    }

    private fun futureCancelledAfterSending(starved: Boolean = false) {
        Sandbox().use { sandbox ->
            sandbox.client().use { client ->
                withRecords { records ->
                    val reference = "B281-SENT-${System.nanoTime()}"
                    sandbox.fault("/charge", "hang", 1, hang)
                    val future: CompletableFuture<ChargeResponse> = client.initiateChargeAsync(charge(reference, "+233244123333"))
                    val received = runBlocking { pollUntil(5_000, { chargesReceived(sandbox) }) { it.isNotEmpty() } }
                    if (starved) starveTheDefaultDispatcher(STARVED_MS)
                    assertTrue(future.cancel(true))
                    assertTrue(future.isCancelled)
                    val cancelled = runCatching { future.get(5, TimeUnit.SECONDS) }.exceptionOrNull()
                    assertOutcomeUnknown(cancelled, reference, received.single())
                    assertOneWarning(records, reference, received.single())
                }
            }
        }
    }

    @Test
    fun testB281AnAsyncFutureCancelledAfterTheChargeWasSentCarriesOutcomeUnknownAsItsCause() = futureCancelledAfterSending()

    @Test
    fun testB281AFutureCancelledWhileItsCallEndsLateStillCarriesOutcomeUnknown() =
        futureCancelledAfterSending(starved = true)

    @Test
    fun testB281AnAsyncFutureCancelledBeforeAnySocketConnectedIsCancelledWithNoCause() = withTheOnlySocketHeld { sandbox, client ->
        val future = client.initiateChargeAsync(charge("B281-UNSENT", "+233244123333"))
        Thread.sleep(300)
        assertTrue(future.cancel(true))
        val cancelled = runCatching { future.join() }.exceptionOrNull()
        assertInstanceOf(CancellationException::class.java, cancelled, "$cancelled")
        assertNull(cancelled!!.cause, "nothing sent: no outcome to carry")
        assertTrue(chargesReceived(sandbox).isEmpty(), "nothing sent")
        assertNull(takeCancelledCharge("B281-UNSENT"))
    }
}
