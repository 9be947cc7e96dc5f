package dev.sika

import java.util.concurrent.CyclicBarrier
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B48: concurrent callers of one bank list during an outage share one fetch (one request reaches
 * the service) and its outcome, failure included, and each returns within its own `timeoutMs`,
 * never after the callers before it have each used theirs. Every parameter comes from
 * faults.json's `concurrent_bank_fetch_during_outage`.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BankFlightTest {
    private val sandbox = Sandbox()
    private val setup = scenario("concurrent_bank_fetch_during_outage")
    private val callers = setup.int("callers")
    private val country = setup.text("country")
    private val timeoutMs = setup.int("timeout_ms").toLong()

    /** Queued callers would take `callers × timeout`; sharing takes one. The bound leaves room for a loaded machine. */
    private val boundMs = setup.int("bound_in_timeouts") * timeoutMs

    @AfterAll
    fun stopSandbox() = sandbox.close()

    @BeforeEach
    fun resetSandbox() = sandbox.reset()

    private fun config() = sandbox.config().copy(timeoutMs = timeoutMs, maxRetries = setup.int("max_retries"))

    /** Puts the scenario's fault [name] (`hang`, `slow_503`) in place; returns it. */
    private fun outage(name: String): JsonObject {
        val fault = setup["faults"]!!.jsonObject[name]!!.jsonObject
        sandbox.fault(setup.text("path"), fault.text("kind"), fault.int("count"), fault["options"]!!.jsonObject)
        return fault
    }

    private fun bankRequests() = sandbox.requests().count { it.text("path").startsWith(setup.text("path")) }

    /** Each outcome is the fault's error (for a 503, the same status and text for all), within the bound. */
    private fun assertShared(fault: JsonObject, outcomes: List<Result<List<Bank>>>, tookMs: Long) {
        assertEquals(callers, outcomes.size)
        val kinds = outcomes.map { outcome -> outcome.fold({ "Ok" }, { it::class.simpleName }) }
        assertEquals(List(callers) { fault.text("error") }, kinds, "${outcomes.map { it.exceptionOrNull()?.message ?: "a bank list" }}")
        if ("http_status" in fault) {
            val answers = outcomes.map { (it.exceptionOrNull() as SikaException.Api).let { error -> error.httpStatus to error.message } }
            assertEquals(setOf(fault.int("http_status") to answers[0].second), answers.toSet())
        }
        assertTrue(tookMs < boundMs, "$callers callers took $tookMs ms, more than $boundMs")
        assertEquals(1, bankRequests(), "one flight, one request")
    }

    private fun blockingCalls(client: BlockingClient): Pair<List<Result<List<Bank>>>, Long> {
        val startTogether = CyclicBarrier(callers)
        val pool = Executors.newFixedThreadPool(callers)
        try {
            val started = System.nanoTime()
            val futures = (0 until callers).map {
                pool.submit<Result<List<Bank>>> {
                    startTogether.await()
                    runCatching { client.listBanks(country) }
                }
            }
            val outcomes = futures.map { it.get(30, TimeUnit.SECONDS) }
            return outcomes to (System.nanoTime() - started) / 1_000_000
        } finally {
            pool.shutdownNow()
        }
    }

    private fun suspendCalls(client: Client): Pair<List<Result<List<Bank>>>, Long> = runBlocking {
        val started = System.nanoTime()
        val outcomes = (0 until callers).map { async(Dispatchers.Default) { runCatching { client.listBanks(country) } } }.awaitAll()
        outcomes to (System.nanoTime() - started) / 1_000_000
    }

    @Test
    fun testB48BlockingCallersDuringAHangShareOneFetchAndTimeOutTogether() {
        BlockingClient(config()).use { client ->
            val fault = outage("hang")
            val (outcomes, tookMs) = blockingCalls(client)
            assertShared(fault, outcomes, tookMs)

            sandbox.clearFaults()
            assertTrue(client.listBanks(country).isNotEmpty(), "the call after the failure fetches again")
            assertEquals(2, bankRequests())
        }
    }

    @Test
    fun testB48BlockingCallersShareOneFetchAndIts5xx() {
        BlockingClient(config()).use { client ->
            val fault = outage("slow_503")
            val (outcomes, tookMs) = blockingCalls(client)
            assertShared(fault, outcomes, tookMs)
        }
    }

    @Test
    fun testB48SuspendCallersDuringAHangShareOneFetchAndTimeOutTogether() {
        Client(config()).use { client ->
            val fault = outage("hang")
            val (outcomes, tookMs) = suspendCalls(client)
            assertShared(fault, outcomes, tookMs)

            sandbox.clearFaults()
            assertTrue(runBlocking { client.listBanks(country) }.isNotEmpty(), "the call after the failure fetches again")
            assertEquals(2, bankRequests())
        }
    }

    @Test
    fun testB48SuspendCallersShareOneFetchAndIts5xx() {
        Client(config()).use { client ->
            val fault = outage("slow_503")
            val (outcomes, tookMs) = suspendCalls(client)
            assertShared(fault, outcomes, tookMs)
        }
    }

    private fun JsonObject.text(name: String) = this[name]!!.jsonPrimitive.content

    private fun JsonObject.int(name: String) = this[name]!!.jsonPrimitive.int
}
