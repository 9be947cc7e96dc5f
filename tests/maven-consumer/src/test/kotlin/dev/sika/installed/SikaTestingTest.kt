package dev.sika.installed

import com.sun.net.httpserver.HttpServer
import dev.sika.ExpectedPayment
import dev.sika.PaymentCheck
import dev.sika.SikaException
import dev.sika.testing.SandboxException
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import java.io.File
import java.math.BigDecimal
import java.net.InetSocketAddress
import java.util.Collections
import java.util.concurrent.Executors
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestMethodOrder
import org.junit.jupiter.api.extension.ExtendWith

/**
 * B155: dev.sika:sika-testing from the release files, as a merchant's JUnit 5 suite uses it: the
 * extension gives each test the same sandbox (one per run, a fresh key, reset before each test),
 * with ready clients, seeding, a fault, a notification delivered three times at once to the
 * test's own receiver, and the deliveries made. The sandbox binary is SIKA_SANDBOX_BIN.
 */
@ExtendWith(SikaSandboxExtension::class)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class SikaTestingTest {
    companion object {
        private var first: SikaSandbox? = null
    }

    @Test
    @Order(1)
    fun b155ASeededTransactionIsConfirmed(sandbox: SikaSandbox) {
        first = sandbox
        assertTrue(sandbox.baseUrl().startsWith("http://127.0.0.1:"), sandbox.baseUrl())
        assertTrue(sandbox.secretKey().startsWith("sk_test_"))
        assertFalse(sandbox.secretKey() in sandbox.toString())
        sandbox.seedTransaction("ORDER-17", BigDecimal("25.50"), "GHS", "successful")
        sandbox.blockingClient().use { client ->
            val check = client.confirmPayment("ORDER-17", ExpectedPayment(BigDecimal("25.50"), "GHS"))
            assertTrue(check is PaymentCheck.Confirmed, check.toString())
        }
        assertEquals(listOf("/transaction/verify/ORDER-17"), sandbox.requests().map { it["path"] })
    }

    @Test
    @Order(2)
    fun b155TheSameSandboxResetBeforeEachTestAndAFault(sandbox: SikaSandbox) {
        assertSame(first, sandbox, "one sandbox per run")
        assertEquals(emptyList<Any>(), sandbox.requests())
        sandbox.addFault("/mobile-money-providers", "status", 1, mapOf("status" to 401))
        sandbox.blockingClient().use { client ->
            assertThrows(SikaException.Api::class.java) { client.listMobileMoneyProviders("GH") }
            assertTrue(client.listMobileMoneyProviders("GH").isNotEmpty())
            assertThrows(SikaException.TransactionNotFound::class.java) { client.verifyTransaction("ORDER-17") }
        }
    }

    @Test
    @Order(3)
    fun b155ANotificationThreeTimesAtOnce(sandbox: SikaSandbox) {
        val received = Collections.synchronizedList(mutableListOf<String>())
        val server = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0)
        server.executor = Executors.newFixedThreadPool(4)
        server.createContext("/webhooks/sika") { exchange ->
            received.add(exchange.requestBody.readAllBytes().decodeToString())
            exchange.sendResponseHeaders(200, -1)
            exchange.close()
        }
        server.start()
        try {
            sandbox.setWebhookUrl("http://127.0.0.1:${server.address.port}/webhooks/sika")
            sandbox.seedTransaction("ORDER-19", BigDecimal("10.00"), "GHS", "successful")
            val sent = sandbox.trigger("ORDER-19", 3, true)
            assertEquals(listOf(200, 200, 200), sent.map { it["http_status"] })
        } finally {
            server.stop(0)
        }
        assertEquals(3, received.size)
        assertTrue(received.all { "ORDER-19" in it }, received.toString())
        assertEquals(3, sandbox.deliveries().count { it["delivered"] == true })
    }

    @Test
    @Order(4)
    fun b155ARefusedControlCallIsASandboxException(sandbox: SikaSandbox) {
        // Reset put the kit's settings back: no webhook URL.
        val refused = assertThrows(SandboxException::class.java) { sandbox.trigger("ORDER-1", 1, false) }
        assertTrue("No webhook URL configured" in refused.message!!, refused.message)
        assertThrows(IllegalArgumentException::class.java) {
            sandbox.seedTransaction("", BigDecimal.ONE, "GHS", "successful")
        }
        // The jar is the released one.
        val jar = File(SikaSandbox::class.java.protectionDomain.codeSource.location.toURI())
        assertEquals("sika-testing-${System.getProperty("sika.version")}.jar", jar.name)
    }
}
