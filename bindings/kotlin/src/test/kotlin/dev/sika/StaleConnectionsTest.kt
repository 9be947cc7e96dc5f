package dev.sika

import kotlinx.serialization.json.JsonObject
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B46: the blocking client never sends a call on a pooled connection the server closed while
 * idle (a proxy's keep-alive timeout): every charge reaches the service, none comes back as
 * `ChargeOutcomeUnknown` for a request the service never received.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StaleConnectionsTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @Test
    fun testB46BlockingChargeAfterTheServerClosedThePooledConnectionReachesTheServer() {
        // No retries: a charge sent on the dead connection must show, not be hidden by a retry.
        BlockingClient(sandbox.config().copy(maxRetries = 0)).use { client ->
            sandbox.fault("/charge", "close_after_answer", ROUNDS, JsonObject(emptyMap()))
            for (round in 0 until ROUNDS) {
                assertEquals(true, client.initiateCharge(charge("B46-KT-$round")).status, "round $round")
                // The sandbox closed the charge's connection (only the poll's own request stays
                // open), so its FIN is at the client's socket before the next call starts.
                assertTrue(openConnectionsSettle(), "round $round: the sandbox kept the connection open")
            }
        }
        assertEquals(ROUNDS, sandbox.requests().count { it["path"].toString() == "\"/charge\"" })
    }

    private fun openConnectionsSettle(): Boolean {
        val deadline = System.nanoTime() + 5_000_000_000
        while (System.nanoTime() < deadline) {
            if (sandbox.openConnections() <= 1) return true
            Thread.sleep(20)
        }
        return false
    }

    private companion object {
        /** Enough rounds that a client reusing the closed connection fails (before the fix, one of the first ten did). */
        const val ROUNDS = 40
    }
}
