package dev.sika

import java.util.Collections
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B208: a JVM host's tracer (ADR 0058) sees each call start and end on the calling thread, the
 * call's requests carry the W3C context it answered with, and the call's end lists each
 * attempt with the HTTP client attributes. The tracer is the process's one: it traces only the
 * references of this test, so the other test classes' calls go untraced.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracerTest {
    private val sandbox = Sandbox()

    private class Recording : Tracer {
        val started: MutableList<Pair<CallStart, Thread>> = Collections.synchronizedList(mutableListOf())
        val ended: MutableList<Pair<CallEnd, Thread>> = Collections.synchronizedList(mutableListOf())

        override fun callStarted(call: CallStart): TracedCall? {
            if (call.reference?.startsWith("B208-") != true) return null
            started.add(call to Thread.currentThread())
            return TracedCall(started.size.toLong(), PARENT, "sika=kt")
        }

        override fun callEnded(end: CallEnd) {
            ended.add(end to Thread.currentThread())
        }
    }

    private val tracer = Recording()

    init {
        check(setTracer(tracer)) { "another tracer was installed first" }
    }

    @AfterAll
    fun stop() = sandbox.close()

    @Test
    fun testB208ACallRetriedTwiceIsTracedOnItsThreadWithThreeAttempts() {
        sandbox.seedTransaction(transactionObject("B208-KT", "successful", "100.10"))
        sandbox.fault("/transaction/verify", "status", 2, JsonObject(mapOf("status" to JsonPrimitive(503))))
        sandbox.clearRequests()
        val client = Client(sandbox.config().copy(maxRetries = 3))
        val transaction = runBlocking { client.verifyTransaction("B208-KT") }
        assertEquals("B208-KT", transaction.txRef)
        val sent = sandbox.requests().map { it["traceparent"] to it["tracestate"] }
        assertEquals(List(3) { JsonPrimitive(PARENT) to JsonPrimitive("sika=kt") }, sent)
        val (start, startedOn) = tracer.started.single()
        assertEquals(listOf("verify_transaction", "127.0.0.1"), listOf(start.operation, start.serverAddress))
        val (end, endedOn) = tracer.ended.single()
        assertEquals(startedOn, endedOn, "started and ended where the call was polled")
        assertEquals(null, end.errorType)
        assertEquals(
            listOf(Triple(0, 503, "503"), Triple(1, 503, "503"), Triple(2, 200, null)),
            end.attempts.map { Triple(it.resendCount, it.statusCode, it.errorType) },
        )
        assertEquals(setOf("GET /transaction/verify/{reference}"), end.attempts.map { "${it.method} ${it.urlTemplate}" }.toSet())
        // Another reference: not traced, nothing sent.
        sandbox.clearRequests()
        runCatching { runBlocking { client.verifyTransaction("UNTRACED-1") } }
        assertEquals(listOf(JsonNull), sandbox.requests().map { it["traceparent"] })
    }

    private companion object {
        const val PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    }
}
