package dev.sika

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.read.ListAppender
import java.io.File
import java.math.BigDecimal
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.slf4j.LoggerFactory

/**
 * B220 on the JVM: a worker JVM SIGKILLed inside `BlockingLedger.fulfil`'s block (its renewal
 * thread dies with it) leaves its claim `InProgress` until the lease lapses; then the next
 * delivery is offered it (offer 2), logged at WARN, and ships it once more, only then. The worker is this test
 * class path's [KilledWorkerMain], a process of its own, killed as the OOM killer or `kill -9`
 * would: no shutdown hook, no `finally`.
 */
class KilledWorkerTest {
    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    @Test
    fun testB220AWorkerJvmKilledInsideTheBlockIsOfferedAgainAfterTheLease() {
        val dir = Files.createTempDirectory("sika-b220-kt").toFile()
        try {
            Sandbox().use { sandbox ->
                val reference = "B220-KT"
                val path = dir.resolve("ledger.db").path
                sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
                BlockingLedger.sqlite(path, LedgerOptions(leaseMs = LEASE_MS)).use { ledger ->
                    ledger.expect(reference, ExpectedPayment(BigDecimal("100.10"), "GHS"))
                    val java = File(System.getProperty("java.home"), "bin/java").path
                    val worker = ProcessBuilder(
                        java, "-cp", System.getProperty("java.class.path"), KilledWorkerMain::class.java.name,
                        path, sandbox.url, KEY, reference, LEASE_MS.toString(),
                    ).redirectErrorStream(true).start()
                    val output = worker.inputStream.bufferedReader()
                    try {
                        val lines = generateSequence { output.readLine() }
                        assertTrue(lines.any { it == "SHIPPING" }, "the worker took no claim")
                        // Held past the lease: the worker's renewals kept it its own.
                        Thread.sleep(LEASE_MS * 2)
                        sandbox.blockingClient().use { client ->
                            assertInstanceOf(LedgerDecision.InProgress::class.java, ledger.handleWebhook(client, notification(reference)))
                            worker.destroyForcibly() // SIGKILL
                            assertTrue(worker.waitFor(10, TimeUnit.SECONDS), "the worker did not die")
                            assertEquals(137, worker.exitValue(), "killed by SIGKILL")
                            Thread.sleep(LEASE_MS + 300)
                            val records = ListAppender<ILoggingEvent>().apply { start() }
                            val sika = LoggerFactory.getLogger("sika") as Logger
                            sika.addAppender(records)
                            val again = try {
                                ledger.handleWebhook(client, notification(reference)).also {
                                    flushLogRecords(10_000L) // records reach SLF4J on the SDK's logging thread (ADR 0044)
                                }
                            } finally {
                                sika.detachAppender(records)
                            }
                            val claim = assertInstanceOf(LedgerDecision.Fulfil::class.java, again).claim
                            assertEquals(2L, claim.offer)
                            val warned = records.list.filter { it.formattedMessage.contains("`$reference` offered again (claim 2)") }
                            assertEquals(listOf(Level.WARN), warned.map { it.level }, "the re-offer is logged once, at WARN: ${records.list}")
                            val shipped = mutableListOf<Long>()
                            ledger.fulfil(claim) { shipped += it.offer }
                            assertEquals(listOf(2L), shipped)
                            assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.handleWebhook(client, notification(reference)))
                            assertEquals(2L, ledger.payment(reference)!!.claimsOffered)
                        }
                    } finally {
                        worker.destroyForcibly()
                    }
                }
            }
        } finally {
            dir.deleteRecursively()
        }
    }

    private companion object {
        const val LEASE_MS = 1_000L
    }
}

/**
 * The worker [KilledWorkerTest] kills: settles the order through a ledger with the test's lease
 * and ships it in a block that never ends.
 */
object KilledWorkerMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val (path, url, key, reference, leaseMs) = args
        val ledger = BlockingLedger.sqlite(path, LedgerOptions(leaseMs = leaseMs.toLong()))
        val client = BlockingClient(ClientConfig(SecretKey(key), url, timeoutMs = 10_000))
        val decision = ledger.settle(client, reference)
        if (decision !is LedgerDecision.Fulfil) {
            println("NOT OFFERED: $decision")
            return
        }
        ledger.fulfil(decision.claim) {
            println("SHIPPING")
            System.out.flush()
            Thread.sleep(Long.MAX_VALUE) // the shipment that never ends: the process is killed in it
        }
    }
}
