package dev.sika

import java.lang.reflect.Modifier
import java.util.concurrent.CancellationException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import kotlin.coroutines.Continuation
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows

/**
 * B44: what Java callers see (ADR 0018): a CompletableFuture twin of every suspend method, whose
 * cancellation cancels the call; static factories; constructors that declare their exception;
 * errors printed as `ClassName: message`. The Java example itself: JavaExampleIT.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaInteropTest {
    private val sandbox = Sandbox()

    @AfterAll
    fun stopSandbox() = sandbox.close()

    /** The methods Java sees as `Object name(args..., Continuation)`. */
    private fun suspendMethods(type: Class<*>) =
        type.methods.filter { it.parameterTypes.lastOrNull() == Continuation::class.java }

    @Test
    fun testB44EverySuspendMethodHasACompletableFutureTwin() {
        val suspends = suspendMethods(Client::class.java)
        assertTrue(suspends.size >= 8, "Client's suspend methods: ${suspends.map { it.name }}")
        for (method in suspends) {
            val parameters = method.parameterTypes.dropLast(1)
            val twin = Client::class.java.getMethod("${method.name}Async", *parameters.toTypedArray())
            assertEquals(CompletableFuture::class.java, twin.returnType, twin.toString())
        }
        // Optional last arguments can be left out, as in Kotlin.
        Client::class.java.getMethod("listBanksAsync")
        Client::class.java.getMethod("awaitFinalStatusAsync", String::class.java)
    }

    @Test
    fun testB44FuturesCompleteWithTheResultOrFailWithTheSikaException() {
        sandbox.seedTransaction(transactionObject("JAVA-PAID", "successful", "100.10"))
        sandbox.client().use { client ->
            val transaction = client.verifyTransactionAsync("JAVA-PAID").get(10, TimeUnit.SECONDS)
            assertEquals("JAVA-PAID", transaction.txRef)
            assertEquals("100.10", transaction.amount.toPlainString())

            val failed = assertThrows<ExecutionException> { client.verifyTransactionAsync("JAVA-NEVER").get(10, TimeUnit.SECONDS) }
            assertInstanceOf(SikaException.TransactionNotFound::class.java, failed.cause)
            // Bad input fails the future too, before anything is sent.
            val bad = assertThrows<ExecutionException> { client.verifyTransactionAsync("").get(10, TimeUnit.SECONDS) }
            assertEquals("reference", assertInstanceOf(SikaException.InvalidInput::class.java, bad.cause).field)
        }
    }

    @Test
    fun testB44CancellingTheFutureCancelsTheCall() = runBlocking<Unit> {
        Sandbox().use { own ->
            val baseline = own.openConnections()
            own.client().use { client ->
                own.fault("/transaction/verify", "hang", 4, JsonObject(emptyMap()))
                val futures = (0 until 4).map { client.verifyTransactionAsync("JAVA-HANG-$it") }
                val inFlight = pollUntil(5_000, own::openConnections) { it >= baseline + 4 }
                assertTrue(inFlight >= baseline + 4, "the calls should be waiting on the service: $inFlight open")
                futures.forEach { assertTrue(it.cancel(true)) }
                futures.forEach { assertThrows<CancellationException> { it.join() } }
                // The Rust futures were dropped: their connections close long before timeoutMs (10 s).
                val open = pollUntil(3_000, own::openConnections) { it == baseline }
                assertEquals(baseline, open, "open connections after cancelling the futures")
            }
        }
    }

    @Test
    fun testB44FactoriesAreStaticAndConstructorsDeclareSikaException() {
        for (type in listOf(Client::class.java, BlockingClient::class.java)) {
            val fromEnv = type.getMethod("fromEnv")
            assertTrue(Modifier.isStatic(fromEnv.modifiers), "$type.fromEnv() is static")
            assertTrue(SikaException::class.java in fromEnv.exceptionTypes, "$fromEnv")
            val constructor = type.getConstructor(ClientConfig::class.java)
            assertTrue(SikaException::class.java in constructor.exceptionTypes, "$constructor declares SikaException")
        }
        // And a bad setting is that exception, nothing sent.
        val negative = ClientConfig(SecretKey(KEY), sandbox.url, timeoutMs = -1)
        assertThrows<SikaException.InvalidInput> { BlockingClient(negative) }
    }

    /**
     * B194: every function of the package is a static method of `Sika` for Java (ADR 0067), with
     * the same parameters, result and declared exceptions as in `Sika_ffiKt` (which also holds
     * UniFFI's plumbing), default overloads included; and it is the same function.
     */
    @Test
    fun testB194EveryFunctionIsAStaticMethodOfSika() {
        val facade = Class.forName("dev.sika.Sika_ffiKt")
        val plumbing = Regex("^(uniffi|getUniffi|use$)")
        val functions = facade.methods.filter {
            Modifier.isStatic(it.modifiers) && !it.isSynthetic && it.declaringClass == facade && !plumbing.containsMatchIn(it.name)
        }
        assertTrue(functions.size >= 30, "the package's functions: ${functions.map { it.name }}")
        for (function in functions) {
            val onSika = runCatching { Sika::class.java.getMethod(function.name, *function.parameterTypes) }.getOrNull()
            assertTrue(onSika != null, "Sika.${function.name}${function.parameterTypes.map { it.simpleName }} is missing")
            assertTrue(Modifier.isStatic(onSika!!.modifiers), "$onSika is static")
            assertEquals(function.genericReturnType, onSika.genericReturnType, "$onSika")
            assertEquals(function.exceptionTypes.toSet(), onSika.exceptionTypes.toSet(), "$onSika")
        }
        val transaction = Transaction(amount = java.math.BigDecimal("25.50"), currency = "GHS", txRef = "B194-1", status = TransactionStatus.Successful, rawJson = "{}")
        assertEquals(transaction, Sika.transactionFromJson(transaction.toJson()))
        val body = """{"event":"charge.success","data":{"reference":"B194-1"}}""".toByteArray()
        assertEquals(parseWebhookEvent(body), Sika.parseWebhookEvent(body))
        assertThrows<SikaException.InvalidInput> { Sika.normalizePhoneNumber("phone", "GH") }
    }

    @Test
    fun testB44ErrorsPrintTheirClassThenTheCoresMessage() {
        val error = assertThrows<SikaException.InvalidInput> { normalizePhoneNumber("phone", "GH") }
        assertEquals(error.message(), error.message, "getMessage() is the core's text")
        assertEquals("dev.sika.SikaException\$InvalidInput: ${error.message()}", error.toString())
        val trace = java.io.StringWriter().also { error.printStackTrace(java.io.PrintWriter(it)) }.toString()
        assertTrue(trace.startsWith("dev.sika.SikaException\$InvalidInput: "), trace)
        assertFalse(error.toString().contains(KEY))
    }
}
