package dev.sika

import java.math.BigDecimal
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/** B18, B31: one client shared by many threads or coroutines at once. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrencyTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() = sandbox.reset()

    private fun seed(prefix: String, count: Int) =
        (0 until count).forEach { sandbox.seedTransaction(transactionObject("$prefix-$it", "successful", "$it.50")) }

    /** Each caller's own answers came back to it, and every call reached the service once. */
    private fun checkResults(prefix: String, results: List<Pair<Transaction, Int>>, count: Int) {
        results.forEachIndexed { index, (transaction, providers) ->
            assertEquals("$prefix-$index", transaction.txRef)
            assertEquals("$index.50", transaction.amount.toPlainString())
            assertEquals(3, providers)
        }
        val paths = sandbox.requests().map { it["path"]!!.jsonPrimitive.content }
        assertEquals(count, paths.count { it.startsWith("/transaction/verify/$prefix-") })
        assertEquals(count, paths.count { it == "/mobile-money-providers" })
    }

    @Test
    fun testB18OneBlockingClientSharedBy16Threads() {
        val threads = 16
        seed("THREAD", threads)
        val start = CyclicBarrier(threads) // all threads call at the same moment
        val pool = Executors.newFixedThreadPool(threads)
        try {
            sandbox.blockingClient().use { client ->
                val futures = (0 until threads).map { index ->
                    pool.submit<Pair<Transaction, Int>> {
                        start.await()
                        val providers = client.listMobileMoneyProviders("GH").size
                        client.verifyTransaction("THREAD-$index") to providers
                    }
                }
                checkResults("THREAD", futures.map { it.get(30, TimeUnit.SECONDS) }, threads)
            }
        } finally {
            pool.shutdownNow()
        }
    }

    private fun oneClientFor32Coroutines(dispatcher: CoroutineDispatcher, prefix: String) = runBlocking<Unit> {
        val tasks = 32
        seed(prefix, tasks)
        sandbox.client().use { client ->
            val results = (0 until tasks).map { index ->
                async(dispatcher) {
                    val providers = client.listMobileMoneyProviders("gh").size
                    client.verifyTransaction("$prefix-$index") to providers
                }
            }.awaitAll()
            checkResults(prefix, results, tasks)
        }
    }

    @Test
    fun testB18OneClientFor32CoroutinesOnDispatchersIO() = oneClientFor32Coroutines(Dispatchers.IO, "IO")

    @Test
    fun testB18OneClientFor32CoroutinesOnDispatchersDefault() = oneClientFor32Coroutines(Dispatchers.Default, "DEFAULT")

    // ---- B31: 32 callers, mixed operations, one client ---------------------------------

    /** The operations of B31, on either client kind (the blocking one called on its own thread). */
    private interface Operations {
        suspend fun providers(country: String): List<MobileMoneyProvider>
        suspend fun banks(country: String): List<Bank>
        suspend fun verify(reference: String): Transaction
        suspend fun charge(request: ChargeRequest): ChargeResponse
        suspend fun confirm(reference: String, expected: ExpectedPayment): PaymentCheck
    }

    private fun operations(client: Client) = object : Operations {
        override suspend fun providers(country: String) = client.listMobileMoneyProviders(country)
        override suspend fun banks(country: String) = client.listBanks(country)
        override suspend fun verify(reference: String) = client.verifyTransaction(reference)
        override suspend fun charge(request: ChargeRequest) = client.initiateCharge(request)
        override suspend fun confirm(reference: String, expected: ExpectedPayment) = client.confirmPayment(reference, expected)
    }

    private fun operations(client: BlockingClient) = object : Operations {
        override suspend fun providers(country: String) = client.listMobileMoneyProviders(country)
        override suspend fun banks(country: String) = client.listBanks(country)
        override suspend fun verify(reference: String) = client.verifyTransaction(reference)
        override suspend fun charge(request: ChargeRequest) = client.initiateCharge(request)
        override suspend fun confirm(reference: String, expected: ExpectedPayment) = client.confirmPayment(reference, expected)
    }

    /** The answers one caller alone gets, to compare the concurrent callers' answers with. */
    private class Reference(val providers: Map<String, List<MobileMoneyProvider>>, val banks: Map<String, List<Bank>>)

    private fun reference(): Reference = runBlocking {
        sandbox.client().use { client ->
            Reference(
                MOBILE_MONEY.associateWith { client.listMobileMoneyProviders(it) },
                BANK_COUNTRIES.associateWith { client.listBanks(it) },
            )
        }
    }

    /**
     * Caller [index]'s mixed operations, each answer checked: its seeded transaction verified
     * and confirmed, providers and banks as one caller alone gets them, and a charge of its own
     * (a customer who never answers) that stays NotYet.
     */
    private suspend fun mixedCalls(ops: Operations, reference: Reference, prefix: String, index: Int) {
        val label = "$prefix caller $index"
        val country = MOBILE_MONEY[index % MOBILE_MONEY.size]
        assertEquals(reference.providers[country], ops.providers(country.lowercase()), label)
        val bankCountry = BANK_COUNTRIES[index % BANK_COUNTRIES.size]
        val banks = ops.banks(bankCountry)
        assertEquals(reference.banks[bankCountry], banks, label)
        val nuban = bankCountry == "NG"
        assertTrue(banks.isNotEmpty() && banks.all { (it.accountType == BankAccountType.Nuban) == nuban }, label)

        val transaction = ops.verify("$prefix-$index")
        assertEquals("$prefix-$index", transaction.txRef, label)
        assertEquals("$index.50", transaction.amount.toPlainString(), label)
        assertEquals(TransactionStatus.Successful, transaction.status, label)
        val paid = ops.confirm("$prefix-$index", ExpectedPayment(BigDecimal("$index.50"), "GHS"))
        assertEquals("$prefix-$index", assertInstanceOf(PaymentCheck.Confirmed::class.java, paid, label).transaction.txRef)

        val chargeReference = "$prefix-CHARGE-$index"
        val response = ops.charge(charge(chargeReference, phone = "+233244123333", amount = "$index.25"))
        assertEquals(200, response.httpStatus.toInt(), label)
        assertEquals(true, response.status, label)
        val waiting = ops.confirm(chargeReference, ExpectedPayment(BigDecimal("$index.25"), "GHS"))
        val pending = assertInstanceOf(PaymentCheck.NotYet::class.java, waiting, label).transaction
        assertEquals(chargeReference, pending.txRef, label)
        assertEquals(0, BigDecimal("$index.25").compareTo(pending.amount), label)
    }

    /** Every caller's every request reached the service exactly once. */
    private fun checkMixedRequests(prefix: String, callers: Int) {
        val requests = sandbox.requests().map { it["method"]!!.jsonPrimitive.content + " " + it["path"]!!.jsonPrimitive.content }
        for (index in 0 until callers) {
            assertEquals(2, requests.count { it == "GET /transaction/verify/$prefix-$index" }, "$prefix-$index: verify and confirm")
            assertEquals(1, requests.count { it == "GET /transaction/verify/$prefix-CHARGE-$index" }, "$prefix-CHARGE-$index")
        }
        assertEquals(callers, requests.count { it == "POST /charge" })
        assertEquals(callers, requests.count { it == "GET /mobile-money-providers" })
    }

    @Test
    fun testB31OneClientFor32CoroutinesOnThreeDispatchersWithMixedOperations() {
        val callers = 32
        val reference = reference()
        sandbox.reset()
        seed("MIXED", callers)
        Executors.newFixedThreadPool(4).asCoroutineDispatcher().use { fixed ->
            val dispatchers = listOf(Dispatchers.Default, Dispatchers.IO, fixed)
            runBlocking {
                sandbox.client().use { client ->
                    val ops = operations(client)
                    val start = CompletableDeferred<Unit>() // every coroutine calls at the same moment
                    val calls = (0 until callers).map { index ->
                        async(dispatchers[index % dispatchers.size]) {
                            start.await()
                            mixedCalls(ops, reference, "MIXED", index)
                        }
                    }
                    start.complete(Unit)
                    calls.awaitAll()
                }
            }
        }
        checkMixedRequests("MIXED", callers)
    }

    @Test
    fun testB31OneBlockingClientFor32ThreadsWithMixedOperations() {
        val callers = 32
        val reference = reference()
        sandbox.reset()
        seed("PLATFORM", callers)
        val start = CyclicBarrier(callers)
        val pool = Executors.newFixedThreadPool(callers) // 32 platform threads
        try {
            sandbox.blockingClient().use { client ->
                val ops = operations(client)
                val futures = (0 until callers).map { index ->
                    pool.submit<Unit> {
                        start.await()
                        runBlocking { mixedCalls(ops, reference, "PLATFORM", index) } // the calls block this thread
                    }
                }
                futures.forEach { it.get(60, TimeUnit.SECONDS) }
            }
        } finally {
            pool.shutdownNow()
        }
        checkMixedRequests("PLATFORM", callers)
    }

    private companion object {
        val MOBILE_MONEY = listOf("GH", "KE", "UG", "TZ")
        val BANK_COUNTRIES = listOf("GH", "NG", "KE", "UG", "TZ")
    }
}
