package dev.sika

import java.io.PrintWriter
import java.io.StringWriter
import java.net.ServerSocket
import java.net.Socket
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/** Error texts (the core's, never the key) and configuration. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ErrorsTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    /** Every way a Kotlin user or a logger reads an error shows the core's text and no key. */
    private fun assertReadable(error: SikaException, vararg keys: String = arrayOf(KEY)) {
        val coreText = error.message() // the core's Display, through the FFI
        assertTrue(coreText.isNotBlank(), "${error::class.simpleName} has no text")
        assertEquals(coreText, error.message, "message is the core's text")
        assertEquals(coreText, error.localizedMessage)
        assertEquals("${error.javaClass.name}: $coreText", error.toString(), "printed as every JVM exception (ADR 0018)")
        val trace = StringWriter().also { error.printStackTrace(PrintWriter(it)) }.toString()
        for (key in keys) {
            for (text in listOf(coreText, trace)) assertFalse(text.contains(key), "the key leaked: $text")
        }
    }

    @Test
    fun testB16ServiceErrorsCarryTheCoresTextAndNeverTheKey() = runBlocking<Unit> {
        val wrongKey = "sk_test_canary_wrong_kt_55e1"
        val errors = mutableListOf<SikaException>()
        sandbox.client(wrongKey).use { client ->
            errors += assertThrows<SikaException.Unauthorized> { client.listBanks() }
        }
        sandbox.client().use { client ->
            errors += assertThrows<SikaException.NoProvidersFound> { client.listMobileMoneyProviders("NG") }
            errors += assertThrows<SikaException.InvalidCountryCode> { client.listBanks("ZZ") }
            errors += assertThrows<SikaException.TransactionNotFound> { client.verifyTransaction("NO-SUCH-ORDER") }
            errors += assertThrows<SikaException.InvalidReference> { client.verifyTransaction("bad ref!") }
            client.initiateCharge(charge("ORDER-DUP"))
            val duplicate = assertThrows<SikaException.Api> { client.initiateCharge(charge("ORDER-DUP")) }
            assertTrue(duplicate.message.contains("409") && duplicate.message.contains(duplicate.serviceMessage), duplicate.message)
            errors += duplicate
            val invalid = assertThrows<SikaException.InvalidInput> { client.initiateCharge(charge("ORDER-BAD").copy(email = "nope")) }
            assertTrue(invalid.message.contains(invalid.field), "the text names the field: ${invalid.message}")
            errors += invalid
        }
        sandbox.blockingClient().use { client ->
            errors += assertThrows<SikaException.TransactionNotFound> { client.verifyTransaction("NO-SUCH-ORDER") }
        }
        errors.forEach { assertReadable(it, KEY, wrongKey) }
        val oneOfEachKind = errors.distinctBy { it::class }
        assertEquals(oneOfEachKind.size, oneOfEachKind.map { it.message }.toSet().size, "each kind has its own text")
    }

    @Test
    fun testB16TransportErrorsCarryTheCoresTextAndNeverTheKey() = runBlocking<Unit> {
        val closedPort = ServerSocket(0).use { it.localPort }
        Client(ClientConfig(SecretKey(KEY), "http://127.0.0.1:$closedPort", maxRetries = 0)).use { client ->
            assertReadable(assertThrows<SikaException.Network> { client.listBanks("GH") })
        }
        // A server that accepts and never answers: the call ends at its time budget.
        ServerSocket(0).use { silent ->
            val held = mutableListOf<Socket>()
            val acceptor = Thread { runCatching { while (true) held += silent.accept() } }.apply { isDaemon = true; start() }
            Client(ClientConfig(SecretKey(KEY), "http://127.0.0.1:${silent.localPort}", timeoutMs = 300)).use { client ->
                val started = System.nanoTime()
                assertReadable(assertThrows<SikaException.Timeout> { client.verifyTransaction("ORDER-1") })
                assertTrue(System.nanoTime() - started < 3_000_000_000L, "the time budget was not kept")
            }
            silent.close()
            acceptor.join(1_000)
            held.forEach { it.close() }
        }
    }

    @Test
    fun testB17PlainHttpToARemoteHostFailsAtConstruction() {
        val config = ClientConfig(SecretKey(KEY), "http://api.example.com")
        assertReadable(assertThrows<SikaException.Configuration> { Client(config) })
        assertReadable(assertThrows<SikaException.Configuration> { BlockingClient(config) })
    }

    @Test
    fun testB17PrintingTheConfigNeverShowsTheKey() {
        val config = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = 5_000, userAgentSuffix = "shop/1.0")
        val printed = listOf(config.toString(), config.secretKey.toString(), "$config")
        printed.forEach { assertFalse(it.contains(KEY), "the key leaked: $it") }
        assertTrue(config.toString().contains(sandbox.url), "the rest of the config is shown: $config")
        // The key still works: it was kept, only never shown.
        BlockingClient(config).use { assertEquals(3, it.listMobileMoneyProviders().size) }
    }
}
