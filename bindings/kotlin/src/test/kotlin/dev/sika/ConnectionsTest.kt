package dev.sika

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B76: `withOptions` gives a view of a client with its own per-call budget over the same
 * connections (ADR 0039): its timeout applies (the sandbox's slow-answer fault), the client's
 * own budget is unchanged, and the blocking client's view is a [BlockingClient].
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConnectionsTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() {
        sandbox.reset()
        sandbox.seedTransaction(transactionObject("B76-SEEDED", "successful", "100.10"))
    }

    private fun slowAnswers() = sandbox.fault("/transaction/verify", "delay", "count" to 2, "delay_ms" to 1_500)

    @Test
    fun testB76WithOptionsAppliesItsOwnTimeoutOnTheAsyncClient() = runBlocking<Unit> {
        sandbox.client().use { client ->
            client.withOptions(timeoutMs = 300L, maxRetries = 0).use { quick ->
                assertEquals("B76-SEEDED", quick.verifyTransaction("B76-SEEDED").txRef)
                slowAnswers()
                val started = System.nanoTime()
                assertThrows(SikaException.Timeout::class.java) { runBlocking { quick.verifyTransaction("B76-SEEDED") } }
                assertTrue((System.nanoTime() - started) / 1_000_000 < 1_400)
                assertEquals("B76-SEEDED", client.verifyTransaction("B76-SEEDED").txRef, "the client's 10 s budget")
            }
        }
    }

    @Test
    fun testB76WithOptionsAppliesItsOwnTimeoutOnTheBlockingClient() {
        sandbox.blockingClient().use { client ->
            val quick: BlockingClient = client.withOptions(timeoutMs = 300L)
            quick.use {
                slowAnswers()
                val started = System.nanoTime()
                assertThrows(SikaException.Timeout::class.java) { quick.verifyTransaction("B76-SEEDED") }
                assertTrue((System.nanoTime() - started) / 1_000_000 < 1_400)
                assertEquals("B76-SEEDED", client.verifyTransaction("B76-SEEDED").txRef, "the client's 10 s budget")
                val negative = assertThrows(SikaException.InvalidInput::class.java) { client.withOptions(timeoutMs = -1L) }
                assertEquals("timeout_ms", negative.field)
            }
        }
    }
}
