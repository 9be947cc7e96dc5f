// tests/maven-consumer/src/test/kotlin/dev/sika/installed/FulfilmentTest.kt
package dev.sika.installed

import dev.sika.BlockingLedger
import dev.sika.ExpectedPayment
import dev.sika.LedgerDecision
import dev.sika.fulfil
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import dev.sika.testing.SikaWebhookReceiver
import java.math.BigDecimal
import java.nio.file.Path
import java.util.Collections
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.junit.jupiter.api.io.TempDir

@ExtendWith(SikaSandboxExtension::class)
class FulfilmentTest {
    private val order = ExpectedPayment(BigDecimal("25.50"), "GHS")

    @Test
    fun b317FulfilmentIsIdempotent(sandbox: SikaSandbox, receiver: SikaWebhookReceiver, @TempDir dir: Path) {
        val shipped = Collections.synchronizedList(mutableListOf<String>())
        sandbox.blockingClient().use { client ->
            BlockingLedger.sqlite(dir.resolve("ledger.db").toString()).use { ledger ->
                receiver.setHandler { body -> // your app's webhook handler
                    val decision = ledger.handleWebhook(client, body)
                    if (decision is LedgerDecision.Fulfil) {
                        ledger.fulfil(decision.claim) { shipped.add(it.reference) } // ship the order
                    }
                    decision.httpStatus()
                }
                sandbox.setWebhookUrl(receiver.url()) // or your running app's loopback URL
                ledger.expect("ORDER-18", order)
                sandbox.seedTransaction("ORDER-18", BigDecimal("25.50"), "GHS", "successful")
                sandbox.trigger("ORDER-18", 3, true)
            }
        }
        assertEquals(listOf("ORDER-18"), shipped) // three deliveries, one shipment
        // 200 once fulfilled; 503 while another delivery held the claim (the service delivers again)
        assertTrue(receiver.deliveries().all { it.status() in setOf(200, 503) }, "${receiver.deliveries()}")
    }
}
