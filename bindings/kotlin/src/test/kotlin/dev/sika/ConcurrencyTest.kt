package dev.sika

import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/** B18: one client shared by many threads or coroutines at once. */
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
}
