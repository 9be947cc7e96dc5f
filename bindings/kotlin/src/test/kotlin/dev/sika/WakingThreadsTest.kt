package dev.sika

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * B195: the SDK's threads that wake coroutines are attached to the JVM once, not for each wake
 * (ADR 0068): after calls they are live daemon threads named `sika-wake`, and the same threads
 * (the same `Thread` objects: a detach and a new attach would make new ones) serve 400 more
 * calls, sequential and concurrent, with no new ones beyond the runtime's few.
 */
class WakingThreadsTest {
    private fun wakingThreads(): Set<Thread> =
        Thread.getAllStackTraces().keys.filter { it.name == JvmHost.WAKING_THREAD_NAME }.toSet()

    @Test
    fun testB195WakingThreadsAreAttachedOnceNotPerWake() = runBlocking<Unit> {
        Sandbox().use { sandbox ->
            sandbox.seedTransaction(transactionObject("B195-1", "successful", "12.30"))
            // The first 20 answers come 30 ms late, so each call ends with a wake from the SDK's
            // thread: a call whose answer is in before its first poll completes without one.
            sandbox.fault("/transaction/verify", "delay", 20, JsonObject(mapOf("delay_ms" to JsonPrimitive(30))))
            sandbox.client().use { client ->
                repeat(20) { client.verifyTransaction("B195-1") }
                val first = wakingThreads()
                assertTrue(first.isNotEmpty(), "no thread stayed attached after 20 calls")
                assertTrue(first.all { it.isDaemon }, "a waking thread would hold the VM's exit: $first")
                repeat(200) { client.verifyTransaction("B195-1") }
                coroutineScope { (1..200).map { async { client.verifyTransaction("B195-1") } }.awaitAll() }
                val after = wakingThreads()
                assertEquals(emptySet<Thread>(), first - after, "threads were detached and attached again")
                // The runtime's workers and its blocking pool: a few, however many calls.
                assertTrue(after.size <= 16, "${after.size} waking threads after 420 calls")
            }
        }
    }
}
