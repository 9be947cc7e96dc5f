package dev.sika

import java.nio.file.Files
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * B232 (issue 46, ADR 0075): a blocking charge interrupted with `Thread.interrupt()` (platform
 * and virtual threads, plain and through `BlockingLedger`) after the sandbox logged
 * `POST /charge` (a `hang` fault: its answer never comes) throws
 * `SikaException.ChargeOutcomeUnknown` with the reference and the request id the sandbox
 * received, never `Cancelled`; a thread interrupted before it charges sends nothing and gets
 * `Cancelled`. B233: a call on a closed client or ledger throws `SikaException.Configuration`,
 * not `IllegalStateException`.
 */
class CancelledChargesTest {
    private val hang = JsonObject(emptyMap())
    private val dir = Files.createTempDirectory("sika-cancelled-kt").toFile()

    private fun chargesReceived(sandbox: Sandbox) =
        sandbox.requests().filter { it["path"]!!.jsonPrimitive.content == "/charge" }
            .map { it["request_id"]!!.jsonPrimitive.content }

    private fun interruptedAfterSending(throughLedger: Boolean, start: (Runnable) -> Thread) {
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
                caller.interrupt()
                caller.join(5_000)
                assertFalse(caller.isAlive, "the interrupted charge did not end within 5 s")
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
}
