package dev.sika.examples.ktor

import dev.sika.Client
import dev.sika.ClientConfig
import dev.sika.Ledger
import dev.sika.SecretKey
import dev.sika.otel.SikaOpenTelemetry
import dev.sika.testing.SikaSandbox
import dev.sika.testing.SikaSandboxExtension
import io.ktor.server.application.ApplicationCallPipeline
import io.ktor.server.application.call
import io.ktor.server.cio.CIO
import io.ktor.server.engine.embeddedServer
import io.ktor.server.request.httpMethod
import io.ktor.server.request.path
import io.opentelemetry.api.trace.SpanKind
import io.opentelemetry.context.Context
import io.opentelemetry.extension.kotlin.asContextElement
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter
import io.opentelemetry.sdk.trace.SdkTracerProvider
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.time.Duration
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.extension.ExtendWith

/**
 * B209: the Ktor shop with the OpenTelemetry SDK (in-memory exporter) and Sika's adapter
 * installed. A request's server span is made here, by a small interceptor that does what a
 * server instrumentation does (OpenTelemetry's Ktor instrumentation is not on the registry this
 * project builds from): the span current in the request's coroutine (`asContextElement()`).
 * Sika's call made by the handler is that span's child, its attempts the call's children, and
 * the service receives the request's trace. A process has one tracer: installed once here.
 */
@ExtendWith(SikaSandboxExtension::class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObservabilityTest(private val sandbox: SikaSandbox) {
    private val spans = InMemorySpanExporter.create()
    private val tracers = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()
    private val openTelemetry = OpenTelemetrySdk.builder().setTracerProvider(tracers).build()
    private val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    init {
        check(SikaOpenTelemetry.install(openTelemetry)) { "another tracer was installed first in this JVM" }
    }

    @AfterAll
    fun stop() = tracers.close()

    @Test
    fun b209_a_shop_requests_span_is_the_parent_of_sikas_call_and_its_trace_reaches_the_service() {
        val dir = Files.createTempDirectory("sika-ktor-otel").toFile()
        val tracer = openTelemetry.getTracer("shop")
        val server = embeddedServer(CIO, port = 0, host = "127.0.0.1") {
            // A SERVER span per request, current in the request's coroutine.
            intercept(ApplicationCallPipeline.Monitoring) {
                val span = tracer.spanBuilder("${call.request.httpMethod.value} ${call.request.path()}")
                    .setSpanKind(SpanKind.SERVER).startSpan()
                try {
                    withContext(Context.current().with(span).asContextElement()) { proceed() }
                } finally {
                    span.end()
                }
            }
            shop(Client(ClientConfig(SecretKey(sandbox.secretKey()), sandbox.baseUrl(), timeoutMs = 5_000)), Ledger.sqlite(File(dir, "ledger.db").path))
        }.start(wait = false)
        try {
            val url = "http://127.0.0.1:${runBlocking { server.engine.resolvedConnectors().first().port }}"
            val placed = http.send(
                HttpRequest.newBuilder(URI.create("$url/orders")).timeout(Duration.ofSeconds(20))
                    .POST(HttpRequest.BodyPublishers.ofString("""{"amount":"7.50","email":"ama@example.com","phone_number":"+233244123333"}"""))
                    .header("content-type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString(),
            )
            assertEquals(201, placed.statusCode(), placed.body())
            val reference = Json.parseToJsonElement(placed.body()).jsonObject.getValue("reference").jsonPrimitive.content
            spans.reset()
            val before = sandbox.requests().size

            val checked = http.send(
                HttpRequest.newBuilder(URI.create("$url/orders/$reference")).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString(),
            )
            assertEquals(200, checked.statusCode(), checked.body())

            // The server span ends after the answer is written: wait for it (a bounded while).
            val serverSpan = "GET /orders/$reference"
            val end = System.nanoTime() + Duration.ofSeconds(20).toNanos()
            while (spans.finishedSpanItems.none { it.name == serverSpan } && System.nanoTime() < end) Thread.sleep(20)
            val finished = spans.finishedSpanItems
            val request = finished.single { it.kind == SpanKind.SERVER && it.name == serverSpan }
            val call = finished.single { it.name == "sika.confirm_payment" }
            assertEquals(request.spanId, call.parentSpanId, "Sika's call is the request span's child: $finished")
            assertEquals(request.traceId, call.traceId)
            val attempts = finished.filter { it.kind == SpanKind.CLIENT }
            assertTrue(attempts.isNotEmpty() && attempts.all { it.parentSpanId == call.spanId }, "$attempts")
            assertEquals(List(attempts.size) { "GET /transaction/verify/{reference}" }, attempts.map { it.name })
            val sent = sandbox.requests().drop(before).map { it["traceparent"] }
            assertEquals(List(attempts.size) { "00-${call.traceId}-${call.spanId}-${call.spanContext.traceFlags.asHex()}" }, sent)
        } finally {
            server.stop(100, 5_000)
            dir.deleteRecursively()
        }
    }
}
