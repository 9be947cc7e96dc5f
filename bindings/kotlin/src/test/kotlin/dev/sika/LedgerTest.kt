package dev.sika

import java.math.BigDecimal
import java.nio.file.Files
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B140: the exported ledger (ADR 0050) gives exactly one `Fulfil` for a notification delivered
 * many times at once (SQLite): 32 threads (each in `runBlocking`), and 32 coroutines, through
 * the suspend `Ledger`; every other answer is "already fulfilled" (HTTP 200) or "in progress"
 * (HTTP 503, so the service delivers again: ADR 0071).
 * B193: the same through `BlockingLedger` and `BlockingClient` on plain threads (ADR 0066).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerTest {
    private val sandbox = Sandbox()
    private val order = ExpectedPayment(BigDecimal("100.10"), "GHS")
    private val dir = Files.createTempDirectory("sika-ledger-kt").toFile()

    @AfterAll
    fun stop() {
        sandbox.close()
        dir.deleteRecursively()
    }

    /** [decide] on [threads] plain threads, started together; their answers. */
    private fun onThreadsAtOnce(threads: Int, decide: () -> LedgerDecision): List<LedgerDecision> {
        val start = CyclicBarrier(threads)
        val pool = Executors.newFixedThreadPool(threads)
        try {
            return (1..threads).map { pool.submit<LedgerDecision> { start.await(); decide() } }
                .map { it.get(60, TimeUnit.SECONDS) }
        } finally {
            pool.shutdown()
        }
    }

    /** 503 for "in progress" (the service delivers again, ADR 0071), 200 for the others here. */
    private fun expectedStatus(decision: LedgerDecision) = if (decision is LedgerDecision.InProgress) 503 else 200

    private fun notification(reference: String) = """{"event":"charge.success","data":{"reference":"$reference"}}""".toByteArray()

    @Test
    fun testB140DuplicateDeliveriesOnThreadsFulfilOnce() {
        val client = sandbox.client()
        val ledger = Ledger.sqlite(dir.resolve("threads.db").path)
        val reference = "B140-KT-BLOCKING"
        sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
        runBlocking { ledger.expect(reference, order) }
        val answers = onThreadsAtOnce(32) {
            runBlocking {
                val decision = ledger.handleWebhook(client, notification(reference))
                if (decision is LedgerDecision.Fulfil) ledger.markFulfilled(decision.claim)
                decision
            }
        }
        assertEquals(1, answers.count { it is LedgerDecision.Fulfil }, "$answers")
        assertTrue(answers.all { it.httpStatus() == expectedStatus(it) }, "$answers")
        assertTrue(answers.all { it is LedgerDecision.Fulfil || it is LedgerDecision.AlreadyFulfilled || it is LedgerDecision.InProgress })
        runBlocking {
            val record = ledger.payment(reference)
            assertNotNull(record)
            assertNotNull(record!!.fulfilledAt)
            assertEquals(1L, record.claimsOffered)
            assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.handleWebhook(client, notification(reference)))
        }
    }

    @Test
    fun testB140DuplicateDeliveriesOnCoroutinesFulfilOnce() = runBlocking<Unit> {
        val client = sandbox.client()
        val ledger = Ledger.sqlite(dir.resolve("async.db").path)
        val reference = "B140-KT-ASYNC"
        sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
        ledger.expect(reference, order)
        val answers = coroutineScope {
            (1..32).map {
                async {
                    val decision = ledger.handleWebhook(client, notification(reference))
                    if (decision is LedgerDecision.Fulfil) ledger.markFulfilled(decision.claim)
                    decision
                }
            }.awaitAll()
        }
        assertEquals(1, answers.count { it is LedgerDecision.Fulfil }, "$answers")
        assertTrue(answers.all { it.acknowledge() == (it !is LedgerDecision.InProgress) }, "$answers")
        assertNotNull(ledger.payment(reference)!!.fulfilledAt)
    }

    /**
     * B218, B219 (ADR 0071): a shipment three times longer than the lease, in `fulfil`, ships once
     * (every delivery meanwhile "in progress", 503; the claim marked at the end); one that throws
     * gives the claim back, so the very next caller is offered it (offer 2) with no wait for the
     * 5-minute lease. Through the suspend `Ledger` and through `BlockingLedger` on a thread.
     */
    @Test
    fun testB218B219FulfilRenewsWhileItRunsAndGivesTheClaimBackWhenItThrows() = runBlocking<Unit> {
        val client = sandbox.client()
        val path = dir.resolve("fulfil.db").path
        val ledger = Ledger.sqlite(path, LedgerOptions(leaseMs = 600L))
        val other = Ledger.sqlite(path)
        val blocking = BlockingLedger.sqlite(path, LedgerOptions(leaseMs = 600L))
        for (reference in listOf("B218-KT", "B218-KT-BLOCKING", "B219-KT", "B219-KT-BLOCKING")) {
            sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
            ledger.expect(reference, order)
        }
        var shipped = 0
        // The webhook handler's form: the claim from the delivery, the shipment in the block.
        val claim = (ledger.handleWebhook(client, notification("B218-KT")) as LedgerDecision.Fulfil).claim
        ledger.fulfil(claim) { held ->
            repeat(6) {
                kotlinx.coroutines.delay(300)
                assertEquals(503, other.handleWebhook(client, notification(held.reference)).httpStatus())
            }
            shipped += 1
        }
        assertEquals(1, shipped)
        assertEquals(1L, ledger.payment("B218-KT")!!.claimsOffered)
        assertNotNull(ledger.payment("B218-KT")!!.fulfilledAt)

        val blockingClient = sandbox.blockingClient()
        val blockingClaim = (blocking.handleWebhook(blockingClient, notification("B218-KT-BLOCKING")) as LedgerDecision.Fulfil).claim
        blocking.fulfil(blockingClaim) { held ->
            repeat(6) {
                Thread.sleep(300)
                assertEquals(503, runBlocking { other.settle(client, held.reference) }.httpStatus())
            }
        }
        assertNotNull(ledger.payment("B218-KT-BLOCKING")!!.fulfilledAt)

        val first = (other.settle(client, "B219-KT") as LedgerDecision.Fulfil).claim
        val thrown = runCatching { other.fulfil(first) { throw java.io.IOException("carrier down") } }.exceptionOrNull()
        assertInstanceOf(java.io.IOException::class.java, thrown)
        val second = (ledger.settle(client, "B219-KT") as LedgerDecision.Fulfil).claim
        assertEquals(2L, second.offer)
        ledger.fulfil(second) {}
        assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, other.settle(client, "B219-KT"))

        // BlockingLedger's block gives the claim back when it throws, as the suspend one does.
        val blockingFirst = (blocking.settle(blockingClient, "B219-KT-BLOCKING") as LedgerDecision.Fulfil).claim
        val blockingThrown = runCatching { blocking.fulfil(blockingFirst) { throw java.io.IOException("carrier down") } }.exceptionOrNull()
        assertInstanceOf(java.io.IOException::class.java, blockingThrown)
        assertEquals(2L, (other.settle(client, "B219-KT-BLOCKING") as LedgerDecision.Fulfil).claim.offer)
    }

    /**
     * B221: a claim lost while the block runs (given back elsewhere and offered to another
     * caller) is `ClaimLost` when the block ends, and the block neither marks nor releases the
     * new holder's claim.
     */
    @Test
    fun testB221AClaimLostDuringTheBlockIsClaimLostAtItsEnd() = runBlocking<Unit> {
        val client = sandbox.client()
        val path = dir.resolve("b221.db").path
        val ledger = Ledger.sqlite(path, LedgerOptions(leaseMs = 600L))
        val other = Ledger.sqlite(path)
        sandbox.seedTransaction(transactionObject("B221-KT", "successful", "100.10"))
        ledger.expect("B221-KT", order)
        val claim = (ledger.settle(client, "B221-KT") as LedgerDecision.Fulfil).claim
        val thrown = runCatching {
            ledger.fulfil(claim) { held ->
                other.release(held, "test: taken over")
                assertInstanceOf(LedgerDecision.Fulfil::class.java, other.settle(client, "B221-KT"))
                kotlinx.coroutines.delay(600) // past a renewal, which finds the claim offered to `other`
            }
        }.exceptionOrNull()
        assertInstanceOf(SikaException.ClaimLost::class.java, thrown)
        val record = ledger.payment("B221-KT")!!
        assertEquals(2L, record.claimsOffered)
        assertEquals(null, record.fulfilledAt, "not marked")
        assertEquals(503, ledger.settle(client, "B221-KT").httpStatus(), "the new holder's claim is live")
    }

    /** B315: a reconcile failure carries the typed error, whose text and request id it repeats. */
    @Test
    fun testB315AReconcileFailureCarriesTheTypedError() = runBlocking<Unit> {
        Client(sandbox.config().copy(maxRetries = 0)).use { client ->
            val ledger = Ledger.sqlite(dir.resolve("b315.db").path)
            sandbox.seedTransaction(transactionObject("B315-KT", "successful", "100.10"))
            ledger.expect("B315-KT", order)
            sandbox.fault("/transaction/verify", "status", 1, JsonObject(mapOf("status" to JsonPrimitive(503))))
            val failure = ledger.reconcile(client, ReconcileOptions(olderThanMs = 0L)).failures.single()
            // Before issue 47 only the text: a job had to parse "503" out of `reason`.
            val error = assertInstanceOf(SikaException.Api::class.java, failure.error)
            assertEquals(503, error.httpStatus)
            assertEquals(failure.requestId, error.requestId)
            assertNotNull(error.requestId)
            assertEquals(failure.reason, error.message)
        }
    }

    /**
     * B165: `reconcile` over paid, pending and failed payments (SQLite): each paid one is
     * `Fulfil` once, the second run checks only the pending one; the same through the
     * `CompletableFuture` twin Java calls. B166: `limit = 0` is `InvalidInput` naming it.
     */
    @Test
    fun testB165ReconcileFulfilsEachPaidPaymentOnce() = runBlocking<Unit> {
        val client = sandbox.client()
        val ledger = Ledger.sqlite(dir.resolve("reconcile.db").path)
        val statuses = mapOf("B165-KT-PAID" to "successful", "B165-KT-PENDING" to "pending", "B165-KT-FAILED" to "failed")
        for ((reference, status) in statuses) {
            sandbox.seedTransaction(transactionObject(reference, status, "100.10"))
            ledger.expect(reference, order)
        }
        val dueNow = ReconcileOptions(olderThanMs = 0L, concurrency = 2L)
        val first = ledger.reconcile(client, dueNow)
        assertEquals(statuses.keys, (first.checked.map { it.reference } + first.ready.map { it.reference }).toSet(), "$first")
        assertEquals(listOf("B165-KT-PAID"), first.ready.map { it.reference })
        assertTrue(first.checked.none { it.decision is LedgerDecision.Fulfil }, "$first")
        val decision = ledger.claim(first.ready.single())
        assertInstanceOf(LedgerDecision.Fulfil::class.java, decision)
        ledger.fulfil((decision as LedgerDecision.Fulfil).claim) {}
        val second = ledger.reconcileAsync(client, dueNow).get(30, TimeUnit.SECONDS)
        assertEquals(listOf("B165-KT-PENDING"), second.checked.map { it.reference }, "$second")
        assertTrue(second.failures.isEmpty())
        val error = runCatching { ledger.reconcile(client, ReconcileOptions(limit = 0L)) }.exceptionOrNull()
        assertEquals("limit", (error as SikaException.InvalidInput).field)
    }

    /**
     * B270, B271: a reconcile run claims nothing (ADR 0081); the README's form claims each ready
     * payment as its fulfilment starts (`claim`, then `fulfil`). 60 paid payments whose
     * shipments (25 ms each) make a run over three 400 ms leases, on SQLite: two runs in a row
     * (the second finds nothing), then over 60 more two runs at once on two ledgers, suspend
     * and blocking: each shipped once, one claim offered per payment, no `ClaimLost`.
     */
    @Test
    fun testB271ReconcileClaimsEachPaymentAsItsFulfilmentStarts() = runBlocking<Unit> {
        val client = sandbox.client()
        val path = dir.resolve("b271.db").path
        val leaseMs = 400L
        val ledger = Ledger.sqlite(path, LedgerOptions(leaseMs = leaseMs))
        val shipped = java.util.concurrent.ConcurrentHashMap<String, Int>()
        fun ship(reference: String) {
            shipped.merge(reference, 1, Int::plus)
            Thread.sleep(25)
        }
        suspend fun paid(tag: String): List<String> {
            val references = (0 until 60).map { "B271-KT-$tag-${"%02d".format(it)}" }
            for (reference in references) {
                sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
                ledger.expect(reference, order)
            }
            return references
        }
        val options = ReconcileOptions(olderThanMs = 0L, limit = 500L, concurrency = 4L)
        // The README's task, suspend.
        suspend fun reconcilePayments(ledger: Ledger): List<String> {
            val report = ledger.reconcile(client, options)
            val fulfilled = mutableListOf<String>()
            for (ready in report.ready) {
                val decision = ledger.claim(ready)  // claimed only as its turn comes
                if (decision is LedgerDecision.Fulfil) {
                    ledger.fulfil(decision.claim) { ship(ready.reference) }
                    fulfilled += ready.reference
                }
            }
            return fulfilled
        }
        // The same on threads, as a Java scheduler runs it.
        fun reconcilePaymentsBlocking(ledger: BlockingLedger, client: BlockingClient): List<String> {
            val report = ledger.reconcile(client, options)
            val fulfilled = mutableListOf<String>()
            for (ready in report.ready) {
                val decision = ledger.claim(ready)
                if (decision is LedgerDecision.Fulfil) {
                    ledger.fulfil(decision.claim) { ship(ready.reference) }
                    fulfilled += ready.reference
                }
            }
            return fulfilled
        }

        val inARow = paid("ROW")
        val started = System.nanoTime()
        assertEquals(inARow, reconcilePayments(ledger))
        val tookMs = (System.nanoTime() - started) / 1_000_000
        assertTrue(tookMs > 3 * leaseMs, "the run took $tookMs ms: not three leases")
        assertEquals(emptyList<String>(), reconcilePayments(ledger))

        val atOnce = paid("ONCE")
        BlockingLedger.sqlite(path, LedgerOptions(leaseMs = leaseMs)).use { blocking ->
            sandbox.blockingClient().use { blockingClient ->
                val onThread = java.util.concurrent.CompletableFuture.supplyAsync { reconcilePaymentsBlocking(blocking, blockingClient) }
                val suspended = reconcilePayments(ledger)
                val threaded = onThread.get(60, TimeUnit.SECONDS)
                assertEquals(atOnce, (suspended + threaded).sorted(), "each fulfilled by one run, once")
            }
        }
        for (reference in inARow + atOnce) {
            assertEquals(1, shipped[reference], "$reference shipped ${shipped[reference]} times")
            val record = checkNotNull(ledger.payment(reference))
            assertEquals(1L, record.claimsOffered, "$record")
            assertNotNull(record.fulfilledAt)
        }
        val pending = "B270-KT-PENDING"
        sandbox.seedTransaction(transactionObject(pending, "pending", "100.10"))
        ledger.expect(pending, order)
        val some = ledger.reconcile(client, options)
        assertEquals(listOf(pending), some.checked.map { it.reference })
        val notPaid = ledger.claim(ReadyPayment(pending, client.verifyTransaction(pending)))
        assertInstanceOf(LedgerDecision.Decided::class.java, notPaid)
        assertInstanceOf(WebhookDecision.RetryLater::class.java, (notPaid as LedgerDecision.Decided).decision)
    }

    /**
     * B167: a charge through the ledger records the request's amount and currency as the
     * reference's expected payment before it is sent, and its webhook is decided against them;
     * a bad request is `InvalidInput` with nothing recorded and nothing sent; the same through
     * the `CompletableFuture` twin Java calls.
     */
    @Test
    fun testB167AChargeThroughTheLedgerRecordsTheOrderBeforeItIsSent() = runBlocking<Unit> {
        val client = sandbox.client()
        val ledger = Ledger.sqlite(dir.resolve("charges.db").path)
        fun charge(reference: String, amount: String) =
            ChargeRequest(BigDecimal(amount), "ama@example.com", "+233244123333", reference, "ghs", "MTN", null)
        sandbox.clearRequests()
        val error = runCatching { ledger.initiateCharge(client, charge("B167-KT-BAD", "0")) }.exceptionOrNull()
        assertEquals("amount", (error as SikaException.InvalidInput).field)
        assertEquals(null, ledger.payment("B167-KT-BAD"))
        assertEquals(emptyList<Any>(), sandbox.requests())
        ledger.initiateCharge(client, charge("B167-KT-1", "25.50"))
        ledger.initiateChargeAsync(client, charge("B167-KT-2", "10")).get(30, TimeUnit.SECONDS)
        for ((reference, amount) in listOf("B167-KT-1" to "25.50", "B167-KT-2" to "10")) {
            val record = checkNotNull(ledger.payment(reference)) { reference }
            assertEquals(0, BigDecimal(amount).compareTo(record.expected.amount), "$record")
            assertEquals("GHS", record.expected.currency)
        }
        assertEquals(listOf("/charge", "/charge"), sandbox.requests().map { it["path"]!!.jsonPrimitive.content })
        sandbox.setStatus("B167-KT-1", "successful")
        val decision = ledger.handleWebhook(client, notification("B167-KT-1"))
        assertInstanceOf(LedgerDecision.Fulfil::class.java, decision)
    }

    /**
     * B193: `BlockingLedger` (ADR 0066), over a `BlockingClient`: 32 plain threads get the same
     * notification at once, one `Fulfil`; then every other operation as a plain call (a charge
     * through the ledger, `expect`, `payment`, `settle`, `reconcile` with its default options),
     * as a Java servlet thread makes them.
     */
    @Test
    fun testB193BlockingLedgerFulfilsOnceOnPlainThreads() {
        BlockingLedger.sqlite(dir.resolve("blocking.db").path).use { ledger ->
            sandbox.blockingClient().use { client ->
                val reference = "B193-KT-1"
                sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))
                ledger.expect(reference, order)
                val answers = onThreadsAtOnce(32) {
                    ledger.handleWebhook(client, notification(reference)).also { decision ->
                        if (decision is LedgerDecision.Fulfil) ledger.markFulfilled(decision.claim)
                    }
                }
                assertEquals(1, answers.count { it is LedgerDecision.Fulfil }, "$answers")
                assertTrue(answers.all { it.httpStatus() == expectedStatus(it) }, "$answers")
                assertEquals(1L, ledger.payment(reference)!!.claimsOffered)
                assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.settle(client, reference))

                val charged = ChargeRequest(BigDecimal("25.50"), "ama@example.com", "+233244123333", "B193-KT-2", "GHS", "MTN", null)
                ledger.initiateCharge(client, charged)
                sandbox.setStatus("B193-KT-2", "successful")
                val report = ledger.reconcile(client)
                // The default options check payments older than a minute: none yet.
                assertEquals(emptyList<ReconciledPayment>(), report.checked, "$report")
                val due = ledger.reconcile(client, ReconcileOptions(olderThanMs = 0L))
                assertEquals(listOf("B193-KT-2"), due.ready.map { it.reference }, "$due")
                val claimed = ledger.claim(due.ready.single())
                assertInstanceOf(LedgerDecision.Fulfil::class.java, claimed)
                ledger.fulfil((claimed as LedgerDecision.Fulfil).claim) {}
                assertInstanceOf(LedgerDecision.AlreadyFulfilled::class.java, ledger.claim(due.ready.single()))
            }
        }
    }

    /**
     * B193: `Thread.interrupt()` ends a `BlockingLedger` call waiting on the service at once,
     * with `SikaException.Cancelled` and the interrupt flag set again; the ledger still works.
     * On a platform thread, and on a virtual one (run by the newest-jdk Surefire run).
     */
    @Test
    fun testB193AnInterruptEndsABlockingLedgerCall() =
        interruptEndsASettle("B193-KT-INT") { task -> Thread(task).also(Thread::start) }

    @Test
    fun testB193AnInterruptEndsABlockingLedgerCallOnAVirtualThread() {
        needsVirtualThreads()
        interruptEndsASettle("B193-KT-INT-VT") { task -> virtualThread(task).also(Thread::start) }
    }

    /** A `settle` waiting on a hanging service, on a thread [start] starts, then interrupted. */
    private fun interruptEndsASettle(reference: String, start: (Runnable) -> Thread) = runBlocking<Unit> {
        Sandbox().use { hanging -> settleInterrupted(hanging, reference, start) }
    }

    private suspend fun settleInterrupted(hanging: Sandbox, reference: String, start: (Runnable) -> Thread) {
        BlockingLedger.sqlite(dir.resolve("$reference.db").path).use { ledger ->
            hanging.blockingClient().use { client ->
                hanging.seedTransaction(transactionObject(reference, "successful", "100.10"))
                ledger.expect(reference, order)
                hanging.fault("/transaction/verify", "hang", 1, JsonObject(emptyMap()))
                var outcome: Result<LedgerDecision>? = null
                var flagAfter = false
                val caller = start {
                    outcome = runCatching { ledger.settle(client, reference) }
                    flagAfter = Thread.currentThread().isInterrupted
                }
                // The service must have the verify before the interrupt (not just a connection):
                // otherwise the hang would be left for the settle after it.
                val received = pollUntil(5_000, hanging::verifies) { it == 1 }
                assertEquals(1, received, "the settle should be waiting on the service")
                caller.interrupt()
                caller.join(5_000)
                assertFalse(caller.isAlive, "the interrupted call did not end within 5 s")
                assertInstanceOf(SikaException.Cancelled::class.java, outcome?.exceptionOrNull(), "$outcome")
                assertTrue(flagAfter, "the interrupt flag is set again")
                assertInstanceOf(LedgerDecision.Fulfil::class.java, ledger.settle(client, reference))
            }
        }
    }
}
