package dev.sika.examples.ktor

import dev.sika.BlockingLedger
import dev.sika.Claim
import dev.sika.ExpectedPayment
import dev.sika.LedgerDecision
import dev.sika.LedgerOptions
import dev.sika.SecretUrl
import dev.sika.SikaException
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import java.math.BigDecimal
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.extension.ExtendWith

/**
 * B217 on the JVM: every `BlockingLedger` operation has a deadline (`timeoutMs`). With the
 * PostgreSQL cluster frozen (SIGSTOP: connections open, nothing answers) each operation ends near
 * it with `SikaException.Storage`, on the test's thread and on a pool's threads alike, and works
 * again once the cluster is back; a row lock held by another session ends each operation that
 * waits for it the same way. Before the core's deadlines such calls hung until the database
 * answered. Rust and Python check the same (`core/tests/ledger/time.rs`, `test_b217_frozen_database.py`).
 */
@ExtendWith(SikaSandboxExtension::class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatabaseDeadlinesTest(private val sandbox: SikaSandbox) {
    private val cluster = PgCluster()

    @AfterAll
    fun stopCluster() {
        cluster.thaw() // a failed test must not leave it stopped for `close`
        cluster.close()
    }

    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    /** A ledger with the test's deadline, and a claim on [reference] (seeded paid). */
    private fun claimed(ledger: BlockingLedger, reference: String): Claim {
        sandbox.seedTransaction(reference, BigDecimal("100.10"), "GHS", "successful")
        ledger.expect(reference, ORDER)
        sandbox.blockingClient().use { client ->
            return assertInstanceOf(LedgerDecision.Fulfil::class.java, ledger.handleWebhook(client, notification(reference))).claim
        }
    }

    /** Null when [call] ended with `Storage` saying [because] within the bound, else what went wrong. */
    private fun endsAtTheDeadline(name: String, because: String, call: () -> Any?): String? {
        val started = System.nanoTime()
        val outcome: Any? = try {
            call()
        } catch (error: SikaException.Storage) {
            error
        }
        val tookMs = (System.nanoTime() - started) / 1_000_000
        return when {
            outcome !is SikaException.Storage || because !in outcome.message.orEmpty() -> "$name: must be Storage ($because), got $outcome"
            tookMs >= BOUND_MS -> "$name took $tookMs ms"
            else -> null
        }
    }

    /** Each of [operations] on this thread and on a pool's threads: the problems seen. */
    private fun onEveryThread(because: String, operations: Map<String, () -> Any?>): List<String> {
        val here = operations.mapNotNull { (name, call) -> endsAtTheDeadline(name, because, call) }
        val pool = Executors.newFixedThreadPool(2)
        try {
            val there = operations.map { (name, call) -> pool.submit<String?> { endsAtTheDeadline("$name (pool)", because, call) } }
            return here + there.mapNotNull { it.get(60, TimeUnit.SECONDS) }
        } finally {
            pool.shutdownNow()
        }
    }

    @Test
    fun b217_a_frozen_database_ends_every_operation_at_its_deadline_on_any_thread() {
        BlockingLedger.postgres(SecretUrl(cluster.url), LedgerOptions(timeoutMs = TIMEOUT_MS, connectTimeoutMs = 15_000L, maxConnections = 4L)).use { ledger ->
            val claim = claimed(ledger, "B217-KT-1")
            sandbox.blockingClient().use { client ->
                val operations = mapOf<String, () -> Any?>(
                    "expect" to { ledger.expect("B217-KT-2", ORDER) },
                    "handleWebhook" to { ledger.handleWebhook(client, notification("B217-KT-1")) },
                    "settle" to { ledger.settle(client, "B217-KT-1") },
                    "renew" to { ledger.renew(claim) },
                    "release" to { ledger.release(claim, "frozen") },
                    "markFulfilled" to { ledger.markFulfilled(claim) },
                    "payment" to { ledger.payment("B217-KT-1") },
                    "reconcile" to { ledger.reconcile(client) },
                )
                cluster.freeze()
                val problems = try {
                    onEveryThread("did not answer within", operations)
                } finally {
                    cluster.thaw()
                }
                assertEquals(emptyList<String>(), problems)
                // Back: the same claim marks (nothing changed while frozen), on fresh connections.
                ledger.markFulfilled(claim)
                assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.settle(client, "B217-KT-1"))
            }
        }
    }

    @Test
    fun b217_a_row_lock_held_elsewhere_ends_each_waiting_operation_at_its_deadline_on_any_thread() {
        BlockingLedger.postgres(SecretUrl(cluster.url), LedgerOptions(timeoutMs = TIMEOUT_MS, maxConnections = 4L)).use { ledger ->
            val claim = claimed(ledger, "B217-KT-3")
            sandbox.blockingClient().use { client ->
                // The operations that write the payment's row (reading it takes no lock).
                val operations = mapOf<String, () -> Any?>(
                    "handleWebhook" to { ledger.handleWebhook(client, notification("B217-KT-3")) },
                    "settle" to { ledger.settle(client, "B217-KT-3") },
                    "renew" to { ledger.renew(claim) },
                    "release" to { ledger.release(claim, "locked") },
                    "markFulfilled" to { ledger.markFulfilled(claim) },
                )
                val problems = cluster.rowLocked("sika_payments", "B217-KT-3") { onEveryThread("timeout", operations) }
                assertEquals(emptyList<String>(), problems)
                ledger.markFulfilled(claim)
                assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.settle(client, "B217-KT-3"))
            }
        }
    }

    private companion object {
        const val TIMEOUT_MS = 1_000L

        /** Well past the deadline, far below the hang it replaces (a loaded CI machine is slow). */
        const val BOUND_MS = 4 * TIMEOUT_MS

        val ORDER = ExpectedPayment(BigDecimal("100.10"), "GHS")
    }
}
