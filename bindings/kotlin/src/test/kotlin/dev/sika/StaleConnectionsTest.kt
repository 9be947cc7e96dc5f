package dev.sika

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
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

    /**
     * faults.json's `stale_pooled_connection`: enough rounds that a client reusing the closed
     * connection fails (before the fix, one of the first ten did).
     */
    private val setup = scenario("stale_pooled_connection")
    private val path = setup.text("path")
    private val rounds = setup.int("rounds")

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @Test
    fun testB46BlockingChargeAfterTheServerClosedThePooledConnectionReachesTheServer() {
        // No retries: a charge sent on the dead connection must show, not be hidden by a retry.
        BlockingClient(sandbox.config().copy(maxRetries = setup.int("max_retries"))).use { client ->
            sandbox.fault(path, setup.text("kind"), rounds, JsonObject(emptyMap()))
            for (round in 0 until rounds) {
                assertEquals(true, client.initiateCharge(charge("B46-KT-$round")).status, "round $round")
                // The sandbox closed the charge's connection (only the poll's own request stays
                // open), so its FIN is at the client's socket before the next call starts.
                assertTrue(openConnectionsSettle(), "round $round: the sandbox kept the connection open")
            }
        }
        assertEquals(rounds, sandbox.requests().count { it["path"]?.jsonPrimitive?.content == path })
    }

    private fun openConnectionsSettle(): Boolean {
        val deadline = System.nanoTime() + 5_000_000_000
        while (System.nanoTime() < deadline) {
            if (sandbox.openConnections() <= 1) return true
            Thread.sleep(20)
        }
        return false
    }

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

    private fun JsonObject.int(name: String) = this[name]!!.jsonPrimitive.int
}
