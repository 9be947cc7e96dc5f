package dev.sika.otel

import dev.sika.CallEnd
import dev.sika.CallStart
import dev.sika.BlockingClient
import dev.sika.BlockingLedger
import dev.sika.Client
import dev.sika.ExpectedPayment
import dev.sika.KEY
import dev.sika.LedgerDecision
import dev.sika.PaymentCheck
import dev.sika.fulfil
import dev.sika.Sandbox
import dev.sika.SikaException
import dev.sika.charge
import dev.sika.transactionObject
import io.opentelemetry.api.OpenTelemetry
import io.opentelemetry.api.common.AttributeKey
import io.opentelemetry.api.common.Attributes
import io.opentelemetry.api.metrics.MeterProvider
import io.opentelemetry.api.trace.SpanKind
import io.opentelemetry.api.trace.StatusCode
import io.opentelemetry.api.trace.Tracer
import io.opentelemetry.api.trace.TracerProvider
import io.opentelemetry.context.Context
import io.opentelemetry.context.propagation.ContextPropagators
import io.opentelemetry.extension.kotlin.asContextElement
import io.opentelemetry.sdk.metrics.SdkMeterProvider
import io.opentelemetry.sdk.metrics.data.MetricData
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.data.SpanData
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor
import java.io.File
import java.math.BigDecimal
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance

/**
 * B209: the JVM's OpenTelemetry adapter ([SikaOpenTelemetry], ADR 0058) with the OpenTelemetry
 * SDK's in-memory exporters, against the sandbox. A process has one tracer, so this class runs
 * in a JVM of its own (the pom's `opentelemetry` Surefire execution), where it installs the
 * adapter once, over an OpenTelemetry whose tracers the tests switch between the SDK and none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SikaOpenTelemetryTest {
    private val sandbox = Sandbox()
    private val spans = InMemorySpanExporter.create()
    private val metrics = InMemoryMetricReader.createDelta()
    private val sdkTracers = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()
    private val sdkMeters = SdkMeterProvider.builder().registerMetricReader(metrics).build()

    /** The application's OpenTelemetry: the SDK's, or none (`OpenTelemetry.noop()`'s tracers). */
    @Volatile
    private var tracers: TracerProvider = sdkTracers

    private val application = object : OpenTelemetry {
        override fun getTracerProvider(): TracerProvider = object : TracerProvider {
            override fun get(instrumentationScopeName: String): Tracer =
                Tracer { name -> tracers.get(instrumentationScopeName).spanBuilder(name) }

            override fun get(instrumentationScopeName: String, instrumentationScopeVersion: String): Tracer =
                get(instrumentationScopeName)
        }

        override fun getMeterProvider(): MeterProvider = sdkMeters

        override fun getPropagators(): ContextPropagators = ContextPropagators.noop()
    }

    /** The app's own tracer: the request span its handler runs in. */
    private val app: Tracer = sdkTracers.get("shop")

    init {
        check(SikaOpenTelemetry.install(application)) { "another tracer was installed first in this JVM" }
    }

    @BeforeEach
    fun clear() {
        tracers = sdkTracers
        spans.reset()
        metrics.collectAllMetrics()
        sandbox.clearFaults()
        sandbox.clearRequests()
    }

    @AfterAll
    fun stop() {
        sandbox.close()
        sdkTracers.close()
        sdkMeters.close()
    }

    private fun seed(reference: String) = sandbox.seedTransaction(transactionObject(reference, "successful", "100.10"))

    private fun exported(name: String): SpanData = spans.finishedSpanItems.single { it.name == name }

    private fun attempts(): List<SpanData> = spans.finishedSpanItems.filter { it.kind == SpanKind.CLIENT }.sortedBy { it.startEpochNanos }

    private fun sentTraceparents(): List<Any?> = sandbox.requests().map { it["traceparent"] }

    private fun traceparentOf(span: SpanData) = JsonPrimitive("00-${span.traceId}-${span.spanId}-${span.spanContext.traceFlags.asHex()}")

    /** Runs [call] inside an application span `handler`; returns that span's data. */
    private fun <T> inAppSpan(call: () -> T): Pair<SpanData, Result<T>> {
        val parent = app.spanBuilder("handler").startSpan()
        val result = parent.makeCurrent().use { runCatching(call) }
        parent.end()
        return exported("handler") to result
    }

    private fun assertCallUnder(parent: SpanData, name: String = "sika.verify_transaction"): SpanData {
        val call = exported(name)
        assertEquals(SpanKind.INTERNAL, call.kind)
        assertEquals(parent.traceId, call.traceId)
        assertEquals(parent.spanId, call.parentSpanId, "the call's span is the application span's child")
        for (attempt in attempts()) {
            assertEquals(call.spanId, attempt.parentSpanId, "the attempt ${attempt.name} is the call's child")
            assertEquals(call.traceId, attempt.traceId)
        }
        assertEquals(List(sandbox.requests().size) { traceparentOf(call) }, sentTraceparents(), "the call's context reaches the service")
        return call
    }

    private fun attributes(vararg pairs: Pair<String, Any>): Attributes = Attributes.builder().apply {
        for ((key, value) in pairs) {
            when (value) {
                is String -> put(AttributeKey.stringKey(key), value)
                is Number -> put(AttributeKey.longKey(key), value.toLong())
                else -> error("$key: $value")
            }
        }
    }.build()

    private val port: Long get() = sandbox.url.substringAfterLast(':').trimEnd('/').toLong()

    @Test
    fun testB209ABlockingCallIsTheAppSpansChildAndItsAttemptsTheCallsChildren() {
        seed("B209-BLOCKING")
        val (parent, result) = inAppSpan { sandbox.blockingClient().use { it.verifyTransaction("B209-BLOCKING") } }
        assertEquals("B209-BLOCKING", result.getOrThrow().txRef)
        val call = assertCallUnder(parent)
        assertEquals(attributes("sika.operation" to "verify_transaction", "sika.reference" to "B209-BLOCKING").asMap(), call.attributes.asMap())
        assertEquals(StatusCode.UNSET, call.status.statusCode)
        val attempt = attempts().single()
        assertEquals("GET /transaction/verify/{reference}", attempt.name)
        assertTrue(attempt.startEpochNanos in 1..attempt.endEpochNanos, "the attempt's own times: ${attempt.startEpochNanos}..${attempt.endEpochNanos}")
        assertEquals(1, sandbox.requests().size)
    }

    @Test
    fun testB209ASuspendCallUnderRunBlockingIsTheAppSpansChild() {
        seed("B209-SUSPEND")
        val (parent, result) = inAppSpan { runBlocking { sandbox.client().use { it.verifyTransaction("B209-SUSPEND") } } }
        assertEquals("B209-SUSPEND", result.getOrThrow().txRef)
        assertCallUnder(parent)
    }

    /**
     * B263: Java's `...Async` twins, called inside the application's span on its thread and
     * joined there, are its children (they start on the calling thread; before, on a pool
     * thread, each started a trace of its own); so is one joined on another thread after the
     * span ended: the parent is where the call was made.
     */
    @Test
    fun testB263AnAsyncTwinCalledInTheAppSpansScopeIsItsChild() {
        seed("B263-ASYNC")
        val (parent, result) = inAppSpan { sandbox.client().use { it.verifyTransactionAsync("B263-ASYNC").join() } }
        assertEquals("B263-ASYNC", result.getOrThrow().txRef)
        assertCallUnder(parent)
        spans.reset()
        sandbox.clearRequests()
        // Called in the scope, joined after it ended, from another thread: the parent is where it was called.
        sandbox.client().use { client ->
            val span = app.spanBuilder("handler").startSpan()
            val future = span.makeCurrent().use { client.confirmPaymentAsync("B263-ASYNC", ExpectedPayment(BigDecimal("100.10"), "GHS")) }
            span.end()
            val check = java.util.concurrent.CompletableFuture.supplyAsync { future.join() }.get(30, TimeUnit.SECONDS)
            assertTrue(check is PaymentCheck.Confirmed, "$check")
            assertCallUnder(exported("handler"), "sika.confirm_payment")
        }
    }

    @Test
    fun testB209ASuspendCallOnAnotherDispatcherFollowsTheCoroutinesContext() {
        seed("B209-COROUTINE")
        val parent = app.spanBuilder("handler").startSpan()
        val context = Context.current().with(parent)
        // Started outside the span: only the coroutine's context element carries it, to a
        // dispatcher thread where the call's first poll runs.
        val transaction = runBlocking {
            withContext(context.asContextElement() + Dispatchers.Default) {
                sandbox.client().use { it.verifyTransaction("B209-COROUTINE") }
            }
        }
        parent.end()
        assertEquals("B209-COROUTINE", transaction.txRef)
        assertCallUnder(exported("handler"))
    }

    @Test
    fun testB209ACallRetriedTwiceHasThreeAttemptSpansWithExactAttributesAndMetrics() {
        seed("B209-RETRIED")
        sandbox.fault("/transaction/verify", "status", 2, JsonObject(mapOf("status" to JsonPrimitive(503))))
        val (parent, result) = inAppSpan {
            Client(sandbox.config().copy(maxRetries = 3)).use { runBlocking { it.verifyTransaction("B209-RETRIED") } }
        }
        assertEquals("B209-RETRIED", result.getOrThrow().txRef)
        val call = assertCallUnder(parent)
        assertEquals(StatusCode.UNSET, call.status.statusCode)
        val attempts = attempts()
        assertEquals(3, sandbox.requests().size)
        assertEquals(List(3) { "GET /transaction/verify/{reference}" }, attempts.map { it.name })
        val common = arrayOf(
            "http.request.method" to "GET",
            "server.address" to "127.0.0.1",
            "server.port" to port,
            "url.template" to "/transaction/verify/{reference}",
        )
        val expected = listOf(
            attributes(*common, "http.response.status_code" to 503, "error.type" to "503"),
            attributes(*common, "http.response.status_code" to 503, "error.type" to "503", "http.request.resend_count" to 1),
            attributes(*common, "http.response.status_code" to 200, "http.request.resend_count" to 2),
        )
        val requestIds = attempts.map { it.attributes.get(AttributeKey.stringKey("sika.request_id")) }
        assertEquals(
            expected.map { it.asMap() },
            attempts.map { it.attributes.toBuilder().remove(AttributeKey.stringKey("sika.request_id")).build().asMap() },
        )
        assertEquals(3, requestIds.filterNotNull().toSet().size, "each attempt its own request id: $requestIds")
        assertEquals(listOf(StatusCode.ERROR, StatusCode.ERROR, StatusCode.UNSET), attempts.map { it.status.statusCode })
        attempts.zipWithNext { a, b -> assertTrue(a.endEpochNanos <= b.startEpochNanos, "attempts in turn: ${a.endEpochNanos} > ${b.startEpochNanos}") }

        // Metrics: one duration per attempt (their spans' durations), one retry per resend.
        val recorded = metrics.collectAllMetrics()
        val duration = recorded.single { it.name == "http.client.request.duration" }
        assertEquals("s", duration.unit)
        val points = duration.histogramData.points.associate { it.attributes to it.count }
        val metricCommon = attributes(*common)
        assertEquals(
            mapOf(
                metricCommon.toBuilder().putAll(attributes("http.response.status_code" to 503, "error.type" to "503")).build() to 2L,
                metricCommon.toBuilder().putAll(attributes("http.response.status_code" to 200)).build() to 1L,
            ),
            points,
        )
        val seconds = duration.histogramData.points.sumOf { it.sum }
        val spanSeconds = attempts.sumOf { it.endEpochNanos - it.startEpochNanos } / 1e9
        assertEquals(spanSeconds, seconds, 1e-6, "the histogram holds the attempts' durations")
        val retries = recorded.single { it.name == "sika.client.retries" }
        assertEquals(listOf(metricCommon to 2L), retries.longSumData.points.map { it.attributes to it.value })
    }

    /**
     * B305: the ledger's operations (ADR 0085) are spans `sika.ledger.<operation>`, children of
     * the application's span, whose verifications are their attempt spans and carry their
     * context; the fulfilment block's renew and mark are spans there too; its claims offered and
     * fulfilments are counted.
     */
    @Test
    fun testB305TheLedgersOperationsAreSpansUnderTheAppSpanWithTheirVerificationsAsChildren() {
        seed("B305-LEDGER")
        val dir = java.nio.file.Files.createTempDirectory("sika-b305").toFile()
        try {
            BlockingLedger.sqlite(dir.resolve("ledger.db").path).use { ledger ->
                ledger.expect("B305-LEDGER", ExpectedPayment(BigDecimal("100.10"), "GHS"))
                spans.reset()
                metrics.collectAllMetrics()
                sandbox.clearRequests()
                val body = """{"event":"charge.success","data":{"reference":"B305-LEDGER"}}""".toByteArray()
                val (parent, result) = inAppSpan {
                    sandbox.blockingClient().use { client ->
                        val decision = ledger.handleWebhook(client, body)
                        ledger.fulfil((decision as LedgerDecision.Fulfil).claim) { }
                        decision
                    }
                }
                assertTrue(result.getOrThrow() is LedgerDecision.Fulfil, "$result")
                val decide = assertCallUnder(parent, "sika.ledger.handle_webhook")
                assertEquals("fulfil", decide.attributes.get(AttributeKey.stringKey("sika.decision")))
                assertEquals(1, attempts().size, "the one verification is the decision's child")
                // The fulfilment block's renewal and mark, in the application's span too.
                for (name in listOf("sika.ledger.renew", "sika.ledger.mark_fulfilled")) {
                    val span = exported(name)
                    assertEquals(parent.spanId, span.parentSpanId, name)
                    assertEquals("B305-LEDGER", span.attributes.get(AttributeKey.stringKey("sika.reference")), name)
                }
                val counted = metrics.collectAllMetrics().associate { metric ->
                    metric.name to metric.longSumData.points.sumOf { it.value }
                }.filterKeys { it.startsWith("sika.ledger.") }
                assertEquals(mapOf("sika.ledger.claims.offered" to 1L, "sika.ledger.fulfilments" to 1L), counted)
            }
        } finally {
            dir.deleteRecursively()
        }
    }

    @Test
    fun testB209ADecisionIsCountedByKindAndNamedOnTheCallsSpan() {
        seed("B209-DECIDED")
        val (parent, result) = inAppSpan {
            BlockingClient(sandbox.config()).use { it.confirmPayment("B209-DECIDED", ExpectedPayment(BigDecimal("100.10"), "GHS")) }
        }
        assertTrue(result.getOrThrow() is PaymentCheck.Confirmed)
        val call = assertCallUnder(parent, "sika.confirm_payment")
        assertEquals("confirmed", call.attributes.get(AttributeKey.stringKey("sika.decision")))
        val decisions = metrics.collectAllMetrics().single { it.name == "sika.decisions" }
        assertEquals(
            listOf(attributes("sika.operation" to "confirm_payment", "sika.decision" to "confirmed") to 1L),
            decisions.longSumData.points.map { it.attributes to it.value },
        )
    }

    @Test
    fun testB209AFailedCallNamesItsErrorAndRequestIdOnBothSpans() {
        val (parent, result) = inAppSpan {
            sandbox.blockingClient("sk_test_wrong_key_b209").use { it.verifyTransaction("B209-UNAUTHORIZED") }
        }
        val error = result.exceptionOrNull() as SikaException.Unauthorized
        // The call's: the error's (the service's answer's id); the attempt's: the id it sent.
        val request = sandbox.requests().single()
        val requestId = error.requestId!!
        assertEquals(request["answered_request_id"], JsonPrimitive(requestId))
        val sentId = request.getValue("request_id").let { (it as JsonPrimitive).content }
        val call = assertCallUnder(parent)
        assertEquals(StatusCode.ERROR, call.status.statusCode)
        assertEquals(
            attributes(
                "sika.operation" to "verify_transaction", "sika.reference" to "B209-UNAUTHORIZED",
                "error.type" to "Unauthorized", "sika.request_id" to requestId,
            ).asMap(),
            call.attributes.asMap(),
        )
        val attempt = attempts().single()
        assertEquals(StatusCode.ERROR, attempt.status.statusCode)
        assertEquals(
            attributes(
                "http.request.method" to "GET", "server.address" to "127.0.0.1", "server.port" to port,
                "url.template" to "/transaction/verify/{reference}", "http.response.status_code" to 401,
                "error.type" to "401", "sika.request_id" to sentId,
            ).asMap(),
            attempt.attributes.asMap(),
        )
        assertTrue(metrics.collectAllMetrics().none { it.name == "sika.client.retries" }, "no retry counted")
    }

    @Test
    fun testB209ATimedOutCallIsAnErrorWithItsAttempt() {
        seed("B209-TIMEOUT")
        sandbox.fault("/transaction/verify", "hang")
        val (parent, result) = inAppSpan {
            Client(sandbox.config().copy(timeoutMs = 300, maxRetries = 0)).use { runBlocking { it.verifyTransaction("B209-TIMEOUT") } }
        }
        val error = result.exceptionOrNull()
        assertTrue(error is SikaException.Timeout, "$error")
        val call = assertCallUnder(parent)
        assertEquals("Timeout", call.attributes.get(AttributeKey.stringKey("error.type")))
        assertEquals(StatusCode.ERROR, call.status.statusCode)
        val attempt = attempts().single()
        assertEquals("Timeout", attempt.attributes.get(AttributeKey.stringKey("error.type")))
        assertNull(attempt.attributes.get(AttributeKey.longKey("http.response.status_code")))
        // No answer: the error's request id is the one the attempt sent.
        val sent = (sandbox.requests().single().getValue("request_id") as JsonPrimitive).content
        assertEquals(listOf(sent, sent), listOf(attempt, call).map { it.attributes.get(AttributeKey.stringKey("sika.request_id")) })
        assertEquals(sent, (error as SikaException.Timeout).requestId)
    }

    @Test
    fun testB209NoKeyPhoneOrEmailInAnySpanEventOrMetric() {
        val phone = "+233244125678"
        val email = "ama@example.com"
        val (parent, result) = inAppSpan {
            sandbox.blockingClient().use { client ->
                client.initiateCharge(charge("B209-CHARGE", phone = phone))
                client.verifyTransaction("B209-CHARGE")
            }
        }
        result.getOrThrow()
        val calls = spans.finishedSpanItems.filter { it.name.startsWith("sika.") }
        assertEquals(setOf("sika.initiate_charge", "sika.verify_transaction"), calls.map { it.name }.toSet())
        assertTrue(calls.all { it.parentSpanId == parent.spanId }, "$calls")
        assertEquals(2, attempts().size)
        val texts = spans.finishedSpanItems.flatMap { span ->
            listOf(span.name, span.attributes.toString(), span.events.toString(), span.links.toString(), span.status.toString())
        } + metrics.collectAllMetrics().map(MetricData::toString)
        for (secret in listOf(KEY, phone, phone.removePrefix("+"), phone.takeLast(9), email, "ama@")) {
            assertTrue(texts.none { secret in it }, "$secret in ${texts.filter { secret in it }}")
        }
    }

    @Test
    fun testB209WithNoSdkNothingIsSentAndNoSpanMade() {
        seed("B209-NOOP")
        tracers = OpenTelemetry.noop().tracerProvider
        sandbox.blockingClient().use { assertEquals("B209-NOOP", it.verifyTransaction("B209-NOOP").txRef) }
        assertEquals(listOf(JsonNull), sentTraceparents())
        assertEquals(emptyList<SpanData>(), spans.finishedSpanItems)
    }

    @Test
    fun testB209TheFirstTracerStaysAndABrokenOpenTelemetryNeverThrowsIntoTheCore() {
        assertFalse(SikaOpenTelemetry.install(OpenTelemetry.noop()), "a second install is refused")
        val broken = OpenTelemetryTracer { throw IllegalStateException("no OpenTelemetry") }
        assertNull(broken.callStarted(CallStart("verify_transaction", "B209-BROKEN", "127.0.0.1", 1)))
        broken.callEnded(CallEnd(1, "Timeout", "req-1", emptyList(), null, emptyList()))
        // A span builder that fails after the start: still no exception, the call untraced.
        val failing = OpenTelemetryTracer {
            object : OpenTelemetry by OpenTelemetry.noop() {
                override fun getTracerProvider(): TracerProvider = object : TracerProvider {
                    override fun get(instrumentationScopeName: String): Tracer = throw UnsupportedOperationException()

                    override fun get(instrumentationScopeName: String, instrumentationScopeVersion: String): Tracer =
                        throw UnsupportedOperationException()
                }
            }
        }
        assertNull(failing.callStarted(CallStart("verify_transaction", null, "127.0.0.1", 1)))
        assertEquals(emptyList<SpanData>(), spans.finishedSpanItems)
    }

    /** An application without OpenTelemetry on its classpath uses the same jar unaffected. */
    @Test
    fun testB209SikaWorksWithoutOpenTelemetryOnTheClassPath() {
        seed("B209-NO-OTEL")
        val classPath = (System.getProperty("surefire.test.class.path") ?: System.getProperty("java.class.path"))
            .split(File.pathSeparator)
            .filterNot { "opentelemetry" in it }
        assertTrue(classPath.any { "kotlin-stdlib" in it } && classPath.any { "jna" in it }, "$classPath")
        val java = File(System.getProperty("java.home"), "bin/java").path
        val process = ProcessBuilder(java, "-cp", classPath.joinToString(File.pathSeparator), NoOpenTelemetry::class.java.name, sandbox.url, "B209-NO-OTEL")
            .redirectErrorStream(true)
            .start()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM without OpenTelemetry did not finish")
        val output = process.inputStream.bufferedReader().readText()
        assertEquals(0, process.exitValue(), output)
        assertEquals("no OpenTelemetry\nB209-NO-OTEL successful\n", output)
        assertEquals(listOf(JsonNull), sentTraceparents())
    }
}

/** Run in a JVM without OpenTelemetry: a blocking call against the sandbox (args: its URL, a reference). */
object NoOpenTelemetry {
    @JvmStatic
    fun main(args: Array<String>) {
        val absent = runCatching { Class.forName("io.opentelemetry.api.OpenTelemetry") }.isFailure
        println(if (absent) "no OpenTelemetry" else "OpenTelemetry present")
        dev.sika.BlockingClient(dev.sika.ClientConfig(dev.sika.SecretKey(KEY), args[0], timeoutMs = 10_000)).use { client ->
            val transaction = client.verifyTransaction(args[1])
            println("${transaction.txRef} ${transaction.status.toString().lowercase()}")
        }
    }
}
